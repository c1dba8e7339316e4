"""Provides :class:`Built`: the ids and tree of a session's entries, as ``Session.build``
makes them (kept apart from :mod:`piview.model.follow`, which a first screen does not need)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from piview.model.tree import Tree

__all__ = ["Built"]


@dataclass(frozen=True, slots=True)
class Built:
    """The ids and tree of a session's entries (``Session.build``)."""

    ids: list[str]
    tree: Tree
    legacy: bool
