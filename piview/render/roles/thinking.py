"""Provides the rendering of thinking blocks: one line collapsed, dim italic text expanded.

A *redacted* block (``redacted: true``, or no text but a signature: the provider encrypted
it) has nothing to show, so it is one line saying so, in either state.
"""

from __future__ import annotations

from rich.text import Text

from piview.model.types import AssistantMessage, ThinkingContent
from piview.render.roles._common import (
    MAX_TEXT_CHARS,
    Ctx,
    Rendered,
    header,
    indent,
    marker,
    more_line,
    prepare,
)
from piview.render.sanitize import sanitize, sanitize_line
from piview.render.theme import style

_PREVIEW = 80


def _block(ctx: Ctx) -> ThinkingContent | None:
    msg = getattr(ctx.entry, "message", None)
    if not isinstance(msg, AssistantMessage):
        return None
    k = ctx.item.part
    if 0 <= k < len(msg.content) and isinstance(msg.content[k], ThinkingContent):
        return msg.content[k]  # type: ignore[return-value]
    return None


def is_redacted(block: ThinkingContent) -> bool:
    """True when the provider withheld the thinking text."""
    if block.redacted:
        return True
    return not block.thinking.strip() and bool(block.thinking_signature)


def render(ctx: Ctx) -> Rendered:
    """``▸ thinking · N chars · preview…`` collapsed; the whole text (dim, italic) expanded."""
    block = _block(ctx)
    if block is None:
        left = Text("? thinking block not found", style=style("piview.error.text"))
        return header(left, ctx.time, ctx.width), None
    if is_redacted(block):
        left = Text(
            "⊘ thinking redacted by the provider (encrypted, not readable)",
            style=style("piview.thinking.label"),
        )
        return header(left, ctx.time, ctx.width), None
    text, more = prepare(block.thinking)
    text = text.strip()
    left = Text(f"{marker(ctx)} thinking", style=style("piview.thinking.label"))
    if not text:
        left.append(" · empty", style=style("piview.dim"))
        return header(left, ctx.time, ctx.width), None
    # Only a bounded part of a huge block was sanitised: count the raw characters then.
    chars = len(text) if len(block.thinking) <= MAX_TEXT_CHARS else len(block.thinking.strip())
    left.append(f" · {chars:,} chars", style=style("piview.dim"))
    if not ctx.expanded:
        preview = sanitize_line(text[: _PREVIEW * 2])
        if len(preview) > _PREVIEW or len(text) > len(preview):
            preview = preview[:_PREVIEW].rstrip() + "…"
        left.append(" · " + preview, style=style("piview.thinking"))
        return header(left, ctx.time, ctx.width), None
    body = Text(text, style=style("piview.thinking"))
    return header(left, ctx.time, ctx.width), indent(body, more_line(more) if more else None)


def plain(ctx: Ctx) -> str:
    """The thinking text (or the redaction note)."""
    block = _block(ctx)
    if block is None:
        return "thinking"
    if is_redacted(block):
        return "thinking redacted"
    return "thinking\n" + sanitize(block.thinking)
