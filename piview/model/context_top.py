"""Provides :func:`largest_tool_results`: the tool results that weigh most in the context at
one entry (the timeline screen's context picture, issue 31), by Pi's own estimate of each
message (:func:`piview.model.estimate.estimate_tokens`, as ``piview context`` and the
timeline's context parts)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from piview.model.context import build_context
from piview.model.estimate import estimate_tokens
from piview.model.types import MessageEntry

if TYPE_CHECKING:
    from piview.model.session import Session


@dataclass(frozen=True, slots=True)
class ToolResultShare:
    """One tool result still in the context, and its share of the input tokens."""

    entry: int
    """The result's entry index."""
    name: str
    """The tool's name."""
    tokens: float


def largest_tool_results(session: Session, at: int, n: int = 10) -> list[ToolResultShare]:
    """The ``n`` tool results with the most tokens in the context Pi builds at entry ``at``
    (after any compaction in force there), largest first."""
    ctx = build_context(session, at)
    nodes = session.nodes
    got: list[ToolResultShare] = []
    for item in ctx.items:
        if item.kind != "message":
            continue
        m = nodes[item.index].message
        if m is None or m.role != "toolResult":
            continue
        entry = session.entry(item.index)
        if not isinstance(entry, MessageEntry) or entry.message is None:
            continue
        tokens = estimate_tokens(entry.message)
        got.append(ToolResultShare(item.index, m.tool_name or "?", float(tokens)))
    got.sort(key=lambda r: (-r.tokens, r.entry))
    return got[:n]
