"""Big sessions flatten their tree and build a branch's blocks in workers.

The thresholds are lowered so that the demo session takes those paths.
"""

from __future__ import annotations

import pytest
from textual.pilot import Pilot

import piview.screens.session as session_screen
import piview.widgets.branch_panel as branch_panel
from piview.app import make_app
from piview.model import load_session
from piview.screens.session import SessionScreen
from piview.widgets.branch_panel import BranchPanel
from piview.widgets.transcript import Transcript

SIZE = (120, 40)


@pytest.fixture(autouse=True)
def _everything_is_big(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(branch_panel, "BIG_TREE", 1)
    monkeypatch.setattr(session_screen, "BIG_BRANCH", 1)


def demo_app():  # type: ignore[no-untyped-def]
    from piview.catalog.demo import demo_path

    return make_app(load_session(demo_path()))


async def _settle(pilot: Pilot[None], done) -> None:  # type: ignore[no-untyped-def]
    for _ in range(100):
        await pilot.pause(0.02)
        if done():
            return
    raise AssertionError("the worker's result never arrived")


async def test_the_branch_panel_fills_from_its_worker() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, SessionScreen)
        await _settle(pilot, lambda: bool(screen.query_one(Transcript).items))
        await pilot.press("b")
        panel = screen.query_one(BranchPanel)
        await _settle(pilot, lambda: not panel.building and bool(panel.rows))
        leaf = app.session.tree.leaf
        assert panel.cursor_entry == leaf
        # A filter change flattens again, in the worker, keeping the cursor's entry or an
        # ancestor of it.
        await pilot.press("f")
        await _settle(pilot, lambda: not panel.building)
        assert panel.filter_mode != "default"
        assert panel.cursor_entry is not None
        assert app.session.tree.is_ancestor(panel.cursor_entry, leaf)


async def test_switching_branch_through_the_worker() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, SessionScreen)
        t = screen.query_one(Transcript)
        s = app.session
        await _settle(pilot, lambda: bool(t.items))
        assert t.path == s.tree.path(s.tree.leaf)
        other = next(leaf for leaf in s.tree.leaves() if leaf != s.tree.leaf)
        screen.show_branch(other)
        assert screen.building_branch
        assert "building the branch" in str(screen.query_one("#status").render())
        await _settle(pilot, lambda: not screen.building_branch)
        assert t.path == s.tree.path(other)
        assert screen.leaf == other
        assert "building the branch" not in str(screen.query_one("#status").render())


async def test_only_the_newest_branch_asked_for_is_shown() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, SessionScreen)
        t = screen.query_one(Transcript)
        s = app.session
        await _settle(pilot, lambda: bool(t.items))
        first, second = [leaf for leaf in s.tree.leaves() if leaf != s.tree.leaf][:2]
        screen.show_branch(first)
        screen.show_branch(second)
        await _settle(pilot, lambda: not screen.building_branch)
        await pilot.pause(0.1)
        assert t.path == s.tree.path(second)


async def test_hidden_entries_toggle_through_the_worker() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, SessionScreen)
        t = screen.query_one(Transcript)
        await _settle(pilot, lambda: bool(t.items) and not screen.building_branch)
        before = len(t.items)
        await pilot.press("H")
        assert t.show_hidden
        await _settle(pilot, lambda: not screen.building_branch)
        assert len(t.items) > before and any(item.hidden for item in t.items)
        await pilot.press("H")
        await _settle(pilot, lambda: not screen.building_branch)
        assert len(t.items) == before and not any(item.hidden for item in t.items)


async def test_hidden_toggle_during_a_branch_build_keeps_the_branch() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, SessionScreen)
        t = screen.query_one(Transcript)
        s = app.session
        await _settle(pilot, lambda: bool(t.items) and not screen.building_branch)
        other = next(leaf for leaf in s.tree.leaves() if leaf != s.tree.leaf)
        screen.show_branch(other)
        await pilot.press("H")
        await _settle(pilot, lambda: not screen.building_branch)
        assert t.path == s.tree.path(other) and screen.leaf == other
        assert t.show_hidden
