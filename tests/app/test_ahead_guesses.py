"""The heights of the blocks built ahead for ``H`` are guessed ahead too, in the same
worker: ``H`` guesses none on the UI thread, and they are those a reset would guess."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from piview.app import make_app
from piview.model import load_session
from piview.render.item import ItemList
from piview.render.layout import BlockLayout
from piview.screens.session import SessionScreen
from piview.widgets.transcript import Transcript
from tests.app.test_key_work import SIZE, write_turns


def _watch_guesses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The guesses of every block made on the UI thread, as they are made."""
    on_ui: list[str] = []
    for name in ("estimates", "estimates_shown"):
        real = getattr(ItemList, name)

        def watched(self: Any, *a: Any, _real: Any = real, _name: str = name) -> Any:
            if threading.current_thread() is threading.main_thread():
                on_ui.append(_name)
            return _real(self, *a)

        monkeypatch.setattr(ItemList, name, watched)
    return on_ui


async def test_h_guesses_no_height_on_the_ui_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(SessionScreen, "AHEAD_AFTER", 3600.0)
    path = write_turns(tmp_path / "hidden.jsonl", 600, custom_every=3)  # 2,600 entries
    on_ui = _watch_guesses(monkeypatch)
    app = make_app(load_session(path))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        t = app.screen.query_one(Transcript)
        await pilot.press("g", "t")  # thinking expanded: guesses with the user's states
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SessionScreen)
        screen.AHEAD_AFTER = 0.05  # a moment on the branch now
        screen.prepare_views_ahead()
        await pilot.pause(0.2)
        await app.workers.wait_for_complete()
        assert t.has_other_hidden
        on_ui.clear()
        await pilot.press("H")
        await pilot.pause()
        assert t.show_hidden and on_ui == []
        fresh = BlockLayout(t.session)
        fresh.expanded.update(t._layout.expanded)
        fresh.reset(t.items, t._width)
        exact = t._layout.exact
        assert [h for h, e in zip(t._layout.heights, exact, strict=True) if not e] == [
            h for h, e in zip(fresh.heights, exact, strict=True) if not e
        ]


@pytest.mark.parametrize("with_panel", [False, True])
async def test_u_guesses_no_height_on_the_ui_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, with_panel: bool
) -> None:
    """The heights at the width the sidebar leaves are guessed ahead, after the usage: ``u``
    guesses none on the UI thread (with the branch panel open too)."""
    import piview.screens.session as session_module

    monkeypatch.setattr(session_module, "_USAGE_IN_WORKER", 1)
    monkeypatch.setattr(SessionScreen, "AHEAD_AFTER", 3600.0)
    path = write_turns(tmp_path / "turns.jsonl", 300)
    on_ui = _watch_guesses(monkeypatch)
    app = make_app(load_session(path))
    async with app.run_test(size=(150, 40)) as pilot:
        await pilot.pause()
        t = app.screen.query_one(Transcript)
        if with_panel:
            await pilot.press("b", "escape")
            await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SessionScreen)
        screen.AHEAD_AFTER = 0.05
        screen.prepare_views_ahead()
        await pilot.pause(0.2)
        await app.workers.wait_for_complete()
        await pilot.pause()
        before = t.guess_width
        predicted = screen.transcript_width_with_sidebar(before)
        on_ui.clear()
        await pilot.press("u")
        await pilot.pause()
        assert t.guess_width == predicted < before
        assert on_ui == []
