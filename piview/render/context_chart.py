"""Provides the context picture of a branch (the timeline screen's second view, issue 31): per
assistant turn, the tokens of its context stacked by what they are, drawn as bars with eighth
blocks, compactions as cuts. No Textual.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rich.segment import Segment
from rich.style import Style

from piview.catalog.pi_models import window_of
from piview.render.timeline_rows import tool_colour

if TYPE_CHECKING:
    from piview.model.timeline import Timeline, TurnContext

LOWER_EIGHTHS = " ▁▂▃▄▅▆▇█"
"""A cell's lower part filled by 0 to 8 eighths."""

BASE_CATEGORIES: list[tuple[str, str, str]] = [
    ("system", "system", "bright_blue"),
    ("summaries", "summaries", "blue"),
    ("user", "user", "cyan"),
    ("assistant", "assistant text", "magenta"),
    ("thinking", "thinking", "bright_magenta"),
]
"""``(key, label, colour)`` of the parts that are not tool results, bottom up."""


@dataclass(slots=True)
class Column:
    """One assistant turn of the picture."""

    run: int
    turn: int
    entry: int
    context_at: int | None
    context: TurnContext
    stack: list[float] = field(default_factory=list)
    """The top of each category, bottom up (cumulative tokens)."""
    cut: bool = False
    """A compaction came before this turn (since the one before it)."""


@dataclass(slots=True)
class Chart:
    """Every column, the categories and the scale."""

    columns: list[Column]
    categories: list[tuple[str, str, str]]
    """``(key, label, colour)`` bottom up; a tool's key is ``tool:NAME``."""
    top: float
    """Tokens at the top of the chart."""
    window: int | None = None
    """The model's context window, when known."""
    window_drawn: bool = False
    """Whether the window is on the chart's scale (drawn as a line): a window far above the
    context would flatten every bar, so it is then only named."""


def _part(ctx: TurnContext, key: str) -> float:
    if key.startswith("tool:"):
        return float(ctx.tools.get(key[5:], 0))
    return float(getattr(ctx, key))


def branch_window(timeline: Timeline) -> int | None:
    """The context window of the branch's latest model (the user's ``models.json``, else Pi's
    built-in models), None when unknown."""
    model = next(
        (t.model for r in reversed(timeline.runs) for t in reversed(r.turns) if t.model), None
    )
    return window_of(model)


def build_chart(timeline: Timeline, window: int | None = None) -> Chart:
    """The columns of every turn of ``timeline``, tools stacked biggest first above the rest."""
    by_tool: dict[str, float] = {}
    columns: list[Column] = []
    cuts = {(m.run, m.at_ms) for m in timeline.markers if m.kind == "compaction"}
    cut_runs: dict[int, list[float]] = {}
    for run_k, at in cuts:
        cut_runs.setdefault(run_k, []).append(at)
    pending = False
    for k, run in enumerate(timeline.runs):
        ats = sorted(cut_runs.get(k, []))
        for n, turn in enumerate(run.turns):
            while ats and ats[0] <= turn.start_ms:
                ats.pop(0)
                pending = True
            columns.append(Column(k, n, turn.entry, turn.context_at, turn.context, cut=pending))
            pending = False
            for name, tokens in turn.context.tools.items():
                by_tool[name] = by_tool.get(name, 0.0) + tokens
        pending = pending or bool(ats)
    tools = sorted(by_tool, key=lambda name: -by_tool[name])
    cats = [*BASE_CATEGORIES, *((f"tool:{t}", f"tool {t}", tool_colour(t)) for t in tools)]
    top = 0.0
    for col in columns:
        acc = 0.0
        for key, _label, _colour in cats:
            acc += _part(col.context, key)
            col.stack.append(acc)
        top = max(top, acc, float(col.context.reported_input or 0))
    drawn = bool(window) and window is not None and window <= WINDOW_SCALE * max(top, 1.0)
    if drawn and window is not None:
        top = max(top, float(window))
    return Chart(columns, cats, top or 1.0, window, drawn)


