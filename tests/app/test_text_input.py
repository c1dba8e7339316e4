"""The text fields' cursor is steady when animations are off (the picker's snapshot showed the
cursor or not by how long a loaded machine took to take it)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input

from piview.app import make_app
from tests.app.test_debugging import build_sessions


@pytest.mark.parametrize(("level", "blink"), [("none", False), ("full", True)])
async def test_the_filter_blinks_only_with_animations_on(
    level: str, blink: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    build_sessions(tmp_path / "sessions")
    app = make_app(sessions_root=tmp_path / "sessions")
    app.animation_level = level  # type: ignore[assignment]
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        field = app.screen.query_one("#filter", Input)
        assert field.cursor_blink is blink
