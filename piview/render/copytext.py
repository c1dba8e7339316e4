"""Provides the text of one transcript block as a reader takes it away: to the clipboard
(``y``), a pager (``v``) or an editor (``V``).

What a block's text is depends on its kind: a message's text, a thinking block's thinking, a
tool call's arguments and its result's output, a shell command and its output, a summary, a
prompt; anything else is the entry's JSON. Text is sanitised (no escape sequence reaches a
terminal or a clipboard).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from piview.model.types import (
    AssistantMessage,
    BashExecutionMessage,
    BranchSummaryEntry,
    BranchSummaryMessage,
    CompactionEntry,
    CompactionSummaryMessage,
    CustomMessage,
    CustomMessageEntry,
    DeveloperMessage,
    FileMentionMessage,
    MessageEntry,
    PythonExecutionMessage,
    SystemMessage,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from piview.render.roles._common import blocks_of, text_of
from piview.render.sanitize import sanitize

if TYPE_CHECKING:
    from piview.model.session import Session
    from piview.render.item import Item

__all__ = ["BlockText", "block_text"]


@dataclass(slots=True)
class BlockText:
    """A block's text and what it is (for the notice: "Copied the assistant's text")."""

    what: str
    text: str
    log_path: str | None = None
    """The full log a truncated command output points to (Pi's ``fullOutputPath``)."""


def _texts(content: object) -> str:
    return text_of(blocks_of(content))


def _json(value: Any) -> str:
    try:
        return sanitize(json.dumps(value, indent=2, ensure_ascii=False, default=str), tabs=False)
    except (TypeError, ValueError, RecursionError):
        return sanitize(repr(value))


def _message(session: Session, i: int) -> Any:
    entry = session.entry(i)
    return entry.message if isinstance(entry, MessageEntry) else None


def _log_path(details: Any) -> str | None:
    path = details.get("fullOutputPath") if isinstance(details, dict) else None
    return path if isinstance(path, str) and path else None


def block_text(session: Session, item: Item) -> BlockText:
    """The text of ``item`` (the entry's JSON when the block has no text of its own)."""
    i = item.entry
    entry = session.entry(i)
    m = _message(session, i)
    kind = item.kind
    if kind == "thinking" and isinstance(m, AssistantMessage) and item.part < len(m.content):
        b = m.content[item.part]
        if isinstance(b, ThinkingContent):
            return BlockText("the thinking", sanitize(b.thinking or ""))
    if kind == "tool" and isinstance(m, AssistantMessage) and item.part < len(m.content):
        call = m.content[item.part]
        if isinstance(call, ToolCall):
            args = call.arguments if isinstance(call.arguments, dict) else {}
            command = args.get("command")
            head = (
                f"$ {sanitize(command)}"
                if call.name == "bash" and isinstance(command, str)
                else f"{sanitize(call.name)} {_json(call.arguments)}"
            )
            parts, log = [head], None
            for r in session.pairing.call_results.get((i, item.part)) or []:
                res = _message(session, r)
                if isinstance(res, ToolResultMessage):
                    parts.append(_texts(res.content))
                    log = log or _log_path(res.details)
            return BlockText("the call and its result", "\n\n".join(parts), log)
    if isinstance(m, ToolResultMessage):
        return BlockText("the tool result", _texts(m.content), _log_path(m.details))
    if isinstance(m, UserMessage):
        return BlockText("the user's message", _texts(m.content))
    if isinstance(m, AssistantMessage) and _texts(m.content).strip():
        return BlockText("the assistant's text", _texts(m.content))
    if isinstance(m, BashExecutionMessage):
        text = f"$ {sanitize(m.command)}\n{sanitize(m.output)}"
        return BlockText("the command and its output", text, m.full_output_path or None)
    if isinstance(m, CustomMessage) or isinstance(entry, CustomMessageEntry):
        content = m.content if isinstance(m, CustomMessage) else entry.content  # type: ignore[union-attr]
        return BlockText("the extension message", _texts(content))
    summary = m if isinstance(m, BranchSummaryMessage | CompactionSummaryMessage) else entry
    if isinstance(summary, BranchSummaryEntry | CompactionEntry | BranchSummaryMessage
                  | CompactionSummaryMessage):  # fmt: skip
        return BlockText("the summary", sanitize(summary.summary))
    if isinstance(m, SystemMessage):
        return BlockText("the prompt", _texts(m.content))
    if isinstance(m, DeveloperMessage):  # oh-my-pi
        return BlockText("the host's instructions", _texts(m.content))
    if isinstance(m, FileMentionMessage):
        text = "\n\n".join(f"{sanitize(f.path)}\n{sanitize(f.content or '')}" for f in m.files)
        return BlockText("the attached files", text)
    if isinstance(m, PythonExecutionMessage):
        return BlockText("the code and its output", f"{sanitize(m.code)}\n{sanitize(m.output)}")
    return BlockText("the entry's JSON", _json(session.raw(i)))
