"""Provides :func:`take_id_map`: the store's map of ids, made as it read the file, handed to
the tree built from it (instead of the tree making a second dict with a key per entry).
"""

from __future__ import annotations

from piview.model.store import NodeStore


def take_id_map(store: NodeStore) -> dict[str, int] | None:
    """The map from each id to its last entry in ``store``, taken from the store (which then
    resolves parents as after ``rebase({})``); None when it has no such map."""
    recent = store._recent  # its ownership moves to the tree here
    if recent is None or store._base is not None:
        return None
    if len(recent) != len(store) and (len(recent) > len(store) or "" in store.ids):
        return None  # an empty id (kept by the tree, not by the store): the tree's own map
    store.rebase({})
    return recent
