"""Benchmark: issue #17's start-up rows, this checkout against another and the one-line app.

Times, in a real terminal (tmux 120x40, ``tmux_first_screen.first_screen``), from starting the
command until its first screen shows:

* the first screen of a big session (``--file``, default the 50 MB one), marker ``block ``;
* the picker's first rows over the sessions of ``--picker-dir`` (600 generated sessions, as in
  ``bench_limits.py``), marker a session's name, its summary cache warm (a first run waits
  until the picker has written it);

each next to the one-line Textual app of ``tmux_first_screen.py``, and, with ``--base DIR``,
next to another checkout of piview (say the commit before a change, made with ``git archive``
or ``git worktree add``). The commands alternate within every run, so a busy spell of the
machine hits all of them alike; medians over ``--runs`` are printed with the load average.
Every checkout runs as ``python -P -m piview`` with ``PYTHONPATH`` set to its folder: run
``python -m compileall -q piview`` in each first.

    python benchmarks/bench_startup.py --runs 7 --base /tmp/startup-base
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.bench_limits import make_sessions  # noqa: E402 - after the path is set
from benchmarks.tmux_first_screen import HELLO, SOCKET, first_screen  # noqa: E402

PICKER_MARKER = "Refactor the session"
"""A session's name in a row of the picker (not its header)."""


def warm_picker(command: str, cache: Path, timeout: float = 120.0) -> float:
    """Run the picker until its summary cache is written (every session indexed); seconds.

    Its first rows come from that cache from then on: the "index warm" of issue #17. (Killed
    as soon as its first rows show, as a timed run is, the picker never writes it.)
    """
    name = f"warm{time.monotonic_ns()}"
    t0 = time.perf_counter()
    subprocess.run(
        ["tmux", "-L", SOCKET, "new-session", "-d", "-s", name, "-x", "120", "-y", "40", command],
        check=True,
        capture_output=True,
    )
    try:
        while not (cache / "piview" / "sessions.json").exists():
            if time.perf_counter() - t0 > timeout:
                raise TimeoutError(f"the picker wrote no summary cache in {timeout:.0f} s")
            time.sleep(0.1)
        time.sleep(0.5)  # the text index's process, if it is still writing
    finally:
        subprocess.run(["tmux", "-L", SOCKET, "kill-session", "-t", name], capture_output=True)
    return time.perf_counter() - t0


def piview(folder: Path, *args: str, env: str = "") -> str:
    """``python -P -m piview ARGS`` of the checkout in ``folder``, for tmux."""
    return f"env {env} PYTHONPATH={folder} {sys.executable} -P -m piview {' '.join(args)}"


def main() -> None:
    """Time the rows asked for and print medians and ratios."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--file", type=Path, default=Path("/tmp/bench/s50.jsonl"))
    ap.add_argument("--picker-dir", type=Path, default=Path("/tmp/bench/limits-picker"))
    ap.add_argument("--sessions", type=int, default=600)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--base", type=Path, help="another checkout of piview, timed alongside")
    ap.add_argument("--rows", default="first_screen,picker", help="first_screen, picker or both")
    args = ap.parse_args()
    rows = set(args.rows.split(","))
    checkouts = {"piview": ROOT} | ({"base": args.base.resolve()} if args.base else {})
    with tempfile.TemporaryDirectory(prefix="piview-startup-") as tmp:
        hello = Path(tmp) / "hello.py"
        hello.write_text(HELLO)
        commands: dict[str, tuple[str, str]] = {"app": (f"{sys.executable} {hello}", "block hello")}
        if "first_screen" in rows:
            for name, folder in checkouts.items():
                cmd = piview(folder, "--no-follow", str(args.file))
                commands[f"first screen, {name}"] = (cmd, "block ")
        if "picker" in rows:
            make_sessions(args.picker_dir, args.sessions)
            for name, folder in checkouts.items():
                cache = Path(tmp) / f"cache-{name}"
                env = f"XDG_CACHE_HOME={cache}"
                cmd = piview(folder, "--sessions", str(args.picker_dir), env=env)
                warm_picker(cmd, cache)  # this checkout's summaries of the sessions, cached
                commands[f"picker, {name}"] = (cmd, PICKER_MARKER)
        load0 = os.getloadavg()
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.runs):
            for name, (cmd, marker) in commands.items():
                times[name].append(first_screen(cmd, marker))
        load1 = os.getloadavg()
    print(
        f"medians of {args.runs} runs, tmux 120x40, alternating; load average "
        f"{load0[0]:.2f} at the start, {load1[0]:.2f} at the end (1 min)"
    )
    print_medians(times)


def print_medians(times: dict[str, list[float]]) -> None:
    """One line per command: its median, against the one-line app's (``times["app"]``)."""
    app = statistics.median(times["app"])
    for name, values in times.items():
        m = statistics.median(values)
        print(
            f"  {name:28s} {m * 1000:6.0f} ms  {m / app:5.2f}x the app  {(m - app) * 1000:+5.0f} ms"
            f"  (min {min(values) * 1000:.0f}, max {max(values) * 1000:.0f})"
        )


if __name__ == "__main__":
    main()
