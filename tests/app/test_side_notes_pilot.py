"""The branch panel and the status line of a session with OpenClaw side notes: each side note
is a marked row under the entry it annotates, no fork and no leaf."""

from __future__ import annotations

from piview.app import make_app
from piview.model import load_session
from piview.widgets.branch_panel import BranchPanel
from tests.conftest import fixture

SIZE = (100, 30)


async def test_side_notes_are_rows_under_their_entry_not_forks() -> None:
    s = load_session(fixture("openclaw_side_notes.jsonl"))
    app = make_app(s)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("b")
        await pilot.pause()
        panel = app.screen.query_one(BranchPanel)
        assert panel.has_focus
        lines = [
            panel.render_line(y).text.rstrip()
            for y in range(panel.scrollable_content_region.height)
        ]
        text = "\n".join(lines)
        # The first answer's side note sits right under it, marked, without a connector.
        k = next(n for n, ln in enumerate(lines) if "Train at 08:10" in ln)
        assert lines[k + 1].lstrip().startswith("· (side note) assistant:"), lines[k + 1]
        assert "├" not in lines[k + 1] and "└" not in lines[k + 1]
        # One fork only: a0000001's two real children.
        assert text.count("├") + text.count("└") == 2, text
        assert text.count("(side note)") == 4
        # A side note's figure is its own cost, not a branch's from the root.
        row = panel.rows[panel.tree_rows.row_of[s.tree.id_index["s0000004"]]]
        assert row.side and panel.figure_text(row) == "$0.001"
        status = str(app.screen.query_one("#status").render())
        assert "2 leaves" in status, status
