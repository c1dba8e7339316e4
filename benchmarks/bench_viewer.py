"""Benchmark: time to the first screen of the viewer, and key latencies, headless.

Each run is a fresh subprocess: import, load the session, start the app headless at 120x40,
and wait for the first frame of the transcript. Then it times keys that scroll, jump, expand
and switch branch (wall time from the key sent to the last frame it caused: see
``bench_keys.py``). The baseline in the same run is a plain ``json.loads`` of every line
(what any viewer must at least beat if it parses the whole file up front). Medians over the
runs are printed.

    python benchmarks/bench_viewer.py               # generates a 50 MB session in /tmp
    python benchmarks/bench_viewer.py --file SESSION.jsonl --runs 5
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.bench_keys import HARNESS  # noqa: E402 - after the path is set
from benchmarks.bench_load import run  # noqa: E402

VIEWER = (
    r"""
import asyncio, json, os, resource, sys, time
os.environ["TEXTUAL_ANIMATIONS"] = "none"
t0 = time.perf_counter()
from piview.app import make_app
from piview.model import load_session
from piview.widgets.transcript import Transcript
t_import = time.perf_counter() - t0
"""
    + HARNESS
    + r"""

async def main():
    s = load_session(sys.argv[1])
    t_load = time.perf_counter() - t0
    app = make_app(s)
    out = {"import": t_import, "load": t_load, "entries": len(s)}
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        out["first_screen"] = time.perf_counter() - t0
        t = app.screen.query_one(Transcript)
        out["blocks"] = len(t.items)
        async def timed(name, *keys):
            # From the key sent to the last frame it caused (bench_keys.HARNESS), not
            # pilot.pause()'s wait for the process to look idle (~95 ms by itself).
            out[name] = (await key_time(pilot, *keys))[0]
        await timed("key_g_top", "g")
        await timed("key_G_bottom", "G")
        await timed("key_k_prev_block", "k")
        await timed("key_t_all_thinking", "t")
        await timed("key_o_all_tools", "o")
        await timed("key_enter_toggle", "enter")
        await timed("key_left_bracket_user", "left_square_bracket")
        leaves = [x for x in s.tree.leaves() if x != s.tree.leaf]
        if leaves:
            a = time.perf_counter()
            app.screen.show_branch(leaves[len(leaves) // 2])
            await pilot.pause()
            out["switch_branch"] = time.perf_counter() - a
        a = time.perf_counter()
        n = t.search("error")
        await pilot.pause()
        out["search_error"] = time.perf_counter() - a
        out["search_hits"] = n
    out["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(out))

asyncio.run(main())
"""
)

BASELINE = r"""
import json, resource, sys, time
t0 = time.perf_counter()
with open(sys.argv[1], "rb") as f:
    rows = [json.loads(line) for line in f if line.strip()]
print(json.dumps({"json.loads_all": time.perf_counter() - t0,
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def main() -> None:
    """Generate (or take) a session and print median figures for piview and the baseline."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--file", type=Path)
    ap.add_argument("--size", default="50MB")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    from benchmarks.bench_load import session_file

    with session_file(args.file, args.size) as path:
        _report(path, args.runs)


def _report(path: Path, runs: int) -> None:
    """Run the viewer and the baseline ``runs`` times on ``path``; print medians."""
    viewer = [run(VIEWER, path) for _ in range(runs)]
    base = [run(BASELINE, path) for _ in range(runs)]
    print(
        f"file {path.stat().st_size / 1e6:.1f} MB, {int(viewer[0]['entries'])} entries, "
        f"{int(viewer[0]['blocks'])} blocks on the branch; medians of {runs} runs"
    )
    for key in viewer[0]:
        if key in ("entries", "blocks", "search_hits"):
            continue
        med = statistics.median(r[key] for r in viewer if key in r)
        unit = "MB" if key == "rss_mb" else "ms"
        val = med if unit == "MB" else med * 1000
        print(f"  piview {key:<24} {val:10.1f} {unit}")
    for key in base[0]:
        med = statistics.median(r[key] for r in base)
        unit = "MB" if key == "rss_mb" else "ms"
        val = med if unit == "MB" else med * 1000
        print(f"  baseline {key:<22} {val:10.1f} {unit}")


if __name__ == "__main__":
    main()
