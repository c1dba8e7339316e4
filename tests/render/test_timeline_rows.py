"""The timeline's rows and the context picture's columns (render/timeline_rows.py,
render/context_chart.py): the folded axis, the lanes, cells drawn to the width."""

from __future__ import annotations

from pathlib import Path

import pytest

from piview.model import load_session
from piview.model.timeline import build_timeline
from piview.render.context_chart import build_chart, draw_axis, draw_chart_line
from piview.render.timeline_rows import FOLD_CELLS, build_rows, draw_lane
from tests.app.timeline_session import write_session


@pytest.fixture
def rows_and_chart(tmp_path: Path):  # type: ignore[no-untyped-def]
    session = load_session(write_session(tmp_path / "timeline.jsonl"))
    timeline = build_timeline(session)
    return build_rows(timeline), build_chart(timeline)


def test_a_fold_takes_its_cells_at_any_scale(rows_and_chart) -> None:  # type: ignore[no-untyped-def]
    rows, _chart = rows_and_chart
    row = rows[1]  # three minutes' wait, folded, then 6 s
    for scale in (10.0, 100.0, 1000.0):
        assert row.x(row.t0, scale) == 0
        assert row.x(0.0, scale) == pytest.approx(FOLD_CELLS)
        assert row.x(-90_000.0, scale) == pytest.approx(FOLD_CELLS / 2)  # inside the fold
        assert row.width(scale) == pytest.approx(FOLD_CELLS + 6000 / scale)
    assert row.ms_unfolded() == pytest.approx(6000)


def test_lanes_and_cells(rows_and_chart) -> None:  # type: ignore[no-untyped-def]
    rows, _chart = rows_and_chart
    row = rows[0]
    assert row.lanes == 3 and row.calls == 3 and row.errors == 1
    assert row.tool_ms == pytest.approx(4000)  # parallel calls counted once
    for lane in range(row.lanes):
        cells = draw_lane(row, lane, 100.0, 0.0, 80)
        assert sum(len(s.text) for s in cells) == 80
    # Panned and zoomed: still the width, the cursor's segment drawn.
    cells = draw_lane(row, 0, 10.0, 300.0, 50, cursor=row.segs[0])
    assert sum(len(s.text) for s in cells) == 50
    folded = "".join(s.text for s in draw_lane(rows[1], 0, 100.0, 0.0, 40))
    assert folded.startswith("┆3m00s┆")


def test_chart_columns_sum_to_the_context(rows_and_chart) -> None:  # type: ignore[no-untyped-def]
    _rows, chart = rows_and_chart
    assert [c.cut for c in chart.columns] == [False, False, False, False, True]
    for col in chart.columns:
        assert col.stack[-1] == pytest.approx(col.context.total)
    for y in range(10):
        line = draw_chart_line(chart, y, 10, 0, 20, cursor=2, cell=4)
        assert sum(len(s.text) for s in line) == 20
    axis = "".join(s.text for s in draw_axis(chart, 0, 20, cursor=2, cell=4))
    assert axis[8] == "▲" and axis[16] == "✂"


def test_a_window_far_above_the_context_is_named_not_drawn() -> None:
    from piview.model import load_session
    from piview.model.timeline import build_timeline
    from piview.render.context_chart import WINDOW_SCALE, build_chart

    s = load_session(
        Path(__file__).resolve().parents[1] / "fixtures" / "sessions" / "tool_pairing.jsonl"
    )
    timeline = build_timeline(s)
    bare = build_chart(timeline)
    assert bare.window is None and not bare.window_drawn
    near = build_chart(timeline, int(bare.top * 2))
    assert near.window_drawn and near.top == int(bare.top * 2)
    far = build_chart(timeline, int(bare.top * WINDOW_SCALE * 10))
    assert far.window and not far.window_drawn and far.top == bare.top


def test_marks_stand_at_their_time_on_the_bar() -> None:
    from piview.model import load_session
    from piview.model.timeline import build_timeline
    from piview.render.timeline_rows import build_rows, draw_lane

    fixtures = Path(__file__).resolve().parents[1] / "fixtures" / "sessions"
    rows = build_rows(build_timeline(load_session(fixtures / "stop_reasons.jsonl")))
    errors = [r for r in rows if any(m.kind == "error" for m in r.marks)]
    assert errors
    for r in errors:
        width = 60
        text = "".join(seg.text for seg in draw_lane(r, 0, (r.t1 - r.t0) / width, 0, width))
        assert len(text) == width and text.rstrip().endswith("✗")  # the failed turn's end
    rows = build_rows(build_timeline(load_session(fixtures / "compaction_context.jsonl")))
    first = next(r for r in rows if any(m.kind == "model_change" for m in r.marks))
    lane = draw_lane(first, 0, (first.t1 - first.t0) / 60, 0, 60)
    assert "".join(seg.text for seg in lane).startswith("◆")
