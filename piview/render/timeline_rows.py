"""Provides the timeline's picture of a branch (the timeline screen, issue 31): its runs as
rows of segments on their own wall time, drawn into cells with eighth blocks. No Textual.

A :class:`Row` is one run of :class:`piview.model.timeline.Timeline`: the wait before its
prompt, then each turn's model time and tool calls, parallel calls on lanes below the first.
Its time axis starts where the previous run ended (the wait drawn first, to scale when short,
folded to :data:`FOLD_CELLS` cells with its length printed when over a minute), so every row
is on the same scale: a cell is ``scale`` ms. Gaps over a minute inside a run (the model's
``idle`` markers) are folded the same way.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from rich.segment import Segment
from rich.style import Style

from piview.model.timeline import IDLE_MS
from piview.render.format import fmt_duration_ms

if TYPE_CHECKING:
    from piview.model.timeline import Marker, Run, Timeline

SegKind = Literal["wait", "model", "tool", "error"]

FOLD_CELLS = 7
"""Cells a folded gap takes, at any zoom (its length printed inside: ``┆12m05s┆``)."""

LEFT_EIGHTHS = " ▏▎▍▌▋▊▉█"
"""A cell's left part filled by 0 to 8 eighths."""

TOOL_COLOURS: dict[str, str] = {
    "bash": "green",
    "read": "blue",
    "edit": "yellow",
    "write": "bright_yellow",
    "grep": "cyan",
    "find": "cyan",
    "ls": "cyan",
}
"""The colour of the built-in tools' calls; any other tool takes one of :data:`OTHER_COLOURS`."""

OTHER_COLOURS = ("bright_green", "bright_blue", "bright_cyan", "bright_red", "white")

KIND_COLOURS: dict[str, str] = {
    "wait": "bright_black",
    "model": "magenta",
    "error": "bright_red",
}
"""Colours of the segments that are not tool calls (a failed call is ``error``)."""

MARK_GLYPHS: dict[str, str] = {"compaction": "✂", "model_change": "◆", "error": "✗"}
"""The glyph of each marker on a row's summary line and at its time on the bar."""

CURSOR_COLOUR = "bright_white"


def tool_colour(name: str) -> str:
    """The colour of ``name``'s calls (the same in every view and in the export)."""
    got = TOOL_COLOURS.get(name)
    if got is not None:
        return got
    return OTHER_COLOURS[sum(map(ord, name)) % len(OTHER_COLOURS)]


def seg_colour(seg: Seg) -> str:
    """The colour a segment is drawn in."""
    if seg.kind == "tool":
        return tool_colour(seg.name)
    return KIND_COLOURS[seg.kind]


@dataclass(slots=True)
class Seg:
    """One segment of a row: a wait, a turn's model time or one tool call."""

    kind: SegKind
    start: float
    """Ms on the row's axis (0 is the run's start, its prompt; a wait is before 0)."""
    end: float
    lane: int
    entry: int | None
    """The entry its block is in (the assistant message for model time and calls, the
    prompt for a wait)."""
    name: str = ""
    """The tool's name (``model`` or ``wait`` for the others)."""
    call_id: str = ""
    turn: int = -1
    """Index of its turn in the run (-1 for a wait)."""
    inferred: bool = False
    result: int | None = None
    """A call's result entry (what Enter opens: the transcript draws it with its call)."""

    @property
    def ms(self) -> float:
        """Its length."""
        return max(0.0, self.end - self.start)


@dataclass(slots=True)
class Row:
    """One run drawn: its segments, lanes, folded gaps and marks."""

    run: int
    t0: float
    """The axis' start (minus the wait before the prompt)."""
    t1: float
    """The axis' end (the run's wall time)."""
    segs: list[Seg]
    """In time order (ties: lane order)."""
    lanes: int = 1
    folds: list[tuple[float, float]] = field(default_factory=list)
    """Folded gaps ``(start, end)`` on the axis, in order, none overlapping."""
    marks: list[Marker] = field(default_factory=list)
    model_ms: float = 0.0
    tool_ms: float = 0.0
    """Time with at least one call running."""
    calls: int = 0
    errors: int = 0
    inferred: bool = False
    _fold_x: list[float] = field(default_factory=list)
    """The ms folded away before each fold (for :meth:`x`)."""
    _fold_starts: list[float] = field(default_factory=list)

    @property
    def height(self) -> int:
        """Lines it takes: its summary and one per lane."""
        return 1 + self.lanes

    def ms_unfolded(self) -> float:
        """The row's length in ms, folded gaps left out."""
        return (self.t1 - self.t0) - sum(b - a for a, b in self.folds)

    def x(self, t: float, scale: float) -> float:
        """Cells from the axis' start to time ``t`` at ``scale`` ms a cell (folds count
        :data:`FOLD_CELLS` each)."""
        folds = self.folds
        if not folds:
            return (t - self.t0) / scale
        k = bisect.bisect_right(self._fold_starts, t)  # folds starting at or before ``t``
        if k and t < folds[k - 1][1]:  # inside fold k-1
            a, b = folds[k - 1]
            base = (a - self.t0 - self._fold_x[k - 1]) / scale + FOLD_CELLS * (k - 1)
            return base + FOLD_CELLS * (t - a) / max(b - a, 1e-9)
        folded = self._fold_x[k - 1] + (folds[k - 1][1] - folds[k - 1][0]) if k else 0.0
        return (t - self.t0 - folded) / scale + FOLD_CELLS * k

    def width(self, scale: float) -> float:
        """The row's length in cells."""
        return self.x(self.t1, scale)


