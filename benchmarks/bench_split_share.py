"""Benchmark: the share of a big file the first half of the split reads (``model/split.py``
``_SHARE``), several shares alternating in one run (issue #17, row 2).

Each run indexes the file (``FileIndex`` read by ``consume_split``, the split forced even on a
busy machine) once per share, in a fresh interpreter each, the shares in a rotating order;
printed per share: the median wall time of the index, of the first half (this process, up to
the split), of the wait for the child after it (``idle``: until the child is done; ``wait``:
that and reading what it handed back) and of the join. The best share is the one where the
parent is idle least without reading longer than the child: ``idle`` near zero.
The load average is printed before and after; compare shares within one run only.

    python benchmarks/bench_split_share.py --runs 3 --shares 0.50,0.53,0.56
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CODE = r"""
import json, os, sys, time
from array import array
import piview.model.split as split
from piview.model.fileindex import FileIndex
split._SHARE = float(sys.argv[2])
split.spare_core = lambda: True
out = {}
collect, join = split._collect, split.join
def timed_collect(*a):
    out["half"] = time.perf_counter() - t0
    w = time.perf_counter()
    part = collect(*a)
    out["wait"] = time.perf_counter() - w
    return part
def timed_join(*a):
    w = time.perf_counter()
    join(*a)
    out["join"] = time.perf_counter() - w
real_waitpid = os.waitpid
def timed_waitpid(*a):
    w = time.perf_counter()
    got = real_waitpid(*a)
    out["idle"] = out.get("idle", 0.0) + time.perf_counter() - w
    return got
split._collect, split.join, os.waitpid = timed_collect, timed_join, timed_waitpid
fd = os.open(sys.argv[1], os.O_RDONLY)
t0 = time.perf_counter()
ix = FileIndex(side_at=array("q"))
assert split.consume_split(ix, fd) is not None
out["index"] = time.perf_counter() - t0
print(json.dumps(out))
"""


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; print the medians per share."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--file", type=Path, default=Path("/tmp/bench/s1g.jsonl"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--shares", default="0.50,0.53,0.56")
    args = ap.parse_args(argv)
    shares = [s.strip() for s in args.shares.split(",") if s.strip()]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    print(f"load average before: {os.getloadavg()}", flush=True)
    got: dict[str, list[dict[str, float]]] = {s: [] for s in shares}
    for run in range(args.runs):
        order = shares[run % len(shares) :] + shares[: run % len(shares)]
        for share in order:
            res = subprocess.run(
                [sys.executable, "-c", CODE, str(args.file), share],
                env=env,
                capture_output=True,
                text=True,
                check=True,
            )
            got[share].append(json.loads(res.stdout.strip().splitlines()[-1]))
            print(f"run {run + 1} share {share}: {got[share][-1]}", flush=True)
    print(f"load average after: {os.getloadavg()}")
    print(
        f"{'share':>6} {'index':>7} {'half':>7} {'idle':>7} {'wait':>7} {'join':>7}  (medians, s)"
    )
    for share in shares:
        med = {k: statistics.median(r[k] for r in got[share]) for k in got[share][0]}
        print(
            f"{share:>6} {med['index']:7.2f} {med['half']:7.2f} {med['idle']:7.2f}"
            f" {med['wait']:7.2f} {med['join']:7.2f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
