"""End to end: the picker's full-text search in the real command, in tmux."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import fixture
from tests.e2e.conftest import Tmux, status_line

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("size", [(80, 24), (200, 60)])
def test_picker_finds_text_and_opens_the_hit(
    tmux: Tmux, tmp_path: Path, size: tuple[int, int]
) -> None:
    root = tmp_path / "sessions" / "--home-dev-src-tinyhttp--"
    root.mkdir(parents=True)
    for name in ("linear.jsonl", "tree_branches.jsonl", "edit_tools.jsonl"):
        shutil.copy(fixture(name), root / name)
    tmux.start("--sessions", str(root.parent), "--no-follow", size=size)
    tmux.wait_for("Pi sessions in")
    tmux.type("decorrelated instead")
    tmux.wait_for("» Decorrelated jitter instead.")
    tmux.send("Enter")
    # On the hit's branch (not the latest), the entry in view; the search count fits in
    # the status line when the terminal is wide.
    screen = tmux.wait_until(
        lambda s: "(not the latest)" in s and "  Decorrelated jitter instead." in s,
        what="the hit's entry on its branch",
    )
    if size[0] >= 120:
        screen = tmux.wait_for("/decorrelated instead: 1/1")
    assert "branch to cbcbd688" in status_line(screen)
    tmux.send("q")
    tmux.wait_for("EXIT=0")
