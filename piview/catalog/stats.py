"""Provides true usage totals across session files (``piview stats``): forks counted once.

Pi's ``/fork`` and ``/clone`` copy history into a new file, so a usage record, known by
(entry id, timestamp, usage), counts only in the first file that has it, parents first.
Main-model, nested (tool-result) and summary usage are summed apart. A subagent call's result
(pi-subagents) carries a ``usage`` that repeats its children's: where a child file is among
those read, that record is left out (``StatsReport.repeated``), so each child counts once, in
its own file."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from piview.catalog.lineage import Link, header_of, link_sessions, parent_ref, thread_order
from piview.model.index_cache import IndexCache
from piview.model.names import SUBAGENT_TOOLS
from piview.model.session import Session, SessionOpenError, load_session
from piview.model.store import ROLE_NAMES, NodeStore
from piview.model.types import Usage
from piview.model.usage import UsageTotals, model_label
from piview.model.usage_row import encode_row

GROUPINGS = ("day", "week", "month", "project", "model", "session")
"""What ``--by`` accepts."""

_ASSISTANT = ROLE_NAMES.index("assistant")
_TOOL_RESULT = ROLE_NAMES.index("toolResult")
_TIME_KEYS = ("day", "week", "month")
MAIN, TOOL, SUMMARY = 0, 1, 2
"""The kinds of usage record: an assistant message's, a tool result's, a summary entry's."""

Key = tuple[str, str, bytes]
"""(entry id, entry timestamp, usage as msgpack): what a copied record keeps."""


@dataclass(slots=True)
class Group:
    """The totals of one row: a date, project, model or session."""

    key: str
    sessions: set[str] = field(default_factory=set)
    """Files with at least one record counted here."""
    main: UsageTotals = field(default_factory=UsageTotals)
    """Assistant messages' usage (``main.count`` records)."""
    tools: UsageTotals = field(default_factory=UsageTotals)
    """Nested usage: tool results' own (``tools.count`` records)."""
    summaries: UsageTotals = field(default_factory=UsageTotals)
    """Compaction and branch-summary entries' usage (``summaries.count`` records)."""
    path: UsageTotals | None = None
    """By session: the main usage counted here that is on the file's active path."""
    abandoned: UsageTotals | None = None
    """By session: the main usage counted here that is off the active path."""
    name: str | None = None
    """By session: the session's name."""
    parent: str | None = None
    """By session: the file it was forked from (or is a subagent of), when found."""
    link: str = ""
    """By session: ``"fork"``, ``"subagent"``, ``"subagent (fork)"`` or ``""`` (a root)."""
    subagents: UsageTotals | None = None
    """By session: the main usage of its subagents' files (theirs too, recursively), each
    counted in its own row as well: a column beside the row's, never added to it."""


@dataclass(slots=True)
class StatsReport:
    """Every group's totals, the grand total and what deduplication skipped."""

    by: str
    groups: list[Group]
    total: Group
    deduplicated: UsageTotals
    """Records (main and nested) skipped because an earlier file had them."""
    files: int
    """Session files read."""
    unreadable: list[tuple[str, str]] = field(default_factory=list)
    """(path, reason) of the files that could not be read."""
    repeated: UsageTotals = field(default_factory=UsageTotals)
    """Subagent results' usage left out: the children's own files counted it."""


def parse_day(text: str) -> date:
    """``YYYY-MM-DD`` or ``YYYYMMDD`` (as ccusage takes them); ValueError for anything else."""
    t = text.strip()
    if len(t) == 8 and t.isdigit():
        t = f"{t[:4]}-{t[4:6]}-{t[6:]}"
    return date.fromisoformat(t)


class _Days:
    """Local dates of ISO timestamps, cached per minute (zone offsets are whole minutes)."""

    def __init__(self) -> None:
        self._cache: dict[str, date | None] = {}

    def __call__(self, ts: str | None) -> date | None:
        if not ts:
            return None
        k = ts[:16]
        if k in self._cache:
            return self._cache[k]
        try:
            moment = datetime.fromisoformat(ts.replace("Z", "+00:00"))
            day: date | None = (moment.astimezone() if moment.tzinfo else moment).date()
        except ValueError:
            day = None
        if len(self._cache) < 1_000_000:
            self._cache[k] = day
        return day


def usage_key(store: NodeStore, i: int, usage: Usage) -> bytes:
    """Entry ``i``'s usage as the bytes of its index row (the same for a copied record)."""
    r = store.usage_at[i]
    if r >= 0:
        start = store.usage_end[r - 1] if r > 0 else 0
        return bytes(store.usage_blob[start : store.usage_end[r]])
    return encode_row(usage)  # the bytes a row of the same usage holds


