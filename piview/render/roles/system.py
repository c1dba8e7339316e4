"""Provides the rendering of system messages (newer Pi: system prompt declarations/changes).

A system message may set the prompt text, set or remove (``null``) named sections, add or
remove tools, and with ``replace: true`` discard everything before it as a new baseline.
Collapsed it is a line summarising the change and the prompt's first lines; expanded it shows
all of it.
"""

from __future__ import annotations

from rich.console import RenderableType
from rich.text import Text

from piview.model.types import SystemMessage
from piview.render.roles._common import (
    Ctx,
    Rendered,
    blocks_of,
    count_lines,
    header,
    indent,
    lines_label,
    markdown,
    marker,
    message_as,
    more_line,
    preview_lines,
    text_of,
)
from piview.render.sanitize import sanitize, sanitize_line
from piview.render.theme import style

PREVIEW_LINES = 3
"""Lines of a collapsed prompt shown under its header."""


def render(ctx: Ctx) -> Rendered:
    """``system prompt`` with what it changes; the text, sections and tools when expanded."""
    m = message_as(ctx, SystemMessage)
    left = Text(f"{marker(ctx)} ", style=style("piview.marker"))
    left.append("system", style("piview.system"))
    if m is None:
        return header(left, ctx.time, ctx.width), None
    if m.replace:
        left.append("  replace: new baseline", style("piview.warning"))
    text = text_of(blocks_of(m.content)).strip()
    sections = m.sections or {}
    set_ = [k for k, v in sections.items() if v is not None]
    removed = [k for k, v in sections.items() if v is None]
    added = [t.name for t in m.tools_added or []]
    dropped = [t.name for t in m.tools_removed or []]
    bits: list[str] = []
    if text:
        bits.append(f"prompt {lines_label(count_lines(text))}")
    if set_:
        bits.append("sections " + ", ".join(sanitize_line(k) for k in set_))
    if removed:
        bits.append("removed " + ", ".join(sanitize_line(k) for k in removed))
    if added:
        bits.append("+tools " + ", ".join(sanitize_line(n) for n in added))
    if dropped:
        bits.append("−tools " + ", ".join(sanitize_line(n) for n in dropped))
    if bits:
        left.append("  " + " · ".join(bits), style("piview.dim"))
    head = header(left, ctx.time, ctx.width)
    if not ctx.expanded:
        if not text:
            return head, None
        # The prompt's first lines, as tool output previews its first lines.
        preview, more = preview_lines(text, PREVIEW_LINES)
        shown: list[RenderableType] = [Text(preview, style=style("piview.dim"))]
        if more:
            shown.append(more_line(more))
        return head, indent(*shown)
    body: list[RenderableType] = []
    if text:
        body.append(markdown(text))
    for k, v in sections.items():
        title = Text(f"§ {sanitize_line(k)}", style=style("piview.system"))
        if v is None:
            title.append("  removed", style("piview.warning"))
            body.append(title)
        else:
            body.append(title)
            body.append(indent(markdown(sanitize(v))))
    for t in m.tools_added or []:
        line = Text("+ tool ", style=style("piview.ok"))
        line.append(sanitize_line(t.name) or "?", style("piview.tool"))
        if t.description:
            line.append(f": {sanitize_line(t.description)}", style("piview.dim"))
        body.append(line)
    for gone in m.tools_removed or []:
        line = Text("− tool ", style=style("piview.error.text"))
        line.append(sanitize_line(gone.name) or "?", style("piview.tool"))
        body.append(line)
    return head, indent(*body) if body else None


def plain(ctx: Ctx) -> str:
    """Prompt text, sections and tool names."""
    m = message_as(ctx, SystemMessage)
    if m is None:
        return "system"
    parts = ["system", text_of(blocks_of(m.content))]
    for k, v in (m.sections or {}).items():
        parts.append(f"{sanitize_line(k)}: {sanitize(v) if v is not None else '(removed)'}")
    parts.extend(f"+tool {sanitize_line(t.name)}" for t in m.tools_added or [])
    parts.extend(f"-tool {sanitize_line(t.name)}" for t in m.tools_removed or [])
    return "\n".join(p for p in parts if p)
