"""End to end: ``piview stats`` in a terminal (bars, the deduplication line) and the picker's
threaded view, a fork's header and ``P``, on the forks Pi 0.73.1 made itself."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import fixture
from tests.e2e.conftest import Tmux, flat

pytestmark = pytest.mark.e2e


@pytest.fixture
def forks(tmp_path: Path) -> Path:
    root = tmp_path / "sessions"
    shutil.copytree(fixture("forks"), root)
    return root


@pytest.mark.parametrize("size", [(80, 24), (200, 60)])
def test_stats_draws_bars_and_says_what_was_deduplicated(
    tmux: Tmux, forks: Path, tmp_path: Path, size: tuple[int, int]
) -> None:
    tmux.start("stats", "--sessions", str(forks), "--by", "session", cwd=tmp_path, size=size)
    screen = flat(tmux.wait_for("EXIT=0", timeout=30))
    assert "Deduplicated: 14 records copied by forks" in screen
    assert "└ Retry design" in screen and "$1.74" in screen
    assert ("█" in screen) == (size[0] >= 200)  # at 80 columns the bars give way first


def test_threaded_picker_then_a_fork_and_its_parent(
    tmux: Tmux, forks: Path, tmp_path: Path
) -> None:
    tmux.start("--sessions", str(forks), cwd=tmp_path, size=(80, 24))
    tmux.wait_for("^t Threads", timeout=20)
    tmux.send("C-t")
    screen = tmux.wait_for("⤷ scout")
    lines = [ln for ln in screen.splitlines() if "Retry design" in ln]
    assert len(lines) == 2 and "└ Retry design" in lines[0] and "  └ Retry design" in lines[1]
    # Open the /fork: the first "Retry design" row (the second is a fork of it). The rows'
    # order follows the sort, so the cursor is moved to it by its place on the screen.
    rows = screen.splitlines()
    top = next(k for k, ln in enumerate(rows) if " session " in ln) + 1
    at = next(k for k, ln in enumerate(rows) if "└ Retry design" in ln) - top
    tmux.send(*["Down"] * at, "Enter")
    tmux.wait_for("⑂ forked from fetch_json retries", timeout=20)
    tmux.send("P")
    screen = tmux.wait_for("branch to a5d544a8", timeout=20)
    assert "⑂" not in screen.splitlines()[0]
    tmux.send("Escape")
    tmux.wait_for("⑂ forked from")
    tmux.send("q")
    tmux.wait_for("EXIT=0", timeout=10)
