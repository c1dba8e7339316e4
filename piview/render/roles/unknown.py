"""Provides the rendering of what the spec does not know: entry types and message roles.

Pi forks and extensions write their own types and roles. They stay in the transcript as one
``?`` line; expanded, the raw JSON of the line (strings cut, base64 left out).
"""

from __future__ import annotations

from rich.text import Text

from piview.model.types import UnknownEntry, UnknownMessage
from piview.render.roles._common import (
    Ctx,
    Rendered,
    header,
    indent,
    marker,
)
from piview.render.roles._json import json_renderable, safe_json
from piview.render.sanitize import sanitize_line
from piview.render.theme import style


def what(ctx: Ctx) -> str:
    """``unknown entry type "x"`` or ``unknown role "y"``."""
    node = ctx.node
    if node.type == "message":
        m = getattr(ctx.entry, "message", None)
        if isinstance(m, UnknownMessage):
            return f'unknown role "{sanitize_line(m.unknown_role)}"'
        role = node.message.role if node.message is not None else None
        if role is None:
            return "message without a role"
        return f'unknown role "{sanitize_line(role)}"'
    e = ctx.entry
    t = e.entry_type if isinstance(e, UnknownEntry) else node.type
    return f'unknown entry type "{sanitize_line(t) if isinstance(t, str) else "?"}"'


def render(ctx: Ctx) -> Rendered:
    """``? unknown …`` and the raw JSON when expanded."""
    left = Text(f"{marker(ctx)} ", style=style("piview.marker"))
    left.append("? " + what(ctx), style("piview.unknown"))
    head = header(left, ctx.time, ctx.width)
    if not ctx.expanded:
        return head, None
    raw = ctx.session.raw(ctx.item.entry)
    if raw is None:
        return head, indent(Text("(the line can no longer be read)", style=style("piview.notice")))
    return head, indent(json_renderable(raw))


def plain(ctx: Ctx) -> str:
    """What it is and its raw JSON."""
    return what(ctx) + "\n" + safe_json(ctx.session.raw(ctx.item.entry))
