"""Provides the text of one transcript block as a reader takes it away: to the clipboard
(``y``), a pager (``v``) or an editor (``V``).

What a block's text is depends on its kind: a message's text, a thinking block's thinking, a
tool call's arguments and its result's output, a shell command and its output, a summary, a
prompt; anything else is the entry's JSON. Text is sanitised (no escape sequence reaches a
terminal or a clipboard).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from piview.model.types import (
    AssistantMessage,
    MessageEntry,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
)
from piview.render.item import Item
from piview.render.items import item_text
from piview.render.kinds import entry_kind, kind_named
from piview.render.roles._common import blocks_of, text_of
from piview.render.sanitize import sanitize

if TYPE_CHECKING:
    from piview.model.session import Session


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


def _block(session: Session, item: Item, m: Any, copy: str) -> BlockText | None:
    """A thinking block's thinking, a tool call's arguments and its results' output."""
    ok = isinstance(m, AssistantMessage) and item.part < len(m.content)
    b = m.content[item.part] if ok else None
    if copy == "thinking" and isinstance(b, ThinkingContent):
        return BlockText("the thinking", sanitize(b.thinking or ""))
    if copy != "tool" or not isinstance(b, ToolCall):
        return None
    args = b.arguments if isinstance(b.arguments, dict) else {}
    command = args.get("command")
    head = (
        f"$ {sanitize(command)}"
        if b.name == "bash" and isinstance(command, str)
        else f"{sanitize(b.name)} {_json(b.arguments)}"
    )
    parts, log = [head], None
    for r in session.pairing.call_results.get((item.entry, item.part)) or []:
        res = _message(session, r)
        if isinstance(res, ToolResultMessage):
            parts.append(_texts(res.content))
            log = log or _log_path(res.details)
    return BlockText("the call and its result", "\n\n".join(parts), log)


_COPY: dict[str, tuple[str, Callable[[Any], str]]] = {
    "result": ("the tool result", lambda m: _texts(m.content)),
    "user": ("the user's message", lambda m: _texts(m.content)),
    "assistant": ("the assistant's text", lambda m: _texts(m.content)),
    "bash": ("the command and its output",
             lambda m: f"$ {sanitize(m.command)}\n{sanitize(m.output)}"),
    "custom_message": ("the extension message", lambda m: _texts(m.content)),
    "summary": ("the summary", lambda m: sanitize(m.summary)),
    "system": ("the prompt", lambda m: _texts(m.content)),
    "developer": ("the host's instructions", lambda m: _texts(m.content)),
    "file_mention": ("the attached files", lambda m: "\n\n".join(
        f"{sanitize(f.path)}\n{sanitize(f.content or '')}" for f in m.files)),
    "python": ("the code and its output", lambda m: f"{sanitize(m.code)}\n{sanitize(m.output)}"),
}  # fmt: skip
"""What each ``Kind.copy`` (:mod:`piview.render.kinds`) copies of a message (or entry):
``plain`` its kind's plain text, any other the entry's JSON."""


def block_text(session: Session, item: Item) -> BlockText:
    """The text of ``item`` (the entry's JSON when the block has no text of its own).

    A block of a message (a thinking block, a tool call) has its kind's text; any other
    item, or a block that is not what its item says, the text of its decoded entry's kind.
    """
    i = item.entry
    entry = session.entry(i)
    m = _message(session, i)
    kind = kind_named(item.kind)
    if item.part >= 0 and (found := _block(session, item, m, kind.copy)) is not None:
        return found
    kind = entry_kind(entry) if item.part < 0 or kind.copy != "plain" else kind
    if kind.copy == "plain":
        return BlockText("the block's text", sanitize(item_text(session, Item(kind.name, i))))
    what, text_of = _COPY.get(kind.copy, ("", None))
    text = text_of(m or entry) if text_of is not None else ""
    if text_of is None or (kind.copy == "assistant" and not text.strip()):
        return BlockText("the entry's JSON", _json(session.raw(i)))
    log = _log_path(m.details) if kind.copy == "result" else None
    return BlockText(what, text, (m.full_output_path or None) if kind.copy == "bash" else log)
