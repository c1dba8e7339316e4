"""Provides labels (bookmarks on entries) and the session name, both resolved in file order."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Sequence

from piview.model.decode import SkEntry
from piview.model.store import as_store
from piview.model.tree import Tree


def resolve_labels(nodes: Sequence[SkEntry], tree: Tree, ids: Sequence[str]) -> dict[int, str]:
    """Label of each labelled entry: the latest ``label`` entry per target wins, an empty
    one clears it, and labels on ids not in the file are ignored."""
    store = as_store(nodes)
    out: dict[int, str] = {}
    _apply(out, ((i, store[i]) for i in store.of_type("label")), tree, ids)
    return out


def extend_labels(
    old: dict[int, str], entries: Iterable[tuple[int, SkEntry]], tree: Tree, ids: Sequence[str]
) -> dict[int, str]:
    """``old`` (the labels so far) with the label entries among ``entries`` applied in order,
    as :func:`resolve_labels` would; a new dict."""
    out = dict(old)
    _apply(out, ((i, sk) for i, sk in entries if sk.type == "label"), tree, ids)
    return out


def _apply(
    out: dict[int, str], labels: Iterable[tuple[int, SkEntry]], tree: Tree, ids: Sequence[str]
) -> None:
    for i, node in labels:
        if isinstance(node.target_id, str):
            target = _preceding(ids, i, node.target_id, tree)
            if target is not None:
                if isinstance(node.label, str) and node.label.strip():
                    out[target] = node.label
                else:
                    out.pop(target, None)


def _preceding(ids: Sequence[str], i: int, target: str, tree: Tree) -> int | None:
    """The entry a label at ``i`` names: the last one before it with that id, else the last
    one in the file."""
    last = tree.id_index.get(target)
    if last is None or last < i:
        return last
    dups = tree.duplicate_ids.get(target)
    if dups:
        # In file order: a bisection, not a scan per label (a file may repeat one id 10^5 times).
        k = bisect_left(dups, i)
        if k:
            return dups[k - 1]
    return last


def session_name(nodes: Sequence[SkEntry]) -> str | None:
    """The session's name: the latest ``session_info`` in file order; empty clears it."""
    store = as_store(nodes)
    name: str | None = None
    for i in store.of_type("session_info"):
        node = store[i]
        value = node.name.strip() if isinstance(node.name, str) else ""
        name = value or None
    return name
