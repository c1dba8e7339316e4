"""Usage figures in the branch panel: which rows show one, which figure, and how it is drawn
(pilot tests and snapshots on the corpus's branched file and a fixture)."""

from __future__ import annotations

import pytest
from rich.style import Style

from piview.model import load_session
from piview.model.subtree import subtree_sums
from piview.model.treeview import Row
from piview.render.figures import fmt_figure
from piview.widgets import BranchPanel
from piview.widgets.branch_rows import row_strip
from tests.conftest import corpus_files, fixture
from tests.widgets.test_branch_panel import Host, screen_text

BRANCHES = next((p for p in corpus_files() if p.name == "branches.jsonl"), None)
needs_corpus = pytest.mark.skipif(BRANCHES is None, reason="no ../shared/corpus")
WIDE = (90, 30)


def _figures(panel: BranchPanel) -> dict[int, str]:
    """Entry → the figure drawn at the end of its row (rows on screen only)."""
    out = {}
    lines = screen_text(panel)[:-1]
    top = round(panel.scroll_y)
    for y, line in enumerate(lines):
        k = top + y
        if k >= len(panel.rows):
            break
        fig = panel.figure_text(panel.rows[k])
        if fig:
            assert line.rstrip().endswith(" " + fig), line
            out[panel.rows[k].entry] = fig
    return out


async def test_branch_points_and_leaves_show_their_figures_on_the_fixture() -> None:
    s = load_session(fixture("tree_branches.jsonl"))
    sums = subtree_sums(s)
    app = Host(s)
    async with app.run_test(size=WIDE) as pilot:
        panel = app.query_one(BranchPanel)
        await pilot.pause()
        assert panel.figure == "cost"  # the file records cost
        shown = _figures(panel)
        walk = panel.tree_rows.walk  # type: ignore[union-attr]
        for row in panel.rows:
            kids = walk.vchildren.get(row.entry)
            if row.is_branch_point or row.folded:
                assert shown[row.entry] == fmt_figure("cost", sums.subtree(row.entry))
            elif not kids:
                # A leaf: its branch from the root (what the filter hides under it too).
                assert shown[row.entry] == fmt_figure("cost", sums.through(row.entry))
            else:
                assert row.entry not in shown
        assert {r.entry for r in panel.rows if r.is_branch_point} <= set(shown)
        leaf = s.tree.leaf
        assert shown[panel.rows[panel.tree_rows.row_of[leaf]].entry] == fmt_figure(  # type: ignore[union-attr]
            "cost", sums.path(leaf)
        )


async def test_the_figure_key_cycles_cost_tokens_turns_duration() -> None:
    s = load_session(fixture("tree_branches.jsonl"))
    sums = subtree_sums(s)
    app = Host(s)
    async with app.run_test(size=WIDE) as pilot:
        panel = app.query_one(BranchPanel)
        await pilot.pause()
        bp = next(r for r in panel.rows if r.is_branch_point)
        seen = []
        for expected in ("cost", "tokens", "turns", "duration", "cost"):
            assert panel.figure == expected
            assert panel.figure_text(bp) == fmt_figure(expected, sums.subtree(bp.entry))
            seen.append(panel.figure_text(bp))
            panel.action_cycle_figure()
            await pilot.pause()
        assert seen[1].endswith("k") and seen[2].endswith("t") and seen[3][-1] in "smhd"


@pytest.mark.corpus
@needs_corpus
async def test_the_corpus_file_shows_tokens_when_it_records_no_cost() -> None:
    assert BRANCHES is not None
    s = load_session(BRANCHES)
    app = Host(s)
    async with app.run_test(size=WIDE) as pilot:
        panel = app.query_one(BranchPanel)
        await pilot.pause()
        # Pi's faux provider records tokens but no cost: a column of $0 would say nothing.
        assert panel.figure == "tokens"
        shown = _figures(panel)
        # The two branch points (3 and 7) and the active leaf's row.
        assert shown[3] == "41k" and shown[7] == "15k"
        # The active leaf's row (a hidden entry ends the branch: its row is the title's).
        assert shown[panel.cursor_entry] == "11k"  # type: ignore[index]
        panel.action_cycle_figure()
        await pilot.pause()
        assert panel.figure == "turns" and _figures(panel)[3] == "11t"


