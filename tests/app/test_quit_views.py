"""``q`` quits from every view, not only from the transcript: the tools view (where ``q``
did nothing), the context view, the inspector, an entry's JSON and the help (where ``q``
closed the view instead, so a second ``q`` was needed)."""

from __future__ import annotations

import pytest
from textual.screen import Screen

from piview.app import make_app
from piview.model import load_session
from piview.screens.context_view import ContextScreen
from piview.screens.entry_json import EntryJsonScreen
from piview.screens.help import HelpScreen
from piview.screens.inspector import ToolInspector
from piview.screens.timeline import TimelineScreen
from piview.screens.tools_view import ToolsScreen
from piview.widgets.transcript import Transcript
from tests.conftest import fixture


def _first(t: Transcript, kind: str) -> int:
    return next(k for k, it in enumerate(t.items) if it.kind == kind)


@pytest.mark.parametrize(
    ("focus_kind", "key", "view"),
    [
        (None, "T", ToolsScreen),
        (None, "c", ContextScreen),
        (None, "w", TimelineScreen),
        ("tool", "i", ToolInspector),
        ("user", "i", EntryJsonScreen),
        (None, "question_mark", HelpScreen),
    ],
)
async def test_q_quits_from_a_view(
    focus_kind: str | None, key: str, view: type[Screen[object]]
) -> None:
    app = make_app(load_session(fixture("edit_tools.jsonl")), follow=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        t = app.screen.query_one(Transcript)
        if focus_kind is not None:
            t.focus_item(_first(t, focus_kind))
            await pilot.pause()
        await pilot.press(key)
        for _ in range(50):  # the tools view may collect its calls in a worker first
            if isinstance(app.screen, view):
                break
            await pilot.pause(0.02)
        assert isinstance(app.screen, view)
        await pilot.press("q")
        await pilot.pause()
        assert app._exit, f"q in {view.__name__} did not quit"  # noqa: SLF001
