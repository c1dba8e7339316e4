"""Provides :class:`TimelineView`: the timeline's rows (:mod:`piview.render.timeline_rows`) in one
Line-API ScrollView, only the lines on screen drawn, with a cursor on a segment and a zoom.
"""

from __future__ import annotations

import bisect
import itertools
from typing import TYPE_CHECKING

from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from piview.model.user_text import user_text
from piview.render.format import fmt_time_of_day
from piview.render.sanitize import sanitize_line
from piview.render.timeline_rows import FOLD_CELLS, Row, Seg, draw_lane, row_summary, seg_at

if TYPE_CHECKING:
    from piview.model import Session
    from piview.model.timeline import Timeline

GUTTER = 2
"""Cells left of the bars: the cursor's mark."""

_DIM = Style(color="bright_black")
_CURSOR_MARK = Style(color="bright_blue", bold=True)
_SUMMARY = Style(color="bright_black")
_SUMMARY_CURSOR = Style(bold=True)


class TimelineView(ScrollView, can_focus=True):
    """Every run of a branch as a row on its own wall time, on one scale.

    | Key(s) | What |
    | --- | --- |
    | left/right, h/l | previous / next segment (on to the next row at a row's end) |
    | up/down, k/j | the row above / below, the segment nearest in time |
    | + / - | zoom in (down to the turn under the cursor) / out (every row fits) |
    | enter | open the segment's block in the transcript |
    """

    HELP_TITLE = "Timeline"

    BINDINGS = [
        Binding("left,h", "step(-1)", "Previous", show=False, tooltip="previous segment"),
        Binding("right,l", "step(1)", "Next", show=False, tooltip="next segment"),
        Binding("up,k", "row(-1)", "Up", show=False, tooltip="the row above"),
        Binding("down,j", "row(1)", "Down", show=False, tooltip="the row below"),
        Binding("pageup", "row(-10)", "Page up", show=False, tooltip="ten rows up"),
        Binding("pagedown", "row(10)", "Page down", show=False, tooltip="ten rows down"),
        Binding("g,home", "first", "First", show=False, tooltip="first row"),
        Binding("G,end", "last", "Last", show=False, tooltip="last row"),
        Binding("plus,equals_sign", "zoom(1)", "Zoom in", tooltip="zoom in, down to one turn"),
        Binding("minus", "zoom(-1)", "Zoom out", tooltip="zoom out, up to every row whole"),
        Binding("enter", "open", "Open", tooltip="open the segment's block in the transcript"),
    ]

    DEFAULT_CSS = """
    TimelineView { height: 1fr; scrollbar-size-horizontal: 0; }
    """

    class Moved(Message):
        """The cursor moved to another segment (or the zoom changed)."""

        def __init__(self, view: TimelineView) -> None:
            super().__init__()
            self.view = view

        @property
        def control(self) -> TimelineView:
            """The view."""
            return self.view

        def can_replace(self, message: Message) -> bool:
            """Only the last move matters."""
            return isinstance(message, TimelineView.Moved)

    class Chosen(Message):
        """Enter on a segment: open ``entry`` (the assistant message of model time and of a
        call, whose ``call_id`` is given; the prompt of a wait) in the transcript."""

        def __init__(self, view: TimelineView, entry: int, call_id: str = "") -> None:
            super().__init__()
            self.view = view
            self.entry = entry
            self.call_id = call_id

        @property
        def control(self) -> TimelineView:
            """The view."""
            return self.view

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id)
        self.session: Session | None = None
        self.timeline: Timeline | None = None
        self.rows: list[Row] = []
        self._offsets: list[int] = [0]
        """The first line of each row, and the total after the last."""
        self.row = 0
        self.seg = 0
        self.scale = 1000.0
        """Ms a cell."""
        self._scale_all = 1000.0
        self.x_off = 0.0
        self._strips: LRUCache[tuple[object, ...], Strip] = LRUCache(2048)
        self._prompts: LRUCache[int, str] = LRUCache(1024)

    # ------------------------------------------------------------------ data

    def show(
        self, session: Session, timeline: Timeline, rows: list[Row], row: int | None = None
    ) -> None:
        """Draw ``rows`` (of ``timeline``), the cursor on ``row`` (default: the last),
        every row whole."""
        self.session, self.timeline, self.rows = session, timeline, rows
        self._offsets = [0, *itertools.accumulate(r.height for r in rows)]
        self.virtual_size = Size(self.size.width, self._offsets[-1])
        self._strips.clear()
        last = max(0, len(rows) - 1)
        self.row = last if row is None else max(0, min(last, row))
        self.seg = max(0, len(rows[self.row].segs) - 1) if rows else 0
        self._scale_all = self._fit_all()
        self.scale = self._scale_all
        self.x_off = 0.0
        self._cursor_into_view()
        self.post_message(self.Moved(self))

    @property
    def bar_width(self) -> int:
        """Cells of the bars."""
        return max(10, (self.scrollable_content_region.width or self.size.width or 80) - GUTTER)

    def _fit_all(self) -> float:
        """The scale at which the longest row fits."""
        if not self.rows:
            return 1000.0
        width = self.bar_width
        return (
            max(
                (
                    r.ms_unfolded() / max(1, width - FOLD_CELLS * len(r.folds) - 1)
                    for r in self.rows
                ),
                default=1000.0,
            )
            or 1.0
        )

    def _fit_turn(self) -> float:
        """The scale at which the turn under the cursor (or the wait) fits."""
        seg = self.current_seg
        if seg is None:
            return self._scale_all
        row = self.rows[self.row]
        if seg.turn < 0:
            spans = [(seg.start, seg.end)]
        else:
            spans = [(s.start, s.end) for s in row.segs if s.turn == seg.turn]
        a = min(s[0] for s in spans)
        b = max(s[1] for s in spans)
        cells = row.x(b, 1.0) - row.x(a, 1.0)  # ms without folds, folds in cells
        return max(1.0, cells / max(1, self.bar_width - 2))

    @property
    def current_seg(self) -> Seg | None:
        """The segment under the cursor."""
        if not self.rows:
            return None
        segs = self.rows[self.row].segs
        return segs[self.seg] if 0 <= self.seg < len(segs) else None

    def prompt(self, k: int) -> str:
        """The first line of run ``k``'s prompt (read from the file on first use)."""
        got = self._prompts.get(k)
        if got is None:
            entry = self.timeline.runs[k].entry if self.timeline else None
            text = ""
            if entry is not None and self.session is not None:
                try:
                    text = user_text(self.session, entry)
                except OSError:
                    text = ""
            got = sanitize_line(" ".join(text.split()))[:300] or "(no prompt)"
            self._prompts[k] = got
        return got

    # ------------------------------------------------------------------ drawing

    def render_line(self, y: int) -> Strip:
        """One line: a row's summary or one of its lanes."""
        width = self.scrollable_content_region.width or self.size.width
        line = round(self.scroll_y) + y
        if not self.rows or line >= self._offsets[-1] or self.timeline is None:
            return Strip.blank(width, self.rich_style)
        k = bisect.bisect_right(self._offsets, line) - 1
        sub = line - self._offsets[k]
        on = k == self.row
        cursor = self.current_seg if on else None
        key = (k, sub, self.scale, self.x_off, width, on, self.seg if on else -1)
        strip = self._strips.get(key)
        if strip is None:
            strip = self._draw(k, sub, width, cursor, on)
            self._strips[key] = strip
        return strip.apply_style(self.rich_style)

    def _draw(self, k: int, sub: int, width: int, cursor: Seg | None, on: bool) -> Strip:
        assert self.timeline is not None
        row, run = self.rows[k], self.timeline.runs[k]
        mark = Segment("▌ " if on else "  ", _CURSOR_MARK)
        if sub == 0:
            head = f"{k + 1:>4} {fmt_time_of_day(run.start) or '--:--:--'} "
            summary = row_summary(row, run) + "  "
            segs = [
                mark,
                Segment(head, _DIM),
                Segment(summary, _SUMMARY_CURSOR if on else _SUMMARY),
                Segment(self.prompt(k)),
            ]
        else:
            bars = draw_lane(row, sub - 1, self.scale, self.x_off, width - GUTTER, cursor)
            segs = [mark, *bars]
        return Strip(segs).crop_extend(0, width, None)

    def refresh_all(self) -> None:
        """Forget the drawn lines and draw again."""
        self._strips.clear()
        self.refresh()

    def on_resize(self) -> None:
        """A new width: every row whole again at the widest zoom."""
        if not self.rows:
            return
        self.virtual_size = Size(self.size.width, self._offsets[-1])
        at_all = self.scale == self._scale_all
        self._scale_all = self._fit_all()
        if at_all or self.scale > self._scale_all:
            self.scale = self._scale_all
        self._cursor_into_view()
        self.refresh_all()

    # ------------------------------------------------------------------ cursor

    def _cursor_into_view(self) -> None:
        if not self.rows:
            return
        top, bottom = self._offsets[self.row], self._offsets[self.row + 1]
        height = self.scrollable_content_region.height or self.size.height or 20
        y = self.scroll_y
        if top < y:
            y = top
        elif bottom > y + height:
            y = bottom - height
        self.set_scroll(None, max(0, y))
        seg = self.current_seg
        if seg is None:
            self.x_off = 0.0
            return
        row = self.rows[self.row]
        xs, xe = row.x(seg.start, self.scale), row.x(seg.end, self.scale)
        bar = self.bar_width
        if self.scale >= self._scale_all:
            self.x_off = 0.0
        elif xs < self.x_off or xe > self.x_off + bar:
            self.x_off = max(0.0, xs - bar / 4)

    def _moved(self) -> None:
        self._cursor_into_view()
        self.refresh()
        self.post_message(self.Moved(self))

    def action_step(self, step: int) -> None:
        """The previous or next segment in time, on to the next row's at a row's end."""
        if not self.rows:
            return
        n = self.seg + step
        if 0 <= n < len(self.rows[self.row].segs):
            self.seg = n
        else:
            k = self.row + (1 if step > 0 else -1)
            while 0 <= k < len(self.rows) and not self.rows[k].segs:
                k += 1 if step > 0 else -1
            if not 0 <= k < len(self.rows):
                return
            self.row = k
            self.seg = 0 if step > 0 else len(self.rows[k].segs) - 1
        self._moved()

    def action_row(self, step: int) -> None:
        """The row ``step`` rows away; the segment nearest the cursor's time."""
        if not self.rows:
            return
        seg = self.current_seg
        t = (seg.start + seg.end) / 2 if seg is not None else 0.0
        self.row = max(0, min(len(self.rows) - 1, self.row + step))
        self.seg = seg_at(self.rows[self.row], t)
        self._moved()

    def action_first(self) -> None:
        """The first row."""
        self.row, self.seg = 0, 0
        self._moved()

    def action_last(self) -> None:
        """The last row."""
        if self.rows:
            self.row = len(self.rows) - 1
            self.seg = max(0, len(self.rows[self.row].segs) - 1)
            self._moved()

    def action_zoom(self, step: int) -> None:
        """Twice the detail (down to the turn under the cursor filling the width), or half
        (up to every row whole)."""
        if not self.rows:
            return
        if step > 0:
            fit = min(self._fit_turn(), self._scale_all)
            self.scale = max(fit, self.scale / 2)
        else:
            self.scale = min(self._scale_all, self.scale * 2)
        self._strips.clear()
        self._moved()

    @property
    def zoom_label(self) -> str:
        """The zoom, in words."""
        if self.scale >= self._scale_all:
            return "whole"
        if self.scale <= min(self._fit_turn(), self._scale_all) * 1.0001:
            return "one turn"
        return f"×{self._scale_all / self.scale:.0f}"

    def action_open(self) -> None:
        """Open the segment's block."""
        seg = self.current_seg
        if seg is None:
            return
        if seg.entry is not None:
            self.post_message(self.Chosen(self, seg.entry, seg.call_id))
