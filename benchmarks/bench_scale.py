"""Benchmark: piview at scale (50 MB and 1 GB), against a full ``json.loads`` in the same run.

For each size it generates a session (or takes ``--file``) and measures, in fresh processes,
medians over ``--runs``:

* first screen, headless: the CLI's path (tail first for big files) up to the first frame;
* first screen in a real terminal (tmux, 120x40), when tmux is installed;
* full tree: load the whole file into the index and tree, pair tool calls (no cache);
* reopen: the same with the index cache written by the previous step;
* peak RSS of the full load;
* the viewer's whole run, headless: first screen, then the full load in its worker until the
  whole file is shown, with the process's peak RSS;
* baseline: ``json.loads`` of every line (time and peak RSS).

    python benchmarks/bench_scale.py --sizes 50MB,1GB --runs 3
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.bench_load import run  # noqa: E402 - after the path is set

FULL = r"""
import gc, json, resource, sys, time
from pathlib import Path
t0 = time.perf_counter()
from piview.model import load_session
from piview.model.index_cache import IndexCache
cache = IndexCache(Path(sys.argv[2])) if sys.argv[2] != "-" else None
t1 = time.perf_counter()
s = load_session(sys.argv[1], index_cache=cache)
gc.freeze()
s.pairing
t2 = time.perf_counter()
if cache is not None:
    s.save_index()
print(json.dumps({"seconds": t2 - t1, "from_cache": s.index_from_cache, "entries": len(s),
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

FIRST = r"""
import asyncio, json, os, resource, sys, time
os.environ["TEXTUAL_ANIMATIONS"] = "none"
t0 = time.perf_counter()
from piview.app import make_app
from piview.commands.view import TAIL_FIRST_BYTES
from piview.model import load_session
from piview.model.session_tail import load_tail
path = sys.argv[1]
if os.path.getsize(path) >= TAIL_FIRST_BYTES:
    s = load_tail(path)
else:
    s = load_session(path)
app = make_app(s)

async def main():
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        print(json.dumps({"seconds": time.perf_counter() - t0}))

asyncio.run(main())
"""

APP = r"""
import asyncio, json, os, resource, sys, time
os.environ["TEXTUAL_ANIMATIONS"] = "none"
t0 = time.perf_counter()
from piview.app import make_app
from piview.commands.view import TAIL_FIRST_BYTES
from piview.model import load_session
from piview.model.session_tail import load_tail
path = sys.argv[1]
big = os.path.getsize(path) >= TAIL_FIRST_BYTES
s = load_tail(path) if big else load_session(path)
app = make_app(s, full_loader=(lambda: load_session(path)) if big else None)

async def main():
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        first = time.perf_counter() - t0
        while getattr(app.screen, "session", s).partial:
            await asyncio.sleep(0.05)
        await pilot.pause()
        print(json.dumps({"first": first, "seconds": time.perf_counter() - t0,
                          "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))

asyncio.run(main())
"""

BASELINE = r"""
import json, resource, sys, time
t0 = time.perf_counter()
with open(sys.argv[1], "rb") as f:
    rows = [json.loads(line) for line in f if line.strip()]
print(json.dumps({"seconds": time.perf_counter() - t0,
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def med(rows: list[dict[str, float]], key: str) -> float:
    """Median of one figure."""
    return statistics.median(r[key] for r in rows)


def measure(path: Path, runs: int) -> None:
    """Print every figure for one file."""
    size = path.stat().st_size / 1e6
    with tempfile.TemporaryDirectory(prefix="piview-bench-cache-") as cache:
        cold = [run(FULL, str(path), "-") for _ in range(runs)]
        run(FULL, str(path), cache)  # writes the cache
        warm = [run(FULL, str(path), cache) for _ in range(runs)]
    first = [run(FIRST, str(path)) for _ in range(runs)]
    app = [run(APP, str(path)) for _ in range(runs)]
    base = [run(BASELINE, str(path)) for _ in range(runs)]
    print(
        f"{path.name}: {size:.0f} MB, {int(cold[0]['entries']):,} entries, medians of {runs} runs"
    )
    print(f"  first screen, headless          {med(first, 'seconds') * 1000:8.0f} ms")
    if shutil.which("tmux"):
        from benchmarks.tmux_first_screen import first_screen

        piview = f"{sys.executable} -m piview --no-follow {path}"
        tm = [first_screen(piview, "block ") for _ in range(runs)]
        print(f"  first screen, tmux              {statistics.median(tm) * 1000:8.0f} ms")
    print(f"  full tree (index + pairing)     {med(cold, 'seconds') * 1000:8.0f} ms")
    assert all(r["from_cache"] for r in warm)
    print(f"  reopen with the index cache     {med(warm, 'seconds') * 1000:8.0f} ms")
    print(f"  peak RSS, full tree             {med(cold, 'rss_mb'):8.0f} MB")
    print(
        f"  viewer, whole file shown        {med(app, 'seconds') * 1000:8.0f} ms, "
        f"peak RSS {med(app, 'rss_mb'):.0f} MB (headless, tail first, then the full load)"
    )
    print(
        f"  baseline json.loads, all lines  {med(base, 'seconds') * 1000:8.0f} ms, "
        f"peak RSS {med(base, 'rss_mb'):.0f} MB"
    )


def main() -> None:
    """Generate the sizes asked for (or take --file) and measure each."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--sizes", default="50MB")
    ap.add_argument("--file", type=Path, action="append")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    if args.file:
        for f in args.file:
            measure(f, args.runs)
        return
    from benchmarks.bench_load import parse_size
    from benchmarks.gen_session import generate

    for size in args.sizes.split(","):
        with tempfile.TemporaryDirectory(prefix="piview-bench-") as d:
            path = Path(d) / f"session-{size}.jsonl"
            generate(path, parse_size(size))
            measure(path, args.runs)


if __name__ == "__main__":
    main()
