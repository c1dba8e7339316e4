"""The hidden usage sidebar is mounted and filled ahead with the usage summed ahead: ``u``
then mounts and fills nothing, and shows what a sidebar filled on ``u`` shows."""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import Static

import piview.screens.session as session_module
from piview.app import make_app
from piview.model import load_session
from piview.screens.session import SessionScreen
from piview.widgets.usage_sidebar import UsageSidebar
from tests.conftest import fixture

SIZE = (110, 40)


def _texts(side: UsageSidebar) -> list[str]:
    return [str(w.content) for w in side.query(Static)]


async def _shown_after_u(monkeypatch: pytest.MonkeyPatch, ahead: bool) -> tuple[list[str], int]:
    """The sidebar's texts after ``u``, and how many times ``u`` mounted or filled it."""
    monkeypatch.setattr(SessionScreen, "AHEAD_AFTER", 0.05 if ahead else 3600.0)
    app = make_app(load_session(fixture("tree_branches.jsonl")))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.2)
        await app.workers.wait_for_complete()
        await pilot.pause()
        side = app.screen.query_one(UsageSidebar)
        assert bool(side.children) == ahead  # mounted ahead, while hidden
        work: list[str] = []
        for name in ("_mount_sections", "_fill"):
            real = getattr(UsageSidebar, name)

            def counted(self: Any, *a: Any, _real: Any = real, _name: str = name) -> Any:
                work.append(_name)
                return _real(self, *a)

            monkeypatch.setattr(UsageSidebar, name, counted)
        await pilot.press("u")
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert side.has_class("-visible")
        return _texts(side), len(work)


async def test_u_finds_the_sidebar_filled_ahead(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(session_module, "_USAGE_IN_WORKER", 1)
    ahead, work_ahead = await _shown_after_u(monkeypatch, True)
    fresh, work_fresh = await _shown_after_u(monkeypatch, False)
    assert ahead == fresh and any("branch" in t for t in ahead)
    assert (work_ahead, work_fresh > 0) == (0, True)
