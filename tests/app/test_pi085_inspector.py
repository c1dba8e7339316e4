"""Pilot: ``i`` on the Pi 0.85 fields fixture (issue 27): what an assistant's header has no room
for at 80 columns is in its inspector, and a tool's loaded tools and own usage in the call's."""

from __future__ import annotations

from piview.app import make_app
from piview.model import load_session
from piview.screens.entry_json import EntryJsonScreen
from piview.screens.inspector import ToolInspector
from piview.screens.session import SessionScreen
from tests.app.test_debugging import focus, item_index, screen_text, transcript
from tests.conftest import fixture


async def test_i_on_an_assistant_and_on_its_tool_call_at_80x24() -> None:
    app = make_app(load_session(fixture("pi085_fields.jsonl")))
    async with app.run_test(size=(80, 24)) as pilot:
        s = app.session
        assert s is not None
        t = transcript(app)
        turn = s.tree.id_index["a1000003"]
        k = item_index(t, turn, kind="assistant")
        await focus(pilot, t, k)
        header = screen_text(app)
        assert "reasoning" not in header  # no room in the header at 80 columns
        await pilot.press("i")
        await pilot.pause()
        assert isinstance(app.screen, EntryJsonScreen)
        text = screen_text(app)
        for words in ("toolUse (provider: tool_use)", "thinking level  max", "end turn        no"):
            assert words in text, words
        assert "150 (part of output)" in text and "600 (part of cache write)" in text
        await pilot.press("escape")
        assert isinstance(app.screen, SessionScreen)
        await focus(pilot, t, item_index(t, turn, kind="tool"))
        await pilot.press("i")
        await pilot.pause()
        assert isinstance(app.screen, ToolInspector)
        assert "│ web_search, web_fetch" in screen_text(app)  # the modal's own line
        await pilot.press("G")  # the nested usage is below the fold at 24 rows
        await pilot.pause()
        assert "in 300 · out 20" in screen_text(app)