def record_key(session: Session, i: int, usage: Usage) -> Key:
    """What a copy of entry ``i``'s usage record keeps: its id, timestamp and usage bytes."""
    store = session.nodes
    return (session.ids[i], store.timestamp(i) or "", usage_key(store, i, usage))


def usage_records(session: Session) -> list[tuple[int, int, Usage]]:
    """``(entry, kind, usage)`` of every record of the file, in file order; ``kind`` is
    :data:`MAIN`, :data:`TOOL` or :data:`SUMMARY`."""
    store = session.nodes
    roles = store.roles
    out: list[tuple[int, int, Usage]] = []
    rows = [i for i, r in enumerate(store.usage_at) if r >= 0]
    whole = sorted(store.whole)
    for i in sorted(rows + whole) if whole else rows:
        role = roles[i]
        if role in (_ASSISTANT, _TOOL_RESULT):
            usage = store.message_usage(i)
            if usage is not None:
                out.append((i, TOOL if role == _TOOL_RESULT else MAIN, usage))
        elif i in store.whole:
            n = store.whole[i]
            if n.message is not None and n.message.role in ("assistant", "toolResult"):
                if n.message.usage is not None:
                    kind = TOOL if n.message.role == "toolResult" else MAIN
                    out.append((i, kind, n.message.usage))
            elif n.usage is not None:  # a summary's own model call (newer Pi)
                out.append((i, SUMMARY, n.usage))
    return out


@dataclass(slots=True)
class Order:
    """The files in the order they are read, with what their headers say."""

    paths: list[str]
    """Parents first (lineage), siblings and roots by the time in their header."""
    links: dict[str, Link]
    headers: dict[str, dict[str, Any] | None]


def processing_order(files: Sequence[Path]) -> Order:
    """Files parents first (the ``parentSession`` chain), siblings and roots by their
    header's time (else the file's), then by path: a copy comes after what it copies."""
    paths = [str(p) for p in files]
    headers = {p: header_of(p) for p in paths}

    def when(p: str) -> tuple[str, str]:
        h = headers[p]
        ts = h.get("timestamp") if h is not None else None
        if not isinstance(ts, str):
            try:
                ts = datetime.fromtimestamp(os.stat(p).st_mtime, UTC).isoformat()
            except OSError:
                ts = ""
        return ts, p

    ordered = sorted(paths, key=when)
    links = link_sessions(ordered, {p: parent_ref(headers[p]) for p in ordered})
    order = thread_order(ordered, {p: link.parent for p, link in links.items()})
    return Order([p for p, _depth in order], links, headers)


