"""Provides :class:`TimelineScreen`: where the time and the context of a branch went (issue
31). Two views: the timeline (:class:`~piview.widgets.timeline_view.TimelineView`) and the
context picture (:class:`~piview.widgets.context_chart.ContextChart`, with the largest tool
results still in context at the turn under the cursor). The branch's timeline is built in a
worker; Enter dismisses with the entry to show in the transcript.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import ContentSwitcher, OptionList, Static
from textual.widgets.option_list import Option

from piview.model.context_top import ToolResultShare, largest_tool_results
from piview.model.timeline import Timeline, build_timeline
from piview.render.context_chart import Chart, branch_window, build_chart, column_of_entry
from piview.render.format import fmt_duration_ms, fmt_tokens, plural
from piview.render.sanitize import sanitize_line
from piview.render.timeline_rows import (
    MARK_GLYPHS,
    Row,
    build_rows,
    legend,
    seg_colour,
    tool_colour,
)
from piview.widgets.context_chart import ContextChart
from piview.widgets.keybar import KeyBar
from piview.widgets.offthread import compute_off_thread
from piview.widgets.timeline_view import TimelineView

if TYPE_CHECKING:
    from rich.console import RenderableType

    from piview.model import Session

INFERRED_NOTE = (
    "times are measured from the entries' timestamps; ~ marks what is inferred "
    "(a time missing or out of order, a call without its result)"
)


_Built = tuple[Timeline, list[Row], Chart]

_KEPT: weakref.WeakKeyDictionary[Session, tuple[object, int | None, _Built]] = (
    weakref.WeakKeyDictionary()
)
"""The last timeline built per session, with the tree and leaf it was built for (``w``
again on the same branch opens at once)."""


def _built(session: Session, leaf: int | None) -> _Built:
    """The worker's work: the timeline, its rows and the context picture (kept)."""
    tree = session.tree  # the tree it is built for: the file may grow meanwhile
    timeline = build_timeline(session, leaf)
    got = (timeline, build_rows(timeline), build_chart(timeline, branch_window(timeline)))
    _KEPT[session] = (tree, leaf, got)
    return got


def build_kept(session: Session, leaf: int | None) -> None:
    """Build the branch's timeline and keep it for ``w`` (the session screen's work ahead)."""
    _built(session, leaf)


def is_kept(session: Session, leaf: int | None) -> bool:
    """Whether the timeline of that branch is kept already."""
    return _kept(session, leaf) is not None


def _kept(session: Session, leaf: int | None) -> _Built | None:
    kept = _KEPT.get(session)
    if kept is None or kept[0] is not session.tree or kept[1] != leaf:
        return None
    return kept[2]


