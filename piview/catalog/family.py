"""Provides a session's family of subagents: the child files its calls started (theirs too),
what each cost, the usage of the session with them, and, for a child, the call that started it.

Every child file is counted once: a fork-context child's copied history (the parent's entries,
same ids, same usage) is left to the parent, as ``piview stats`` does, and the usage a
``subagent`` result repeats is never added (the children's files hold it).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from piview.catalog.lineage import find_parent, with_subagents
from piview.catalog.stats import MAIN, Key, usage_key, usage_records
from piview.catalog.subagents import find_call_site, name_parts
from piview.model.session import Session, SessionOpenError, load_session
from piview.model.usage import UsageTotals, info_sums


@dataclass(slots=True)
class Child:
    """One subagent file of a session, with what it cost (its own model calls only)."""

    path: Path
    session_id: str | None = None
    agent: str | None = None
    name: str | None = None
    depth: int = 1
    """1 for the session's own children, 2 for theirs, …"""
    usage: UsageTotals = field(default_factory=UsageTotals)
    error: str | None = None
    """Why the file could not be read, when it could not."""

    def as_json(self) -> dict[str, Any]:
        """The item of ``info --json`` ``subagents``."""
        return {
            "path": os.path.abspath(self.path),
            "session_id": self.session_id,
            "agent": self.agent,
            "cost": round(self.usage.cost, 10),
            "tokens": int(self.usage.tokens),
        }


@dataclass(slots=True)
class Family:
    """A session's children and its usage with them."""

    children: list[Child]
    with_subagents: UsageTotals
    """The session's main usage (every assistant message of the file) and each child's."""

    @property
    def children_usage(self) -> UsageTotals:
        """The children's usage summed."""
        out = UsageTotals()
        for c in self.children:
            out += c.usage
        return out


def _keys(session: Session) -> set[Key]:
    store = session.nodes
    ids = session.ids
    return {
        (ids[i], store.timestamp(i) or "", usage_key(store, i, u))
        for i, kind, u in usage_records(session)
        if kind == MAIN
    }


def child_files(path: str | os.PathLike[str]) -> list[tuple[Path, int]]:
    """``(file, depth)`` of every subagent file below session ``path`` (nested in its own
    folder, and in theirs), parents before their children."""
    files = with_subagents([Path(path)])[1:]
    out: list[tuple[Path, int]] = []
    root_folder = Path(path).with_suffix("")
    for f in files:
        depth = 1
        folder = f.parent
        while folder != root_folder and folder.parent != folder:
            if folder.with_name(folder.name + ".jsonl").is_file():
                depth += 1
            folder = folder.parent
        out.append((f, depth))
    return out


def family_of(
    session: Session,
    all_usage: UsageTotals,
    *,
    cancelled: Callable[[], bool] | None = None,
) -> Family:
    """The children of ``session`` (a file) and its usage with them; ``all_usage`` is the
    session's own (``info``'s ``usage.all``)."""
    total = UsageTotals()
    total += all_usage
    found = child_files(session.path) if session.path else []
    if not found:
        return Family([], total)
    seen = _keys(session)
    children: list[Child] = []
    for path, depth in found:
        if cancelled is not None and cancelled():
            break
        child = Child(path, depth=depth)
        children.append(child)
        try:
            s = load_session(path)
        except SessionOpenError as exc:
            child.error = str(exc)
            continue
        try:
            header = s.header
            child.session_id = (
                header.id if header is not None and isinstance(header.id, str) else None
            )
            child.name = s.name
            child.agent = name_parts(s.name)[0]
            store = s.nodes
            ids = s.ids
            for i, kind, usage in usage_records(s):
                if kind != MAIN:
                    continue
                key = (ids[i], store.timestamp(i) or "", usage_key(store, i, usage))
                if key in seen:  # a fork context's copy of its parent's turn
                    continue
                seen.add(key)
                child.usage.add(usage)
        finally:
            s.close()
        total += child.usage
    return Family(children, total)


def subagent_of(path: str | os.PathLike[str], declared: str | None) -> dict[str, Any] | None:
    """``{path, tool_call_id}`` of the session and call that started subagent file ``path``,
    None when it is not one (a fork, or a root)."""
    try:
        parent, kind = find_parent(path, declared)
    except (OSError, ValueError):
        return None
    if parent is None or kind != "subagent":
        return None
    site = find_call_site(parent, path)
    return {"path": os.path.abspath(parent), "tool_call_id": site.tool_call_id if site else None}


def sidebar_family(session: Session) -> tuple[UsageTotals, UsageTotals, int] | None:
    """``(this file's model calls, its subagents', how many subagent files)`` for the usage
    sidebar, None when the session has no subagent files (reads them: call it in a worker)."""
    if not session.path or not child_files(session.path):
        return None
    own = info_sums(session, session.tree.leaf)["all"]
    fam = family_of(session, own)
    return own, fam.children_usage, len(fam.children)