def collect_stats(
    files: Sequence[Path],
    *,
    by: str = "day",
    since: date | None = None,
    until: date | None = None,
    index_cache: IndexCache | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> StatsReport:
    """Sum usage over ``files`` per ``by`` group, each copied record counted once, on the
    local days ``since`` to ``until``; ``cancelled`` is asked before each file."""
    if by not in GROUPINGS:
        raise ValueError(f"unknown grouping {by!r}")
    order = processing_order(files)
    links = order.links
    headers = order.headers
    days = _Days()
    seen: set[Key] = set()
    groups: dict[str, Group] = {}
    total = Group("total")
    skipped = UsageTotals()
    repeated = UsageTotals()
    has_children = {lk.parent for lk in links.values() if lk.kind == "subagent"}
    unreadable: list[tuple[str, str]] = []
    dated = by in _TIME_KEYS or since is not None or until is not None
    if by == "session":
        total.path, total.abandoned = UsageTotals(), UsageTotals()
    for path in order.paths:
        if cancelled is not None and cancelled():
            break
        try:
            session = load_session(path, index_cache=index_cache)
        except SessionOpenError as exc:
            unreadable.append((path, str(exc)))
            continue
        try:
            store = session.nodes
            header = headers.get(path) or {}
            cwd = header.get("cwd")
            project = cwd if isinstance(cwd, str) and cwd else Path(path).parent.name
            on_path: set[int] = set()
            if by == "session" and session.tree.leaf is not None:
                on_path = set(session.tree.path(session.tree.leaf))
            mine: list[Key] = []
            for i, kind, usage in usage_records(session):
                if kind == TOOL and path in has_children and _starts_subagents(store, i):
                    repeated.add(usage)  # the children's usage, counted in their files
                    continue
                ts = store.timestamp(i)
                key = record_key(session, i, usage)
                if key in seen:
                    if _in_window(days(ts) if dated else None, since, until):
                        skipped.add(usage)
                    continue
                mine.append(key)
                day = days(ts) if dated else None
                if not _in_window(day, since, until):
                    continue
                name = _group_key(by, day, project, path, store, i, kind != MAIN)
                g = groups.get(name)
                if g is None:
                    g = groups[name] = Group(name)
                    if by == "session":
                        g.path, g.abandoned = UsageTotals(), UsageTotals()
                        g.name = session.name
                        link = links.get(path)
                        g.parent = link.parent if link is not None else None
                        g.link = link.label if link is not None else ""
                g.sessions.add(path)
                (g.main, g.tools, g.summaries)[kind].add(usage)
                if g.path is not None and g.abandoned is not None and kind == MAIN:
                    (g.path if i in on_path else g.abandoned).add(usage)
            seen.update(mine)
            if index_cache is not None:
                try:
                    session.save_index()
                except OSError:
                    pass
        finally:
            session.close()
    if by == "session":
        _sum_subagents(groups, links, order.paths)
        total.subagents = UsageTotals()
        for g in groups.values():
            if g.link.startswith("subagent"):
                total.subagents += g.main
    # The total is the sum of the groups (each record is in exactly one).
    for g in groups.values():
        total.sessions |= g.sessions
        total.main += g.main
        total.tools += g.tools
        total.summaries += g.summaries
        if total.path is not None and g.path is not None:
            total.path += g.path
        if total.abandoned is not None and g.abandoned is not None:
            total.abandoned += g.abandoned
    return StatsReport(
        by=by,
        groups=_sorted(by, list(groups.values())),
        total=total,
        deduplicated=skipped,
        files=len(order.paths),
        unreadable=unreadable,
        repeated=repeated,
    )


def _starts_subagents(store: NodeStore, i: int) -> bool:
    msg = store[i].message
    return msg is not None and msg.tool_name in SUBAGENT_TOOLS


def _sum_subagents(groups: dict[str, Group], links: dict[str, Link], order: list[str]) -> None:
    """Each session row's ``subagents``: its subagent children's main usage, theirs with it.
    ``order`` has parents before children, so read backwards each child is summed before its
    parent (a subagent is nested in its parent's folder: no cycle)."""
    below: dict[str, UsageTotals] = {}
    for p in reversed(order):
        link = links.get(p)
        if link is None or link.kind != "subagent" or link.parent is None:
            continue
        acc = below.setdefault(link.parent, UsageTotals())
        g = groups.get(p)
        if g is not None:
            acc += g.main
        if p in below:
            acc += below[p]
    for key, t in below.items():
        g = groups.get(key)
        if g is not None:
            g.subagents = t


def _in_window(day: date | None, since: date | None, until: date | None) -> bool:
    if since is None and until is None:
        return True
    if day is None:
        return False
    return (since is None or day >= since) and (until is None or day <= until)


def _group_key(
    by: str,
    day: date | None,
    project: str,
    path: str,
    store: NodeStore,
    i: int,
    nested: bool,
) -> str:
    if by in _TIME_KEYS:
        if day is None:
            return "unknown"
        if by == "day":
            return day.isoformat()
        if by == "week":  # the Monday that starts the ISO week
            return (day - timedelta(days=day.weekday())).isoformat()
        return f"{day:%Y-%m}"
    if by == "project":
        return project
    if by == "model":
        provider, model = store.model(i)
        if nested and provider is None and model is None:
            return "(nested)"
        return model_label(provider, model)
    return path


def _sorted(by: str, groups: list[Group]) -> list[Group]:
    if by == "session":  # lineage order, as read: each fork under the file it came from
        return groups
    if by in _TIME_KEYS:
        return sorted(groups, key=lambda g: g.key)
    return sorted(groups, key=lambda g: (-g.main.cost, -g.tools.cost, -g.summaries.cost, g.key))


def _usage_json(t: UsageTotals) -> dict[str, Any]:
    return {"entries": t.count, **t.as_json()}


def group_json(g: Group) -> dict[str, Any]:
    """One group with the JSON keys of ``piview stats --json``."""
    out: dict[str, Any] = {"key": g.key, "sessions": len(g.sessions), **_usage_json(g.main)}
    out["tools"] = _usage_json(g.tools)
    out["summaries"] = _usage_json(g.summaries)
    if g.path is not None and g.abandoned is not None:
        out["name"] = g.name
        out["parentSession"] = g.parent
        out["link"] = g.link or None
        out["subagents"] = _usage_json(g.subagents or UsageTotals())
        out["path"] = _usage_json(g.path)
        out["abandoned"] = _usage_json(g.abandoned)
    return out


def stats_json(report: StatsReport) -> dict[str, Any]:
    """The one object ``piview stats --json`` prints."""
    return {
        "by": report.by,
        "groups": [group_json(g) for g in report.groups],
        "total": group_json(report.total),
        "deduplicated": {
            "entries": report.deduplicated.count,
            "cost": round(report.deduplicated.cost, 10),
        },
        "files": report.files,
        "unreadable": [{"path": p, "reason": r} for p, r in report.unreadable],
        "repeated": {"entries": report.repeated.count, "cost": round(report.repeated.cost, 10)},
    }
