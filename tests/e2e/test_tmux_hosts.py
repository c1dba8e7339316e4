"""The real ``piview`` in tmux on a home folder of every host: Pi, oh-my-pi (a profile and a
subagent) and OpenClaw (JSONL and its SQLite database)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.conftest import Tmux
from tests.hosts import make_home


@pytest.mark.parametrize("size", [(80, 24), (200, 60)], ids=["80x24", "200x60"])
def test_picker_of_every_host_filters_opens_and_quits(
    tmux: Tmux, tmp_path: Path, size: tuple[int, int]
) -> None:
    home = make_home(tmp_path)
    env = {"HOME": str(home), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    tmux.start(size=size, env=env)
    head = "Sessions of Pi, oh-my-pi, OpenClaw (4 folders)"
    # Both: a frame may be caught half painted (rows before the top line) on a busy machine.
    screen = tmux.wait_until(
        lambda s: "Nightly backup" in s and head in s, timeout=20, what="the first frame"
    )
    for text in ("omp:work", "agent:main", "agent:ops", "↳ Review the parser", "^o Host"):
        assert text in screen, screen
    # nothing cut off at the right edge: every line fits the terminal
    assert all(len(line) <= size[0] for line in screen.splitlines())
    tmux.send("C-o", "C-o")  # oh-my-pi only
    screen = tmux.wait_for("host: omp only")
    assert "Nightly backup" not in screen and "beta parser refactor" in screen
    tmux.send("C-o", "C-o")  # every host again
    tmux.wait_until(lambda s: "host:" not in s and "Nightly backup" in s, what="all hosts")
    tmux.type("backup")
    tmux.wait_until(lambda s: "Calendar" not in s, what="the filter")
    tmux.send("Enter")  # the SQLite session
    tmux.wait_until(
        lambda s: "the backup finished at 03:12" in s and "following" in s,
        timeout=20,
        what="the session, followed",
    )
    tmux.send("q")
    assert "EXIT=0" in tmux.wait_for("EXIT=", timeout=10)