@pytest.mark.corpus
@needs_corpus
async def test_the_active_paths_figures_stand_apart() -> None:
    assert BRANCHES is not None
    app = Host(load_session(BRANCHES))
    async with app.run_test(size=WIDE) as pilot:
        panel = app.query_one(BranchPanel)
        await pilot.pause()
        styles = {}
        for y in range(len(panel.rows)):
            row = panel.rows[y]
            fig = panel.figure_text(row)
            if fig and y < panel.scrollable_content_region.height - 1:
                seg = [sg for sg in panel.render_line(y) if sg.text.strip() == fig][-1]
                styles.setdefault(row.on_path, set()).add((seg.style.bold, seg.style.color))
        assert set(styles) == {True, False}
        assert not styles[True] & styles[False]


async def test_a_narrow_panel_keeps_what_it_showed_of_the_labels() -> None:
    s = load_session(fixture("tree_branches.jsonl"))
    app = Host(s)
    async with app.run_test(size=(34, 16)) as pilot:
        panel = app.query_one(BranchPanel)
        await pilot.pause()
        sums = panel.sums
        with_figures = screen_text(panel)[:-1]
        panel.set_sums(None)
        without = screen_text(panel)[:-1]
        panel.set_sums(sums)
        top = round(panel.scroll_y)
        checked = 0
        for y, (line, plain) in enumerate(zip(with_figures, without, strict=True)):
            if top + y >= len(panel.rows):
                break
            row = panel.rows[top + y]
            # The tree art, the path mark and the label are never cut for the figure.
            head = plain.index("[" + row.label[:4]) + len(row.label) + 2 if row.label else 0
            head = min(head, len(plain.rstrip()))
            assert line[:head] == plain[:head]
            fig = panel.figure_text(row)
            if fig and line.rstrip().endswith(" " + fig):
                checked += 1
            elif fig:
                # No room left beside the tree art and the label: the figure gives way.
                assert len(line.rstrip()) == len(line)
        assert checked >= 2


@pytest.mark.corpus
@needs_corpus
def test_snapshot_figures_on_the_corpus_branches(snap_compare) -> None:
    assert BRANCHES is not None
    assert snap_compare(Host(load_session(BRANCHES)), terminal_size=(60, 28))


def test_snapshot_turns_on_the_fixture(snap_compare) -> None:
    async def turns(pilot) -> None:
        panel = pilot.app.query_one(BranchPanel)
        panel.action_cycle_figure()
        panel.action_cycle_figure()
        await pilot.pause()

    s = load_session(fixture("tree_branches.jsonl"))
    assert snap_compare(Host(s), terminal_size=(60, 16), run_before=turns)


@pytest.mark.parametrize("width", range(12, 61, 3))
def test_a_figure_is_shown_whole_or_not_at_all(width: int) -> None:
    """Deep in the tree at 80 columns there is no room: the figure gives way whole, never
    cut to wrong digits, and never takes the last cells of the row's text (the leaf marker
    shrinks first)."""
    row = Row(7, 5, "└", None, True, None, True, False, False, False)
    text = "assistant: a long answer about retries"
    strip = row_strip(
        row,
        text,
        "assistant",
        width=width,
        base=Style(),
        style_of=lambda _n: Style(),
        cursor=None,
        figure="$12.34",
    )
    line = strip.text
    assert len(line) == width
    bare = row_strip(
        row, text, "assistant", width=width, base=Style(), style_of=lambda _n: Style(), cursor=None
    ).text
    if line.rstrip().endswith(" $12.34"):
        shown = line.rstrip()[: -len(" $12.34")].rstrip()
        # The active leaf's marker may shrink to "◀" to make room for its branch's total.
        assert "◀" in shown and len(shown.split("• ")[1].split(" ◀")[0]) >= 6
    else:
        assert "$" not in line and line == bare


def test_the_leaf_marker_shrinks_before_the_leaf_figure_goes() -> None:
    row = Row(7, 5, "└", None, True, None, True, False, False, False)
    text = "assistant: a long answer about retries"
    lines = {
        w: row_strip(
            row,
            text,
            "assistant",
            width=w,
            base=Style(),
            style_of=lambda _n: Style(),
            cursor=None,
            figure="$3.72",
        ).text.rstrip()
        for w in range(20, 60)
    }
    assert any(line.endswith("◀ leaf $3.72") for line in lines.values())
    assert any(line.endswith("… ◀ $3.72") for line in lines.values())
    assert not any(line.endswith("$3.7") for line in lines.values())
