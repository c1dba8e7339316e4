"""Provides the HTML export's two pictures of a branch (issue 31) as inline SVG: the timeline
(a row per run on its own wall time, the same rows as the viewer's,
:mod:`piview.render.timeline_rows`) and the context picture (tokens per turn, stacked,
:mod:`piview.render.context_chart`). No script: every segment is a link to its entry's
``#entry-<id>`` anchor with a ``<title>`` tooltip. No Textual.
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from piview.model.timeline import build_timeline
from piview.render.context_chart import Chart, branch_window, build_chart
from piview.render.format import fmt_duration_ms, fmt_tokens, plural
from piview.render.timeline_rows import FOLD_CELLS, Row, Seg, build_rows, seg_colour

if TYPE_CHECKING:
    from piview.model.session import Session
    from piview.model.timeline import Timeline

HEX: dict[str, str] = {
    "magenta": "#b148c6",
    "bright_magenta": "#d670d6",
    "bright_black": "#8b8b8b",
    "red": "#cd3131",
    "bright_red": "#f14c4c",
    "green": "#3fa34d",
    "bright_green": "#5fd35f",
    "blue": "#3b78d8",
    "bright_blue": "#5c9cf5",
    "yellow": "#d7ae00",
    "bright_yellow": "#e5c07b",
    "cyan": "#1fa5b5",
    "bright_cyan": "#29b8db",
    "white": "#c8c8c8",
    "bright_white": "#ffffff",
}
"""The terminal colours of the pictures as the page draws them."""

MAX_ROWS = 300
"""A longer branch draws its longest runs (in their order), with a note saying so."""

MAX_COLUMNS = 2000
"""A branch of more turns draws every n-th turn's context."""

BAR_WIDTH = 760.0
LABEL_WIDTH = 150.0
LANE = 7.0
ROW_GAP = 5.0
FOLD_PX = 36.0


def _hex(colour: str) -> str:
    return HEX.get(colour, "#888888")


def _link(session: Session, entry: int | None, ids: set[str]) -> str | None:
    if entry is None:
        return None
    entry_id = session.ids[entry]
    return entry_id if entry_id in ids else None


def _wrap(inner: str, target: str | None) -> str:
    if target is None:
        return inner
    return f'<a href="#entry-{escape(target)}">{inner}</a>'


def _seg_title(seg: Seg) -> str:
    what = {"wait": "waiting on the user", "model": "model"}.get(seg.kind, seg.name)
    if seg.kind == "error":
        what = "model, stopped on an error" if seg.name == "model" else f"{seg.name} (error)"
    return f"{what} {fmt_duration_ms(seg.ms)}" + (" (inferred)" if seg.inferred else "")


def timeline_svg(session: Session, timeline: Timeline, rows: list[Row], ids: set[str]) -> str:
    """The timeline as one ``<svg>``: a row per run (the longest :data:`MAX_ROWS` of a longer
    branch), its segments links to their entries (``ids``: the anchors on the page)."""
    shown = list(range(len(rows)))
    if len(rows) > MAX_ROWS:
        longest = sorted(shown, key=lambda k: -timeline.runs[k].wall_ms)[:MAX_ROWS]
        shown = sorted(longest)
    unit = FOLD_PX / FOLD_CELLS  # px per cell of the row's axis: a fold is FOLD_PX wide
    scale = (
        max(
            (
                rows[k].ms_unfolded() / max(1.0, BAR_WIDTH / unit - FOLD_CELLS * len(rows[k].folds))
                for k in shown
            ),
            default=1.0,
        )
        or 1.0
    )
    out: list[str] = []
    y = 4.0
    for k in shown:
        row, run = rows[k], timeline.runs[k]
        height = LANE * row.lanes
        label = f"{k + 1}  {fmt_duration_ms(run.wall_ms)}"
        out.append(f'<text x="4" y="{y + height / 2 + 4:.1f}" class="lbl">{escape(label)}</text>')
        for a, b in row.folds:
            x = LABEL_WIDTH + row.x(a, scale) * unit
            out.append(
                f'<text x="{x + 2:.1f}" y="{y + LANE - 1:.1f}" class="fold">'
                f"{escape(fmt_duration_ms(b - a))}</text>"
            )
        for seg in row.segs:
            x0 = LABEL_WIDTH + row.x(seg.start, scale) * unit
            x1 = LABEL_WIDTH + row.x(seg.end, scale) * unit
            if seg.kind == "wait" and row.folds and row.folds[0][0] == seg.start:
                continue  # folded: its length is printed
            rect = (
                f'<rect x="{x0:.1f}" y="{y + seg.lane * LANE:.1f}" width="{max(0.6, x1 - x0):.1f}"'
                f' height="{LANE - 1:.0f}" fill="{_hex(seg_colour(seg))}">'
                f"<title>{escape(_seg_title(seg))}</title></rect>"
            )
            target = seg.result if seg.result is not None else seg.entry
            out.append(_wrap(rect, _link(session, target, ids)))
        y += height + ROW_GAP
    width = LABEL_WIDTH + BAR_WIDTH + 10
    return (
        f'<svg class="tl" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width:.0f} {y:.0f}" '
        f'width="{width:.0f}" height="{y:.0f}" role="img" aria-label="timeline">'
        "<style>.lbl{font:10px sans-serif;fill:currentColor}"
        ".fold{font:9px sans-serif;fill:#8b8b8b}</style>" + "".join(out) + "</svg>"
    )


