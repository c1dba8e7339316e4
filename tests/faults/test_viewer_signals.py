"""SIGTERM and SIGHUP to the real viewer in tmux leave the terminal whole (issue #26): the
alternate screen and mouse reporting are off, and the status is 128+signum."""

from __future__ import annotations

import os
import signal
import subprocess

import pytest

from tests.conftest import fixture
from tests.e2e import conftest as e2e_conftest
from tests.e2e.conftest import Tmux

pytestmark = [pytest.mark.faults, pytest.mark.e2e]


# The e2e tests' tmux driver fixture (skips without tmux), shared rather than copied.
tmux = e2e_conftest.tmux


def _piview_pid(t: Tmux) -> int:
    """The piview process: the child of the pane's shell."""
    shell = t.tmux("display-message", "-p", "-t", t.name, "#{pane_pid}").strip()
    out = subprocess.run(
        ["pgrep", "-P", shell], capture_output=True, text=True, check=False, timeout=10
    ).stdout.split()
    assert out, "piview is not running in the pane"
    return int(out[0])


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["TERM", "HUP"])
def test_a_signal_restores_the_terminal(tmux: Tmux, signum: signal.Signals) -> None:
    tmux.start("--no-follow", str(fixture("images.jsonl")), size=(80, 24))
    tmux.wait_until(lambda _s: tmux.flags()["alternate_on"] == "1", what="the alternate screen")
    tmux.wait_for("Quit")
    assert tmux.flags()["mouse_any_flag"] == "1"

    os.kill(_piview_pid(tmux), signum)
    tmux.wait_for(f"EXIT={128 + signum}")
    flags = tmux.flags()
    assert flags["alternate_on"] == "0"
    assert flags["mouse_any_flag"] == "0"
