"""Benchmark: the timeline model (``piview/model/timeline.py``, issue 31) on a big session,
next to a baseline measured in the same run: what ``piview info`` does with the same file
(load it without the index cache, then ``session_info``).

Alternating run by run, in this process, with the GC as it is:

* ``info``: ``load_session`` (``PIVIEW_NO_CACHE``) + ``session_info``, the baseline;
* ``timeline``: ``build_timeline`` of the current branch of a loaded session whose tree and
  pairing are built (what the screen and ``piview timeline`` pay on top of the load);
* ``timeline+json``: the same and ``to_json`` + ``json.dumps`` (``piview timeline --json``
  less the load).

Prints the medians, their ratio to the baseline, the session's shape and the load average
before and after (the machine is shared: compare ratios).

    python benchmarks/gen_session.py /tmp/bench/s50.jsonl --size 50MB
    python benchmarks/bench_timeline.py /tmp/bench/s50.jsonl --runs 5
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ["PIVIEW_NO_CACHE"] = "1"

from piview.model import load_session, session_info  # noqa: E402
from piview.model.timeline import build_timeline  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file", help="a session file (e.g. the 50 MB one of gen_session.py)")
    ap.add_argument("--runs", type=int, default=5, help="runs of each (5)")
    args = ap.parse_args()
    load_before = os.getloadavg()
    session = load_session(args.file)
    session.tree  # noqa: B018 - built by the load's users (the viewer, info) anyway
    session.pairing  # noqa: B018
    times: dict[str, list[float]] = {"info": [], "timeline": [], "timeline+json": []}
    timeline = build_timeline(session)  # warm: imports, msgspec's decoders
    for _ in range(args.runs):
        t0 = time.perf_counter()
        s = load_session(args.file)
        session_info(s)
        times["info"].append(time.perf_counter() - t0)
        s.close()
        t0 = time.perf_counter()
        timeline = build_timeline(session)
        times["timeline"].append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        json.dumps(build_timeline(session).to_json(session))
        times["timeline+json"].append(time.perf_counter() - t0)
    turns = sum(len(r.turns) for r in timeline.runs)
    calls = sum(len(t.tools) for r in timeline.runs for t in r.turns)
    size = Path(args.file).stat().st_size
    print(
        f"{args.file}: {size / 1024**2:.0f} MB, {len(session):,} entries, branch of "
        f"{len(timeline.path):,}: {len(timeline.runs):,} runs, {turns:,} turns, {calls:,} calls, "
        f"{sum(m.kind == 'compaction' for m in timeline.markers)} compactions"
    )
    base = statistics.median(times["info"])
    for name, ts in times.items():
        med = statistics.median(ts)
        print(
            f"  {name:14} median {med * 1000:8.1f} ms  ({med / base:.2f}x info)  "
            f"runs: {', '.join(f'{t * 1000:.0f}' for t in ts)}"
        )
    print(f"  load average before {load_before[0]:.2f}, after {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
