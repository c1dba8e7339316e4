"""A tmux driver for the end-to-end tests: run the real ``piview`` command, type, read.

Each test gets its own tmux server (a private socket), so nothing touches a tmux the user
may be running, and the server is killed in teardown whatever happened. Tests that need tmux
take the :func:`tmux` fixture, which skips them when tmux is not installed.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from tests.conftest import ROOT

COLS, ROWS = 120, 40


class Tmux:
    """One detached tmux session (120×40 unless told) running a command; keys in, screen
    text out."""

    def __init__(self) -> None:
        tag = uuid.uuid4().hex[:10]
        self.socket = f"piview-e2e-{tag}"
        self.name = f"piview-{tag}"
        self.started = False

    def tmux(self, *args: str, check: bool = True) -> str:
        """Run a tmux command on this test's server; return its stdout."""
        proc = subprocess.run(
            ["tmux", "-L", self.socket, *args],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
        if check and proc.returncode != 0:
            raise RuntimeError(f"tmux {' '.join(args)}: {proc.stderr.strip()}")
        return proc.stdout

    def start(
        self,
        *piview_args: str,
        cwd: Path | None = None,
        size: tuple[int, int] = (COLS, ROWS),
        env: dict[str, str] | None = None,
        stdin_from: str | None = None,
    ) -> None:
        """Start ``python -m piview ARGS`` in a new session of ``size`` (120×40 unless told),
        with TERM=xterm-256color (and ``env`` besides, e.g. another HOME); ``stdin_from``, a
        shell command, is piped into it.

        When piview exits, the pane prints ``EXIT=<status>`` and stays open a few seconds,
        so that the exit status and what is left on the screen can be read.
        """
        argv = " ".join(shlex.quote(a) for a in (sys.executable, "-m", "piview", *piview_args))
        # tmux may size a new window at its default (80×24) for a moment before the size
        # asked for holds: start piview only then, or it may keep the first size it reads.
        cols, rows = size
        settle = (
            f'for i in $(seq 100); do [ "$(stty size)" = "{rows} {cols}" ] && break; '
            "sleep 0.05; done"
        )
        # COLUMNS and LINES may come from the tmux server's environment (80×24 under
        # pytest): they would override the pane's real size.
        if stdin_from is not None:
            argv = f"{stdin_from} | {argv}"
        script = f"unset COLUMNS LINES; {settle}; {argv}; echo EXIT=$?; sleep 5"
        env = {
            "TERM": "xterm-256color",
            "COLORTERM": "truecolor",
            "LANG": "C.UTF-8",
            "PYTHONPATH": str(ROOT),
            **(env or {}),
        }
        env_args = [x for k, v in env.items() for x in ("-e", f"{k}={v}")]
        self.tmux(
            "-f",
            os.devnull,
            "new-session",
            "-d",
            "-x",
            str(size[0]),
            "-y",
            str(size[1]),
            "-s",
            self.name,
            "-c",
            str(cwd or ROOT),
            *env_args,
            f"export TERM=xterm-256color; {script}",
            # Detached, the window would shrink to tmux's default size (80×24) whenever tmux
            # recomputes it: pin it.
            ";",
            "set-option",
            "-g",
            "window-size",
            "manual",
        )
        self.started = True

    def send(self, *keys: str) -> None:
        """Send keys: tmux key names (``Enter``, ``Escape``, ``C-c``) or literal characters."""
        for key in keys:
            if len(key) == 1:
                self.tmux("send-keys", "-t", self.name, "-l", key)
            else:
                self.tmux("send-keys", "-t", self.name, key)

    def type(self, text: str) -> None:
        """Type ``text`` literally."""
        self.tmux("send-keys", "-t", self.name, "-l", text)

    def screen(self) -> str:
        """The visible screen as text (no colours)."""
        return self.tmux("capture-pane", "-p", "-t", self.name)

    def flags(self) -> dict[str, str]:
        """Terminal modes of the pane: alternate screen, cursor shown, mouse reporting."""
        fmt = "#{alternate_on} #{cursor_flag} #{mouse_any_flag} #{pane_dead}"
        fmt += " #{pane_width}x#{pane_height}"
        values = self.tmux("display-message", "-p", "-t", self.name, fmt).split()
        names = ("alternate_on", "cursor_flag", "mouse_any_flag", "pane_dead", "size")
        return dict(zip(names, values, strict=True))

    def wait_for(self, pattern: str, timeout: float = 10.0, *, regex: bool = False) -> str:
        """Poll the screen every 50 ms until it shows ``pattern``; return the screen.

        Raises AssertionError with the last screen when ``timeout`` passes first.
        """
        deadline = time.monotonic() + timeout
        screen = ""
        while True:
            screen = self.screen()
            if re.search(pattern, screen) if regex else pattern in screen:
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"{pattern!r} not on screen after {timeout}s:\n{screen}")
            time.sleep(0.05)

    def wait_until(self, predicate, timeout: float = 10.0, what: str = "condition") -> str:  # type: ignore[no-untyped-def]
        """Poll the screen every 50 ms until ``predicate(screen)`` holds; return the screen."""
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            if predicate(screen):
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"{what} not met after {timeout}s:\n{screen}")
            time.sleep(0.05)

    def kill(self) -> None:
        """Kill the session and this test's tmux server."""
        if self.started:
            self.tmux("kill-server", check=False)
            self.started = False


def status_line(screen: str) -> str:
    """The viewer's status line (``block N/M · branch to …``), or ``""``."""
    for line in screen.splitlines():
        if re.search(r"\bblock \d+/\d+", line):
            return line.strip()
    return ""


def flat(screen: str) -> str:
    """Screen text with its layout removed: gutters dropped and whitespace collapsed, so that
    a wrapped sentence reads as one."""
    return " ".join(re.sub(r"[▌▐▕▏│]", " ", screen).split())


@pytest.fixture
def tmux() -> Iterator[Tmux]:
    """A tmux driver; the test is skipped when tmux is not installed."""
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed (.ci/run installs it)")
    driver = Tmux()
    try:
        yield driver
    finally:
        driver.kill()


def run_piview(args: Sequence[str], **kwargs: object) -> subprocess.CompletedProcess[bytes]:
    """Run ``python -m piview ARGS`` and capture its output as bytes."""
    return subprocess.run(
        [sys.executable, "-m", "piview", *args],
        capture_output=True,
        timeout=60,
        cwd=ROOT,
        check=False,
        **kwargs,  # type: ignore[arg-type]
    )
