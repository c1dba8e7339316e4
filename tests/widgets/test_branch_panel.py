"""BranchPanel: keys, messages, folds and filters in a tiny host app, plus one snapshot."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.app import App, ComposeResult

from piview.model import load_session
from piview.model.session import Session
from piview.widgets import BranchPanel
from tests.conftest import fixture

SIZE = (60, 16)


class Host(App[None]):
    """Just the panel, focused, with every selection recorded."""

    def __init__(self, session: Session, leaf: int | None = None) -> None:
        super().__init__()
        self.session = session
        self.leaf = leaf
        self.selected: list[tuple[int, int]] = []

    def compose(self) -> ComposeResult:
        yield BranchPanel(self.session, self.leaf, id="panel")

    def on_mount(self) -> None:
        self.theme = "textual-dark"
        self.query_one(BranchPanel).focus()

    def on_branch_panel_entry_selected(self, event: BranchPanel.EntrySelected) -> None:
        assert event.control is self.query_one(BranchPanel)
        self.selected.append((event.entry, event.leaf))


@pytest.fixture
def big_tree_folds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fold side branches as for a big tree (small trees open unfolded, as Pi's /tree)."""
    monkeypatch.setattr("piview.model.treeview.OPEN_TREE_ENTRIES", 0)


def tree_branches() -> Session:
    return load_session(fixture("tree_branches.jsonl"))


def footer(panel: BranchPanel) -> str:
    return panel.render_line(panel.scrollable_content_region.height - 1).text.strip()


def screen_text(panel: BranchPanel) -> list[str]:
    return [panel.render_line(y).text for y in range(panel.scrollable_content_region.height)]


async def test_starts_on_the_leaf_with_a_footer(big_tree_folds: None) -> None:
    app = Host(tree_branches())
    async with app.run_test(size=SIZE) as pilot:
        panel = app.query_one(BranchPanel)
        await pilot.pause()
        assert panel.cursor_entry == 22
        assert footer(panel) == "(5/7) [default]"
        lines = screen_text(panel)
        assert lines[4].startswith("› │     • [title: fetch_json retries] ◀ leaf")
        # A folded row names the labels it hides.
        # The figure (its subtree's cost) takes its room from the text, not from the labels.
        assert lines[5] == "  ├⊞ user: Exponential backo… [decorrelated-jitter] +7 $0.25"
        assert "◀ leaf" not in "".join(lines[:4])


async def test_small_trees_open_unfolded_as_pi_does() -> None:
    app = Host(tree_branches())
    async with app.run_test(size=SIZE) as pilot:
        panel = app.query_one(BranchPanel)
        await pilot.pause()
        assert not any(r.folded for r in panel.rows)
        assert panel.tree_rows is not None
        assert len(panel.rows) == panel.tree_rows.shown  # every entry the filter shows


async def test_a_folded_row_names_the_labels_inside(big_tree_folds: None) -> None:
    s = load_session(fixture("tree_branches.jsonl"))
    app = Host(s)
    async with app.run_test(size=(90, 16)) as pilot:
        panel = app.query_one(BranchPanel)
        await pilot.pause()
        folded = [r for r in panel.rows if r.folded]
        inside = {lab for r in folded for lab in r.inside}
        hidden = {
            s.labels[e]
            for e in s.labels
            if e not in panel.tree_rows.row_of  # type: ignore[union-attr]
        }
        assert hidden and inside == hidden
        text = "\n".join(screen_text(panel))
        assert all(f"[{lab}" in text or f", {lab}" in text for lab in hidden)


async def test_labeled_only_shows_every_label(big_tree_folds: None) -> None:
    s = load_session(fixture("tree_branches.jsonl"))
    app = Host(s)
    async with app.run_test(size=SIZE) as pilot:
        panel = app.query_one(BranchPanel)
        panel.filter_mode = "labeled-only"
        await pilot.pause()
        shown = {r.entry for r in panel.rows}
        assert set(s.labels) <= shown


async def test_cursor_keys_and_select() -> None:
    app = Host(tree_branches())
    async with app.run_test(size=SIZE) as pilot:
        panel = app.query_one(BranchPanel)
        await pilot.press("up", "k", "up")
        assert panel.cursor == 1 and panel.cursor_entry == 3
        await pilot.press("enter")
        # Any entry: the path through it down to its newest leaf (Pi's export rule).
        assert app.selected == [(3, app.session.tree.newest_leaf(3))]
        await pilot.press("j", "down", "down", "down")
        assert panel.cursor_entry == 4
        await pilot.press("enter")
        # Off the path: the newest leaf under the entry (Pi's export rule).
        assert app.selected[-1] == (4, app.session.tree.newest_leaf(4))
        await pilot.press("end")
        assert panel.cursor == len(panel.rows) - 1
        await pilot.press("home")
        assert panel.cursor == 0
        await pilot.press("up")
        assert panel.cursor == 0