def context_svg(session: Session, chart: Chart, ids: set[str]) -> str:
    """The context picture as one ``<svg>``: a stacked bar per turn (every n-th of more than
    :data:`MAX_COLUMNS`), each a link to its assistant message; compactions as dashed cuts;
    the window as a red line when known."""
    columns = chart.columns
    step = max(1, -(-len(columns) // MAX_COLUMNS))
    picked = columns[::step]
    height = 180.0
    left = 44.0
    col_w = max(1.0, min(12.0, BAR_WIDTH / max(1, len(picked))))
    top = chart.top or 1.0
    out: list[str] = [
        f'<text x="2" y="12" class="lbl">{escape(fmt_tokens(top))}</text>',
        f'<text x="2" y="{height:.0f}" class="lbl">0</text>',
    ]
    for n, col in enumerate(picked):
        x = left + n * col_w
        if col.cut:
            out.append(
                f'<line x1="{x:.1f}" y1="0" x2="{x:.1f}" y2="{height:.0f}" stroke="#d7ae00"'
                ' stroke-dasharray="3 2"><title>compaction</title></line>'
            )
        rects: list[str] = []
        below = 0.0
        for (_key, label, colour), acc in zip(chart.categories, col.stack, strict=False):
            part = acc - below
            if part > 0:
                y1 = height - acc / top * height
                rects.append(
                    f'<rect x="{x:.1f}" y="{y1:.1f}" width="{max(0.6, col_w - 0.5):.1f}" '
                    f'height="{part / top * height:.1f}" fill="{_hex(colour)}">'
                    f"<title>{escape(f'{label} {fmt_tokens(part)}')}</title></rect>"
                )
            below = acc
        reported = col.context.reported_input
        title = f"turn {n * step + 1}: estimate {fmt_tokens(col.context.total)}" + (
            f", reported input {fmt_tokens(reported)}" if reported is not None else ""
        )
        group = f"<g><title>{escape(title)}</title>{''.join(rects)}</g>"
        out.append(_wrap(group, _link(session, col.entry, ids)))
    if chart.window and chart.window_drawn:
        wy = height - chart.window / top * height
        out.append(
            f'<line x1="{left}" y1="{wy:.1f}" x2="{left + len(picked) * col_w:.1f}" '
            f'y2="{wy:.1f}" stroke="#cd3131"><title>context window</title></line>'
        )
    width = left + len(picked) * col_w + 10
    return (
        f'<svg class="ctx" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width:.0f} '
        f'{height + 4:.0f}" width="{width:.0f}" height="{height + 4:.0f}" role="img" '
        'aria-label="context per turn"><style>.lbl{font:10px sans-serif;fill:currentColor}'
        "</style>" + "".join(out) + "</svg>"
    )


def _legend(chart: Chart) -> str:
    items = [
        ("model", "magenta"),
        ("waiting on the user", "bright_black"),
        ("error", "bright_red"),
    ]
    items += [(label, colour) for _key, label, colour in chart.categories]
    return "".join(
        f'<span class="lg"><span class="sw" style="background:{_hex(c)}"></span>'
        f"{escape(label)}</span>"
        for label, c in dict(items).items()
    )


def timeline_figures(session: Session, leaf: int | None, ids: set[str]) -> list[tuple[str, str]]:
    """``(title, html)`` of the export's pictures of the branch to ``leaf``; none for a
    branch without an assistant turn. ``ids`` are the entry ids with an anchor on the page."""
    timeline = build_timeline(session, leaf)
    if not any(run.turns for run in timeline.runs):
        return []
    rows = build_rows(timeline)
    chart = build_chart(timeline, branch_window(timeline))
    t = timeline.totals
    note = (
        f"{plural(len(timeline.runs), 'run')} · wall {fmt_duration_ms(t.wall_ms)} · model "
        f"{fmt_duration_ms(t.model_ms)} · tools {fmt_duration_ms(t.tool_ms)} · waiting "
        f"{fmt_duration_ms(t.wait_ms)}. Times are the entries' timestamps; a gap over a minute "
        "is folded to its length."
    )
    if len(rows) > MAX_ROWS:
        note += f" The {MAX_ROWS} longest runs are drawn."
    legend = f'<p class="legend">{_legend(chart)}</p>'
    return [
        ("Timeline", f"<p>{escape(note)}</p>{legend}{timeline_svg(session, timeline, rows, ids)}"),
        (
            "Context per turn",
            "<p>The tokens of each turn's context, by Pi's own estimate as piview context "
            "gives it (each bar's tooltip has the turn's reported input beside it); dashed "
            "lines are compactions.</p>" + context_svg(session, chart, ids),
        ),
    ]
