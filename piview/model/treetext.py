"""Provides the text and style class of one branch panel row, as Pi's ``/tree`` shows it
(a file read per message, so the panel asks only for the rows on screen)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from piview.model.decode import SkEntry
from piview.model.toolargs import read_range
from piview.model.types import (
    AssistantMessage,
    BashExecutionMessage,
    CustomMessage,
    CustomMessageEntry,
    DeveloperMessage,
    FileMentionMessage,
    ImageContent,
    MessageEntry,
    PythonExecutionMessage,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UnknownMessage,
    UserMessage,
    number,
)

if TYPE_CHECKING:
    from piview.model.session import Session

ROW_TEXT_MAX = 100
"""Row texts are cut to this many characters (as the HTML export does)."""


def _one_line(text: str, limit: int = ROW_TEXT_MAX) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _blocks_text(content: Any, limit: int = 400) -> str:
    """Text of a content value (string or blocks), ``[image]`` when only images."""
    if isinstance(content, str):
        return content[:limit]
    if not isinstance(content, list):
        return ""
    parts: list[str] = []
    length = 0
    images = 0
    for b in content:
        if isinstance(b, TextContent):
            parts.append(b.text)
            length += len(b.text)
            if length >= limit:
                break
        elif isinstance(b, ImageContent):
            images += 1
    text = "".join(parts)[:limit]
    if not text.strip() and images:
        return "[image]" if images == 1 else f"[{images} images]"
    return text


def _home() -> str:
    return os.environ.get("HOME") or os.environ.get("USERPROFILE") or ""


def _short_path(p: object) -> str:
    s = str(p) if p is not None else ""
    home = _home()
    if home and home != "/" and s.startswith(home):
        return "~" + s[len(home) :]
    return s


def _tool_call_text(name: str, args: Any) -> str:
    """Pi's one-line form of a tool call: ``[read: ~/p:10-29]``, ``[bash: cmd]``..."""
    a: dict[str, Any] = args if isinstance(args, dict) else {}
    path = a.get("path") or a.get("file_path") or ""
    if name == "read":
        shown = _short_path(path)
        return f"[read: {shown}{read_range(a)}]"
    if name in ("write", "edit"):
        return f"[{name}: {_short_path(path)}]"
    if name == "bash":
        raw = str(a.get("command") or "")
        cmd = " ".join(raw.split())[:50]
        return f"[bash: {cmd}{'...' if len(raw) > 50 else ''}]"
    if name == "grep":
        return f"[grep: /{a.get('pattern') or ''}/ in {_short_path(a.get('path') or '.')}]"
    if name == "find":
        return f"[find: {a.get('pattern') or ''} in {_short_path(a.get('path') or '.')}]"
    if name == "ls":
        return f"[ls: {_short_path(a.get('path') or '.')}]"
    import json  # here: only the branch panel's rows need it, never the first screen

    try:
        js = json.dumps(args, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):
        js = str(args)
    return f"[{name}: {js[:40]}{'...' if len(js) > 40 else ''}]"


def _tool_result_text(session: Session, i: int, msg: ToolResultMessage) -> str:
    ref = session.pairing.result_call.get(i)
    if ref is not None:
        call_entry = session.entry(ref[0])
        call_msg = call_entry.message if isinstance(call_entry, MessageEntry) else None
        if isinstance(call_msg, AssistantMessage) and ref[1] < len(call_msg.content):
            block = call_msg.content[ref[1]]
            if isinstance(block, ToolCall):
                return _tool_call_text(block.name, block.arguments)
    return f"[{msg.tool_name or 'tool'}]"


