"""Benchmark: a big session loaded whole in the viewer, for one or more checkouts of piview,
against one msgspec skeleton pass over the file, all in the same run (issue #17, row 2).

Each run takes, alternating, every checkout's viewer run (``bench_scale.py``'s: first screen
from the tail, then the full load in its worker until the whole file is shown, headless) and
the skeleton pass of ``bench_limits.py``; then every checkout's phases, in a process of their
own: the file indexed with its tree (``load_session``), the tool pairing, the labels, the
blocks of the leaf's branch (``build_items``), each with its wall and CPU time, and the peak
RSS of the process and of its children. Medians over ``--runs``; the load average is printed
before and after, and ratios are to the skeleton pass of the same run.

    git archive <old commit> | tar -x -C /tmp/old
    python -m compileall -q piview /tmp/old/piview
    python benchmarks/bench_full_load.py --file /tmp/bench/s1g.jsonl --runs 3 --tree /tmp/old
    python benchmarks/bench_full_load.py --runs 3 --tree /tmp/old --variants --no-phases

The split is taken only when the cores are not all busy (``model/split.py`` ``spare_core``);
``--variants`` also runs this checkout with it forced and with it off, alternating with the rest.
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
sys.path.insert(0, str(ROOT))

from benchmarks.bench_limits import SKELETON  # noqa: E402 - after the path is set
from benchmarks.bench_scale import APP  # noqa: E402

PHASES = r"""
import gc, json, os, resource, sys, time
from piview.model import load_session
from piview.render.items import build_items
path = sys.argv[1]
out = {}
def phase(name, fn):
    w, c = time.perf_counter(), time.process_time()
    value = fn()
    out[name] = time.perf_counter() - w
    out[name + "_cpu"] = time.process_time() - c
    return value
s = phase("index_tree", lambda: load_session(path))
gc.freeze()
phase("pairing", lambda: s.pairing)
phase("labels", lambda: s.labels)
leaf = s.tree.leaf
phase("blocks", lambda: build_items(s, s.tree.path(leaf)))
out["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
out["child_rss_mb"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
out["child_cpu"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
print(json.dumps(out))
"""

APP_RSS = APP.replace(
    '"rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024',
    '"rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, '
    '"child_rss_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024',
)
"""The viewer run, with the peak RSS of its children too (the process reading the second
half)."""


FORCE_SPLIT = "import piview.model.split as _split\n_split.spare_core = lambda: True\n"
"""Prepended to a run: the split even on a busy machine (``--variants``)."""


def run_in(
    tree: Path, code: str, *args: str, env: dict[str, str] | None = None
) -> dict[str, float]:
    """Run ``code`` in a fresh interpreter with ``tree`` first on the path."""
    env = {**os.environ, **(env or {}), "PYTHONPATH": str(tree)}
    out = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        check=True,
        cwd=tree,
        env=env,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def med(rows: list[dict[str, float]], key: str) -> float:
    """Median of one figure."""
    return statistics.median(r.get(key, 0.0) for r in rows)


def main() -> None:
    """Measure every checkout given (this one first) and the skeleton pass, alternating."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--file", type=Path, default=Path("/tmp/bench/s1g.jsonl"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--tree", type=Path, action="append", default=[], help="another checkout")
    ap.add_argument("--no-phases", action="store_true")
    ap.add_argument(
        "--variants",
        action="store_true",
        help="this checkout's viewer run also with the split forced and with PIVIEW_NO_SPLIT=1",
    )
    args = ap.parse_args()
    trees = [ROOT, *args.tree]
    path = str(args.file)
    variants: dict[str, list[dict[str, float]]] = (
        {"split forced": [], "one pass (PIVIEW_NO_SPLIT=1)": []} if args.variants else {}
    )
    print(f"{args.file}: {args.file.stat().st_size / 2**20:.0f} MB; load {os.getloadavg()}")
    app: dict[Path, list[dict[str, float]]] = {t: [] for t in trees}
    phases: dict[Path, list[dict[str, float]]] = {t: [] for t in trees}
    base: list[dict[str, float]] = []
    for k in range(args.runs):
        for t in trees:
            app[t].append(run_in(t, APP_RSS, path))
        for name, rows in variants.items():
            forced = name == "split forced"
            code = FORCE_SPLIT + APP_RSS if forced else APP_RSS
            rows.append(run_in(ROOT, code, path, env=None if forced else {"PIVIEW_NO_SPLIT": "1"}))
        base.append(run_in(ROOT, SKELETON, path))
        if not args.no_phases:
            for t in trees:
                phases[t].append(run_in(t, PHASES, path))
        print(f"  run {k + 1} done, load {os.getloadavg()[0]:.2f}", flush=True)
    b = med(base, "seconds")
    print(f"skeleton pass: {b:.2f} s, peak RSS {med(base, 'rss_mb'):.0f} MB")
    for t in trees:
        rows = app[t]
        s = med(rows, "seconds")
        print(
            f"{t}: viewer, whole file shown {s:.2f} s ({s / b:.2f}x the pass), "
            f"peak RSS {med(rows, 'rss_mb'):.0f} MB (children {med(rows, 'child_rss_mb'):.0f} MB)"
        )
        if phases[t]:
            p = phases[t]
            parts = ", ".join(
                f"{name} {med(p, name):.2f} s (cpu {med(p, name + '_cpu'):.2f})"
                for name in ("index_tree", "pairing", "labels", "blocks")
            )
            print(
                f"    phases: {parts}; child cpu {med(p, 'child_cpu'):.2f} s; peak RSS "
                f"{med(p, 'rss_mb'):.0f} MB (children {med(p, 'child_rss_mb'):.0f} MB)"
            )
    for name, rows in variants.items():
        s = med(rows, "seconds")
        print(
            f"{ROOT} {name}: viewer, whole file shown {s:.2f} s ({s / b:.2f}x the pass), "
            f"peak RSS {med(rows, 'rss_mb'):.0f} MB (children {med(rows, 'child_rss_mb'):.0f} MB)"
        )
    print(f"load at the end {os.getloadavg()}")


if __name__ == "__main__":
    main()
