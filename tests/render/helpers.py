"""Helpers for the rendering tests: synthetic sessions and rendering to plain strings."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console

from piview.model import Session, load_session
from piview.render.items import Item, build_items, item_text, render_item

HEADER = {
    "type": "session",
    "version": 3,
    "id": "019e0000-0000-7000-8000-000000000000",
    "timestamp": "2026-05-14T10:00:00.000Z",
    "cwd": "/tmp/p",
}
TS = "2026-05-14T10:00:{:02d}.000Z"


def console(width: int = 100) -> Console:
    """A plain-text console writing to a string."""
    return Console(width=width, file=io.StringIO(), color_system=None, force_terminal=False)


def to_str(renderable: Any, width: int = 100) -> str:
    """Render to plain text."""
    c = console(width)
    c.print(renderable)
    return c.file.getvalue()  # type: ignore[attr-defined]


def render(session: Session, item: Item, *, expanded: bool, width: int = 100) -> str:
    """``render_item`` as plain text."""
    return to_str(render_item(session, item, expanded=expanded, width=width), width)


def chain(*entries: dict[str, Any]) -> list[str]:
    """Header + entries as JSONL lines, each the child of the previous one."""
    lines = [json.dumps(HEADER)]
    prev: str | None = None
    for k, e in enumerate(entries):
        e = dict(e)
        e.setdefault("id", f"e{k:07d}")
        e.setdefault("parentId", prev)
        e.setdefault("timestamp", TS.format(k % 60))
        prev = e["id"]
        lines.append(json.dumps(e))
    return lines


def message(msg: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """A ``message`` entry."""
    return {"type": "message", "message": msg, **extra}


def user(content: Any) -> dict[str, Any]:
    """A user message entry."""
    return message({"role": "user", "content": content, "timestamp": 1})


def assistant(*blocks: dict[str, Any], stop: str = "stop", **extra: Any) -> dict[str, Any]:
    """An assistant message entry."""
    return message(
        {
            "role": "assistant",
            "content": list(blocks),
            "api": "anthropic-messages",
            "provider": "anthropic",
            "model": "claude-sonnet-4-5",
            "usage": {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0},
            "stopReason": stop,
            "timestamp": 1,
            **extra,
        }
    )


def text(t: str) -> dict[str, Any]:
    return {"type": "text", "text": t}


def call(cid: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"type": "toolCall", "id": cid, "name": name, "arguments": args}


def result(cid: str, name: str, out: str, *, error: bool = False, **extra: Any) -> dict[str, Any]:
    return message(
        {
            "role": "toolResult",
            "toolCallId": cid,
            "toolName": name,
            "content": [text(out)],
            "isError": error,
            "timestamp": 1,
            **extra,
        }
    )


def load(write_session: Callable[..., Path], *entries: dict[str, Any]) -> Session:
    """Write the entries as a chain and load the session."""
    return load_session(write_session(chain(*entries)))


def items_of(session: Session, *, show_hidden: bool = False) -> list[Item]:
    """Items of the branch ending at the last entry."""
    leaf = session.tree.leaf
    assert leaf is not None
    return build_items(session, session.tree.path(leaf), show_hidden=show_hidden)


def only(items: list[Item], kind: str) -> Item:
    """The single item of a kind."""
    found = [i for i in items if i.kind == kind]
    assert len(found) == 1, [i.kind for i in items]
    return found[0]


__all__ = [
    "assistant",
    "call",
    "chain",
    "console",
    "item_text",
    "items_of",
    "load",
    "message",
    "only",
    "render",
    "result",
    "text",
    "to_str",
    "user",
]