def _message_text(session: Session, i: int, entry: MessageEntry) -> str:
    m = entry.message
    if isinstance(m, UserMessage):
        return "user: " + _blocks_text(m.content)
    if isinstance(m, AssistantMessage):
        text = _blocks_text(m.content)
        if text.strip():
            return "assistant: " + text
        if m.stop_reason == "aborted":
            return "assistant: (aborted)"
        if m.error_message:
            return "assistant: " + " ".join(m.error_message.split())[:80]
        return "assistant: (no content)"
    if isinstance(m, ToolResultMessage):
        return _tool_result_text(session, i, m)
    if isinstance(m, BashExecutionMessage):
        return f"[bash]: {m.command}"
    if isinstance(m, CustomMessage):
        return f"[{m.custom_type or 'custom'}]: {_blocks_text(m.content)}"
    if isinstance(m, DeveloperMessage):  # oh-my-pi's host instructions
        return "[developer]: " + _blocks_text(m.content)
    if isinstance(m, FileMentionMessage):
        return "[files]: " + ", ".join(f.path for f in m.files)
    if isinstance(m, PythonExecutionMessage):
        return f"[python]: {m.code}"
    if isinstance(m, UnknownMessage):
        return f"[{m.unknown_role}]"
    if m is None:
        return "[message]"
    return f"[{m.__struct_config__.tag}]"


def row_text(session: Session, i: int) -> str:
    """The one-line text of entry ``i`` as Pi's ``/tree`` shows it (at most ~100 chars);
    messages are decoded from the file, other entries come from the skeleton."""
    node = session.nodes[i]
    t = node.type
    if t == "compaction":
        # NaN, infinities and 10**400 would make round() raise: number() reads them as 0.
        return f"[compaction: {round(number(node.tokens_before) / 1000)}k tokens]"
    if t == "branch_summary":
        return _one_line(f"[branch summary]: {node.summary or ''}")
    if t == "model_change":
        return _one_line(f"[model: {node.model_id or node.model or ''}]")
    if t == "title_change":  # oh-my-pi
        return _one_line(f"[title: {node.title or ''}]")
    if t == "thinking_level_change":
        return _one_line(f"[thinking: {node.thinking_level or ''}]")
    if t == "custom":
        return _one_line(f"[custom: {node.custom_type or ''}]")
    if t == "label":
        return _one_line(f"[label: {node.label or '(cleared)'}]")
    if t == "session_info":
        name = node.name.strip() if isinstance(node.name, str) else ""
        return _one_line(f"[title: {name or 'empty'}]")
    if t in ("reset", "leaf"):  # OpenClaw's: rare, read from the file
        raw = session.raw(i)
        raw = raw if isinstance(raw, dict) else {}
        if t == "leaf":
            return _one_line(f"[leaf → {raw.get('targetId') or '?'}]")
        return _one_line(f"[reset: {raw.get('reason') or 'new conversation'}]")
    if t not in ("message", "custom_message"):
        return _one_line(f"[{t}]")
    entry = session.entry(i)
    if isinstance(entry, MessageEntry):
        text = _message_text(session, i, entry)
        if session.is_side_note(i):  # decoded just above: no second read
            text = "(side note) " + text
        return _one_line(text)
    if isinstance(entry, CustomMessageEntry):
        return _one_line(f"[{entry.custom_type or 'custom'}]: {_blocks_text(entry.content)}")
    return _one_line(f"[{t}]")


def row_kind(node: SkEntry) -> str:
    """A style class for a row: user, assistant, error, tool, tool-error, bash, custom,
    summary, compaction or meta."""
    t = node.type
    if t == "message" and node.message is not None:
        msg = node.message
        role = msg.role
        if role == "user":
            return "user"
        if role == "assistant":
            return "error" if msg.stop_reason in ("error", "aborted") else "assistant"
        if role == "toolResult":
            return "tool-error" if msg.is_error else "tool"
        if role == "bashExecution":
            return "bash"
        if role == "custom":
            return "custom"
        if role in ("branchSummary", "compactionSummary"):
            return "summary"
        return "meta"
    if t == "custom_message":
        return "custom"
    if t == "branch_summary":
        return "summary"
    if t == "compaction":
        return "compaction"
    return "meta"
