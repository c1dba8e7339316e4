"""Provides the rendering of extension content: ``custom_message`` entries (and the legacy
``custom`` role) and ``custom`` entries (extension state, never in the model's context).

Messages with ``display: false`` are hidden in Pi's chat but *are* sent to the model; when the
viewer shows them they are dimmed and marked. ``custom`` entries are shown only on request, as
their JSON data.
"""

from __future__ import annotations

from rich.console import RenderableType
from rich.styled import Styled
from rich.text import Text

from piview.model.types import CustomEntry, CustomMessage, CustomMessageEntry, HookMessage
from piview.render.plugins import REGISTRY, EntryView, MessageView
from piview.render.roles._common import (
    Ctx,
    Rendered,
    blocks_of,
    blocks_plain,
    blocks_renderables,
    count_lines,
    header,
    indent,
    marker,
    text_of,
)
from piview.render.roles._json import details_block, safe_json
from piview.render.sanitize import sanitize, sanitize_line
from piview.render.theme import style

COLLAPSED_LINES = 6
"""Lines of content shown while a custom message is collapsed."""


def _message(ctx: Ctx) -> CustomMessageEntry | CustomMessage | None:
    e = ctx.entry
    if isinstance(e, CustomMessageEntry):
        return e
    m = getattr(e, "message", None)
    return m if isinstance(m, CustomMessage) else None


def render(ctx: Ctx) -> Rendered:
    """``[customType]`` and the content (dimmed and marked when ``display`` is false)."""
    m = _message(ctx)
    left = Text(f"{marker(ctx)} ", style=style("piview.marker"))
    if m is None:
        left.append("[custom]", style("piview.custom"))
        return header(left, ctx.time, ctx.width), None
    if isinstance(m, HookMessage):  # oh-my-pi (version 3): a hook's message
        left.append("hook ", style("piview.custom"))
    left.append(f"[{sanitize_line(m.custom_type) or '?'}]", style("piview.custom"))
    blocks = blocks_of(m.content)
    text_lines = sum(count_lines(sanitize(getattr(b, "text", ""))) for b in blocks)
    if not ctx.expanded and text_lines > COLLAPSED_LINES:
        left.append(f" · +{text_lines - COLLAPSED_LINES:,} lines", style("piview.dim"))
    hidden = not m.display
    if hidden:
        left.append("  hidden (display: false)", style("piview.hidden"))
    body: list[RenderableType] = blocks_renderables(
        ctx,
        blocks,
        key="m",
        max_lines=None if ctx.expanded else COLLAPSED_LINES,
        images=ctx.expanded,
    )
    body.extend(details_block(m.details, "details (not sent to the model)", expanded=ctx.expanded))
    head = header(left, ctx.time, ctx.width)
    if hidden:
        head.stylize(style("piview.hidden"))
    text = sanitize(text_of(blocks))
    view = MessageView(m.custom_type, text, m.details, bool(m.display), ctx.expanded)
    lines = None if ctx.expanded else COLLAPSED_LINES
    out = REGISTRY.render(
        "message", m.custom_type, view, lambda _v: indent(*body) if body else None, lines
    )
    if out is None:
        return head, None
    return head, Styled(out, style("piview.hidden")) if hidden else out


def plain(ctx: Ctx) -> str:
    """Custom type and content."""
    m = _message(ctx)
    if m is None:
        return "custom"
    return f"[{sanitize_line(m.custom_type)}]\n{blocks_plain(blocks_of(m.content))}"


def _state(ctx: Ctx) -> CustomEntry | None:
    e = ctx.entry
    return e if isinstance(e, CustomEntry) else None


def render_state(ctx: Ctx) -> Rendered:
    """``[custom: type]`` (extension state); its data as JSON when expanded."""
    e = _state(ctx)
    left = Text(f"{marker(ctx)} ", style=style("piview.marker"))
    left.append(f"[custom: {sanitize_line(e.custom_type) if e else '?'}]", style("piview.custom"))
    left.append("  extension state, not in the context", style("piview.hidden"))
    head = header(left, ctx.time, ctx.width)
    head.stylize(style("piview.hidden"))
    if e is None:
        return head, None
    data = details_block(e.data, "data", expanded=ctx.expanded)
    json = indent(*data) if data else None
    view = EntryView(e.custom_type, e.data, ctx.expanded)
    lines = None if ctx.expanded else COLLAPSED_LINES
    return head, REGISTRY.render("entry", e.custom_type, view, lambda _v: json, lines)


def plain_state(ctx: Ctx) -> str:
    """Custom type and data as JSON."""
    e = _state(ctx)
    return f"custom {sanitize_line(e.custom_type) if e else ''}\n{safe_json(e.data if e else None)}"
