"""Provides :func:`take_id_map`: the store's map of ids, made as it read the file, handed to
the tree built from it (instead of the tree making a second dict with a key per entry).

The store's ``NodeStore._recent`` is the tree's :attr:`~piview.model.tree.Tree.id_index`:
the same ids, last one winning, in first-sight order, except the empty id, which the store
leaves out. Only a store that read every entry itself (no
:meth:`~piview.model.store.NodeStore.rebase` since) can hand it over."""

from __future__ import annotations

from piview.model.store import NodeStore

__all__ = ["take_id_map"]


def take_id_map(store: NodeStore) -> dict[str, int] | None:
    """The map from each id to its last entry in ``store``, equal to
    ``dict(zip(store.ids, range(len(store))))``, taken from the store (which from then on
    resolves parents as after ``rebase({})``, until the tree's map replaces it); None when
    the store has no such map (then the tree makes its own)."""
    recent = store._recent  # its ownership moves to the tree here
    if recent is None or store._base is not None:
        return None
    if len(recent) != len(store) and (len(recent) > len(store) or "" in store.ids):
        return None  # an empty id (kept by the tree, not by the store): the tree's own map
    store.rebase({})
    return recent
