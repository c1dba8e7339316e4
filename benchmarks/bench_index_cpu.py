"""Benchmark: the CPU a big session's index costs (``load_session`` in one pass: read, decode,
the store's columns, the tree), for this checkout with its compiled loop, the same with
``PIVIEW_PURE=1`` (the Python loop), and other checkouts, against one msgspec skeleton pass
over the file, all in the same run (issue #17, row 2).

Each run takes, alternating, every variant in a fresh interpreter (``PIVIEW_NO_SPLIT=1``: CPU
time is what is compared, and the split's second process would hide it), then the skeleton
pass of ``bench_limits.py``. Medians over ``--runs``, CPU and wall time per entry; the load
average is printed before and after (the CPU time is what to compare on a busy machine).

    git archive <old commit> | tar -x -C /tmp/old
    python -m compileall -q piview /tmp/old/piview
    python benchmarks/bench_index_cpu.py --runs 5 --tree /tmp/old
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.bench_full_load import run_in  # noqa: E402 - after the path is set
from benchmarks.bench_limits import SKELETON  # noqa: E402

INDEX = r"""
import json, os, sys, time
from piview.model import load_session
w, c = time.perf_counter(), time.process_time()
s = load_session(sys.argv[1])
cpu, wall = time.process_time() - c, time.perf_counter() - w
import piview.model.store as store
compiled = getattr(store, "_fill", None) is not None
print(json.dumps({"cpu": cpu, "seconds": wall, "entries": len(s), "compiled": compiled}))
"""


def main() -> None:
    """Measure every variant and the skeleton pass, alternating; print medians."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--file", type=Path, default=Path("/tmp/bench/s1g.jsonl"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--tree", type=Path, action="append", default=[], help="another checkout")
    args = ap.parse_args()
    one = {"PIVIEW_NO_SPLIT": "1"}
    variants: list[tuple[str, Path, dict[str, str]]] = [
        (f"{ROOT} (compiled loop)", ROOT, one),
        (f"{ROOT} PIVIEW_PURE=1", ROOT, {**one, "PIVIEW_PURE": "1"}),
        *((str(t), t, one) for t in args.tree),
    ]
    path = str(args.file)
    print(f"{args.file}: {args.file.stat().st_size / 2**20:.0f} MB; load {os.getloadavg()}")
    rows: dict[str, list[dict[str, float]]] = {name: [] for name, _, _ in variants}
    base: list[float] = []
    for k in range(args.runs):
        for name, tree, env in variants:
            rows[name].append(run_in(tree, INDEX, path, env=env))
        base.append(run_in(ROOT, SKELETON, path)["seconds"])
        print(f"  run {k + 1} done, load {os.getloadavg()[0]:.2f}", flush=True)
    b = statistics.median(base)
    print(f"skeleton pass: {b:.2f} s")
    for name, got in rows.items():
        cpu = statistics.median(r["cpu"] for r in got)
        wall = statistics.median(r["seconds"] for r in got)
        n = got[0]["entries"]
        print(
            f"{name}: index cpu {cpu:.2f} s ({cpu / n * 1e6:.2f} us/entry, {cpu / b:.2f}x the "
            f"pass), wall {wall:.2f} s; {int(n):,} entries; compiled: {bool(got[0]['compiled'])}"
        )
    print(f"load at the end {os.getloadavg()}")


if __name__ == "__main__":
    main()
