"""Provides :class:`ContextChart`: the context picture (:mod:`piview.render.context_chart`),
one column per assistant turn, only the columns on screen drawn, with a cursor on a turn."""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding
from textual.cache import LRUCache
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget

from piview.render.context_chart import Chart, draw_axis, draw_chart_line, scale_label

SCALE_WIDTH = 6
"""Cells left of the bars: the scale's labels."""

_DIM = Style(color="bright_black")
_CURSOR_LINE = Segment("│", Style(color="bright_black"))


class ContextChart(Widget, can_focus=True):
    """The tokens of each turn's context, stacked; left/right move over the turns.

    | Key(s) | What |
    | --- | --- |
    | left/right, h/l | previous / next turn |
    | home/end, g/G | first / last turn |
    | pageup/pagedown | a screen of turns back / on |
    """

    HELP_TITLE = "Context picture"

    BINDINGS = [
        Binding("left,h", "step(-1)", "Previous", show=False, tooltip="previous turn"),
        Binding("right,l", "step(1)", "Next", show=False, tooltip="next turn"),
        Binding("pageup", "page(-1)", "Page back", show=False, tooltip="a screen of turns back"),
        Binding("pagedown", "page(1)", "Page on", show=False, tooltip="a screen of turns on"),
        Binding("g,home", "first", "First", show=False, tooltip="first turn"),
        Binding("G,end", "last", "Last", show=False, tooltip="last turn"),
    ]

    DEFAULT_CSS = """
    ContextChart { height: 1fr; min-height: 4; }
    """

    class Moved(Message):
        """The cursor moved to another turn."""

        def __init__(self, chart: ContextChart) -> None:
            super().__init__()
            self.chart = chart

        @property
        def control(self) -> ContextChart:
            """The chart."""
            return self.chart

        def can_replace(self, message: Message) -> bool:
            """Only the last move matters."""
            return isinstance(message, ContextChart.Moved)

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id)
        self.chart: Chart | None = None
        self.cursor = 0
        self.first = 0
        """The first column on screen."""
        self._lines: LRUCache[tuple[int, ...], tuple[Strip, frozenset[int]]] = LRUCache(256)
        """The bars' lines without the cursor (and where they are empty), by (line, height,
        first turn, width, cell)."""
        self._lines_for: Chart | None = None

    def show(self, chart: Chart, cursor: int | None = None) -> None:
        """Draw ``chart``, the cursor on ``cursor`` (default: the last turn)."""
        self.chart = chart
        last = max(0, len(chart.columns) - 1)
        self.cursor = last if cursor is None else max(0, min(last, cursor))
        self._into_view()
        self.refresh()
        self.post_message(self.Moved(self))

    @property
    def bars_width(self) -> int:
        """Turns on screen."""
        return max(1, self._cells() // self.cell)

    def _cells(self) -> int:
        return max(1, (self.size.width or 80) - SCALE_WIDTH)

    @property
    def cell(self) -> int:
        """Cells a turn takes: 1, or up to 4 when few turns leave the room."""
        n = len(self.chart.columns) if self.chart is not None else 0
        return max(1, min(4, self._cells() // max(1, n)))

    def _into_view(self) -> None:
        width = self.bars_width
        if self.cursor < self.first:
            self.first = self.cursor
        elif self.cursor >= self.first + width:
            self.first = self.cursor - width + 1
        # No room left empty at the right (a chart shown while hidden measured no width).
        n = len(self.chart.columns) if self.chart is not None else 0
        self.first = max(0, min(self.first, n - width))

    def render_line(self, y: int) -> Strip:
        """A line of the bars (the last: the axis with the compactions and the cursor)."""
        width = self.size.width
        chart = self.chart
        height = self.size.height
        if chart is None or not chart.columns or height < 2:
            return Strip.blank(width, self.rich_style)
        bars = height - 1
        if y == bars:
            label = Segment(f"{'0':>{SCALE_WIDTH - 1}} ", _DIM)
            body = draw_axis(chart, self.first, self._cells(), self.cursor, self.cell)
        else:
            if y == 0:
                text = scale_label(chart.top)
            elif y == bars // 2 and bars > 3:
                text = scale_label(chart.top / 2)
            else:
                text = ""
            label = Segment(f"{text:>{SCALE_WIDTH - 1}}▕", _DIM)
            return self._bars_line(chart, y, bars, width, label)
        return Strip([label, *body]).crop_extend(0, width, None).apply_style(self.rich_style)

    def _bars_line(self, chart: Chart, y: int, bars: int, width: int, label: Segment) -> Strip:
        """Line ``y`` of the bars: kept without the cursor, the cursor's column drawn into a
        copy where it is empty."""
        cell = self.cell
        key = (y, bars, self.first, width, cell)
        if self._lines_for is not chart:
            self._lines.clear()
            self._lines_for = chart
        got = self._lines.get(key)
        if got is None:
            body = draw_chart_line(chart, y, bars, self.first, self._cells(), -1, cell)
            strip = Strip(Segment.simplify([label, *body])).crop_extend(0, width, None)
            blanks = frozenset(k for k, seg in enumerate(body) if seg.text == " ")
            got = self._lines[key] = (strip.apply_style(self.rich_style), blanks)
        strip, blanks = got
        start = (self.cursor - self.first) * cell
        cols = [k for k in range(start, start + max(1, cell - (cell >= 3))) if k in blanks]
        if not cols:
            return strip
        x = SCALE_WIDTH + cols[0]
        mark = Strip([Segment("│" * len(cols), _CURSOR_LINE.style)]).apply_style(self.rich_style)
        return Strip.join([strip.crop(0, x), mark, strip.crop(x + len(cols), width)])

    def on_resize(self) -> None:
        """Keep the cursor's column on screen, the width filled."""
        self._into_view()
        self.refresh()

    def _moved(self) -> None:
        self._into_view()
        self.refresh()
        self.post_message(self.Moved(self))

    def action_step(self, step: int) -> None:
        """The previous or next turn."""
        if self.chart is None or not self.chart.columns:
            return
        self.cursor = max(0, min(len(self.chart.columns) - 1, self.cursor + step))
        self._moved()

    def action_page(self, step: int) -> None:
        """A screen of turns back or on."""
        self.action_step(step * self.bars_width)

    def action_first(self) -> None:
        """The first turn."""
        self.cursor = 0
        self._moved()

    def action_last(self) -> None:
        """The last turn."""
        if self.chart is not None:
            self.cursor = max(0, len(self.chart.columns) - 1)
            self._moved()
