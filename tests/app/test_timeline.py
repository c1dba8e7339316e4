"""Pilot tests of the timeline screen (``w``): opening, the cursor over segments, the zoom,
the context picture, Enter into the transcript, the legend under ``?``."""

from __future__ import annotations

from pathlib import Path

import pytest

from piview.app import make_app
from piview.model import load_session
from piview.screens.help import HelpScreen
from piview.screens.timeline import TimelineScreen
from piview.widgets.context_chart import ContextChart
from piview.widgets.timeline_view import TimelineView
from piview.widgets.transcript import Transcript
from tests.app.timeline_session import write_session

SIZE = (100, 30)


@pytest.fixture
def session_path(tmp_path: Path) -> Path:
    return write_session(tmp_path / "timeline.jsonl")


async def _opened(pilot) -> TimelineView:  # type: ignore[no-untyped-def]
    await pilot.press("w")
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    assert isinstance(pilot.app.screen, TimelineScreen)
    return pilot.app.screen.query_one(TimelineView)


async def test_w_opens_the_timeline_of_the_branch(session_path: Path) -> None:
    app = make_app(load_session(session_path))
    async with app.run_test(size=SIZE) as pilot:
        view = await _opened(pilot)
        assert len(view.rows) == 3
        first = view.rows[0]
        assert first.lanes == 3  # three calls at once: two on lanes of their own
        # In call order: the first read on the first lane, the other read and bash below.
        assert [(s.name, s.lane) for s in first.segs if s.name != "model"] == [
            ("read", 0),
            ("read", 1),
            ("bash", 2),
        ]
        assert view.rows[1].folds == [(-180000.0, 0.0)]  # the three minutes' wait, folded
        assert view.row == 2  # on the last run
        head = str(app.screen.query_one("#head").render())
        assert "3 runs" in head and "wall" in head and "waiting" in head and "bash 1×" in head
        # The compaction and the model change between runs 2 and 3 mark the third row.
        assert {m.kind for m in view.rows[2].marks} >= {"compaction", "model_change"}


async def test_cursor_moves_over_segments_and_rows(session_path: Path) -> None:
    app = make_app(load_session(session_path))
    async with app.run_test(size=SIZE) as pilot:
        view = await _opened(pilot)
        await pilot.press("g")
        assert (view.row, view.seg) == (0, 0)
        assert view.current_seg is not None and view.current_seg.name == "model"
        await pilot.press("l")
        assert view.current_seg.name == "read"
        await pilot.press("l", "l")
        assert view.current_seg.name == "bash" and view.current_seg.kind == "error"
        await pilot.press("l")
        assert view.current_seg.name == "model" and view.current_seg.turn == 1
        await pilot.press("l")  # on to the next row
        assert view.row == 1 and view.current_seg.kind == "wait"
        await pilot.press("h")
        assert view.row == 0
        await pilot.press("j")
        assert view.row == 1
        await pilot.press("k")
        assert view.row == 0
        detail = str(app.screen.query_one("#detail").render())
        assert detail.startswith("read 1.2s") and "measured" in detail  # nearest in time


async def test_zoom_in_to_one_turn_and_out(session_path: Path) -> None:
    app = make_app(load_session(session_path))
    async with app.run_test(size=SIZE) as pilot:
        view = await _opened(pilot)
        whole = view.scale
        assert view.zoom_label == "whole"
        await pilot.press("g", "plus")
        assert view.scale == pytest.approx(whole / 2)
        for _ in range(12):
            await pilot.press("plus")
        assert view.zoom_label == "one turn"
        finest = view.scale
        await pilot.press("plus")
        assert view.scale == finest  # no further than one turn
        for _ in range(20):
            await pilot.press("minus")
        assert view.scale == whole and view.x_off == 0


async def test_enter_shows_the_call_in_the_transcript(session_path: Path) -> None:
    app = make_app(load_session(session_path))
    async with app.run_test(size=SIZE) as pilot:
        await _opened(pilot)
        await pilot.press("g", "l", "l", "l", "enter")  # the failed bash call
        await pilot.pause()
        assert not isinstance(app.screen, TimelineScreen)
        item = app.screen.query_one(Transcript).current_item
        assert item is not None and item.kind == "tool"
        assert app.session.ids[item.entry] == "a0000001" and item.part == 3


async def test_context_picture(session_path: Path) -> None:
    app = make_app(load_session(session_path))
    async with app.run_test(size=SIZE) as pilot:
        await _opened(pilot)
        await pilot.press("tab")
        chart = app.screen.query_one(ContextChart)
        assert chart.has_focus and chart.chart is not None
        assert len(chart.chart.columns) == 5  # one per assistant turn
        assert chart.chart.columns[4].cut  # the compaction came before the last turn
        await pilot.press("g", "right")
        assert chart.cursor == 1
        await pilot.pause(0.3)
        await app.workers.wait_for_complete()
        await pilot.pause()
        detail = str(app.screen.query_one("#ctx-detail").render())
        assert "estimate" in detail and "reported input 2.6k" in detail
        screen = app.screen
        assert isinstance(screen, TimelineScreen)
        assert [r.name for r in screen._top][:1] == ["read"]  # the largest result first
        await pilot.press("enter")  # the turn's message
        await pilot.pause()
        t = app.screen.query_one(Transcript)
        assert t.current_entry is not None and app.session.ids[t.current_entry] == "a0000002"


async def test_question_mark_explains_the_colours(session_path: Path) -> None:
    app = make_app(load_session(session_path))
    async with app.run_test(size=SIZE) as pilot:
        await _opened(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        assert app.screen.legend is not None
        await pilot.press("escape", "escape")
        assert not isinstance(app.screen, (HelpScreen, TimelineScreen))


async def test_the_palette_lists_the_timeline(session_path: Path) -> None:
    app = make_app(load_session(session_path))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert any(t.startswith("Timeline") for t in titles)


async def test_opens_on_the_run_of_the_focused_entry(session_path: Path) -> None:
    app = make_app(load_session(session_path))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        t = app.screen.query_one(Transcript)
        t.focus_item(t.index_of_entry(app.session.find("a0000003")) or 0)
        await pilot.pause()
        view = await _opened(pilot)
        assert view.row == 1
        chart = app.screen.query_one(ContextChart)
        assert chart.chart is not None and chart.chart.columns[chart.cursor].entry == (
            app.session.find("a0000003")
        )