def _lanes(segs: list[Seg]) -> int:
    """Put each segment on the first lane free at its start; return the lanes used."""
    ends: list[float] = []
    for s in segs:
        for lane, end in enumerate(ends):
            if end <= s.start + 1e-6:
                s.lane = lane
                ends[lane] = max(end, s.end)
                break
        else:
            s.lane = len(ends)
            ends.append(s.end)
    return max(1, len(ends))


def _union_ms(spans: list[tuple[float, float]]) -> float:
    total = 0.0
    end = -math.inf
    for a, b in sorted(spans):
        if b <= end:
            continue
        total += b - max(a, end)
        end = b
    return total


def build_row(k: int, run: Run, marks: list[Marker]) -> Row:
    """Run ``k`` as a row (``marks`` are the timeline's markers of that run)."""
    segs: list[Seg] = []
    if run.wait_ms > 0:
        segs.append(Seg("wait", -run.wait_ms, 0.0, 0, run.entry, "wait", inferred=run.inferred))
    model_ms = 0.0
    spans: list[tuple[float, float]] = []
    calls = errors = 0
    for n, turn in enumerate(run.turns):
        error = turn.stop_reason in ("error", "aborted")
        kind: SegKind = "error" if error else "model"
        segs.append(
            Seg(
                kind,
                turn.start_ms,
                turn.start_ms + turn.model_ms,
                0,
                turn.entry,
                "model",
                turn=n,
                inferred=turn.inferred,
            )
        )
        model_ms += turn.model_ms
        for t in turn.tools:
            calls += 1
            errors += t.is_error
            segs.append(
                Seg(
                    "error" if t.is_error else "tool",
                    t.start_ms,
                    max(t.end_ms, t.start_ms),
                    0,
                    turn.entry,
                    t.name,
                    t.id,
                    n,
                    t.inferred,
                    t.result,
                )
            )
            spans.append((t.start_ms, t.end_ms))
    segs.sort(key=lambda s: (s.start, s.kind != "wait", s.name != "model"))
    lanes = _lanes(segs)
    t0 = -run.wait_ms if run.wait_ms > 0 else 0.0
    t1 = max([run.wall_ms, *(s.end for s in segs)]) if segs else run.wall_ms
    folds: list[tuple[float, float]] = []
    if run.wait_ms > IDLE_MS:
        folds.append((-run.wait_ms, 0.0))
    for m in marks:
        # An idle marker inside the run: the gap starts at ``at_ms`` (the one before a
        # prompt, at 0, is the run's wait, folded above).
        if m.kind == "idle" and m.duration_ms > IDLE_MS and m.at_ms > 0:
            a, b = m.at_ms, m.at_ms + m.duration_ms
            if not folds or a >= folds[-1][1]:
                folds.append((a, b))
    row = Row(
        k,
        t0,
        t1,
        segs,
        lanes,
        folds,
        [m for m in marks if m.kind != "idle"],
        model_ms,
        _union_ms(spans),
        calls,
        errors,
        run.inferred or any(s.inferred for s in segs),
    )
    acc = 0.0
    for a, b in folds:
        row._fold_x.append(acc)
        row._fold_starts.append(a)
        acc += b - a
    return row


def build_rows(timeline: Timeline) -> list[Row]:
    """Every run of ``timeline`` as a row, in order (linear in the segments)."""
    by_run: dict[int, list[Marker]] = {}
    runs = timeline.runs
    for m in timeline.markers:
        k = m.run
        # A compaction or model change after a run's end is marked on the next run's row.
        if m.kind != "idle" and k + 1 < len(runs) and m.at_ms > runs[k].wall_ms:
            k += 1
        by_run.setdefault(k, []).append(m)
    return [build_row(k, run, by_run.get(k, [])) for k, run in enumerate(timeline.runs)]


# --------------------------------------------------------------------------- drawing


def _style(colour: str | None, bg: str | None = None, *, reverse: bool = False) -> Style:
    return _STYLES.setdefault(
        (colour, bg, reverse), Style(color=colour, bgcolor=bg, reverse=reverse)
    )


_STYLES: dict[tuple[str | None, str | None, bool], Style] = {}


