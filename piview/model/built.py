"""Provides :class:`Built`: the ids and tree of a session's entries, as ``Session.build``
makes them (kept apart from :mod:`piview.model.follow`, which a first screen does not need)."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from piview.model.tree import Tree

__all__ = ["Built"]


class Built(NamedTuple):
    """The ids and tree of a session's entries (``Session.build``). A NamedTuple, not a
    frozen dataclass: made at import before the first screen, a tenth of the time."""

    ids: list[str]
    tree: Tree
    legacy: bool
