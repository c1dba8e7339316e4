"""Benchmark: the CPU of what the first screen of ``piview FILE`` imports, without drawing it.

``bench_first_frame.py`` times the whole first frame in a terminal; on a loaded machine its
spread (tens of ms) hides a few milliseconds saved in imports. This times, in a fresh
interpreter each run, the command line read as the CLI reads it and the modules the session
screen's first frame imports (the model, the app, the session screen and its widgets), as CPU
time (``time.process_time``), alternating this checkout and ``--base DIR``; medians, the load
average, and the ratio to the base. With ``--file`` (a big session), the CPU of ``load_tail``
on it too (the tail read before the prerender fork), in the same interpreter after the
imports. Run ``python -m compileall -q piview`` in each first.

    python benchmarks/bench_first_imports.py --runs 15 --base /tmp/first2-base
    python benchmarks/bench_first_imports.py --runs 15 --base /tmp/first2-base --file s50.jsonl
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CODE = """
import time
t0 = time.process_time()
from piview.cli import parse_args
parse_args(["--no-follow", "s.jsonl"])
import piview.commands.view, piview.model.session_tail, piview.render.prerender
t1 = time.process_time()
if FILE:
    piview.model.session_tail.load_tail(FILE)
t2 = time.process_time()
import piview.app, piview.screens.session
from piview.render.sanitize import sanitize_line
sanitize_line("a title")
t3 = time.process_time()
print(f"{(t1 - t0) * 1000:.3f} {(t3 - t2) * 1000:.3f} {(t2 - t1) * 1000:.3f}")
"""
"""Before Textual (the CLI, the model, the prerender module), the tail read (with ``FILE``),
then the app and its screen."""


def once(tree: Path, file: Path | None = None) -> tuple[float, float, float]:
    """``(ms before Textual, ms for the app and screen, ms of load_tail on file)`` in a fresh
    interpreter on ``tree``."""
    out = subprocess.run(
        [sys.executable, "-P", "-c", f"FILE = {str(file) if file else ''!r}\n{CODE}"],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(tree)},
    ).stdout.split()
    return float(out[0]), float(out[1]), float(out[2])


def main() -> None:
    """Alternate this checkout and ``--base``; print medians and ratios."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--base", type=Path, required=True, help="another checkout of piview")
    ap.add_argument("--file", type=Path, help="a big session: time load_tail on it too")
    args = ap.parse_args()
    trees = {"piview": ROOT, "base": args.base.resolve()}
    got: dict[str, list[tuple[float, float, float]]] = {name: [] for name in trees}
    load0 = os.getloadavg()
    for _ in range(args.runs):
        for name, tree in trees.items():
            got[name].append(once(tree, args.file))
    load1 = os.getloadavg()
    print(
        f"first screen's imports: medians of {args.runs} runs, alternating; load average "
        f"{load0[0]:.2f} at the start, {load1[0]:.2f} at the end (1 min)"
    )
    base = statistics.median(a + b for a, b, _ in got["base"])
    base_tail = statistics.median(t for _, _, t in got["base"])
    for name, runs in got.items():
        pre = statistics.median(a for a, _, _ in runs)
        post = statistics.median(b for _, b, _ in runs)
        total = statistics.median(a + b for a, b, _ in runs)
        tail = statistics.median(t for _, _, t in runs)
        print(
            f"  {name:7s} CPU {total:6.1f} ms ({total / base:4.2f}x the base): before Textual "
            f"{pre:5.1f} ms, Textual, app and screen {post:5.1f} ms"
            + (f"; load_tail {tail:5.2f} ms ({tail / base_tail:4.2f}x)" if args.file else "")
        )


if __name__ == "__main__":
    main()
