"""Provides the rendering of ``!cmd`` / ``!!cmd`` shell runs (role ``bashExecution``).

Like Pi's TUI: ``$ command``, the tail of the output (5 lines collapsed), the exit code in the
error colour when non-zero, cancelled/truncated marks. ``!!`` runs never reach the model, which
the header says plainly.
"""

from __future__ import annotations

from rich.console import RenderableType
from rich.text import Text

from piview.model.types import BashExecutionMessage, number
from piview.render.roles._common import (
    Ctx,
    Rendered,
    code,
    count_lines,
    header,
    indent,
    lines_label,
    marker,
    message_as,
    more_line,
    prepare,
)
from piview.render.roles._limits import is_error
from piview.render.sanitize import sanitize, sanitize_line
from piview.render.theme import style

__all__ = ["COLLAPSED_LINES", "is_error", "plain", "render"]

COLLAPSED_LINES = 5
"""Output lines (the last ones) shown while collapsed."""


def render(ctx: Ctx) -> Rendered:
    """``$ command · exit N`` and the output's last lines (all of it when expanded)."""
    m = message_as(ctx, BashExecutionMessage)
    left = Text(f"{marker(ctx)} ", style=style("piview.marker"))
    if m is None:
        left.append("$ ?", style("piview.bash"))
        return header(left, ctx.time, ctx.width), None
    cmd = sanitize(m.command).strip()
    first, _, rest = cmd.partition("\n")
    left.append("$ ", style("piview.bash"))
    left.append(first or "?", style("piview.bash"))
    if rest.strip():
        left.append(" …", style("piview.dim"))
    # The exit status and size are kept whole: a long command is what gets shortened.
    status = Text("  ")
    if m.cancelled:
        status.append("⊘ cancelled", style("piview.warning"))
    elif is_error(m.exit_code):
        code_ = number(m.exit_code)
        # NaN, infinities and absurd sizes read as "?" (10**400 cannot even be formatted).
        shown = f"{code_:g}" if code_ == m.exit_code else "?"
        status.append(f"✗ exit {shown}", style("piview.error"))
    elif m.exit_code is None:
        status.append("exit ?", style("piview.dim"))
    else:
        status.append("✓ exit 0", style("piview.ok"))
    output, more = prepare(m.output, None if ctx.expanded else COLLAPSED_LINES, tail=True)
    n = count_lines(output) + more
    if n:
        status.append(f" · {lines_label(n)}", style("piview.dim"))
    if m.truncated:
        status.append(" · truncated", style("piview.warning"))
    if m.exclude_from_context:
        status.append("  !! not sent to the model", style("piview.hidden"))
    body: list[RenderableType] = []
    if ctx.expanded and rest.strip():
        body.append(code(cmd, "command.sh"))
    if output:
        if more:
            body.append(more_line(more, earlier=True))
        body.append(Text(output))
    elif not m.cancelled:
        body.append(Text("(no output)", style=style("piview.notice")))
    if m.truncated:
        note = "Output truncated."
        if m.full_output_path:
            note += f" Full output: {sanitize_line(m.full_output_path)}"
        body.append(Text(note, style=style("piview.warning")))
    head = header(left, ctx.time, ctx.width, keep=status)
    if m.exclude_from_context:
        head.stylize(style("piview.hidden"))
    return head, indent(*body) if body else None


def plain(ctx: Ctx) -> str:
    """Command and output."""
    m = message_as(ctx, BashExecutionMessage)
    if m is None:
        return "$"
    return f"$ {sanitize(m.command)}\n{sanitize(m.output)}"
