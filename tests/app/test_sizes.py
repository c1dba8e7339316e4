"""Snapshot tests at 80x24 and 200x60: the frame at a small and a large terminal.

The transcript, the branch panel with the usage sidebar, the picker, the tools view and the
inspector. Regenerate with ``--snapshot-update`` and look at each SVG before committing.
"""

from __future__ import annotations

import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from piview.app import make_app
from piview.catalog.demo import demo_path
from piview.model import load_session
from piview.widgets.transcript import Transcript
from tests.app.test_debugging import T0, build_sessions
from tests.conftest import fixture

SIZES = {"80x24": (80, 24), "200x60": (200, 60)}


@pytest.fixture(params=list(SIZES))
def size(request: pytest.FixtureRequest) -> tuple[int, int]:
    return SIZES[request.param]


def test_transcript(snap_compare, size: tuple[int, int]) -> None:
    assert snap_compare(make_app(load_session(demo_path())), terminal_size=size)


def test_branch_panel_and_usage_sidebar(snap_compare, size: tuple[int, int]) -> None:
    # At 80 columns both do not fit: opening the sidebar closes the panel (and says so).
    assert snap_compare(make_app(load_session(demo_path())), terminal_size=size, press=["b", "u"])


def test_tools_view(snap_compare, size: tuple[int, int]) -> None:
    assert snap_compare(
        make_app(load_session(fixture("edit_tools.jsonl"))), terminal_size=size, press=["T"]
    )


def test_inspector(snap_compare, size: tuple[int, int]) -> None:
    async def on_a_call(pilot) -> None:
        t = pilot.app.screen.query_one(Transcript)
        t.focus_item(next(k for k, it in enumerate(t.items) if it.kind == "tool"))
        await pilot.pause()
        await pilot.press("i")
        await pilot.pause()

    app = make_app(load_session(fixture("edit_tools.jsonl")))
    assert snap_compare(app, terminal_size=size, run_before=on_a_call)


def test_picker(
    snap_compare, size: tuple[int, int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("piview.screens.picker.time", SimpleNamespace(time=lambda: T0 + 5 * 86400))
    build_sessions(Path("sessions"))

    async def indexed(pilot) -> None:
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()

    try:
        with monkeypatch.context() as mp:
            mp.setenv("TZ", "UTC")
            time.tzset()
            assert snap_compare(
                make_app(sessions_root=Path("sessions")), terminal_size=size, run_before=indexed
            )
    finally:
        time.tzset()


def test_event_stream(snap_compare, size: tuple[int, int]) -> None:
    # Pi 0.85.1's RPC capture: a tool's partial results, UI notices and the extension error
    # (e from the top), the retry divider below it.
    from tests.unit.test_stream import STREAMS

    app = make_app(load_session(STREAMS / "085" / "rpc.jsonl"))
    assert snap_compare(app, terminal_size=size, press=["g", "e"])


async def _timeline(pilot, keys: tuple[str, ...] = ()) -> None:
    await pilot.press("w")
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    if keys:
        await pilot.press(*keys)
    await pilot.pause(0.3)  # the context picture lists its largest results once it rests
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def test_timeline(snap_compare, size: tuple[int, int], tmp_path: Path) -> None:
    from tests.app.timeline_session import write_session

    app = make_app(load_session(write_session(tmp_path / "timeline.jsonl")))
    assert snap_compare(app, terminal_size=size, run_before=_timeline)


def test_timeline_context_picture(snap_compare, size: tuple[int, int], tmp_path: Path) -> None:
    from functools import partial

    from tests.app.timeline_session import write_session

    app = make_app(load_session(write_session(tmp_path / "timeline.jsonl")))
    assert snap_compare(
        app, terminal_size=size, run_before=partial(_timeline, keys=("tab", "left"))
    )