class TimelineScreen(Screen[tuple[int, str] | None]):
    """The timeline and context picture of a branch. Dismisses with ``(entry, call_id)`` of
    the block chosen (``call_id`` empty but for a tool call's segment).

    Keys: :attr:`BINDINGS` and those of the view shown (``?`` lists them, and the colours).
    """

    HELP_TITLE = "Timeline screen"

    BINDINGS = [
        Binding("escape,w", "close", "Close"),
        Binding("q", "app.quit", "Quit", show=False, tooltip="quit"),
        Binding("question_mark", "app.help", "Help", tooltip="this help, and the colours"),
        Binding("tab", "switch", "Switch", tooltip="switch: the timeline / the context picture"),
        Binding("enter", "open", "Open", tooltip="open the turn's message in the transcript"),
    ]

    DEFAULT_CSS = """
    TimelineScreen { background: $surface; }
    TimelineScreen #head { height: auto; max-height: 7; padding: 0 1; }
    TimelineScreen ContentSwitcher { height: 1fr; }
    TimelineScreen #context-view { height: 1fr; }
    TimelineScreen #ctx-detail { height: auto; max-height: 3; padding: 0 1; }
    TimelineScreen #top { height: auto; max-height: 11; border: none; padding: 0; }
    TimelineScreen #detail { height: 1; padding: 0 1; color: $text-muted; }
    """

    def __init__(self, session: Session, leaf: int | None, at: int | None = None) -> None:
        super().__init__()
        self.session = session
        self.leaf = leaf
        self.at = at
        """The entry focused in the transcript: the context picture opens on its turn."""
        self.timeline: Timeline | None = None
        self.chart: Chart | None = None
        self._top: list[ToolResultShare] = []
        self._top_for: int | None = None
        self._top_timer: Timer | None = None

    def compose(self) -> ComposeResult:
        """The totals, the two views, a line about the cursor, the keys."""
        yield Static(Text("building the timeline…", style="italic"), id="head")
        with ContentSwitcher(initial="timeline"):
            yield TimelineView(id="timeline")
            with Vertical(id="context-view"):
                yield ContextChart(id="chart")
                yield Static(id="ctx-detail")
                yield OptionList(id="top")
        yield Static(id="detail")
        yield KeyBar()

    def on_mount(self) -> None:
        """Build the timeline in a worker once the first frame is out (a long branch takes a
        while, and the worker would share the interpreter with that frame)."""
        self.query_one(TimelineView).focus()
        kept = _kept(self.session, self.leaf)
        if kept is not None:  # built ahead, or for w before: shown in the first frame
            self._ready(kept)
            return
        self.call_after_refresh(self._build)

    def _build(self) -> None:
        session, leaf = self.session, self.leaf
        kept = _kept(session, leaf)  # the work ahead may have finished since the mount
        if kept is not None:
            self._ready(kept)
            return
        compute_off_thread(
            self,
            lambda: _built(session, leaf),
            self._ready,
            group="timeline",
            description="Building the timeline",
        )

    def _ready(self, got: _Built | None) -> None:
        if got is None:
            self.query_one("#head", Static).update(Text("The timeline failed: see the log"))
            return
        if not self.is_attached:
            return
        self.timeline, rows, self.chart = got
        self.query_one(TimelineView).show(self.session, self.timeline, rows, self._run_at())
        cursor = column_of_entry(self.chart, self.at) if self.at is not None else None
        self.query_one(ContextChart).show(self.chart, cursor)
        self._head()

    def _run_at(self) -> int | None:
        """The run the transcript's focused entry is in (None: not on the branch)."""
        tl = self.timeline
        if tl is None or self.at is None:
            return None
        position = {e: k for k, e in enumerate(tl.path)}
        at = position.get(self.at)
        if at is None:
            return None
        found = None
        for k, run in enumerate(tl.runs):
            start = position.get(run.entry) if run.entry is not None else 0
            if start is not None and start <= at:
                found = k
        return found

    # ------------------------------------------------------------------ text

    def _head(self) -> None:
        tl = self.timeline
        if tl is None:
            return
        t = tl.totals
        turns = sum(len(r.turns) for r in tl.runs)
        width = max(20, (self.size.width or 80) - 2)
        counts = f"{plural(len(tl.runs), 'run')} · {plural(turns, 'turn')}"
        times = (
            2 * 5
            + len("wall model tools waiting")
            + sum(len(fmt_duration_ms(x)) for x in (t.wall_ms, t.model_ms, t.tool_ms, t.wait_ms))
        )
        if len(counts) + times > width:  # narrow: the times first
            counts = plural(len(tl.runs), "run")
        line = Text.assemble(
            (counts, "bold"),
            ("  wall ", "bold"),
            fmt_duration_ms(t.wall_ms),
            ("  model ", "bold magenta"),
            fmt_duration_ms(t.model_ms),
            ("  tools ", "bold yellow"),
            fmt_duration_ms(t.tool_ms),
            ("  waiting ", "bold bright_black"),
            fmt_duration_ms(t.wait_ms),
            no_wrap=True,
            overflow="ellipsis",
        )
        lines = [line]
        tools = sorted(t.by_tool.items(), key=lambda kv: -kv[1].total_ms)
        current = Text(no_wrap=True, overflow="ellipsis")
        for name, tt in tools:
            item = Text.assemble(
                (sanitize_line(name), f"bold {tool_colour(name)}"),
                f" {tt.calls}× {fmt_duration_ms(tt.total_ms)} p50 {fmt_duration_ms(tt.p50_ms)}"
                f" max {fmt_duration_ms(tt.max_ms)}" + (f" ✗{tt.errors}" if tt.errors else ""),
            )
            if current and current.cell_len + 3 + item.cell_len > width:
                lines.append(current)
                current = Text(no_wrap=True, overflow="ellipsis")
            if current:
                current.append(" │ ", "bright_black")
            current.append_text(item)
        if current:
            lines.append(current)
        limit = 3 if (self.size.height or 24) < 40 else 6
        if len(lines) > limit:
            lines = lines[:limit]
            lines[-1].append(" …")
        self.query_one("#head", Static).update(
            Text("\n", no_wrap=True, overflow="ellipsis").join(lines)
        )

    def on_resize(self) -> None:
        """The tools' totals wrap at the width; a short screen lists five results at a time
        (of ten), so that the chart keeps some room."""
        self.query_one("#top", OptionList).styles.max_height = (
            11 if (self.size.height or 24) >= 36 else 6
        )
        self._head()

    def _detail_timeline(self) -> None:
        view = self.query_one(TimelineView)
        seg = view.current_seg
        tl = self.timeline
        if tl is None:
            return
        text = Text(no_wrap=True, overflow="ellipsis")
        if seg is None:
            text.append("no segment on this row")
        else:
            run = tl.runs[view.row]
            what = {"wait": "waiting on the user", "model": "model"}.get(seg.kind, seg.name)
            if seg.kind == "error" and seg.name == "model":
                what = f"model (stopped: {run.turns[seg.turn].stop_reason})"
            elif seg.kind == "error":
                what = f"{seg.name} ✗ error"
            text.append(sanitize_line(what), f"bold {seg_colour(seg)}")
            text.append(f" {fmt_duration_ms(seg.ms)}")
            if seg.turn >= 0:
                text.append(f" · turn {seg.turn + 1}/{len(run.turns)}")
            if seg.entry is not None:
                text.append(f" · {self.session.ids[seg.entry][:8]}")
            text.append(" · ")
            text.append("~ inferred" if seg.inferred else "measured", "bright_black")
            text.append(f" · zoom {view.zoom_label}", "bright_black")
        self.query_one("#detail", Static).update(text)

    def _detail_context(self) -> None:
        chart = self.chart
        cc = self.query_one(ContextChart)
        if chart is None or not chart.columns:
            self.query_one("#ctx-detail", Static).update(Text("no assistant turn on this branch"))
            self.query_one("#detail", Static).update("")
            return
        col = chart.columns[cc.cursor]
        ctx = col.context
        line = Text(no_wrap=True, overflow="ellipsis")
        line.append(f"turn {cc.cursor + 1}/{len(chart.columns)}", "bold")
        line.append(f" (run {col.run + 1}) · {self.session.ids[col.entry][:8]} · ")
        line.append("estimate ", "bold")
        line.append(fmt_tokens(ctx.total))
        line.append(" · reported input ", "bold")
        line.append(fmt_tokens(ctx.reported_input) if ctx.reported_input is not None else "–")
        lines = [line]
        width = max(20, (self.size.width or 80) - 2)
        current = Text(no_wrap=True, overflow="ellipsis")
        for key, label, colour in chart.categories:
            tokens = ctx.tools.get(key[5:], 0) if key.startswith("tool:") else getattr(ctx, key)
            if not tokens:
                continue
            item = Text.assemble(("█ ", colour), f"{sanitize_line(label)} {fmt_tokens(tokens)}")
            if current and current.cell_len + 2 + item.cell_len > width:
                lines.append(current)
                current = Text(no_wrap=True, overflow="ellipsis")
            if current:
                current.append("  ")
            current.append_text(item)
        if current:
            lines.append(current)
        if len(lines) > 3:
            lines = lines[:3]
            lines[-1].append(" …")
        window = "window unknown"
        if chart.window:
            used = (col.context.reported_input or col.context.total) / chart.window
            window = f"window {fmt_tokens(chart.window)} ({used:.0%} used)" + (
                "" if chart.window_drawn else ", off the scale"
            )
        self.query_one("#ctx-detail", Static).update(
            Text("\n", no_wrap=True, overflow="ellipsis").join(lines)
        )
        self.query_one("#detail", Static).update(
            Text(
                f"{'✂ compaction before this turn · ' if col.cut else ''}{window} · estimate: "
                "Pi's estimateTokens, as piview context; reported: the turn's usage",
                style="bright_black",
                no_wrap=True,
                overflow="ellipsis",
            )
        )
        self._schedule_top()

    # ------------------------------------------------------------------ the largest results

    def _schedule_top(self) -> None:
        """List the largest tool results of the turn under the cursor once it rests."""
        if self._top_timer is not None:
            self._top_timer.stop()
        self._top_timer = self.set_timer(0.15, self._compute_top)

    def _compute_top(self) -> None:
        self._top_timer = None
        chart = self.chart
        if chart is None or not chart.columns:
            return
        col = chart.columns[self.query_one(ContextChart).cursor]
        at = col.context_at
        if at is None or at == self._top_for:
            return
        self._top_for = at
        session = self.session
        compute_off_thread(
            self,
            lambda: (at, largest_tool_results(session, at)),
            self._show_top,
            group="timeline-top",
            description="The largest tool results in context",
        )

    def _show_top(self, got: tuple[int, list[ToolResultShare]] | None) -> None:
        if got is None or got[0] != self._top_for or not self.is_attached:
            return
        self._top = got[1]
        top = self.query_one("#top", OptionList)
        top.clear_options()
        if not self._top:
            top.add_option(Option(Text("no tool result in this context", style="italic")))
            return
        for r in self._top:
            top.add_option(
                Option(
                    Text.assemble(
                        (f"{fmt_tokens(r.tokens):>7} ", "bold"),
                        (sanitize_line(r.name), f"bold {tool_colour(r.name)}"),
                        f"  {self.session.ids[r.entry][:8]}",
                    )
                )
            )

    # ------------------------------------------------------------------ events and keys

    @on(TimelineView.Moved)
    def _on_timeline_moved(self) -> None:
        if self.query_one(ContentSwitcher).current == "timeline":
            self._detail_timeline()

    @on(ContextChart.Moved)
    def _on_chart_moved(self) -> None:
        if self.query_one(ContentSwitcher).current == "context-view":
            self._detail_context()

    @on(TimelineView.Chosen)
    def _on_chosen(self, event: TimelineView.Chosen) -> None:
        self.dismiss((event.entry, event.call_id))

    @on(OptionList.OptionSelected, "#top")
    def _on_top(self, event: OptionList.OptionSelected) -> None:
        if 0 <= event.option_index < len(self._top):
            self.dismiss((self._top[event.option_index].entry, ""))

    def action_switch(self) -> None:
        """The timeline, or the context picture."""
        switcher = self.query_one(ContentSwitcher)
        if switcher.current == "timeline":
            switcher.current = "context-view"
            self.query_one(ContextChart).focus()
            self._detail_context()
        else:
            switcher.current = "timeline"
            self.query_one(TimelineView).focus()
            self._detail_timeline()

    def action_open(self) -> None:
        """Enter on the context picture: open the turn's assistant message."""
        chart = self.chart
        if chart is not None and chart.columns:
            self.dismiss((chart.columns[self.query_one(ContextChart).cursor].entry, ""))

    def action_close(self) -> None:
        """Close without jumping."""
        self.dismiss(None)

    def help_legend(self) -> RenderableType:
        """What the colours and glyphs mean (the help screen shows it under the keys)."""
        table = Table(
            title="Colours", title_justify="left", title_style="bold", show_header=False, box=None
        )
        table.add_column(no_wrap=True)
        table.add_column()
        for colour, what in legend():
            table.add_row(Text("███", colour), what)
        for kind, glyph in MARK_GLYPHS.items():
            table.add_row(Text(f" {glyph}", "bold"), kind.replace("_", " ") + " in the run")
        table.add_row(Text("┆5m┆", "bright_black"), "a gap over a minute, folded, its length")
        table.add_row(Text(" ~", "bold"), INFERRED_NOTE)
        table.add_row(
            Text(" ╌", "bright_white"),
            "context picture: the turn's reported input (its usage), above the estimate",
        )
        table.add_row(
            Text("▁▄█", "cyan"),
            "context picture: tokens per turn, stacked (system, summaries, user, assistant, "
            "thinking, tool results by tool); ✂ a compaction before the turn",
        )
        return table
