"""Provides what :class:`~piview.model.session.Session` hands its tree: a tree's map of ids
(the entries' timestamps are :class:`~piview.model.store_ts.StoreTimestamps`)."""

from __future__ import annotations

from collections.abc import Mapping

from piview.model.tree import Tree

__all__ = ["tree_ids"]


def tree_ids(tree: Tree) -> Mapping[str, int]:
    """``tree.id_index``; for a tree reopened from the index cache, what
    :func:`~piview.model.index_extras.ids_of` gives (imported only then: a first screen's tail
    never needs that module)."""
    if type(tree) is Tree:
        return tree.id_index
    from piview.model.index_extras import ids_of

    return ids_of(tree)
