"""Provides labels (bookmarks on entries) and the session name, both resolved in file order."""

from __future__ import annotations

from piview.model.decode import SkEntry
from piview.model.tree import Tree

__all__ = ["resolve_labels", "session_name"]


def resolve_labels(nodes: list[SkEntry], tree: Tree, ids: list[str]) -> dict[int, str]:
    """Label of each labelled entry: the latest ``label`` entry per target wins.

    A label entry without a label (or with an empty one) clears it. Labels on ids that are
    not in the file are ignored.
    """
    out: dict[int, str] = {}
    seen: dict[str, int] = {}
    for i, node in enumerate(nodes):
        if node.type == "label" and isinstance(node.target_id, str):
            target = seen.get(node.target_id, tree.id_index.get(node.target_id))
            if target is not None:
                if isinstance(node.label, str) and node.label.strip():
                    out[target] = node.label
                else:
                    out.pop(target, None)
        seen[ids[i]] = i
    return out


def session_name(nodes: list[SkEntry]) -> str | None:
    """The session's name: the latest ``session_info`` in file order; empty clears it."""
    name: str | None = None
    for node in nodes:
        if node.type == "session_info":
            value = node.name.strip() if isinstance(node.name, str) else ""
            name = value or None
    return name
