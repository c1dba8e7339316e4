"""The ``$`` key of the session screen cycles the branch panel's figures, from anywhere."""

from __future__ import annotations

import pytest

from piview.app import make_app
from piview.model import load_session
from piview.widgets import BranchPanel
from piview.widgets.transcript import Transcript
from tests.conftest import corpus_files, fixture

BRANCHES = next((p for p in corpus_files() if p.name == "branches.jsonl"), None)


@pytest.mark.parametrize("focus", ["panel", "transcript"])
async def test_dollar_cycles_the_figure(focus: str) -> None:
    app = make_app(load_session(fixture("tree_branches.jsonl")))
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("b")
        await pilot.pause()
        panel = app.screen.query_one(BranchPanel)
        if focus == "transcript":
            app.screen.query_one(Transcript).focus()
        assert panel.figure == "cost"
        bp = next(r for r in panel.rows if r.is_branch_point)
        before = panel.figure_text(bp)
        assert before.startswith("$")
        await pilot.press("dollar_sign")
        await pilot.pause()
        assert panel.figure == "tokens" and panel.figure_text(bp) != before
        for _ in range(3):
            await pilot.press("dollar_sign")
        assert panel.figure == "cost"


@pytest.mark.corpus
@pytest.mark.skipif(BRANCHES is None, reason="no ../shared/corpus")
async def test_the_corpus_branches_open_on_tokens_in_the_viewer() -> None:
    assert BRANCHES is not None
    app = make_app(load_session(BRANCHES))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("b")
        await pilot.pause()
        panel = app.screen.query_one(BranchPanel)
        assert panel.figure == "tokens"
        lines = [panel.render_line(y).text for y in range(panel.size.height)]
        assert any(line.rstrip().endswith(" 41k") for line in lines)
        assert any("◀ leaf" in line and line.rstrip().endswith(" 11k") for line in lines)
