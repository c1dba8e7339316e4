"""Provides a session's family of subagents: the child files its calls started (theirs too),
what each cost, the usage of the session with them, and, for a child, the call that started it.

Every child file is counted once: a fork-context child's copied history (the parent's entries,
same ids, same usage) is left to the parent, as ``piview stats`` does, and the usage a
``subagent`` result repeats is never added (the children's files hold it).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from piview.catalog.lineage import find_parent, with_subagents
from piview.catalog.stats import MAIN, record_key, usage_records
from piview.catalog.subagents import find_call_site
from piview.model.names import subagent_name_parts
from piview.model.session import Session, SessionOpenError, load_session
from piview.model.usage import UsageTotals, info_sums


@dataclass(slots=True)
class Child:
    """One subagent file of a session, with what it cost (its own model calls only)."""

    path: Path
    session_id: str | None = None
    agent: str | None = None
    usage: UsageTotals = field(default_factory=UsageTotals)

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
    own: UsageTotals
    """The session's main usage: every assistant message of the file (``info``'s
    ``usage.all``)."""

    @property
    def children_usage(self) -> UsageTotals:
        """The children's usage summed."""
        out = UsageTotals()
        for c in self.children:
            out += c.usage
        return out

    @property
    def with_subagents(self) -> UsageTotals:
        """The session's main usage and each child's."""
        return self.own + self.children_usage


def child_files(path: str | os.PathLike[str]) -> list[Path]:
    """Every subagent file below session ``path`` (nested in its own folder, and in theirs),
    parents before their children."""
    return with_subagents([Path(path)])[1:]


def family_of(session: Session, found: list[Path] | None = None) -> Family:
    """The children of ``session`` (a file; ``found``: its :func:`child_files`, when known)
    and its usage with them."""
    own = info_sums(session, session.tree.leaf)["all"]
    if found is None:
        found = child_files(session.path) if session.path else []
    if not found:
        return Family([], own)
    main = [(i, u) for i, kind, u in usage_records(session) if kind == MAIN]
    seen = {record_key(session, i, u) for i, u in main}
    children: list[Child] = []
    for path in found:
        child = Child(path)
        children.append(child)
        try:
            s = load_session(path)
        except SessionOpenError:
            continue  # unreadable: listed, with nothing counted
        try:
            header = s.header
            child.session_id = (
                header.id if header is not None and isinstance(header.id, str) else None
            )
            child.agent = subagent_name_parts(s.name)[0]
            for i, kind, usage in usage_records(s):
                if kind != MAIN:
                    continue
                key = record_key(s, i, usage)
                if key in seen:  # a fork context's copy of its parent's turn
                    continue
                seen.add(key)
                child.usage.add(usage)
        finally:
            s.close()
    return Family(children, own)


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
    found = child_files(session.path) if session.path else []
    if not found:
        return None
    fam = family_of(session, found)
    return fam.own, fam.children_usage, len(fam.children)
