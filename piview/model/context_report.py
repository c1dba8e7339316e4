"""Provides the context at an entry message by message, as Pi builds it (``piview context``),
with whether ``convertToLlm`` sends each message and its share of the tokens.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from piview.model.context import (
    ContextItem,
    SessionContext,
    SystemPromptState,
    build_context,
    system_prompt_state,
)
from piview.model.estimate import entry_estimate, estimate_tokens
from piview.model.types import (
    AssistantMessage,
    BashExecutionMessage,
    BranchSummaryEntry,
    BranchSummaryMessage,
    CompactionEntry,
    CompactionSummaryMessage,
    CustomMessageEntry,
    MessageEntry,
    TextContent,
    ToolCall,
    UnknownMessage,
)

if TYPE_CHECKING:
    from piview.model.session import Session


@dataclass(frozen=True, slots=True)
class ContextMessage:
    """One message Pi builds for the model."""

    entry: int
    """The entry it comes from (for a compaction's summary or retained tail, the compaction)."""
    role: str
    """The role Pi gives it (``user``, ``assistant``, ``toolResult``, ``bashExecution``,
    ``custom``, ``branchSummary``, ``compactionSummary``, or an unknown role as written)."""
    sent: bool
    """False for what Pi builds but ``convertToLlm`` never sends: a bash execution run with
    ``!!``, and roles it does not know (``system`` is the prompt's, not a message)."""
    text: str
    """Its first text: the first text block, the first tool's name for an assistant message
    with only tool calls, a bash execution's command, a summary's whole text."""
    tokens: float | None
    """Its approximate share of the context's tokens; None when unknown or not sent."""
    estimate: int | None = None
    """Pi's own estimate of its tokens (``estimateTokens``, :mod:`piview.model.estimate`);
    None when not sent."""


@dataclass(slots=True)
class ContextReport:
    """What Pi would send to the model if the session continued from one entry."""

    at: int
    thinking_level: str
    model: tuple[str | None, str | None] | None
    """``(provider, modelId)`` in force at the entry."""
    system: SystemPromptState | None
    """The system prompt state, or None when no system message is on the path."""
    messages: list[ContextMessage]

    @property
    def estimate(self) -> int:
        """Pi's estimate of the whole context: the sum of the sent messages' estimates."""
        return sum(m.estimate for m in self.messages if m.estimate is not None)


def context_input_tokens(session: Session, path: list[int]) -> float | None:
    """Tokens the model read at the entry: the next assistant turn's input + cache (from the
    entry's children first, then the last turn on the path back to the root)."""
    if not path:
        return None
    nodes = session.nodes
    end = path[-1]
    after = list(session.tree.children[end]) if end >= 0 else []
    for i in after + path[::-1]:
        m = nodes[i].message
        if m is not None and m.role == "assistant" and m.usage is not None:
            u = m.usage
            return float(u.input or 0) + float(u.cache_read or 0) + float(u.cache_write or 0)
    return None


def token_shares(session: Session, ctx: SessionContext) -> tuple[float | None, list[float | None]]:
    """``(total, shares)``: the context's input tokens split by each item's size in the file
    (one share per ``ctx.items``, None for all when the total is unknown)."""
    total = context_input_tokens(session, ctx.path)
    sizes = [max(1, session.line_length(it.index)) for it in ctx.items]
    if not total:
        return total, [None] * len(sizes)
    weight = sum(sizes) or 1
    return total, [total * size / weight for size in sizes]


def _first_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        for block in content:
            if isinstance(block, TextContent):
                return block.text
            if isinstance(block, dict) and block.get("type") == "text":
                return str(block.get("text", ""))
    return ""


def _message_role_text(m: object) -> tuple[str, str]:
    """``(role, first text)`` of a message as stored in the file."""
    if isinstance(m, UnknownMessage):
        raw = m.raw if isinstance(m.raw, dict) else {}
        return m.unknown_role, _first_text(raw.get("content"))
    role = str(m.__struct_config__.tag)  # type: ignore[attr-defined]
    if isinstance(m, AssistantMessage):
        for block in m.content:
            if isinstance(block, TextContent):
                return role, block.text
        calls = [b.name for b in m.content if isinstance(b, ToolCall)]
        return role, calls[0] if calls else ""
    if isinstance(m, BashExecutionMessage):
        return role, m.command
    if isinstance(m, BranchSummaryMessage | CompactionSummaryMessage):
        return role, m.summary
    return role, _first_text(getattr(m, "content", ""))


def _item_role_text(session: Session, item: ContextItem) -> tuple[str, str, int]:
    """``(role, first text, Pi's estimate)`` of a context item."""
    entry = session.entry(item.index)
    if item.kind == "compaction_summary" and isinstance(entry, CompactionEntry):
        return "compactionSummary", entry.summary, entry_estimate(entry)
    if item.kind == "retained" and isinstance(entry, CompactionEntry) and entry.retained_tail:
        m = entry.retained_tail[item.tail_index or 0]
        return (*_message_role_text(m), estimate_tokens(m))
    if isinstance(entry, BranchSummaryEntry):
        return "branchSummary", entry.summary, entry_estimate(entry)
    if isinstance(entry, CustomMessageEntry):
        return "custom", _first_text(entry.content), entry_estimate(entry)
    if isinstance(entry, MessageEntry) and entry.message is not None:
        return (*_message_role_text(entry.message), estimate_tokens(entry.message))
    return item.kind, "", 0


_SENT_ROLES = frozenset(
    {
        "user",
        "assistant",
        "toolResult",
        "bashExecution",
        "custom",
        "branchSummary",
        "compactionSummary",
    }
)
"""The roles Pi's ``convertToLlm`` turns into model messages; it drops any other."""


def _built_unsent(session: Session, ctx: SessionContext) -> set[int]:
    """Entries Pi builds a message for but never sends: bash executions run with ``!!``."""
    hidden = set(ctx.hidden_by_compaction)
    nodes = session.nodes
    out: set[int] = set()
    for i in ctx.excluded:
        m = nodes[i].message
        if (
            i not in hidden
            and nodes[i].type == "message"
            and m is not None
            and m.role == "bashExecution"
        ):
            out.add(i)
    return out


def context_report(session: Session, at: int) -> ContextReport:
    """The messages Pi builds at entry ``at``, in Pi's order, with the settings in force."""
    ctx = build_context(session, at)
    _total, shares = token_shares(session, ctx)
    unsent = _built_unsent(session, ctx)
    messages: list[ContextMessage] = []
    rank = {i: pos for pos, i in enumerate(ctx.path)}
    # Pi emits what it builds in path order (the compaction's summary and retained tail
    # first): the unsent bash runs go back where they stand among the kept entries.
    pending = sorted(unsent, key=rank.__getitem__)
    k = 0
    for item, share in zip(ctx.items, shares, strict=True):
        if item.kind not in ("compaction_summary", "retained"):
            while k < len(pending) and rank[pending[k]] < rank[item.index]:
                messages.append(_unsent(session, pending[k]))
                k += 1
        role, text, estimate = _item_role_text(session, item)
        sent = role in _SENT_ROLES
        messages.append(
            ContextMessage(
                item.index,
                role,
                sent,
                text,
                share if sent else None,
                estimate if sent else None,
            )
        )
    messages.extend(_unsent(session, i) for i in pending[k:])
    sp = system_prompt_state(session, at)
    return ContextReport(
        at, ctx.thinking_level, ctx.model_ref, sp if sp.messages else None, messages
    )


def _unsent(session: Session, i: int) -> ContextMessage:
    entry = session.entry(i)
    command = ""
    if isinstance(entry, MessageEntry) and isinstance(entry.message, BashExecutionMessage):
        command = entry.message.command
    return ContextMessage(i, "bashExecution", False, command, None)


def _system_json(session: Session, sp: SystemPromptState) -> dict[str, Any]:
    ids = session.ids
    return {
        "baseline": ids[sp.baseline] if sp.baseline is not None else None,
        "prompts": [{"entry_id": ids[i], "text": text} for i, text in sp.prompts],
        "sections": {
            name: {"entry_id": ids[i], "text": text} for name, (i, text) in sp.sections.items()
        },
        "removed_sections": {name: ids[i] for name, i in sp.removed_sections.items()},
        "tools": [
            {"name": name, "description": spec.description, "entry_id": ids[i]}
            for name, (i, spec) in sp.tools.items()
        ],
        "removed_tools": {name: ids[i] for name, i in sp.removed_tools.items()},
        "messages": [ids[i] for i in sp.messages],
    }


def report_json(session: Session, report: ContextReport) -> dict[str, Any]:
    """The ``piview context --json`` object: exactly ``at``, ``thinking_level``, ``model``,
    ``system``, ``estimate`` (Pi's estimate of the context: the sum of the messages') and
    ``messages``."""
    ids = session.ids
    model = report.model
    return {
        "at": ids[report.at],
        "thinking_level": report.thinking_level,
        "model": {"provider": model[0], "modelId": model[1]} if model is not None else None,
        "system": _system_json(session, report.system) if report.system is not None else None,
        "estimate": report.estimate,
        "messages": [
            {
                "entry_id": ids[m.entry],
                "role": m.role,
                "sent": m.sent,
                "text": m.text,
                "tokens": round(m.tokens) if m.tokens is not None else None,
                "estimate": m.estimate,
            }
            for m in report.messages
        ],
    }