async def test_fold_keys(big_tree_folds: None) -> None:
    app = Host(tree_branches())
    async with app.run_test(size=SIZE) as pilot:
        panel = app.query_one(BranchPanel)
        await pilot.press("down")
        assert panel.cursor_entry == 4 and panel.rows[panel.cursor].folded
        await pilot.press("right")
        assert not panel.rows[panel.cursor].folded and len(panel.rows) == 12
        await pilot.press("down", "down")
        assert panel.cursor_entry == 8
        await pilot.press("left")  # not foldable: jump to the segment start
        assert panel.cursor_entry == 4
        await pilot.press("left")  # then fold it
        assert panel.rows[panel.cursor].folded and len(panel.rows) == 7
        await pilot.press("space")
        assert len(panel.rows) == 12
        await pilot.press("h")
        assert len(panel.rows) == 7
        await pilot.press("home", "right")  # not folded: next branch start
        assert panel.cursor_entry == 19


async def test_filter_cycle_keeps_the_cursor_near() -> None:
    app = Host(tree_branches())
    async with app.run_test(size=SIZE) as pilot:
        panel = app.query_one(BranchPanel)
        await pilot.press("up")  # the leaf's parent, 2272e989 (an assistant)
        assert panel.cursor_entry == 20
        seen = []
        for _ in range(5):
            await pilot.press("f")
            seen.append((panel.filter_mode, panel.cursor_entry))
        assert [m for m, _ in seen] == ["no-tools", "user-only", "labeled-only", "all", "default"]
        assert seen[1][1] == 19  # user-only: the nearest user ancestor
        assert "[user-only]" not in footer(panel) and footer(panel).endswith("[default]")
        await pilot.press("F")
        assert panel.filter_mode == "all" and footer(panel).endswith("[all]")


async def test_set_active_marks_and_unfolds_the_new_path(big_tree_folds: None) -> None:
    app = Host(tree_branches())
    async with app.run_test(size=SIZE) as pilot:
        panel = app.query_one(BranchPanel)
        panel.set_active(11)
        await pilot.pause()
        on_path = {r.entry for r in panel.rows if r.on_path}
        assert on_path <= set(app.session.tree.path(11)) and 11 in on_path
        assert [r.entry for r in panel.rows if r.is_leaf] == [11]
        # The old branch is folded now: the cursor moves to the row that hides its entry.
        assert panel.rows[panel.cursor].folded and panel.cursor_entry == 19
        panel.move_to_entry(13)
        await pilot.pause()
        assert panel.cursor_entry == 13


async def test_click_selects(tmp_path: Path) -> None:
    app = Host(tree_branches())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.click(BranchPanel, offset=(10, 0))
        assert app.selected == [(2, app.session.tree.newest_leaf(2))]


async def test_long_session_reads_only_visible_rows(tmp_path: Path) -> None:
    head = '{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z"}'
    line = (
        '{{"type":"message","id":"e{i}","parentId":{p},"timestamp":"2026-01-01T00:00:00.000Z",'
        '"message":{{"role":"user","content":"message number {i}"}}}}'
    )
    body = [line.format(i=i, p=f'"e{i - 1}"' if i else "null") for i in range(3000)]
    path = tmp_path / "long.jsonl"
    path.write_text("\n".join([head, *body]) + "\n")
    app = Host(load_session(path))
    async with app.run_test(size=SIZE) as pilot:
        panel = app.query_one(BranchPanel)
        await pilot.pause()
        assert panel.cursor == 2999 and footer(panel) == "(3000/3000) [default]"
        assert "message number 2999" in screen_text(panel)[-2]
        await pilot.press("home")
        assert panel.scroll_y == 0 and "message number 0" in screen_text(panel)[0]
        await pilot.press("pagedown")
        assert panel.cursor == panel.scrollable_content_region.height - 1
        assert len(panel._texts) < 60  # noqa: SLF001 - only rows drawn were read


def test_snapshot_branch_panel(snap_compare) -> None:
    assert snap_compare(Host(tree_branches()), terminal_size=SIZE, press=["up", "up"])


async def test_empty_session(write_session) -> None:
    head = '{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z"}'
    app = Host(load_session(write_session([head])))
    async with app.run_test(size=SIZE) as pilot:
        panel = app.query_one(BranchPanel)
        await pilot.press("down", "enter", "space", "left", "right", "f")
        assert panel.rows == [] and panel.cursor_entry is None and app.selected == []
        assert screen_text(panel)[0].strip() == "No entries"
        assert footer(panel) == "(0/0) [no-tools]"
        panel.set_active(None)
        panel.set_active(-1)


async def test_label_keys_reach_labels_in_folds(big_tree_folds: None) -> None:
    s = load_session(fixture("tree_branches.jsonl"))
    app = Host(s)
    async with app.run_test(size=SIZE) as pilot:
        panel = app.query_one(BranchPanel)
        await pilot.pause()
        assert panel.tree_rows is not None
        folded_away = [e for e in s.labels if e not in panel.tree_rows.row_of]
        assert folded_away
        seen = set()
        for _ in range(len(s.labels)):
            await pilot.press("apostrophe")
            seen.add(panel.cursor_entry)
        assert set(s.labels) <= seen  # every label, the folded ones unfolded on the way
        before = panel.cursor_entry
        await pilot.press("apostrophe", "quotation_mark")
        assert panel.cursor_entry == before