def draw_lane(
    row: Row,
    lane: int,
    scale: float,
    x_off: float,
    width: int,
    cursor: Seg | None = None,
) -> list[Segment]:
    """Lane ``lane`` of ``row`` as ``width`` cells starting ``x_off`` cells into the axis:
    each segment in its colour, its ends to an eighth of a cell (a cell two segments share
    shows the first on the left, the second behind it), the ``cursor`` segment in
    :data:`CURSOR_COLOUR`, folded gaps as their length."""
    pieces: dict[int, list[tuple[float, float, str]]] = {}
    for s in row.segs:
        if s.lane != lane:
            continue
        xs = row.x(s.start, scale) - x_off
        xe = max(row.x(s.end, scale) - x_off, xs + 0.125)  # at least an eighth: seen
        if xe <= 0 or xs >= width:
            continue
        colour = CURSOR_COLOUR if s is cursor else seg_colour(s)
        for c in range(max(0, int(xs)), min(width, math.ceil(xe))):
            pieces.setdefault(c, []).append((max(xs, c) - c, min(xe, c + 1) - c, colour))
    out: list[Segment] = []
    blank = Segment(" ")
    for c in range(width):
        got = pieces.get(c)
        if not got:
            out.append(blank)
            continue
        a, _b, colour = got[0]
        if a >= 0.0625:
            # Starts inside the cell: the glyph is the empty part, the colour behind it.
            n = min(7, max(1, round(a * 8)))
            out.append(Segment(LEFT_EIGHTHS[n], _style(colour, reverse=True)))
            continue
        same = sum(q[1] - q[0] for q in got if q[2] == colour)
        behind = next((q[2] for q in got if q[2] != colour), None)
        n = round(same * 8)
        if n >= 8 or (behind is None and n >= 7):
            out.append(Segment("█", _style(colour)))
        else:
            out.append(Segment(LEFT_EIGHTHS[max(1, n)], _style(colour, behind)))
    if lane == 0:
        _draw_folds(row, scale, x_off, width, out)
        _draw_marks(row, scale, x_off, width, out)
    return Segment.simplify(out) if out else out  # type: ignore[return-value]


MARK_COLOURS = {"compaction": "bright_yellow", "model_change": "bright_cyan", "error": "bright_red"}
"""The colour of each marker's glyph where it stands on the bar."""


def _draw_marks(row: Row, scale: float, x_off: float, width: int, out: list[Segment]) -> None:
    """Compactions, model changes and errors at their time on the first lane (over the bar:
    the cell they fall in)."""
    for m in row.marks:
        glyph = MARK_GLYPHS.get(m.kind)
        if glyph is None or not row.t0 <= m.at_ms <= row.t1:
            continue
        c = int(row.x(m.at_ms, scale) - x_off)
        c = min(c, width - 1) if c == width else c  # a mark at the row's very end
        if 0 <= c < width:
            out[c] = Segment(glyph, _style(MARK_COLOURS.get(m.kind, "white")))


def _draw_folds(row: Row, scale: float, x_off: float, width: int, out: list[Segment]) -> None:
    dim = _style(KIND_COLOURS["wait"])
    for a, b in row.folds:
        xs = int(round(row.x(a, scale) - x_off))
        label = f"┆{fmt_duration_ms(b - a)}"[: FOLD_CELLS - 1].ljust(FOLD_CELLS - 1) + "┆"
        for j, ch in enumerate(label):
            c = xs + j
            if 0 <= c < width:
                out[c] = Segment(ch, dim)


def row_summary(row: Row, run: Run) -> str:
    """A row's figures: wall, model, tools (calls), wait and its marks."""
    parts = [fmt_duration_ms(run.wall_ms), f"model {fmt_duration_ms(row.model_ms)}"]
    if row.calls:
        calls = f"{row.calls} call{'' if row.calls == 1 else 's'}"
        parts.append(f"{calls} {fmt_duration_ms(row.tool_ms)}")
    if row.errors:
        parts.append(f"✗{row.errors}")
    if run.wait_ms:
        parts.append(f"wait {fmt_duration_ms(run.wait_ms)}")
    marks = "".join(dict.fromkeys(MARK_GLYPHS[m.kind] for m in row.marks if m.kind in MARK_GLYPHS))
    if marks:
        parts.append(marks)
    if row.inferred:
        parts.append("~")
    return " · ".join(parts)


def seg_at(row: Row, t: float) -> int:
    """Index of the segment of ``row`` nearest time ``t`` (0 for a row without any)."""
    best, dist = 0, math.inf
    for k, s in enumerate(row.segs):
        d = 0.0 if s.start <= t <= s.end else min(abs(s.start - t), abs(s.end - t))
        if d < dist:
            best, dist = k, d
    return best


def legend() -> list[tuple[str, str]]:
    """``(colour, what)`` of every colour and glyph the timeline draws, for ``?``."""
    return [
        (KIND_COLOURS["model"], "model time: streaming, the entry's time less the message's"),
        (KIND_COLOURS["wait"], "waiting on the user before the prompt"),
        (KIND_COLOURS["error"], "a failed tool call, or a turn that stopped on an error"),
        *((c, f"tool {name}") for name, c in TOOL_COLOURS.items()),
        (OTHER_COLOURS[0], "other tools (a colour each)"),
        (CURSOR_COLOUR, "the segment under the cursor"),
    ]
