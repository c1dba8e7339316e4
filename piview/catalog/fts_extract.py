"""Provides the text the search index keeps of a session file, read in one pass.

Each line is decoded into a small Struct holding only what is indexed, a line that does not
fit takes a tolerant path over plain JSON; a torn last line is left for the next update.
Pure (the standard library and msgspec), so that it runs in a worker process.
"""

from __future__ import annotations

import os
import zlib
from dataclasses import dataclass, field
from typing import Any

import msgspec

BLOCK = 8 * 1024 * 1024
"""How much of a file is read at a time."""

_SIG = 256
"""Bytes before the indexed end whose checksum tells an append from a rewrite."""

_MAX_COLUMN = 1024 * 1024
"""Text kept of one entry per column (a megabyte of tool output says all it can)."""


class _Block(msgspec.Struct):
    type: Any = None
    text: Any = None
    name: Any = None
    arguments: Any = None


class _Msg(msgspec.Struct, rename="camel"):
    role: Any = None
    content: str | list[_Block] | None = None
    summary: Any = None
    command: Any = None
    output: Any = None
    tool_name: Any = None


class _Line(msgspec.Struct, rename="camel"):
    type: Any = None
    id: Any = None
    timestamp: Any = None
    cwd: Any = None
    name: Any = None
    label: Any = None
    summary: Any = None
    content: str | list[_Block] | None = None
    message: _Msg | None = None


_DECODE = msgspec.json.Decoder(_Line).decode
_DECODE_ANY = msgspec.json.Decoder().decode


@dataclass(slots=True)
class Doc:
    """One indexed entry: where it is, and its two columns of text."""

    entry_id: str | None
    role: str
    timestamp: str | None
    offset: int
    length: int
    text: str
    tools: str


@dataclass(slots=True)
class Extract:
    """What one pass over a file (or over its appended bytes) found."""

    start: int
    end: int
    """The end of the last whole line read: where an append starts."""
    docs: list[Doc] = field(default_factory=list)
    session_id: str | None = None
    cwd: str | None = None
    name: str | None = None
    """The session's last name seen (``session_info``); ``""`` when it was cleared."""
    bytes_read: int = 0
    bad_lines: int = 0
    sig: int = 0
    """:func:`signature` at :attr:`end`, from the bytes read (none read again for it)."""


def _str(v: Any) -> str | None:
    return v if isinstance(v, str) else None


def _strings(value: Any, out: list[str]) -> None:
    """Every string inside a JSON value (tool-call arguments), keys left out; no recursion,
    so that any depth is fine."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            out.append(v)
        elif isinstance(v, dict):
            stack.extend(reversed(list(v.values())))
        elif isinstance(v, list):
            stack.extend(reversed(v))


def _content(content: Any, text: list[str], tools: list[str]) -> None:
    """Text blocks into ``text``; tool calls (name and argument strings) into ``tools``."""
    if isinstance(content, str):
        text.append(content)
        return
    if not isinstance(content, list):
        return
    for b in content:
        if isinstance(b, _Block):
            kind, t, name, args = b.type, b.text, b.name, b.arguments
        elif isinstance(b, dict):
            kind, t, name, args = b.get("type"), b.get("text"), b.get("name"), b.get("arguments")
        else:
            continue
        if kind == "toolCall":
            if isinstance(name, str):
                tools.append(name)
            _strings(args, tools)
        elif kind != "thinking" and isinstance(t, str):
            text.append(t)


def _get(obj: Any, key: str) -> Any:
    return obj.get(key) if isinstance(obj, dict) else getattr(obj, key, None)


def _texts(entry: Any) -> tuple[str, str, str]:
    """``(role, text, tools)`` of an entry (a ``_Line`` or a plain dict)."""
    kind = _str(_get(entry, "type")) or "?"
    text: list[str] = []
    tools: list[str] = []
    msg = _get(entry, "message")
    role = kind
    if kind == "message" and msg is not None:
        role = _str(_get(msg, "role")) or "?"
        content = _get(msg, "content")
        if role == "toolResult":
            _content(content, tools, tools)
        elif role == "bashExecution":
            for key, out in (("command", text), ("output", tools)):
                v = _str(_get(msg, key))
                if v:
                    out.append(v)
        else:
            summary = _str(_get(msg, "summary"))
            if summary:
                text.append(summary)
            _content(content, text, tools)
    elif kind == "session":
        cwd = _str(_get(entry, "cwd"))
        if cwd:
            text.append(cwd)
    else:
        for key in ("name", "label", "summary"):
            v = _str(_get(entry, key))
            if v:
                text.append(v)
        _content(_get(entry, "content"), text, tools)
    return role, "\n".join(text)[:_MAX_COLUMN], "\n".join(tools)[:_MAX_COLUMN]


def line_texts(line: bytes) -> tuple[str | None, str, str | None, str, str] | None:
    """``(entry id, role, timestamp, text, tools)`` of one JSON line, or None when it is
    not a JSON object."""
    entry: Any
    try:
        entry = _DECODE(line)
    except msgspec.ValidationError:
        try:
            entry = _DECODE_ANY(line)
        except (msgspec.DecodeError, RecursionError):
            return None
        if not isinstance(entry, dict):
            return None
    except (msgspec.DecodeError, RecursionError):  # not JSON, or nested past any sense
        return None
    role, text, tools = _texts(entry)
    return _str(_get(entry, "id")), role, _str(_get(entry, "timestamp")), text, tools


def signature(fd: int, end: int) -> int:
    """Checksum of the bytes just before ``end``: unchanged when the file was only appended."""
    start = max(0, end - _SIG)
    return zlib.crc32(os.pread(fd, end - start, start))


def extract_file(path: str, start: int = 0) -> Extract:
    """Index the whole lines of ``path`` from byte ``start`` (0, or the end of the last
    update) in one pass: each byte is read once, in blocks of :data:`BLOCK`."""
    out = Extract(start, start)
    with open(path, "rb", buffering=0) as f:
        # The bytes just before the end, for the signature: an append starts with those
        # before ``start`` (at most _SIG bytes read twice).
        tail = os.pread(f.fileno(), min(start, _SIG), start - min(start, _SIG))
        out.bytes_read += len(tail)
        f.seek(start)
        carry = b""
        pos = start  # the file offset of carry[0]
        while True:
            block = f.read(BLOCK)
            if not block:
                break
            out.bytes_read += len(block)
            data = carry + block if carry else block
            cut = data.rfind(b"\n") + 1
            _lines(data, cut, pos, out)
            if cut:
                tail = (tail + data[max(0, cut - _SIG) : cut])[-_SIG:]
            carry, pos = data[cut:], pos + cut
        out.end = pos
    out.sig = zlib.crc32(tail)
    return out


def _lines(data: bytes, cut: int, base: int, out: Extract) -> None:
    i = 0
    while i < cut:
        j = data.index(b"\n", i)
        line = data[i:j]
        offset, i = base + i, j + 1
        if offset == 0 and line.startswith(b"\xef\xbb\xbf"):
            line, offset = line[3:], 3
        if not line.strip():
            continue
        found = line_texts(line)
        if found is None:
            out.bad_lines += 1
            continue
        entry_id, role, ts, text, tools = found
        if role == "session":
            out.cwd = text or out.cwd
            out.session_id = entry_id or out.session_id
        elif role == "session_info":
            out.name = text
        if not text and not tools:
            continue
        out.docs.append(Doc(entry_id, role, ts, offset, len(line), text, tools))
