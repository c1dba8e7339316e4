"""Provides :func:`largest_tool_results`: the tool results that weigh most in the context at
one entry (the timeline screen's context picture, issue 31), with the same token estimate as
``piview context`` (:func:`piview.model.context_report.token_shares`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from piview.model.context import build_context
from piview.model.context_report import token_shares

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
    (after any compaction in force there), largest first; none when no usage says the total."""
    ctx = build_context(session, at)
    _total, shares = token_shares(session, ctx)
    nodes = session.nodes
    got: list[ToolResultShare] = []
    for item, tokens in zip(ctx.items, shares, strict=True):
        if tokens is None or item.kind != "message":
            continue
        m = nodes[item.index].message
        if m is None or m.role != "toolResult":
            continue
        got.append(ToolResultShare(item.index, m.tool_name or "?", tokens))
    got.sort(key=lambda r: (-r.tokens, r.entry))
    return got[:n]
