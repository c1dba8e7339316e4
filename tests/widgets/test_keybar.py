"""The footer line of keys (piview.widgets.keybar)."""

from __future__ import annotations

from piview.app import make_app
from piview.model import load_session
from piview.widgets.branch_panel import BranchPanel
from piview.widgets.keybar import KeyBar
from tests.conftest import fixture


def _line(bar: KeyBar) -> str:
    return bar.render().plain


async def test_help_quit_and_palette_stay_in_view_when_narrow() -> None:
    for width in (120, 80, 50):
        app = make_app(load_session(fixture("tree_branches.jsonl")))
        async with app.run_test(size=(width, 30)) as pilot:
            await pilot.pause()
            bar = app.screen.query_one(KeyBar)
            line = _line(bar)
            assert len(line) == width
            assert line.startswith(" ? Help ")
            assert line.rstrip().endswith("q Quit ▏ ^p palette")
            if width == 120:
                for key in ("⏎ Expand", "t Thinking", "o Output", "e Next error", "/ Search"):
                    assert key in line


async def test_keys_follow_the_focus() -> None:
    app = make_app(load_session(fixture("tree_branches.jsonl")))
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        bar = app.screen.query_one(KeyBar)
        assert "t Thinking" in _line(bar)
        await pilot.press("b")
        await pilot.pause()
        assert app.screen.query_one(BranchPanel).has_focus
        line = _line(bar)
        assert "f Filter" in line and "t Thinking" not in line


async def test_clicking_a_key_presses_it() -> None:
    app = make_app(load_session(fixture("tree_branches.jsonl")))
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        bar = app.screen.query_one(KeyBar)
        line = _line(bar)
        x = line.index("b Branches")
        assert await pilot.click(KeyBar, offset=(x + 1, 0))
        await pilot.pause()
        assert app.screen.query_one(BranchPanel).has_class("-visible")


async def test_while_typing_a_search_only_its_keys_show() -> None:
    app = make_app(load_session(fixture("tree_branches.jsonl")))
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("slash")
        await pilot.pause()
        line = _line(app.screen.query_one(KeyBar))
        assert "⏎ Find" in line and "esc Close" in line
        assert "Thinking" not in line and "Branches" not in line
        await pilot.press("b", "escape")  # "b" is typed, not the branch panel
        await pilot.pause()
        assert not app.screen.query_one(BranchPanel).has_class("-visible")
        assert "Thinking" in _line(app.screen.query_one(KeyBar))
