"""Provides what :class:`~piview.model.session.Session` hands its tree: the entries'
timestamps read from the store when sorting, and a tree's map of ids."""

from __future__ import annotations

from collections.abc import Mapping

from piview.model.store import NodeStore
from piview.model.tree import Tree

__all__ = ["StoreTimestamps", "tree_ids"]


class StoreTimestamps:
    """The entries' timestamps for the tree (:class:`~piview.model.tree.Timestamps`), read
    from the store only when sorting."""

    __slots__ = ("_store",)

    def __init__(self, store: NodeStore) -> None:
        self._store = store

    def __getitem__(self, i: int) -> str | None:
        return self._store.timestamp(i)

    def __len__(self) -> int:
        return len(self._store)


def tree_ids(tree: Tree) -> Mapping[str, int]:
    """``tree.id_index``; for a tree reopened from the index cache, what
    :func:`~piview.model.index_extras.ids_of` gives (imported only then: a first screen's tail
    never needs that module)."""
    if type(tree) is Tree:
        return tree.id_index
    from piview.model.index_extras import ids_of

    return ids_of(tree)
