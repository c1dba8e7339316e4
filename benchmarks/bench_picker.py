"""Benchmark: the picker's first rows (issue #17, row 5) for several checkouts in one run.

Like the picker row of ``bench_startup.py``, but for any number of checkouts of piview
(``--checkout NAME=DIR``, say one per commit of a series, made with ``git archive``), each
with its own summary cache, warmed first; this checkout is always timed. The one-line
Textual app and every checkout alternate within each run, so a busy spell of the machine
hits all of them alike; medians over ``--runs`` are printed with the load average. Run
``python -m compileall -q piview`` in each checkout first.

    python benchmarks/bench_picker.py --runs 7 --checkout base=/tmp/picker-base
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.bench_limits import make_sessions  # noqa: E402 - after the path is set
from benchmarks.bench_startup import (  # noqa: E402
    PICKER_MARKER,
    piview,
    print_medians,  # noqa: E402
    warm_picker,
)
from benchmarks.tmux_first_screen import HELLO, first_screen  # noqa: E402


def warm(command: str, cache: Path) -> None:
    """:func:`warm_picker`, again when tmux refuses to start it (the benchmarks' tmux server
    may be exiting as the previous run ends)."""
    for attempt in range(5):
        try:
            warm_picker(command, cache)
            return
        except subprocess.CalledProcessError:
            time.sleep(0.3 * (attempt + 1))
    warm_picker(command, cache)


def main() -> None:
    """Time the picker's first rows of each checkout and print medians against the app."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--picker-dir", type=Path, default=Path("/tmp/bench/limits-picker"))
    ap.add_argument("--sessions", type=int, default=600)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument(
        "--checkout",
        action="append",
        default=[],
        metavar="NAME=DIR",
        help="another checkout of piview, timed in the same runs",
    )
    args = ap.parse_args()
    checkouts = {"piview": ROOT} | {
        name: Path(folder).resolve() for name, folder in (c.split("=", 1) for c in args.checkout)
    }
    make_sessions(args.picker_dir, args.sessions)
    with tempfile.TemporaryDirectory(prefix="piview-bench-picker-") as tmp:
        hello = Path(tmp) / "hello.py"
        hello.write_text(HELLO)
        commands = {"app": (f"{sys.executable} {hello}", "block hello")}
        for name, folder in checkouts.items():
            cache = Path(tmp) / f"cache-{name}"
            cmd = piview(folder, "--sessions", str(args.picker_dir), env=f"XDG_CACHE_HOME={cache}")
            warm(cmd, cache)  # its summaries of the sessions, cached: "index warm"
            commands[name] = (cmd, PICKER_MARKER)
        load0 = os.getloadavg()
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.runs):
            for name, (cmd, marker) in commands.items():
                times[name].append(first_screen(cmd, marker))
        load1 = os.getloadavg()
    print(
        f"picker's first rows, {args.sessions} sessions, medians of {args.runs} runs, tmux "
        f"120x40, alternating; load average {load0[0]:.2f} at the start, {load1[0]:.2f} at "
        "the end (1 min)"
    )
    print_medians(times)


if __name__ == "__main__":
    main()
