"""Benchmark: load a large session into piview's model against plain ``json.loads``.

Each measurement runs in a fresh subprocess (so peak RSS is per run) and is repeated; the
median is printed. The baseline is what a naive viewer does: ``json.loads`` of every line.

    python benchmarks/bench_load.py                 # generates a 50 MB session in /tmp
    python benchmarks/bench_load.py --size 1GB --runs 3
    python benchmarks/bench_load.py --file SESSION.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PIVIEW = """
import resource, sys, time, json
t0 = time.perf_counter()
from piview.model import load_session
t1 = time.perf_counter()
s = load_session(sys.argv[1])
t2 = time.perf_counter()
p = s.pairing
path = s.tree.path(s.tree.leaf)
from piview.model import usage_report
usage_report(s.nodes, path)
t3 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "load": t2 - t1, "tree+pairing+usage": t3 - t2,
                  "total": t3 - t1, "entries": len(s),
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

BASELINE = """
import resource, sys, time, json
t1 = time.perf_counter()
with open(sys.argv[1], "rb") as f:
    entries = [json.loads(line) for line in f if line.strip()]
t2 = time.perf_counter()
print(json.dumps({"load": t2 - t1, "total": t2 - t1, "entries": len(entries) - 1,
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def run(code: str, *args: str | Path) -> dict[str, float]:
    """Run ``code`` with ``args`` in a fresh interpreter; return the JSON it prints last."""
    out = subprocess.run(
        [sys.executable, "-c", code, *map(str, args)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


@contextmanager
def session_file(file: Path | None, size: str) -> Iterator[Path]:
    """``file``, or a session of ``size`` generated into a temporary folder for the run."""
    if file is not None:
        yield file
        return
    from benchmarks.gen_session import generate

    with tempfile.TemporaryDirectory(prefix="piview-bench-") as tmp:
        path = Path(tmp) / "session.jsonl"
        stats = generate(path, parse_size(size))
        print(f"generated {path}: {stats['entries']} entries, {stats['bytes'] / 1e6:.1f} MB")
        yield path


def parse_size(text: str) -> int:
    """``50MB`` → bytes."""
    t = text.strip().upper().removesuffix("B").removesuffix("I")
    mult = {"K": 1024, "M": 1024**2, "G": 1024**3}.get(t[-1:], 1)
    return int(float(t.rstrip("KMG")) * mult)


def main() -> None:
    """Generate (or take) a session, then time piview and the baseline alternately."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--file", type=Path, help="an existing session file")
    ap.add_argument("--size", default="50MB", help="size of the generated session (default 50MB)")
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    with session_file(args.file, args.size) as path:
        _measure(path, args.runs)


def _measure(path: Path, runs: int) -> None:
    """Time piview and the baseline alternately on ``path``."""
    size = os.path.getsize(path)
    print(f"file: {size / 1e6:.1f} MB, runs: {runs} (median)")
    results: dict[str, list[dict[str, float]]] = {"piview": [], "json.loads": []}
    for _ in range(runs):
        results["piview"].append(run(PIVIEW, path))
        results["json.loads"].append(run(BASELINE, path))
    for name, rows in results.items():
        keys = [k for k in rows[0] if k != "entries"]
        figures = ", ".join(
            f"{k} {statistics.median(r[k] for r in rows):.3f}{' MB' if k == 'rss_mb' else ' s'}"
            for k in keys
        )
        print(f"{name:>10}: entries {int(rows[0]['entries'])}, {figures}")


if __name__ == "__main__":
    main()
