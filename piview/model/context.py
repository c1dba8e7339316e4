"""Provides what the model saw at any entry: the context Pi builds, and the system prompt state.

:func:`build_context` follows Pi's ``buildSessionContext`` and ``convertToLlm``; oh-my-pi's
``reset_boundary`` (``/clear``) starts the context again after it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from piview.model.types import (
    CompactionEntry,
    MessageEntry,
    SystemMessage,
    TextContent,
    ToolSpec,
)

if TYPE_CHECKING:
    from piview.model.decode import SkEntry
    from piview.model.session import Session

ContextKind = Literal[
    "compaction_summary", "message", "custom_message", "branch_summary", "retained"
]


@dataclass(frozen=True, slots=True)
class ContextItem:
    """One message of the model's context."""

    kind: ContextKind
    index: int
    """The entry it comes from (for ``retained``, the compaction entry)."""
    tail_index: int | None = None
    """For ``retained``: the position in the compaction's ``retainedTail``."""


@dataclass(slots=True)
class SessionContext:
    """The model's context at one entry."""

    items: list[ContextItem]
    path: list[int]
    """The entries from the root to the entry."""
    compaction: int | None
    """The compaction in force (the last one on the path), if any."""
    hidden_by_compaction: list[int]
    """Entries on the path that the compaction replaced by its summary."""
    excluded: list[int]
    """Entries on the path that never reach the model (``!!`` bash, and non-message entries)."""
    thinking_level: str
    model: str | None
    """``provider/model`` in force at the entry."""
    model_ref: tuple[str | None, str | None] | None = None
    """``(provider, modelId)`` in force at the entry, exactly as Pi takes it (the last
    ``model_change`` or assistant message, whatever they hold)."""


def _is_context_entry(session: Session, i: int) -> ContextKind | None:
    return context_kind(session.nodes[i])


def context_kind(node: SkEntry) -> ContextKind | None:
    """The kind of context message an entry's skeleton makes, or None when it makes none
    (the test :func:`build_context` applies; the timeline applies it as it walks)."""
    if node.type == "message":
        msg = node.message
        if msg is None:
            return None
        if msg.role == "bashExecution" and msg.exclude_from_context:
            return None
        return "message"
    if node.type == "custom_message":
        return "custom_message"
    if node.type == "branch_summary" and node.summary:
        return "branch_summary"
    return None


def build_context(session: Session, at: int | None = None) -> SessionContext:
    """Build the model's context at entry ``at`` (default: the current leaf)."""
    tree = session.tree
    if at is None:
        at = tree.leaf
    if at is None:
        return SessionContext([], [], None, [], [], "off", None)
    path = tree.path(at)
    nodes = session.nodes
    thinking = "off"
    model: str | None = None
    model_ref: tuple[str | None, str | None] | None = None
    compaction_pos: int | None = None
    reset_pos: int | None = None
    for pos, i in enumerate(path):
        n = nodes[i]
        if n.type == "thinking_level_change" and n.thinking_level:
            thinking = n.thinking_level
        elif n.type == "model_change":
            if n.model:  # oh-my-pi writes "provider/id" in one field
                provider, _, model_id = n.model.rpartition("/")
                model_ref = (provider or None, model_id)
                model = n.model
                continue
            model_ref = (n.provider, n.model_id)
            if n.model_id:
                model = f"{n.provider or '?'}/{n.model_id}"
        elif n.type == "message" and n.message is not None and n.message.role == "assistant":
            m = n.message
            model_ref = (m.provider, m.model)
            if m.model:
                model = f"{m.provider or '?'}/{m.model}"
        elif n.type == "compaction":
            compaction_pos = pos
        elif n.type == "reset_boundary":
            # oh-my-pi's /clear: the context starts again after it, earlier compactions too.
            reset_pos, compaction_pos = pos, None
    items: list[ContextItem] = []
    hidden: list[int] = []
    lo = reset_pos + 1 if reset_pos is not None else 0
    if compaction_pos is None:
        kept = path[lo:]
    else:
        c = path[compaction_pos]
        items.append(ContextItem("compaction_summary", c))
        before = path[lo:compaction_pos]
        if nodes[c].has_retained_tail or _has_retained_tail(session, c):
            entry = session.entry(c)
            tail = entry.retained_tail if isinstance(entry, CompactionEntry) else None
            items.extend(ContextItem("retained", c, k) for k in range(len(tail or [])))
            hidden = before
            kept = path[compaction_pos + 1 :]
        else:
            first_kept = nodes[c].first_kept_entry_id
            start = len(before)
            for pos, i in enumerate(before):
                if session.ids[i] == first_kept:
                    start = pos
                    break
            hidden = before[:start]
            kept = before[start:] + path[compaction_pos + 1 :]
    for i in kept:
        kind = _is_context_entry(session, i)
        if kind is not None:
            items.append(ContextItem(kind, i))
    in_items = {it.index for it in items}
    hidden_set = set(hidden)
    excluded = [i for i in path if i not in in_items and i not in hidden_set]
    return SessionContext(
        items,
        path,
        path[compaction_pos] if compaction_pos is not None else None,
        hidden,
        excluded,
        thinking,
        model,
        model_ref,
    )


