"""Provides :func:`user_text`: the text of a user message, read without decoding its entry
in full (the full decoder is made on the first full decode, which a first screen may not need)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from piview.model.names import subagent_name_parts

if TYPE_CHECKING:
    from piview.model.session import Session


class _Block(msgspec.Struct, gc=False):
    type: Any = None
    text: Any = None


class _Message(msgspec.Struct, gc=False):
    content: str | list[_Block] | None = None


class _Entry(msgspec.Struct, gc=False):
    message: _Message | None = None


_decoder = msgspec.json.Decoder(_Entry)


def user_text(session: Session, i: int) -> str:
    """The text of entry ``i``'s message content as its full decode gives it (text blocks
    joined by spaces); anything out of the ordinary is read by the full decode."""
    try:
        message = _decoder.decode(session.read_line(i)).message
    except (msgspec.DecodeError, OSError):
        message = None
    if message is not None and message.content is not None:
        content = message.content
        if isinstance(content, str):
            return content
        return " ".join(
            b.text if b.type == "text" and isinstance(b.text, str) else "" for b in content
        )
    full = getattr(session.entry(i), "message", None)
    content = getattr(full, "content", "")
    if isinstance(content, str):
        return content
    return " ".join(getattr(b, "text", "") for b in content)


def session_title(session: Session) -> str:
    """The session's name, else oh-my-pi's title, else its first user message, else its file
    name; a pi-subagents child's generated name gives way to ``<agent>: <first message>``."""
    name = session.name
    agent = subagent_name_parts(name)[0]
    if name and agent is None:
        return name
    if session.title:
        return session.title
    for i, node in enumerate(session.nodes):
        if node.message is not None and node.message.role == "user":
            text = " ".join(user_text(session, i).split())
            if text:
                text = text[:80] + ("…" if len(text) > 80 else "")
                return f"{agent}: {text}" if agent else text
    return name or session.path.name
