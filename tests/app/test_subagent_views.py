"""From a subagent call into its children and back, on pi-subagents' genuine files: enter on
the call (a picker of rows for a parallel run), escape back to the call, ``P`` from the child
back to its parent, the sidebar's "with subagents", and a child whose file is missing."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from piview.app import make_app
from piview.model import load_session
from piview.screens.session import SessionScreen
from piview.screens.subagent_runs import SubagentRunsScreen
from piview.widgets.transcript import Transcript
from piview.widgets.usage_sidebar import UsageSidebar
from tests.app.test_debugging import screen_text

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "subagents"


def _copy(case: str, tmp_path: Path) -> Path:
    root = tmp_path / case
    shutil.copytree(FIXTURES / case / "sessions", root)
    (parent,) = sorted(root.glob("*/*.jsonl"))
    return parent


async def _to_call(pilot, app) -> Transcript:  # noqa: ANN001
    t = app.screen.query_one(Transcript)
    k = next(i for i, it in enumerate(t.items) if it.kind == "tool")
    t.cursor = k
    await pilot.pause()
    return t


@pytest.mark.parametrize("size", [(80, 24), (200, 60)])
async def test_parallel_call_into_each_child_and_back(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    parent = _copy("parallel", tmp_path)
    app = make_app(load_session(parent))
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        home = app.screen
        t = await _to_call(pilot, app)
        call_cursor = t.cursor
        assert "delegate [a] · TASK: alpha" in screen_text(app)
        tasks = []
        for row in range(2):
            await pilot.press("enter")
            await pilot.pause()
            assert isinstance(app.screen, SubagentRunsScreen)
            await pilot.press(*["down"] * row, "enter")
            await app.workers.wait_for_complete()
            await pilot.pause()
            child = app.screen
            assert isinstance(child, SessionScreen) and child is not home
            assert child.session.path.parent.parent.parent == parent.with_suffix("")
            tasks.append(child.session.name)
            text = screen_text(app)
            assert "TASK: alpha" in text or "TASK: beta" in text
            if size[0] >= 200:
                assert "⑂ subagent of" in text.splitlines()[0]
            await pilot.press("escape")
            await pilot.pause()
            assert app.screen is home
            assert home.query_one(Transcript).cursor == call_cursor
        assert len(set(tasks)) == 2
        # P from a child: back to the call it came from.
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.screen is not home
        await pilot.press("P")
        await pilot.pause()
        assert app.screen is home


async def test_single_call_opens_its_child_and_p_opens_the_parent_at_the_call(
    tmp_path: Path,
) -> None:
    parent = _copy("single", tmp_path)
    (child_path,) = parent.with_suffix("").glob("*/run-0/session.jsonl")
    app = make_app(load_session(child_path))
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        await pilot.press("P")  # opened alone: the parent is loaded, at the call
        await app.workers.wait_for_complete()
        await pilot.pause()
        top = app.screen
        assert isinstance(top, SessionScreen) and top.session.path == parent
        t = top.query_one(Transcript)
        item = t.current_item
        assert item is not None and item.kind in ("tool", "assistant")
        msg = top.session.nodes[item.entry].message
        assert msg is not None and msg.role == "assistant"
        await _to_call(pilot, app)
        await pilot.press("enter")  # one child: straight into it
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, SessionScreen) and app.screen.session.path == child_path


async def test_a_missing_child_file_says_so(tmp_path: Path) -> None:
    parent = _copy("single", tmp_path)
    shutil.rmtree(parent.with_suffix(""))
    # The absolute paths it names may exist on the machine that ran pi: not here.
    parent.write_text(parent.read_text().replace("/tmp/pisub/", "/nonexistent/pisub/"))
    app = make_app(load_session(parent))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        said: list[str] = []
        home = app.screen
        home.notify = lambda message, **_kw: said.append(str(message))  # type: ignore[method-assign]
        await _to_call(pilot, app)
        assert (
            "child session not found: 2f6153a8-794e-4291-acb0-ec9db6b857ae/run-0/session.jsonl"
            in (screen_text(app))
        )
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is home
        assert said == ["The child session of this call is not on this machine."]


async def test_sidebar_shows_the_cost_with_subagents(tmp_path: Path) -> None:
    parent = _copy("parallel", tmp_path)
    app = make_app(load_session(parent))
    async with app.run_test(size=(200, 60)) as pilot:
        await pilot.pause()
        await pilot.press("u")
        await app.workers.wait_for_complete()
        await pilot.pause()
        side = app.screen.query_one(UsageSidebar)
        assert side.family is not None
        own, kids, files = side.family
        assert files == 2
        assert kids.cost == pytest.approx(0.0027)
        assert own.cost == pytest.approx(0.00765)
        text = screen_text(app)
        assert "With subagents" in text and "2 subagents" in text


@pytest.mark.parametrize("case", ["single", "chain", "fork", "failed"])
async def test_every_layout_opens_from_its_call(tmp_path: Path, case: str) -> None:
    parent = _copy(case, tmp_path)
    parent.write_text(parent.read_text().replace("/tmp/pisub/", "/nonexistent/pisub/"))
    app = make_app(load_session(parent))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        home = app.screen
        await _to_call(pilot, app)
        await pilot.press("enter")
        await pilot.pause()
        if case == "chain":
            assert isinstance(app.screen, SubagentRunsScreen)
            await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        child = app.screen
        assert isinstance(child, SessionScreen) and child is not home
        assert str(child.session.path).startswith(str(parent.with_suffix("")))
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is home
