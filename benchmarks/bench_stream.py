"""Benchmark: a ``pi --mode json`` capture against a session file of the same size (#29).

Times, in alternating runs in fresh processes, the whole load (``load_session``: the capture
folded into a session, or the file indexed) and the first screen's load (``load_tail``: the
end of either, what the viewer shows while the whole loads), and prints the medians and the
stream's ratio to the session file's. Make the files first::

    python benchmarks/gen_stream.py --size 93MB /tmp/bench/st650.jsonl     # 650 MB capture
    python benchmarks/gen_session.py /tmp/bench/s650.jsonl --size 650MB
    python -m compileall -q piview
    python benchmarks/bench_stream.py /tmp/bench/st650.jsonl /tmp/bench/s650.jsonl --runs 7
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import sys, time
from piview.model import load_session
from piview.model.session_tail import load_tail
how, path = sys.argv[1], sys.argv[2]
t = time.perf_counter()
s = load_session(path) if how == "whole" else load_tail(path)
print(f"{(time.perf_counter() - t) * 1000:.1f} {len(s)}")
"""


def once(how: str, path: Path) -> tuple[float, int]:
    """``(ms, entries)`` of one load in a fresh process."""
    out = subprocess.run(
        [sys.executable, "-c", CHILD, how, str(path)],
        capture_output=True, text=True, check=True, cwd=ROOT,
    ).stdout.split()  # fmt: skip
    return float(out[0]), int(out[1])


def main() -> None:
    """Alternate the two files, per kind of load; print medians and ratios."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("stream", type=Path)
    ap.add_argument("session", type=Path)
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    for how in ("tail", "whole"):
        times: dict[Path, list[float]] = {args.stream: [], args.session: []}
        entries: dict[Path, int] = {}
        for _ in range(args.runs):
            for path in times:
                ms, n = once(how, path)
                times[path].append(ms)
                entries[path] = n
        s, f = (statistics.median(times[p]) for p in (args.stream, args.session))
        for path in times:
            size = path.stat().st_size / 1024**2
            print(
                f"{how:5s} {path.name:20s} {size:6.0f} MB {entries[path]:>8,} entries  "
                f"median {statistics.median(times[path]):7.1f} ms  min {min(times[path]):7.1f}"
            )
        print(f"{how:5s} stream / session file: {s / f:.2f}x  (medians of {args.runs} runs)")


if __name__ == "__main__":
    main()
