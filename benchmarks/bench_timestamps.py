"""Benchmark: what reads the store's timestamps, for this checkout and others, alternating in
one run: a session of one huge fan loaded (the tree orders the fan's children by their
timestamps, each read through ``NodeStore.timestamp``), every timestamp read once, and the
subtree sums' times (``model/subtree.py`` ``_own_times``). Medians over ``--runs``, the load
average printed; each checkout runs in a process of its own.

    git archive <old commit> | tar -x -C /tmp/old
    python benchmarks/bench_timestamps.py --tree /tmp/old --runs 5
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.gen_shapes import write_shape  # noqa: E402 - after the path is set

CHILD = r"""
import json, sys, time
from piview.model import load_session
from piview.model.subtree import _own_times
path = sys.argv[1]
out = {}
t = time.perf_counter(); s = load_session(path); out["load_fan"] = time.perf_counter() - t
store, n = s.nodes, len(s.nodes)
t = time.perf_counter(); [store.timestamp(i) for i in range(n)]
out["read_all"] = time.perf_counter() - t
t = time.perf_counter(); _own_times(store, n); out["own_times"] = time.perf_counter() - t
out["ts_bytes"] = len(store.ts)
print(json.dumps(out))
"""


def _run(tree: Path, path: Path) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=str(tree))
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(path)],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return dict(json.loads(done.stdout.splitlines()[-1]))


def main(argv: list[str] | None = None) -> int:
    """Time every checkout's timestamp readers, alternating; print medians and ratios."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--tree", type=Path, action="append", default=[], help="another checkout")
    ap.add_argument("--entries", type=int, default=200_000)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args(argv)
    trees = [ROOT, *args.tree]
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "fan.jsonl"
        write_shape(path, "fan", args.entries)
        print(f"fan of {args.entries} entries; load {os.getloadavg()}")
        runs: dict[Path, list[dict[str, float]]] = {t: [] for t in trees}
        for k in range(args.runs):
            for tree in trees:
                runs[tree].append(_run(tree, path))
            print(f"  run {k + 1} done, load {os.getloadavg()[0]:.2f}")
    base = {key: statistics.median(r[key] for r in runs[ROOT]) for key in runs[ROOT][0]}
    for tree in trees:
        med = {key: statistics.median(r[key] for r in runs[tree]) for key in runs[tree][0]}
        parts = ", ".join(
            f"{key} {v:.3f} s ({v / base[key]:.2f}x this)"
            for key, v in med.items()
            if key != "ts_bytes"
        )
        print(f"{tree}: {parts}; ts column {med['ts_bytes'] / 2**20:.1f} MB")
    print(f"load at the end {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
