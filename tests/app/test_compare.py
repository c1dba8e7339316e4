"""The branch comparison: ``m`` / ``=`` in the branch panel, the comparison screen, enter to
an item on its own branch and escape back (pilot tests), and its frames (snapshots)."""

from __future__ import annotations

import pytest

from piview.app import make_app
from piview.model import load_session
from piview.screens.compare import BranchScreen, CompareScreen
from piview.screens.session import SessionScreen
from piview.widgets.branch_panel import BranchPanel
from piview.widgets.compare_list import CompareList
from piview.widgets.transcript import Transcript
from tests.conftest import CORPUS, fixture

BRANCHES = CORPUS / "pi-0.73" / "branches.jsonl"
# Marked corpus: tests/conftest.py skips it where ../shared/corpus is absent.
needs_corpus = pytest.mark.corpus
SIZES = {"80x24": (80, 24), "200x60": (200, 60)}


def _notes(app) -> list[str]:
    return [str(n.message) for n in app._notifications]  # noqa: SLF001


async def _compare(pilot, mark: int, cursor: int) -> CompareScreen:
    """Open the panel, mark ``mark``, move to ``cursor``, press = and wait for the result."""
    await pilot.press("b")
    panel = pilot.app.screen.query_one(BranchPanel)
    panel.move_to_entry(mark)
    await pilot.pause()
    await pilot.press("m")
    panel.move_to_entry(cursor)
    await pilot.pause()
    await pilot.press("equals_sign")
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, CompareScreen)
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    assert screen.diff is not None
    return screen


def _texts(screen: CompareScreen) -> list[str]:
    out = []
    for row in screen.query_one(CompareList).rows:
        for cell in (row.a, row.b):
            if cell is not None:
                out.append(cell.text.plain)
    return out


async def test_mark_and_compare_the_two_branches_of_the_fixture() -> None:
    s = load_session(fixture("branch_edits.jsonl"))
    first, last = s.tree.leaves()
    app = make_app(s)
    async with app.run_test(size=(200, 60)) as pilot:
        screen = await _compare(pilot, first, last)
        assert (screen.leaf_a, screen.leaf_b) == (first, last)
        lst = screen.query_one(CompareList)
        assert lst.columns
        texts = _texts(screen)
        assert any("Make greet() enthusiastic" in t for t in texts)
        assert any("Make greet() polite" in t for t in texts)
        # The two final diffs of greet.py, next to each other on one row.
        (row,) = [r for r in lst.rows if r.a and r.b and "name.upper()" in r.a.text.plain]
        assert "Good morning" in row.b.text.plain
        assert any("✗ aborted: Request was aborted" in t for t in texts)
        assert any(t.startswith("wall time 46.0s") for t in texts)
        await pilot.press("escape")
        assert isinstance(app.screen, SessionScreen)


async def test_compare_without_a_mark_or_on_one_branch_says_so() -> None:
    s = load_session(fixture("branch_edits.jsonl"))
    app = make_app(s)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("b", "equals_sign")
        await pilot.pause()
        assert not isinstance(app.screen, CompareScreen)
        assert any("Mark a branch with m first" in n for n in _notes(app))
        panel = app.screen.query_one(BranchPanel)
        await pilot.press("m")  # the leaf; then its parent: the same branch
        panel.move_to_entry(s.tree.parents[s.tree.leaf])
        await pilot.pause()
        await pilot.press("equals_sign")
        await pilot.pause()
        assert not isinstance(app.screen, CompareScreen)
        assert any("same branch" in n for n in _notes(app))
        # The marked row shows ◆ where the cursor's › would be.
        y = panel.tree_rows.row_of[s.tree.leaf] - round(panel.scroll_y)
        assert panel.render_line(y).text.startswith("◆")
        assert not panel.render_line(panel.cursor - round(panel.scroll_y)).text.startswith("◆")
        await pilot.press("m", "m")  # marked again, then cleared
        assert panel.marked is None


async def test_enter_opens_an_item_on_its_side_and_escape_comes_back() -> None:
    s = load_session(fixture("branch_edits.jsonl"))
    first, last = s.tree.leaves()
    app = make_app(s)
    async with app.run_test(size=(200, 60)) as pilot:
        screen = await _compare(pilot, first, last)
        lst = screen.query_one(CompareList)
        diff = screen.diff
        target = diff.b.prompts[0].entry
        lst.highlighted = next(k for k, r in enumerate(lst.rows) if r.b and r.b.entry == target)
        await pilot.press("right", "enter")
        await pilot.pause()
        branch = app.screen
        assert isinstance(branch, BranchScreen)
        assert branch.leaf == last
        t = branch.query_one(Transcript)
        assert t.current_item is not None and t.current_item.entry == target
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen and lst.highlighted is not None
        await pilot.press("left", "enter")  # the same row, side A: A's first prompt
        await pilot.pause()
        assert isinstance(app.screen, BranchScreen) and app.screen.leaf == first
        t = app.screen.query_one(Transcript)
        assert t.current_item is not None and t.current_item.entry == diff.a.prompts[0].entry
        await pilot.press("escape", "escape")
        await pilot.pause()
        assert type(app.screen) is SessionScreen


