"""Benchmark: time to the first screen of ``piview FILE`` in a real terminal (tmux).

Starts piview in a detached tmux session of 120x40 and polls ``capture-pane`` until the
status line of the transcript appears. The baseline, in the same run, is ``less`` showing the
same file's first screen (a pager that reads lazily), and a Textual app that shows one line
(the floor any Textual app starts from on this machine). Runs alternate between the three, so
a slow spell of the machine hits all of them alike. Medians over the runs are printed.

    python benchmarks/tmux_first_screen.py FILE [--runs 5] [--checkout NAME=DIR ...]

``--checkout`` adds another checkout of piview (for example the previous commit, made with
``git worktree add``) to the same alternating runs; each checkout, this one included, then runs
as ``python -P -m piview`` with ``PYTHONPATH`` set to its folder, so that all start alike. Run
``python -m compileall -q piview`` in each checkout first.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SOCKET = "piview-bench"
"""A tmux server of its own, so the benchmark never touches the user's sessions."""


def first_screen(command: str, marker: str, timeout: float = 30.0) -> float:
    """Seconds from starting ``command`` in tmux until ``marker`` is on the screen."""
    name = f"bench{time.monotonic_ns()}"
    for attempt in range(5):
        t0 = time.perf_counter()
        started = subprocess.run(
            ["tmux", "-L", SOCKET, "new-session", "-d", "-s", name, "-x", "120", "-y", "40",
             command],
            capture_output=True,
        )  # fmt: skip
        if started.returncode == 0:
            break
        # The previous run's server may still be exiting ("server exited unexpectedly").
        time.sleep(0.2 * (attempt + 1))
    else:
        raise RuntimeError(started.stderr.decode(errors="replace").strip())
    try:
        while time.perf_counter() - t0 < timeout:
            out = subprocess.run(
                ["tmux", "-L", SOCKET, "capture-pane", "-t", name, "-p"],
                capture_output=True,
                text=True,
            ).stdout
            if marker in out:
                return time.perf_counter() - t0
            time.sleep(0.01)
        raise TimeoutError(command)
    finally:
        subprocess.run(["tmux", "-L", SOCKET, "kill-session", "-t", name], capture_output=True)


HELLO = """
from textual.app import App
from textual.widgets import Static


class Hello(App):
    def compose(self):
        yield Static("block hello")


Hello().run()
"""
"""The baseline Textual app: one line of text."""


def main() -> None:
    """Time piview and less on one file."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("file", type=Path)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument(
        "--checkout",
        action="append",
        default=[],
        metavar="NAME=DIR",
        help="another piview checkout to time in the same runs",
    )
    args = ap.parse_args()
    if shutil.which("tmux") is None:
        sys.exit("tmux is not installed")
    piview = shutil.which("piview") or f"{sys.executable} -m piview"
    size = args.file.stat().st_size / 1e6
    hello = Path(tempfile.mkdtemp()) / "hello.py"
    hello.write_text(HELLO)
    commands = {
        "piview": (f"{piview} --no-follow {args.file}", "block "),
    }
    if args.checkout:
        here = Path(__file__).resolve().parent.parent
        commands = {}
        for name, folder in [("piview (this checkout)", str(here))] + [
            tuple(c.split("=", 1)) for c in args.checkout
        ]:
            command = f"env PYTHONPATH={folder} {sys.executable} -P -m piview"
            commands[name] = (f"{command} --no-follow {args.file}", "block ")
    commands |= {
        "textual, one line": (f"{sys.executable} {hello}", "block hello"),
        "less": (f"less -S {args.file}", '{"type":"session"'),
    }
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(args.runs):
        for name, (command, marker) in commands.items():
            times[name].append(first_screen(command, marker))
    print(f"{args.file} ({size:.1f} MB), median of {args.runs} runs, 120x40 tmux pane")
    for name, values in times.items():
        print(
            f"  {name:24s} first screen {statistics.median(values) * 1000:6.0f} ms  "
            f"(min {min(values) * 1000:.0f}, max {max(values) * 1000:.0f})"
        )


if __name__ == "__main__":
    main()
