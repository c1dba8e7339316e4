"""Benchmark: the CPU of ``piview FILE`` from the interpreter's start to the prerender fork.

``piview FILE`` reads the CLI, imports the model, reads a big file's tail and forks the child
that draws the first frame (:mod:`piview.render.prerender`) before it imports Textual: what it
does by then delays the child and is the part of the first screen's CPU this measures. Each
run starts the real command (``python -P -m piview --no-follow FILE``) on a pseudo-terminal
(the prerender needs one), with an audit hook that, at ``os.fork``, prints the process's CPU
time (``time.process_time``) and how many modules are imported, and ends the process.
Alternates this checkout and ``--base DIR``; medians, minimums, the load average. Run
``python -m compileall -q piview`` in each first.

    python benchmarks/bench_fork.py --runs 9 --base /tmp/first9-base
"""

from __future__ import annotations

import argparse
import fcntl
import os
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

HOOK = """
import os, sys, time
def hook(event, args):
    if event == "os.fork":
        with open(OUT, "w") as f:
            f.write(f"{time.process_time() * 1000:.3f} {len(sys.modules)}")
        os._exit(0)
sys.addaudithook(hook)
sys.argv = ["piview", "--no-follow", FILE]
import runpy
runpy.run_module("piview", run_name="__main__", alter_sys=True)
"""


def once(tree: Path, file: Path) -> tuple[float, int]:
    """``(CPU ms at the fork, modules imported)`` for ``tree`` opening ``file``."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))  # 120x40
    with tempfile.TemporaryDirectory(prefix="piview-fork-") as tmp:
        out = Path(tmp) / "fork.txt"
        try:
            subprocess.run(
                [sys.executable, "-P", "-c", f"FILE, OUT = {str(file)!r}, {str(out)!r}\n{HOOK}"],
                stdin=slave,
                stdout=slave,
                stderr=subprocess.DEVNULL,
                env={**os.environ, "PYTHONPATH": str(tree)},
                timeout=60,
                check=False,
            )
        finally:
            os.close(master)
            os.close(slave)
        if not out.exists():
            raise RuntimeError(f"no fork seen for {tree}")
        cpu, modules = out.read_text().split()
    return float(cpu), int(modules)


def main() -> None:
    """Alternate this checkout and ``--base``; print medians."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--file", type=Path, default=Path("/tmp/bench/s50.jsonl"))
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--base", type=Path, required=True, help="another checkout of piview")
    args = ap.parse_args()
    trees = {"piview": ROOT, "base": args.base.resolve()}
    got: dict[str, list[tuple[float, int]]] = {name: [] for name in trees}
    load0 = os.getloadavg()
    for _ in range(args.runs):
        for name, tree in trees.items():
            got[name].append(once(tree, args.file))
    load1 = os.getloadavg()
    print(
        f"{args.file.name}: CPU to the prerender fork, medians of {args.runs} runs, alternating; "
        f"load average {load0[0]:.2f} at the start, {load1[0]:.2f} at the end (1 min)"
    )
    base = statistics.median(c for c, _ in got["base"])
    for name, runs in got.items():
        cpu = statistics.median(c for c, _ in runs)
        print(
            f"  {name:7s} CPU {cpu:6.1f} ms ({cpu / base:4.2f}x the base, min "
            f"{min(c for c, _ in runs):.1f}), {runs[0][1]} modules imported"
        )


if __name__ == "__main__":
    main()