async def test_narrow_terminal_stacks_the_sides() -> None:
    s = load_session(fixture("branch_edits.jsonl"))
    first, last = s.tree.leaves()
    app = make_app(s)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _compare(pilot, first, last)
        lst = screen.query_one(CompareList)
        assert not lst.columns
        sides = [r.side for r in lst.rows if r.kind == "pair"]
        assert 0 in sides and 1 in sides
        # Stacked: enter opens the item of the side its row belongs to.
        k = next(k for k, r in enumerate(lst.rows) if r.side == 1 and r.a and r.a.entry)
        lst.highlighted = k
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, BranchScreen) and app.screen.leaf == last
        await pilot.press("q")
    assert app.return_code is not None or not app.is_running


@needs_corpus
async def test_an_item_opens_on_its_own_branch_not_the_newest_one() -> None:
    """On branches.jsonl the prompt "Let's go with a token bucket." leads to two leaves; from
    the side of the older one, enter shows it on that side's branch."""
    s = load_session(BRANCHES)
    side_a, side_b = s.find("f8bffeb6"), s.find("68b9354f")
    prompt = s.find("19d8895c")
    assert s.tree.newest_leaf(prompt) != side_a  # the case this test is about
    app = make_app(s)
    async with app.run_test(size=(200, 60)) as pilot:
        screen = await _compare(pilot, side_a, side_b)
        assert screen.diff.ancestor == s.find("707fa3b2")
        lst = screen.query_one(CompareList)
        lst.highlighted = next(k for k, r in enumerate(lst.rows) if r.a and r.a.entry == prompt)
        await pilot.press("left", "enter")
        await pilot.pause()
        assert isinstance(app.screen, BranchScreen)
        assert app.screen.leaf == side_a
        assert app.screen.query_one(Transcript).path[-1] == side_a


# ----------------------------------------------------------------------------- snapshots


def _open_compare(path, a: str | None = None, b: str | None = None):
    """An app on ``path`` and a run_before that opens the comparison of two leaves (the first
    and the last by default) and waits for it."""
    s = load_session(path)
    leaves = s.tree.leaves()
    leaf_a = s.find(a) if a else leaves[0]
    leaf_b = s.find(b) if b else s.tree.leaf

    async def run_before(pilot) -> None:
        pilot.app.push_screen(CompareScreen(s, leaf_a, leaf_b))
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()

    return make_app(s), run_before


@pytest.mark.parametrize("size", list(SIZES))
def test_snapshot_fixture(snap_compare, size: str) -> None:
    app, run_before = _open_compare(fixture("branch_edits.jsonl"))
    assert snap_compare(app, terminal_size=SIZES[size], run_before=run_before)


@needs_corpus
@pytest.mark.parametrize("size", list(SIZES))
def test_snapshot_corpus_branches(snap_compare, size: str) -> None:
    app, run_before = _open_compare(BRANCHES, "8c69f50b", "68b9354f")
    assert snap_compare(app, terminal_size=SIZES[size], run_before=run_before)


async def test_help_from_the_comparison_lists_its_keys() -> None:
    from piview.screens.help import HelpScreen
    from piview.widgets.keymap import screen_keys

    s = load_session(fixture("branch_edits.jsonl"))
    first, last = s.tree.leaves()
    app = make_app(s)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _compare(pilot, first, last)
        keys = {(g.title, k) for g in screen_keys(screen) for h in g.keys for k in h.keys}
        assert {("Branch comparison", "⏎"), ("Branch comparison", "←")} <= keys
        assert ("Comparison", "esc") in keys and ("Everywhere", "q") in keys
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)


async def test_resizing_lays_the_sides_out_again() -> None:
    s = load_session(fixture("branch_edits.jsonl"))
    first, last = s.tree.leaves()
    app = make_app(s)
    async with app.run_test(size=(200, 60)) as pilot:
        screen = await _compare(pilot, first, last)
        lst = screen.query_one(CompareList)
        lst.highlighted = next(
            k for k, r in enumerate(lst.rows) if "Carry on." in (r.b.text.plain if r.b else "")
        )
        assert lst.columns
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert not lst.columns
        # The cursor stays on its item's entry: side A's, as the side chosen is A.
        row = lst.rows[lst.highlighted]
        assert row.side is not None and row.a is not None
        await pilot.resize_terminal(160, 40)
        await pilot.pause()
        assert lst.columns


async def test_enter_on_a_call_focuses_the_call_not_its_message() -> None:
    s = load_session(fixture("branch_edits.jsonl"))
    first, last = s.tree.leaves()
    app = make_app(s)
    async with app.run_test(size=(200, 60)) as pilot:
        screen = await _compare(pilot, first, last)
        lst = screen.query_one(CompareList)
        call = screen.diff.a.only_here[-1]  # read tests/test_greet.py, after a text block
        assert call.part == 1
        lst.highlighted = next(
            k for k, r in enumerate(lst.rows) if r.a and (r.a.entry, r.a.part) == (call.entry, 1)
        )
        await pilot.press("left", "enter")
        await pilot.pause()
        await pilot.pause()
        item = app.screen.query_one(Transcript).current_item
        assert item is not None and (item.entry, item.part, item.kind) == (call.entry, 1, "tool")
