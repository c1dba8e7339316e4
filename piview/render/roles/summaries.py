"""Provides the rendering of compactions and branch summaries.

Both carry a Markdown summary written by the model, and Pi's summarizer appends the files the
summarised work read and modified. Collapsed they show the summary's first lines as a preview
(as tool output does) and the file lists; expanded the whole summary is rendered as Markdown.
"""

from __future__ import annotations

from rich.console import RenderableType
from rich.text import Text

from piview.model.summary import split_summary
from piview.model.types import (
    BranchSummaryEntry,
    BranchSummaryMessage,
    CompactionEntry,
    CompactionSummaryMessage,
)
from piview.render.format import fmt_tokens
from piview.render.roles._common import (
    Ctx,
    Rendered,
    count_lines,
    header,
    indent,
    lines_label,
    markdown,
    marker,
    more_line,
    preview_lines,
)
from piview.render.roles._fields import append_fitting, header_room, usage_label
from piview.render.sanitize import sanitize, sanitize_line
from piview.render.theme import style


def _compaction(ctx: Ctx) -> CompactionEntry | CompactionSummaryMessage | None:
    e = ctx.entry
    if isinstance(e, CompactionEntry):
        return e
    m = getattr(e, "message", None)
    return m if isinstance(m, CompactionSummaryMessage) else None


PREVIEW_LINES = 3
"""Lines of a collapsed summary shown under its header."""


def _files_line(label: str, files: list[str]) -> Text:
    line = Text(f"{label}: ", style=style("piview.dim"))
    line.append(", ".join(sanitize_line(f) for f in files), style("piview.path"))
    return line


def _summary_body(ctx: Ctx, summary: str) -> RenderableType | None:
    parts = split_summary(summary)
    text = parts.text.strip("\n")
    if not text.strip():
        body: list[RenderableType] = [Text("(empty summary)", style=style("piview.notice"))]
    elif ctx.expanded:
        body = [markdown(text)]
    else:
        preview, more = preview_lines(text, PREVIEW_LINES)
        body = [Text(preview)]
        if more:
            body.append(more_line(more))
    if parts.read:
        body.append(_files_line("read", parts.read))
    if parts.modified:
        body.append(_files_line("modified", parts.modified))
    return indent(*body)


def _summary_lines(summary: str) -> int:
    return count_lines(split_summary(summary).text.strip("\n"))


def _usage_keep(s: object) -> Text | None:
    """The summary's own model call (Pi 0.81), kept whole in the header: the ids give way."""
    label = usage_label(getattr(s, "usage", None))
    return Text(f"  {label}", style=style("piview.usage")) if label else None


def render_compaction(ctx: Ctx) -> Rendered:
    """``compacted · N tokens before`` and the summary (Markdown) when expanded."""
    c = _compaction(ctx)
    left = Text(f"{marker(ctx)} ", style=style("piview.marker"))
    left.append("compacted", style("piview.summary"))
    if c is None:
        return header(left, ctx.time, ctx.width), None
    tokens = c.tokens_before if isinstance(c.tokens_before, int | float) else 0
    left.append(f" · {fmt_tokens(tokens)} tokens before", style("piview.dim"))
    summary = sanitize(c.summary)
    if isinstance(c, CompactionEntry):
        after = c.tokens_after  # oh-my-pi: the estimate after the rewrite, and the method
        if isinstance(after, int | float) and not isinstance(after, bool):
            left.append(f" → {fmt_tokens(after)} after", style("piview.dim"))
        if c.method:
            left.append(f" · {sanitize_line(c.method)}", style("piview.dim"))
    tail: list[str] = []
    if isinstance(c, CompactionEntry):
        if c.from_hook or c.from_extension:
            tail.append("by an extension")
        kept = c.first_kept_entry_id
        tail.append(f"kept from {sanitize_line(kept)}" if kept else "nothing kept")
    if not ctx.expanded:
        tail.append(f"summary {lines_label(_summary_lines(summary))}")
    keep = _usage_keep(c)
    # Beside the summary's usage, each of these whole or not at all (the JSON has them all).
    room = header_room(ctx.width, ctx.time, keep)
    append_fitting(left, tail, room, style("piview.dim"), first=" · ", in_order=False)
    return header(left, ctx.time, ctx.width, keep=keep), _summary_body(ctx, summary)


def plain_compaction(ctx: Ctx) -> str:
    """``compaction`` and the summary."""
    c = _compaction(ctx)
    return "compaction\n" + (sanitize(c.summary) if c is not None else "")


def _branch(ctx: Ctx) -> BranchSummaryEntry | BranchSummaryMessage | None:
    e = ctx.entry
    if isinstance(e, BranchSummaryEntry):
        return e
    m = getattr(e, "message", None)
    return m if isinstance(m, BranchSummaryMessage) else None


def render_branch(ctx: Ctx) -> Rendered:
    """``branch summary`` and the summary (Markdown) when expanded."""
    b = _branch(ctx)
    left = Text(f"{marker(ctx)} ", style=style("piview.marker"))
    left.append("branch summary", style("piview.summary"))
    if b is None:
        return header(left, ctx.time, ctx.width), None
    summary = sanitize(b.summary)
    if b.from_id:
        left.append(f" · from {sanitize_line(b.from_id)}", style("piview.dim"))
    if isinstance(b, BranchSummaryEntry) and b.from_hook:
        left.append(" · by an extension", style("piview.dim"))
    keep = _usage_keep(b)
    if not summary.strip():
        left.append(" · empty", style("piview.dim"))
        return header(left, ctx.time, ctx.width, keep=keep), _summary_body(
            ctx, summary
        ) if ctx.expanded else None
    if not ctx.expanded:
        left.append(f" · {lines_label(_summary_lines(summary))}", style("piview.dim"))
    return header(left, ctx.time, ctx.width, keep=keep), _summary_body(ctx, summary)


def plain_branch(ctx: Ctx) -> str:
    """``branch summary`` and the summary."""
    b = _branch(ctx)
    return "branch summary\n" + (sanitize(b.summary) if b is not None else "")
