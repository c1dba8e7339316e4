"""The status line fits an 80-column terminal: following says how long ago in fewer words there
(it was cut to ``last entry 5 min`` beside a branch with two leaves)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

import piview.screens.session_follow as session_follow
from piview.app import make_app
from piview.model import load_session

FORKED = next((Path(__file__).parents[1] / "fixtures" / "pi-0.85").glob("*604Z_*.jsonl"))
"""Pi 0.85.1's session file with a branch summary: two leaves."""


@pytest.mark.parametrize(
    ("width", "want"), [(80, "following 5 min ago"), (200, "following, last entry 5 min ago")]
)
async def test_the_follow_part_fits(
    width: int, want: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / FORKED.name
    shutil.copyfile(FORKED, path)
    monkeypatch.setattr(session_follow, "_now", lambda: os.stat(path).st_mtime + 300.0)
    app = make_app(load_session(path), follow=True)
    async with app.run_test(size=(width, 24)) as pilot:
        await pilot.pause()
        text = str(app.screen.query_one("#status").render()).rstrip()
        assert "2 leaves" in text
        assert text.endswith(want)
        assert len(text) < width