WINDOW_SCALE = 4
"""A window up to this many times the largest context is drawn to scale; a larger one only
named (the bars would be a few cells high)."""


_STYLES: dict[tuple[str | None, str | None], Style] = {}

REPORTED_GLYPH = "╌"
_REPORTED = Segment(REPORTED_GLYPH, Style(color="bright_white"))
"""The turn's reported input (its usage), drawn above its bar where the estimate is lower."""


def _style(colour: str | None, bg: str | None = None) -> Style:
    got = _STYLES.get((colour, bg))
    if got is None:
        got = _STYLES[colour, bg] = Style(color=colour, bgcolor=bg)
    return got


def _cell(col: Column, cats: list[tuple[str, str, str]], lo: float, hi: float) -> Segment:
    """The cell of ``col`` between ``lo`` and ``hi`` tokens: the category at its bottom to the
    eighth where it ends, the next one behind it."""
    stack = col.stack
    if not stack or stack[-1] <= lo:
        return Segment(" ")
    # The first category whose top is above ``lo``.
    j = next(k for k, top in enumerate(stack) if top > lo)
    colour = cats[j][2]
    if stack[j] >= hi:
        return Segment("█", _style(colour))
    n = max(1, round((stack[j] - lo) / (hi - lo) * 8))
    behind = None
    if stack[-1] > stack[j] + (hi - lo) / 16:
        behind = next((cats[k][2] for k in range(j + 1, len(stack)) if stack[k] > stack[j]), None)
    if n >= 8:
        return Segment("█", _style(colour))
    return Segment(LOWER_EIGHTHS[n], _style(colour, behind))


def draw_chart_line(
    chart: Chart, y: int, height: int, first: int, width: int, cursor: int, cell: int = 1
) -> list[Segment]:
    """Line ``y`` (0 at the top) of a chart ``height`` lines high, columns ``first`` on,
    ``cell`` cells each (a gap after each when 3 or more) in ``width`` cells; each turn's
    reported input as a dash above its bar, the window as a dotted line where it is known; a
    line above the cursor's column."""
    lo = chart.top * (height - 1 - y) / height
    hi = chart.top * (height - y) / height
    window = chart.window if chart.window_drawn else None
    out: list[Segment] = []
    gap = cell >= 3
    for c in range(first, min(len(chart.columns), first + max(1, width // cell))):
        col = chart.columns[c]
        seg = _cell(col, chart.categories, lo, hi)
        reported = col.context.reported_input
        if seg.text == " " and reported is not None and lo < reported <= hi:
            seg = _REPORTED
        elif seg.text == " " and window is not None and lo <= window < hi:
            seg = Segment("┈", _style("red"))
        elif c == cursor and seg.text == " ":
            seg = Segment("│", _style("bright_black"))
        out.extend([seg] * (cell - gap))
        if gap:
            out.append(Segment(" "))
    return out


def draw_axis(chart: Chart, first: int, width: int, cursor: int, cell: int = 1) -> list[Segment]:
    """The line under the chart: ``✂`` under a turn a compaction came before, ``▲`` under the
    cursor (columns ``cell`` cells wide)."""
    out: list[Segment] = []
    line = _style("bright_black")
    for c in range(first, min(len(chart.columns), first + max(1, width // cell))):
        if c == cursor:
            out.append(Segment("▲", _style("bright_white")))
        elif chart.columns[c].cut:
            out.append(Segment("✂", _style("yellow")))
        else:
            out.append(Segment("─", line))
        if cell > 1:
            out.append(Segment("─" * (cell - 1), line))
    return out


def column_of_entry(chart: Chart, entry: int) -> int:
    """The column of the turn of assistant entry ``entry`` (else the last before it)."""
    best = 0
    for k, col in enumerate(chart.columns):
        if col.entry <= entry:
            best = k
    return best


def scale_label(tokens: float) -> str:
    """Tokens as ``12k`` for the chart's scale."""
    if tokens >= 1000:
        return f"{tokens / 1000:.0f}k" if tokens >= 10_000 else f"{tokens / 1000:.1f}k"
    return f"{math.ceil(tokens)}"
