"""Lineage in the app: the picker's threaded view (ctrl+t), a fork's header, and ``P``, which
opens the parent session at the fork point. On the forks Pi 0.73.1 made itself."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from piview.app import make_app
from piview.screens.picker import PickerScreen
from piview.screens.session import SessionScreen
from piview.widgets.transcript import Transcript
from tests.app.test_debugging import screen_text
from tests.conftest import fixture

ORIGINAL = "2026-05-14T18-00-00-000Z_019e27a5-3900-77a7-94d9-bcce189d159e.jsonl"
FORK1 = "2026-12-01T13-43-23-257Z_01a231d8-8578-725d-b9ca-6ba3e3f74083.jsonl"
FORK2 = "2026-12-01T13-43-23-258Z_01a231d8-857a-778b-9613-d59d49639496.jsonl"
OTHER = "2026-12-01T13-43-23-258Z_01a231d8-857a-778b-9613-daef9ebfeb4e.jsonl"
SUB = "2026-12-01T13-43-23-259Z_01a231d8-857b-77f8-b9fa-676264f7f4cb.jsonl"
LINEAR = "2026-05-14T09-00-00-000Z_019e25b6-d680-71db-98dc-b35f94c662cd.jsonl"


@pytest.fixture
def forks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the fixture folder (its headers name /tmp/pi-forks, where Pi wrote them)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = tmp_path / "sessions"
    shutil.copytree(fixture("forks"), root)
    return root


def _names(picker: PickerScreen) -> list[str]:
    return [Path(p).name for p in picker._shown]  # noqa: SLF001


@pytest.mark.parametrize("size", [(80, 24), (200, 60)])
async def test_ctrl_t_threads_forks_and_subagents_under_their_parent(
    forks: Path, size: tuple[int, int]
) -> None:
    app = make_app(sessions_root=forks)
    async with app.run_test(size=size) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        picker = app.screen
        assert isinstance(picker, PickerScreen)
        flat = _names(picker)
        # A subagent's file (in its session's own folder) is listed right under its parent.
        assert len(flat) == 6 and flat.index(SUB) == flat.index(ORIGINAL) + 1
        await pilot.press("ctrl+t")
        await app.workers.wait_for_complete()  # the headers are read in a worker
        await pilot.pause()
        assert picker.threaded
        names = _names(picker)
        depth = {Path(p).name: d for p, d in picker._depth.items()}  # noqa: SLF001
        assert sorted(names) == sorted(flat)
        for child, parent in ((FORK1, ORIGINAL), (FORK2, FORK1), (OTHER, ORIGINAL)):
            assert names.index(parent) < names.index(child)
            assert depth[child] == depth[parent] + 1
        assert depth[SUB] == 1 and names.index(ORIGINAL) < names.index(SUB)
        assert depth[ORIGINAL] == 0 and depth[LINEAR] == 0
        # The rows say it: an indent with └ for a fork, ⤷ for a subagent.
        text = screen_text(app)
        assert "└ Retry design" in text and "  └ Retry design" in text
        assert "⤷ scout: list the retry call sites" in text
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert not picker.threaded and "└ " not in screen_text(app)
        assert _names(picker) == flat


async def test_a_forks_header_names_its_parent_and_p_opens_it_at_the_fork_point(
    forks: Path,
) -> None:
    app = make_app(sessions_root=forks)
    async with app.run_test(size=(200, 60)) as pilot:
        picker = app.screen
        assert isinstance(picker, PickerScreen)
        await pilot.press("ctrl+t")
        await app.workers.wait_for_complete()
        await pilot.pause()
        row = _names(picker).index(FORK1)
        await pilot.press(*["down"] * row, "enter")
        await pilot.pause()
        fork = app.screen
        assert isinstance(fork, SessionScreen) and fork.session.path.name == FORK1
        assert "⑂ forked from fetch_json retries" in screen_text(app)
        await pilot.press("P")
        await app.workers.wait_for_complete()
        await pilot.pause()
        parent = app.screen
        assert isinstance(parent, SessionScreen) and parent.session.path.name == ORIGINAL
        # Pi forked at a5d544a8 (an abandoned branch): the parent shows that branch, there.
        at = parent.session.find("a5d544a8")
        assert parent.leaf == at
        assert parent.query_one(Transcript).path[-1] == at
        assert "⑂" not in screen_text(app).splitlines()[0]  # the original is a root
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is fork


async def test_p_on_a_session_that_is_no_fork_says_so(forks: Path) -> None:
    app = make_app(sessions_root=forks)
    async with app.run_test(size=(80, 24)) as pilot:
        picker = app.screen
        assert isinstance(picker, PickerScreen)
        row = _names(picker).index(LINEAR)
        await pilot.press(*["down"] * row, "enter")
        await pilot.pause()
        viewer = app.screen
        assert isinstance(viewer, SessionScreen)
        said: list[str] = []
        viewer.notify = lambda message, **_kw: said.append(str(message))  # type: ignore[method-assign]
        await pilot.press("P")
        await pilot.pause()
        assert app.screen is viewer
        assert said == ["This session was not forked from another one."]
        assert "⑂" not in screen_text(app)


async def test_a_fork_into_another_project_finds_its_parent_there(forks: Path) -> None:
    app = make_app(sessions_root=forks)
    async with app.run_test(size=(80, 24)) as pilot:
        picker = app.screen
        assert isinstance(picker, PickerScreen)
        row = _names(picker).index(OTHER)
        await pilot.press(*["down"] * row, "enter")
        await pilot.pause()
        assert isinstance(app.screen, SessionScreen)
        assert "⑂ forked from fetch_json retries" in screen_text(app).splitlines()[0]
        await pilot.press("P")
        await app.workers.wait_for_complete()
        await pilot.pause()
        parent = app.screen
        assert isinstance(parent, SessionScreen) and parent.session.path.name == ORIGINAL
        # pi --fork copied every entry: the fork point is the parent's own leaf.
        assert parent.leaf == parent.session.tree.leaf
