"""The picker over every host: Pi, oh-my-pi (a profile, a subagent) and OpenClaw (JSONL, SQLite)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from textual.widgets import DataTable

from piview.app import make_app
from piview.screens.picker import PickerScreen
from piview.screens.session import SessionScreen
from piview.widgets.transcript import Transcript
from tests.hosts import make_home

T0 = 1780304400.0  # 2026-06-01 09:00 UTC


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = make_home(tmp_path, t0=T0)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    for var in ("PI_CODING_AGENT_DIR", "OMP_PROFILE", "PI_PROFILE", "XDG_DATA_HOME"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.delenv("OPENCLAW_STATE_DIR", raising=False)
    monkeypatch.setattr("piview.screens.picker.time", SimpleNamespace(time=lambda: T0 + 3 * 86400))
    return home


def _rows(picker: PickerScreen) -> list[tuple[str, ...]]:
    table = picker.query_one(DataTable)
    names = [str(c.key.value) for c in table.ordered_columns]
    out = []
    for n in range(table.row_count):
        cells = dict(zip(names, (str(c) for c in table.get_row_at(n)), strict=True))
        out.append((cells.get("project", ""), cells.get("host", ""), cells["session"]))
    return out


async def test_picker_lists_every_host_and_filters_by_host(home: Path) -> None:
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        picker = app.screen
        assert isinstance(picker, PickerScreen)
        rows = _rows(picker)
        assert sorted(h for _p, h, _s in rows) == [
            "omp", "omp", "omp:work", "openclaw", "openclaw", "openclaw", "pi"
        ]  # fmt: skip
        # a subagent right under its parent, marked so; OpenClaw grouped by agent
        k = next(k for k, r in enumerate(rows) if r[2].startswith("↳ "))
        assert rows[k - 1][1:] == ("omp", "beta parser refactor") and rows[k][0] == ""
        assert {p for p, h, _s in rows if h == "openclaw"} - {""} == {"agent:main", "agent:ops"}
        assert {s for _p, h, s in rows if h == "openclaw"} >= {"Calendar", "Nightly backup"}
        # ctrl+o: one host at a time, then all again
        await pilot.press("ctrl+o")
        assert {h for _p, h, _s in _rows(picker)} == {"pi"}
        await pilot.press("ctrl+o")
        assert {h for _p, h, _s in _rows(picker)} == {"omp", "omp:work"}
        await pilot.press("ctrl+o")
        assert {h for _p, h, _s in _rows(picker)} == {"openclaw"}
        await pilot.press("ctrl+o")
        assert len(_rows(picker)) == 7
        # host:NAME in the filter, with words
        await pilot.press(*"host:openclaw backup")
        assert [s for _p, _h, s in _rows(picker)] == ["Nightly backup"]
        # the SQLite session opens like a file
        await pilot.press("enter")
        await pilot.pause()
        viewer = app.screen
        assert isinstance(viewer, SessionScreen)
        assert "openclaw-agent.sqlite#" in str(viewer.session.path)
        assert viewer.session.sqlite_ref is not None
        t = viewer.query_one(Transcript)
        assert len(t.path) == len(viewer.session)


@pytest.mark.parametrize("size", [(80, 24), (200, 60)], ids=["80x24", "200x60"])
def test_hosts_picker_snapshot(snap_compare, home: Path, size: tuple[int, int]) -> None:
    async def indexed(pilot) -> None:
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()

    assert snap_compare(make_app(), terminal_size=size, run_before=indexed)


async def test_sessions_folder_of_an_openclaw_agent(home: Path) -> None:
    folder = home / ".openclaw" / "agents" / "main" / "sessions"
    app = make_app(sessions_root=folder)
    async with app.run_test(size=(120, 30)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        picker = app.screen
        assert isinstance(picker, PickerScreen)
        assert f"OpenClaw sessions in {folder}" in str(picker.query_one("#where").render())
        rows = _rows(picker)
        assert sorted(s for _p, _h, s in rows) == ["Calendar", "Standup notes"]
        assert {p for p, _h, _s in rows} == {"agent:main", ""}
        assert "host" not in [str(c.key.value) for c in picker.query_one(DataTable).ordered_columns]
