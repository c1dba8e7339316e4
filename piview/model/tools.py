"""Provides the tool-call list of a branch: what each tool was called with, returned and took
(the data of the tools view and of ``piview tools``).
"""

from __future__ import annotations

import statistics
import threading
import weakref
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from piview.model.tree import parse_iso_ms
from piview.model.types import AssistantMessage, MessageEntry, TextContent, ToolCall

if TYPE_CHECKING:
    from piview.model.session import Session

ToolStatus = Literal["ok", "error", "no_result", "orphan_result"]


@dataclass(slots=True)
class ToolRow:
    """One tool call (or one result without a call) on a branch."""

    entry: int
    """Entry index of the assistant message (of the result, for an orphan)."""
    part: int
    """Block index of the call in the message content (-1 for an orphan result)."""
    call_id: str
    name: str
    arguments: Any
    status: ToolStatus
    result: int | None
    """Entry index of the result, if any."""
    latency_ms: float | None
    output_chars: int | None
    number: int = 0
    """The call's number on the branch, 1-based, in call order (what the tools view shows)."""

    def as_json(self, session: Session) -> dict[str, Any]:
        """The row with the key names of ``piview tools --json``."""
        return {
            "entry_id": session.ids[self.entry],
            "call_id": self.call_id,
            "name": self.name,
            "arguments": self.arguments,
            "status": self.status,
            "result_entry_id": session.ids[self.result] if self.result is not None else None,
            "latency_ms": self.latency_ms,
            "output_chars": self.output_chars,
        }


def _latency(session: Session, call_entry: int, result: int) -> float | None:
    a = parse_iso_ms(session.nodes[call_entry].timestamp)
    b = parse_iso_ms(session.nodes[result].timestamp)
    if a is None or b is None:
        return None
    return round(b - a, 3)


def _output_chars(session: Session, result: int) -> int:
    entry = session.entry(result)
    msg = entry.message if isinstance(entry, MessageEntry) else None
    content = getattr(msg, "content", None)
    if not isinstance(content, list):
        return 0
    return sum(len(b.text) for b in content if isinstance(b, TextContent))


def tool_rows(session: Session, path: list[int]) -> list[ToolRow]:
    """Every tool call on ``path`` in order, with its result; results without a call too
    (a call answered only on another branch counts as ``no_result``)."""
    pairing = session.pairing
    on_path = set(path)
    rows: list[ToolRow] = []
    for i in path:
        node = session.nodes[i]
        msg = node.message
        if msg is None:
            continue
        if msg.role == "assistant" and isinstance(msg.content, list):
            if not any(b.type == "toolCall" for b in msg.content):
                continue
            entry = session.entry(i)
            full = entry.message if isinstance(entry, MessageEntry) else None
            if not isinstance(full, AssistantMessage):
                continue
            for k, block in enumerate(full.content):
                if not isinstance(block, ToolCall):
                    continue
                results = [r for r in pairing.call_results.get((i, k), []) if r in on_path]
                result = results[0] if results else None
                status: ToolStatus = "no_result"
                if result is not None:
                    answer = session.nodes[result].message  # a tool result: never None
                    status = "error" if answer is not None and answer.is_error else "ok"
                rows.append(
                    ToolRow(
                        entry=i,
                        part=k,
                        call_id=block.id,
                        name=block.name,
                        arguments=block.arguments,
                        status=status,
                        result=result,
                        latency_ms=_latency(session, i, result) if result is not None else None,
                        output_chars=_output_chars(session, result) if result is not None else None,
                    )
                )
        elif msg.role == "toolResult" and i not in pairing.result_call:
            rows.append(
                ToolRow(
                    entry=i,
                    part=-1,
                    call_id=msg.tool_call_id or "",
                    name=msg.tool_name or "?",
                    arguments=None,
                    status="orphan_result",
                    result=i,
                    latency_ms=None,
                    output_chars=_output_chars(session, i),
                )
            )
    for n, row in enumerate(rows, 1):
        row.number = n
    return rows


@dataclass(slots=True)
class _Computed:
    """The rows of one branch, as the tree and pairing were when they were collected."""

    key: tuple[object, object, int, int]
    rows: list[ToolRow] | None = None
    done: threading.Event = field(default_factory=threading.Event)


_computed: weakref.WeakKeyDictionary[Session, _Computed] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def _key(session: Session, path: list[int]) -> tuple[object, object, int, int]:
    # A follow append or a rebuild installs a new tree (and pairing): the rows are stale then.
    return (session.tree, session.cached_pairing, path[-1] if path else -1, len(path))


def _same(a: tuple[object, object, int, int], b: tuple[object, object, int, int]) -> bool:
    # By identity: a Tree compares its arrays with ==.
    return a[0] is b[0] and a[1] is b[1] and a[2:] == b[2:]


def cached_tool_rows(session: Session, path: list[int]) -> list[ToolRow] | None:
    """The rows :func:`branch_tool_rows` collected for ``path`` with the session's tree and
    pairing as they are now, or ``None`` when there are none (not yet, or stale)."""
    got = _computed.get(session)
    if got is None or got.rows is None:
        return None
    if not _same(got.key, _key(session, path)):
        if got.key[0] is not session.tree:
            with _lock:  # the tree it was made for is gone: let it be freed
                if _computed.get(session) is got:
                    del _computed[session]
        return None
    return got.rows


def branch_tool_rows(session: Session, path: list[int]) -> list[ToolRow]:
    """:func:`tool_rows` of ``path``, kept for the next ask (only the last branch); a thread
    asking while another collects the same rows waits for them."""
    session.pairing  # noqa: B018 - computed first: it is part of the key
    key = _key(session, path)
    with _lock:
        got = _computed.get(session)
        mine = got is None or not _same(got.key, key) or (got.done.is_set() and got.rows is None)
        if mine:
            got = _computed[session] = _Computed(key)
    assert got is not None
    if not mine:
        got.done.wait()
        if got.rows is not None:
            return got.rows
        return tool_rows(session, path)  # the other thread failed: its error is its own
    try:
        got.rows = tool_rows(session, path)
    finally:
        got.done.set()
    return got.rows


@dataclass(slots=True)
class ToolStats:
    """Totals for one tool name."""

    name: str
    count: int = 0
    errors: int = 0
    latencies: list[float] = field(default_factory=list)

    @property
    def median_ms(self) -> float | None:
        """Median latency of the calls that have a result."""
        return statistics.median(self.latencies) if self.latencies else None

    @property
    def max_ms(self) -> float | None:
        """Longest latency."""
        return max(self.latencies) if self.latencies else None


def tool_stats(rows: list[ToolRow]) -> list[ToolStats]:
    """Per-tool totals (count, errors, median and max latency), most used first."""
    by: dict[str, ToolStats] = {}
    for r in rows:
        st = by.setdefault(r.name, ToolStats(r.name))
        st.count += 1
        if r.status == "error":
            st.errors += 1
        if r.latency_ms is not None:
            st.latencies.append(r.latency_ms)
    return sorted(by.values(), key=lambda s: (-s.count, s.name))
