"""Provides the rendering of user messages: text, images, and ``<file>``/``<skill>`` wrappers.

Pi embeds ``@file`` arguments as ``<file name="…">…</file>`` and skills as
``<skill name="…" location="…">…</skill>`` inside the user's text. They can be thousands of
lines, so they show as one line (``▸ file path (N lines)``) until the item is expanded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rich.console import RenderableType
from rich.text import Text

from piview.model.types import ImageContent, TextContent, UserMessage
from piview.render.roles._common import (
    Ctx,
    Rendered,
    blocks_of,
    blocks_plain,
    blocks_renderables,
    code,
    count_images,
    count_lines,
    head_lines,
    header,
    indent,
    lines_label,
    markdown,
    marker,
    message_as,
    more_line,
    sanitize_raw,
)
from piview.render.roles._limits import LONG_CHARS, LONG_LINES
from piview.render.sanitize import sanitize_line
from piview.render.theme import style

__all__ = ["COLLAPSED_LINES", "LONG_CHARS", "LONG_LINES", "plain", "render", "split_wrappers"]

COLLAPSED_LINES = 12
"""Lines of text shown while a long user message is collapsed."""

_WRAPPER_RE = re.compile(
    r"<(?P<tag>file|skill)\b(?P<attrs>[^>]*)>\n?(?P<body>.*?)\n?</(?P=tag)>", re.DOTALL
)
_ATTR_RE = re.compile(r'(\w+)="([^"]*)"')


@dataclass(slots=True)
class Wrapper:
    """A ``<file>`` or ``<skill>`` block found in user text."""

    tag: str
    name: str
    location: str
    body: str


def split_wrappers(text: str) -> list[str | Wrapper]:
    """Split user text into plain text and ``<file>``/``<skill>`` wrappers, in order."""
    if "<file" not in text and "<skill" not in text:
        return [text]
    out: list[str | Wrapper] = []
    pos = 0
    for m in _WRAPPER_RE.finditer(text):
        if m.start() > pos:
            out.append(text[pos : m.start()])
        attrs = dict(_ATTR_RE.findall(m.group("attrs")))
        out.append(
            Wrapper(
                tag=m.group("tag"),
                name=attrs.get("name", ""),
                location=attrs.get("location", ""),
                body=m.group("body"),
            )
        )
        pos = m.end()
    if pos < len(text):
        out.append(text[pos:])
    return out


def _wrapper_line(w: Wrapper, expanded: bool) -> Text:
    mark = "▾" if expanded else "▸"
    t = Text(f"{mark} {w.tag} ", style=style("piview.wrapper"), no_wrap=True, overflow="ellipsis")
    t.append(sanitize_line(w.name) or "?", style=style("piview.path"))
    if w.tag == "file":
        t.append(f" ({lines_label(count_lines(w.body))})", style=style("piview.dim"))
    elif w.location:
        t.append(f" ({sanitize_line(w.location)})", style=style("piview.dim"))
    return t


def render(ctx: Ctx) -> Rendered:
    """Header ``● user`` and the message: text, wrappers (compact unless expanded), images."""
    msg = message_as(ctx, UserMessage)
    blocks = blocks_of(msg.content) if msg is not None else []
    left = Text(f"{marker(ctx, '●')} user", style=style("piview.user"))
    text_all = "\n".join(sanitize_raw(b.text) for b in blocks if isinstance(b, TextContent))
    parts = split_wrappers(text_all)
    wrappers = [p for p in parts if isinstance(p, Wrapper)]
    details: list[str] = []
    if msg is not None and msg.synthetic:  # oh-my-pi: written by the host, not typed
        details.append("synthetic")
    if msg is not None and msg.attribution == "agent":
        details.append("sent by the agent")
    n_img = count_images(blocks)
    if n_img:
        details.append(f"{n_img} image" + ("s" if n_img > 1 else ""))
    for tag in ("file", "skill"):
        n = sum(1 for w in wrappers if w.tag == tag)
        if n:
            details.append(f"{n} {tag}" + ("s" if n > 1 else ""))
    collapsed = ctx.item.collapsible and not ctx.expanded
    total = count_lines(text_all)
    if collapsed and not wrappers and total > COLLAPSED_LINES:
        details.append(f"+{total - COLLAPSED_LINES:,} lines")
    if details:
        left.append("  " + " · ".join(details), style=style("piview.dim"))
    if not ctx.item.collapsible or ctx.expanded:
        body = _body_full(ctx, blocks)
    else:
        body = _body_collapsed(ctx, blocks)
    return header(left, ctx.time, ctx.width), indent(*body) if body else None


def _text_parts(ctx: Ctx, text: str, *, expanded: bool) -> list[RenderableType]:
    out: list[RenderableType] = []
    budget = None if expanded else COLLAPSED_LINES
    for part in split_wrappers(text):
        if isinstance(part, Wrapper):
            out.append(_wrapper_line(part, expanded))
            if expanded and part.body.strip():
                path = part.name if part.tag == "file" else "SKILL.md"
                out.append(indent(code(part.body, path)))
            continue
        chunk = part.strip("\n")
        if not chunk.strip():
            continue
        more = 0
        if budget is not None:
            if budget <= 0:
                out.append(more_line(count_lines(chunk)))
                continue
            chunk, more = head_lines(chunk, budget)
            budget -= count_lines(chunk)
        out.append(markdown(chunk))
        if more:
            out.append(more_line(more))
    return out


def _body(ctx: Ctx, blocks: list[object], *, expanded: bool) -> list[RenderableType]:
    out: list[RenderableType] = []
    pending: list[str] = []

    def flush() -> None:
        if pending:
            out.extend(_text_parts(ctx, "\n".join(pending), expanded=expanded))
            pending.clear()

    for k, b in enumerate(blocks):
        if isinstance(b, TextContent):
            pending.append(sanitize_raw(b.text))
            continue
        flush()
        if isinstance(b, ImageContent):
            out.extend(blocks_renderables(ctx, [b], key=("u", k), images=expanded))
        else:
            out.extend(blocks_renderables(ctx, [b]))
    flush()
    return out


def _body_full(ctx: Ctx, blocks: list[object]) -> list[RenderableType]:
    return _body(ctx, blocks, expanded=True)


def _body_collapsed(ctx: Ctx, blocks: list[object]) -> list[RenderableType]:
    return _body(ctx, blocks, expanded=False)


def plain(ctx: Ctx) -> str:
    """The user message as plain text (wrappers in full)."""
    msg = message_as(ctx, UserMessage)
    return "user\n" + blocks_plain(blocks_of(msg.content) if msg is not None else [])