def _has_retained_tail(session: Session, c: int) -> bool:
    entry = session.entry(c)
    return isinstance(entry, CompactionEntry) and bool(entry.retained_tail)


@dataclass(slots=True)
class SystemPromptState:
    """The system prompt in force at an entry, from replaying system messages."""

    prompts: list[tuple[int, str]] = field(default_factory=list)
    """The baseline prompt and instructions added since, with the entry that set each."""
    sections: dict[str, tuple[int, str]] = field(default_factory=dict)
    """Named sections in force, with the entry that last set each."""
    removed_sections: dict[str, int] = field(default_factory=dict)
    """Sections removed (set to null) since the baseline, with the entry that removed each."""
    tools: dict[str, tuple[int, ToolSpec]] = field(default_factory=dict)
    """Tools in force, with the entry that added each."""
    removed_tools: dict[str, int] = field(default_factory=dict)
    """Tools removed since the baseline, with the entry that removed each."""
    baseline: int | None = None
    """The entry that set the current baseline (the first system message, or the last replace)."""
    messages: list[int] = field(default_factory=list)
    """Every system message replayed, in order."""


def content_text(content: object) -> str:
    """A message's string content, or its text blocks joined by newlines."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(b.text for b in content if isinstance(b, TextContent))
    return ""


def system_prompt_state(session: Session, at: int | None = None) -> SystemPromptState:
    """Replay the system messages from the root to entry ``at`` (default: the current leaf)."""
    state = SystemPromptState()
    if at is None:
        at = session.tree.leaf
    if at is None:
        return state
    for i in session.tree.path(at):
        node = session.nodes[i]
        if node.message is None or node.message.role != "system":
            continue
        entry = session.entry(i)
        if not isinstance(entry, MessageEntry) or not isinstance(entry.message, SystemMessage):
            continue
        msg = entry.message
        if msg.replace or state.baseline is None:
            state = SystemPromptState(baseline=i, messages=state.messages)
        state.messages.append(i)
        text = content_text(msg.content)
        if text:
            state.prompts.append((i, text))
        for name, value in (msg.sections or {}).items():
            if value is None:
                state.sections.pop(name, None)
                state.removed_sections[name] = i
            else:
                state.sections[name] = (i, value)
                state.removed_sections.pop(name, None)
        for tool in msg.tools_removed or []:
            state.tools.pop(tool.name, None)
            state.removed_tools[tool.name] = i
        for spec in msg.tools_added or []:
            state.tools[spec.name] = (i, spec)
            state.removed_tools.pop(spec.name, None)
    return state
