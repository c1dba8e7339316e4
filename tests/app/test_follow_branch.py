"""Following new branches and appends with the branch panel open: the transcript shows the new
branch, built from the blocks of the one it left, and the panel grows its rows without
flattening the tree again, giving the rows a new flatten gives; keys answer meanwhile."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import piview.widgets.branch_panel as branch_panel
from piview.app import make_app
from piview.model import load_session
from piview.model.treeview import Folds, flatten
from piview.render.items import build_items
from piview.widgets.branch_panel import BranchPanel
from tests.app.test_debugging import notes, screen_text, wait_until
from tests.app.test_follow import TOOLS, _shows, append, line, settle, transcript, user


@pytest.fixture
def live(tmp_path: Path) -> Path:
    """A writable copy of the corpus's tools.jsonl, which the test appends to as Pi would."""
    if not TOOLS.is_file():
        pytest.skip("the corpus is absent")
    path = tmp_path / "tools.jsonl"
    shutil.copyfile(TOOLS, path)
    return path


@pytest.fixture
def flattened(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """One item per whole-tree flatten of the branch panel."""
    calls: list[int] = []
    real = branch_panel._flatten_and_sum  # noqa: SLF001

    def counting(*args: object) -> object:
        calls.append(1)
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(branch_panel, "_flatten_and_sum", counting)
    return calls


def _panel_is_fresh(app: object) -> None:
    panel = app.screen.query_one(BranchPanel)  # type: ignore[attr-defined]
    s = panel.session
    want = flatten(s, panel.leaf, panel.filter_mode, Folds.for_tree(len(s), panel.filter_mode))
    assert panel.tree_rows is not None
    assert panel.tree_rows.rows == want.rows
    assert panel.cursor_entry == s.tree.leaf


@pytest.mark.corpus
async def test_appends_and_a_new_branch_grow_the_open_panel(
    live: Path, flattened: list[int]
) -> None:
    app = make_app(load_session(live), follow=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("b")
        await settle(pilot)
        assert app.screen.query_one(BranchPanel).display
        flattened.clear()
        s = transcript(app).session
        append(live, line(user("e0000001", s.ids[s.tree.leaf], "PLAIN append")))
        await wait_until(pilot, _shows(app, "e0000001"), "the plain append")
        await settle(pilot)
        assert not flattened, "the panel flattened the whole tree for a plain append"
        _panel_is_fresh(app)
        fork = s.ids[s.tree.path(s.tree.leaf)[-6]]  # Pi's /tree back a few entries
        append(live, line(user("e0000002", fork, "FORKED question")))
        await wait_until(pilot, _shows(app, "e0000002"), "the new branch")
        await settle(pilot)
        assert not flattened, "the panel flattened the whole tree for a new branch"
        _panel_is_fresh(app)
        t = transcript(app)
        assert list(t.items) == list(build_items(s, t.path))
        assert any("Pi moved to another branch" in m for m in notes(app))
        assert "FORKED question" in screen_text(app)
        panel = app.screen.query_one(BranchPanel)

        def summed() -> bool:  # the figures of the grown tree, summed in a worker
            return panel.sums is not None and panel.sums.tree is s.tree

        await wait_until(pilot, summed, "the sums of the grown tree")
        await pilot.press("j")  # the panel has the focus and answers
        await settle(pilot)
        assert panel.cursor_entry != s.tree.leaf or len(panel.rows) == panel.cursor + 1
