"""Provides the tool-call list of a branch: what each tool was called with, returned and took.

This is the data of the tools view and of ``piview tools``. A call's latency runs from its
assistant message to its result (entry timestamps); output size is the number of characters
of the result's text blocks.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from piview.model.tree import parse_iso_ms
from piview.model.types import AssistantMessage, MessageEntry, TextContent, ToolCall

if TYPE_CHECKING:
    from piview.model.session import Session

__all__ = ["ToolRow", "ToolStats", "tool_rows", "tool_stats"]

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
    """Every tool call on ``path`` in order, with its result; results without a call too.

    A call answered only on another branch counts as ``no_result`` here.
    """
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
    return rows


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
