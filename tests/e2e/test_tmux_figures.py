"""End to end: the branch panel's usage figures in the real command, at 80x24 and 200x60."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from tests.conftest import corpus_files
from tests.e2e.conftest import Tmux

pytestmark = pytest.mark.e2e

BRANCHES = next((p for p in corpus_files() if p.name == "branches.jsonl"), None)


def _panel(screen: str, width: int) -> list[str]:
    """The panel's part of each line (it is the left column, up to its border)."""
    return [line.split("▕")[0] if "▕" in line else line[:width] for line in screen.splitlines()]


@pytest.mark.parametrize("size", [(80, 24), (200, 60)], ids=["80x24", "200x60"])
def test_figures_beside_branches_and_the_figure_key(tmux: Tmux, size: tuple[int, int]) -> None:
    """The demo records cost: branch points (and leaves, where there is room) end with
    dollars; ``$`` turns them into token counts."""
    tmux.start("--demo", size=size)
    tmux.wait_for(r"block \d+/\d+", regex=True, timeout=20)
    tmux.send("b")

    def ends(pattern: str) -> Callable[[str], bool]:
        return lambda screen: any(
            re.search(pattern, line.rstrip()) for line in _panel(screen, size[0])
        )

    # The panel scrolls to the active leaf on its first paint: wait for that screen.
    screen = tmux.wait_until(ends(r"^› .*"), what="the cursor row")
    assert ends(r" \$\d+\.\d\d$")(screen), screen
    if size[0] > 80:
        assert ends(r"◀ leaf +\$\d+\.\d\d$")(screen), screen
    tmux.send("$")
    tmux.wait_for("Branch figures: tokens")
    tmux.wait_until(ends(r" \d+(\.\d)?k$"), what="token figures")


@pytest.mark.skipif(BRANCHES is None, reason="no ../shared/corpus")
def test_the_corpus_branches_show_tokens(tmux: Tmux) -> None:
    """Pi's faux provider records no cost: the panel starts on tokens."""
    assert BRANCHES is not None
    tmux.start(str(BRANCHES), size=(80, 24))
    tmux.wait_for(r"block \d+/\d+", regex=True, timeout=20)
    tmux.send("b")
    screen = tmux.wait_for("[default]")
    panel = [line.rstrip() for line in _panel(screen, 80)]
    assert any(line.endswith(" 41k") for line in panel), screen
    assert any("◀ leaf" in line and line.endswith(" 11k") for line in panel), screen
