"""Benchmark: reopening a big session from its index cache (issue #17, row 3), in two trees.

Each tree (this checkout and ``--base``, an older checkout, e.g. made with ``git worktree
add``) gets an index cache of its own, written by one cold ``piview info FILE``. Then, in
fresh processes, alternating the trees run by run, it times:

* ``piview info FILE`` and ``piview info --json FILE`` (wall time, peak RSS of the process);
* the viewer, headless at 120x40, as ``piview FILE`` opens a big file: its last entries
  first, the whole file from the index cache in a worker; time to the first screen and
  until it no longer says it is loading, and peak RSS;
* reading the cache file once (the floor of any reopen).

It prints medians, ``os.getloadavg()`` before and after (the machine is shared: compare the
ratios), and checks that the output of every cached run is byte-identical to a cold run with
``PIVIEW_NO_CACHE`` (``--json`` and not), in both trees.

    python -m compileall -q piview
    python benchmarks/bench_info_cache.py --file /tmp/bench/s1g.jsonl --base /tmp/x-base --runs 3
    python benchmarks/bench_info_cache.py --base /tmp/x-base --runs 1 --cold-runs 3 --no-viewer

Never writes the session file; the caches go to temporary folders.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

VIEWER = r"""
import asyncio, json, os, resource, sys, time
os.environ["TEXTUAL_ANIMATIONS"] = "none"
t0 = time.perf_counter()
from piview.app import make_app
from piview.commands.common import load
from piview.model.session_tail import load_tail
path = sys.argv[1]
s = load_tail(path)
app = make_app(s, full_loader=lambda: load(path, keep_index=False))

async def main():
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        first = time.perf_counter() - t0
        while getattr(app.screen, "session", s).partial:
            await asyncio.sleep(0.02)
        await pilot.pause()
        full = app.screen.session
        print(json.dumps({"first": first, "loaded": time.perf_counter() - t0,
                          "from_cache": full.index_from_cache, "entries": len(full),
                          "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
    os._exit(0)  # as q does: no teardown of the app's workers

asyncio.run(main())
"""

READ = r"""
import json, sys, time
t0 = time.perf_counter()
n = sum(len(p.read_bytes()) for p in __import__("pathlib").Path(sys.argv[1]).rglob("*")
        if p.is_file())
print(json.dumps({"seconds": time.perf_counter() - t0, "bytes": n}))
"""


def timed(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, bytes]:
    """Wall seconds, peak RSS (MB) and stdout of one process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, cwd=cwd, stdout=subprocess.PIPE)
    out = proc.stdout.read() if proc.stdout is not None else b""
    _pid, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise SystemExit(f"{argv} failed with {proc.returncode}")
    return seconds, usage.ru_maxrss / 1024, out


def env_for(tree: Path, cache: str, **extra: str) -> dict[str, str]:
    """The environment of a run of ``tree`` with its own cache folder."""
    env = {**os.environ, "PYTHONPATH": str(tree), "XDG_CACHE_HOME": cache, **extra}
    env.pop("PIVIEW_NO_CACHE", None)
    env.update(extra)
    return env


def main() -> None:
    """Measure and print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", type=Path, default=Path("/tmp/bench/s1g.jsonl"))
    parser.add_argument("--base", type=Path, required=True, help="the checkout to compare")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-viewer", action="store_true")
    parser.add_argument(
        "--cold-runs", type=int, default=1, help="cold runs writing the cache, per tree"
    )
    args = parser.parse_args()
    trees = {"piview": ROOT, "base": args.base.resolve()}
    print(f"load average before: {os.getloadavg()}")
    with tempfile.TemporaryDirectory(prefix="piview-bench-info-") as tmp:
        caches = {name: str(Path(tmp) / name) for name in trees}
        cold_out: dict[tuple[str, bool], bytes] = {}
        for name, tree in trees.items():
            for js in (False, True):
                argv = [sys.executable, "-m", "piview", "info", *(["--json"] * js), str(args.file)]
                env = env_for(tree, caches[name], PIVIEW_NO_CACHE="1")
                cold_out[(name, js)] = timed(argv, env, tree)[2]
        cold: dict[str, list[tuple[float, float]]] = {name: [] for name in trees}
        for k in range(args.cold_runs):  # alternating, each into an empty cache folder
            for name, tree in trees.items():
                folder = caches[name] if k == args.cold_runs - 1 else f"{caches[name]}-{k}"
                info = [sys.executable, "-m", "piview", "info", str(args.file)]
                cold[name].append(timed(info, env_for(tree, folder), tree)[:2])
        for name, runs in cold.items():
            s = statistics.median(r[0] for r in runs)
            rss = statistics.median(r[1] for r in runs)
            print(f"  {name}: cold info writing the cache {s:.2f} s, peak RSS {rss:.0f} MB")
        figures: dict[str, list[float]] = {}
        same = True
        for _ in range(args.runs):
            for name, tree in trees.items():
                env = env_for(tree, caches[name])
                for js in (False, True):
                    argv = [sys.executable, "-m", "piview", "info"]
                    argv += [*(["--json"] * js), str(args.file)]
                    s, rss, out = timed(argv, env, tree)
                    key = f"{name} info{' --json' if js else ''}"
                    figures.setdefault(f"{key} s", []).append(s)
                    figures.setdefault(f"{key} rss", []).append(rss)
                    same = same and out == cold_out[(name, js)]
                if not args.no_viewer:
                    s, _rss, out = timed([sys.executable, "-c", VIEWER, str(args.file)], env, tree)
                    row = json.loads(out.decode().strip().splitlines()[-1])
                    assert row["from_cache"], "the viewer did not reopen from the cache"
                    for k in ("first", "loaded", "rss_mb"):
                        figures.setdefault(f"{name} viewer {k}", []).append(row[k])
            floor = subprocess.run(
                [sys.executable, "-c", READ, caches["piview"]],
                capture_output=True,
                text=True,
                check=True,
            )
            figures.setdefault("read piview cache once s", []).append(
                json.loads(floor.stdout)["seconds"]
            )
        sizes = {
            name: sum(p.stat().st_size for p in Path(c).rglob("*") if p.is_file())
            for name, c in caches.items()
        }
    print(f"{args.file}: {args.file.stat().st_size / 2**20:.0f} MB, medians of {args.runs} runs")
    mb = {name: f"{size / 2**20:.0f} MB" for name, size in sizes.items()}
    print(f"  cache file: piview {mb['piview']}, base {mb['base']}")
    for key, values in figures.items():
        unit = "MB" if key.endswith("rss") or key.endswith("rss_mb") else "s"
        print(f"  {key:32} {statistics.median(values):8.2f} {unit}")
    for what in ("info s", "info --json s", "viewer first", "viewer loaded"):
        p, b = figures.get(f"piview {what}"), figures.get(f"base {what}")
        if p and b:
            ratio = statistics.median(p) / statistics.median(b)
            print(f"  ratio piview/base {what:20} {ratio:6.2f}x")
    print(f"  cached output byte-identical to a cold run (both trees, --json and not): {same}")
    print(
        f"  cold output identical across trees: "
        f"{all(cold_out[('piview', j)] == cold_out[('base', j)] for j in (False, True))}"
    )
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
