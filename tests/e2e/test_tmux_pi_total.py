"""End to end: the usage sidebar's session total, Pi's /session figures, in the real command at
80x24 and 200x60, on a file Pi 0.85.1 wrote."""

from __future__ import annotations

import pytest

from piview.render.format import fmt_cost, fmt_tokens
from tests.e2e.conftest import Tmux
from tests.pi_reference.pi085 import FILES, stored

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("size", [(80, 24), (200, 60)], ids=["80x24", "200x60"])
@pytest.mark.parametrize("which", [0, 1], ids=["session", "fork"])
def test_sidebar_shows_pis_total(tmux: Tmux, size: tuple[int, int], which: int) -> None:
    """``u`` opens the sidebar; its total and each provider/model line are Pi's answer."""
    path = FILES[which]
    answer = stored(path)
    tmux.start("--no-follow", str(path), size=size)
    tmux.wait_for(r"block \d+/\d+", regex=True, timeout=20)
    tmux.send("u")
    screen = tmux.wait_for("Session total")
    side = [line.split("▏", 1)[1] for line in screen.splitlines() if "▏" in line]
    stats = answer["stats"]
    total = fmt_tokens(stats["tokens"]["total"]), fmt_cost(stats["cost"])
    assert any(line.split()[:3] == ["total", *total] for line in side), screen
    for b in answer["breakdown"]:
        # A key too long for the label column is named by its model alone, as Pi's is.
        names = {b["key"], b["key"].split("/", 1)[-1]}
        want = [fmt_tokens(b["tokens"]), fmt_cost(b["cost"])]
        assert any(
            line.split()[0] in names and line.split()[1:3] == want for line in side if line.split()
        ), (b, screen)
