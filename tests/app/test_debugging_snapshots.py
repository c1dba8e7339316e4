"""Snapshot tests of the debugging views: inspector, tools view, context view, picker, follow.

Regenerate on purpose with
``python -m pytest tests/app/test_debugging_snapshots.py --snapshot-update`` and look at the
SVG diff before committing.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import SimpleNamespace

import pytest
from textual.pilot import Pilot

from piview.app import PiviewApp, make_app
from piview.model import load_session
from piview.widgets.transcript import Transcript
from tests.app.test_debugging import T0, _append, _user_line, build_sessions
from tests.conftest import fixture

SIZE = (110, 36)

RunBefore = Callable[[Pilot[None]], Awaitable[None]]


def app_for(name: str) -> PiviewApp:
    return make_app(load_session(fixture(name)))


def at(entry_id: str, part: int, *keys: str) -> RunBefore:
    """A run_before that focuses the block of ``(entry_id, part)`` then presses ``keys``."""

    async def run_before(pilot: Pilot[None]) -> None:
        t = pilot.app.screen.query_one(Transcript)
        entry = t.session.find(entry_id)
        hits = [
            k for k, it in enumerate(t.items) if it.entry == entry and (part < 0 or it.part == part)
        ]
        assert hits, f"no block for {entry_id} part {part}"
        t.focus_item(hits[0])
        await pilot.pause()
        await pilot.press(*keys)
        await pilot.pause()

    return run_before


class TestInspector:
    def test_edit_call(self, snap_compare) -> None:
        # new argument shape (edits: [...]) and a diff in details
        assert snap_compare(
            app_for("edit_tools.jsonl"), terminal_size=SIZE, run_before=at("458b64ba", 1, "i")
        )

    def test_error_result(self, snap_compare) -> None:
        assert snap_compare(
            app_for("edit_tools.jsonl"), terminal_size=SIZE, run_before=at("b54b9c34", 1, "i")
        )


class TestToolsView:
    def test_all_calls(self, snap_compare) -> None:
        assert snap_compare(app_for("edit_tools.jsonl"), terminal_size=SIZE, press=["T"])

    def test_errors_only(self, snap_compare) -> None:
        assert snap_compare(app_for("edit_tools.jsonl"), terminal_size=SIZE, press=["T", "s", "s"])


class TestContextView:
    def test_after_compaction(self, snap_compare) -> None:
        assert snap_compare(app_for("compaction_context.jsonl"), terminal_size=SIZE, press=["c"])

    def test_system_prompt(self, snap_compare) -> None:
        assert snap_compare(
            app_for("system_prompt.jsonl"), terminal_size=SIZE, run_before=at("21f834e6", -1, "c")
        )


def test_picker(snap_compare, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Deterministic: a relative root (the header shows it), fixed mtimes, a fixed "now" for
    # the age column, UTC dates, and a cache of our own.
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("piview.screens.picker.time", SimpleNamespace(time=lambda: T0 + 5 * 86400))
    build_sessions(Path("sessions"))

    async def indexed(pilot: Pilot[None]) -> None:
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()

    try:
        with monkeypatch.context() as mp:
            mp.setenv("TZ", "UTC")
            time.tzset()
            assert snap_compare(
                make_app(sessions_root=Path("sessions")), terminal_size=SIZE, run_before=indexed
            )
    finally:
        time.tzset()


def test_follow_after_an_append(snap_compare, tmp_path: Path, monkeypatch) -> None:
    live = tmp_path / "live.jsonl"
    shutil.copyfile(fixture("linear.jsonl"), live)
    # The status line says how long ago the last entry came: a clock that stands still.
    monkeypatch.setattr("piview.screens.session_follow._now", lambda: T0)
    app = make_app(load_session(live), follow=True)

    async def appended(pilot: Pilot[None]) -> None:
        session = pilot.app.screen.query_one(Transcript).session
        _append(live, _user_line("f0000001", "a9d93650", "A line Pi appended while we watched."))
        deadline = time.monotonic() + 5
        while session.find("f0000001") is None:
            assert time.monotonic() < deadline, "the append was not seen"
            await pilot.pause(0.1)
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=appended)
