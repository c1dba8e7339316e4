"""Benchmark: how piview's tree algorithms scale, as the ratio of the time at 4n to the time at n.

For each shape of :mod:`benchmarks.gen_shapes` (repeated call ids, identical timestamps,
backward timestamps, repeated entry ids, one entry with a huge fan of children, a long chain,
copies of a real session chained end to end) and each algorithm (load + tree + pairing,
labels, usage on the path, context, flatten and refold of the branch panel, tree search, poll
of appended lines, the subtree sums of the branch panel's figures) it times n and 4n entries
in this one process, alternating, and prints the medians and their ratio (CPU time, the
cyclic GC off while timing: see :func:`_once`). Linear work gives about 4, n log n a little
more; a ratio over 6 is a blow-up (#11). No figure here is an absolute promise: only the
ratio is compared.

    python benchmarks/bench_scaling.py                      # n = 25,000 (fan: 100,000 at 4n)
    python benchmarks/bench_scaling.py --chain-n 250000     # the chain at 1,000,000 entries
    python benchmarks/bench_scaling.py --shapes copies --source /tmp/bench/s50.jsonl
"""

from __future__ import annotations

import argparse
import gc
import json
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.gen_shapes import CORPUS_TOOLS, SHAPES, write_shape  # noqa: E402
from piview.model import load_session  # noqa: E402
from piview.model.context import build_context, system_prompt_state  # noqa: E402
from piview.model.labels import resolve_labels  # noqa: E402
from piview.model.session import Session  # noqa: E402
from piview.model.subtree import compute_sums  # noqa: E402
from piview.model.treesearch import search, search_entries  # noqa: E402
from piview.model.treeview import Folds, flatten, refold  # noqa: E402
from piview.model.usage import usage_report  # noqa: E402

LIMIT = 6.0
"""The largest acceptable ratio for 4x the work."""


@dataclass(slots=True)
class Case:
    """One shape at one size: its file, and the session loaded from it (untimed)."""

    path: Path
    session: Session


def _load(case: Case) -> float:
    t = time.process_time()
    s = load_session(case.path)
    s.pairing  # noqa: B018 - computed on first access: that is what is timed
    return time.process_time() - t


def _labels(case: Case) -> float:
    s = case.session
    t = time.process_time()
    resolve_labels(s.nodes, s.tree, s.ids)
    return time.process_time() - t


def _usage(case: Case) -> float:
    s = case.session
    t = time.process_time()
    leaf = s.tree.leaf
    assert leaf is not None
    usage_report(s.nodes, s.tree.path(leaf))
    return time.process_time() - t


def _context(case: Case) -> float:
    s = case.session
    t = time.process_time()
    build_context(s)
    system_prompt_state(s)
    return time.process_time() - t


def _flatten(case: Case) -> float:
    s = case.session
    s.derived.clear()  # the filter's visibility is part of the work
    t = time.process_time()
    folds = Folds()
    rows = flatten(s, folds=folds)
    # Unfold, then fold again, the first few foldable rows (as a user opens branches).
    for entry in [r.entry for r in rows.rows if r.foldable][:5]:
        k = rows.row_of[entry]
        was = rows.rows[k].folded
        for folded in (not was, was):
            folds.set(entry, folded)
            rows = refold(rows, rows.row_of[entry], folds)
    return time.process_time() - t


def _search(case: Case) -> float:
    s = case.session
    t = time.process_time()
    search_entries(s, "turn 1 files")
    opened = Folds(opened=set(range(len(s))))
    search(s, flatten(s, folds=opened).rows, "done")
    return time.process_time() - t


def _subtree(case: Case) -> float:
    s = case.session
    t = time.process_time()
    sums = compute_sums(s.nodes, s.tree)
    sums.parts()  # the sidebar's cost by branch sorts every leaf
    return time.process_time() - t


def _poll(case: Case) -> float:
    # A copy of the file, so that appending never touches the shape's own file.
    with tempfile.TemporaryDirectory(prefix="piview-poll-") as tmp:
        path = Path(tmp) / case.path.name
        shutil.copyfile(case.path, path)
        s = load_session(path)
        leaf = s.tree.leaf
        parent = s.ids[leaf] if leaf is not None else None
        lines = []
        for k in range(20):
            own = f"appended-{k}"
            entry = {
                "type": "message",
                "id": own,
                "parentId": parent,
                "timestamp": "2026-05-11T09:00:00.000Z",
                "message": {"role": "user", "content": [{"type": "text", "text": f"more {k}"}]},
            }
            lines.append(json.dumps(entry))
            parent = own
        with path.open("ab") as f:
            f.write(("\n".join(lines) + "\n").encode())
        t = time.process_time()
        assert s.poll() == "appended"
        s.pairing  # noqa: B018 - the viewer pairs again after a poll
        return time.process_time() - t


ALGORITHMS: dict[str, Callable[[Case], float]] = {
    "load+tree+pairing": _load,
    "labels": _labels,
    "usage per path": _usage,
    "context": _context,
    "flatten/refold": _flatten,
    "tree search": _search,
    "poll appended": _poll,
    "subtree sums": _subtree,
}
"""Each algorithm: one timed run on a case, in seconds."""


def _once(fn: Callable[[Case], float], case: Case, min_time: float) -> float:
    """CPU seconds of one run, averaged over enough runs to last ``min_time`` (a timer's grain
    weighs less; CPU time, not wall time: the other processes of a shared machine do not
    count). The cyclic GC is off while it runs, as during piview's loads (and the viewer
    freezes the loaded index out of it): its collections walk the whole heap, which would
    measure the interpreter rather than the algorithm."""
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        total = fn(case)
        runs = 1
        while total < min_time and runs < 1000:
            total += fn(case)
            runs += 1
    finally:
        if was_enabled:
            gc.enable()
    return total / runs


def prepare(folder: Path, shape: str, n: int, source: Path = CORPUS_TOOLS) -> Case:
    """Write ``shape`` at ``n`` entries in ``folder`` and load it."""
    path = folder / f"{shape}-{n}.jsonl"
    write_shape(path, shape, n, source)
    session = load_session(path)
    session.pairing  # noqa: B018
    return Case(path, session)


def ratios(
    shape: str,
    n: int,
    *,
    algorithms: Iterable[str] = ALGORITHMS,
    repeats: int = 3,
    min_time: float = 0.02,
    source: Path = CORPUS_TOOLS,
    folder: Path | None = None,
) -> dict[str, tuple[float, float, float]]:
    """Per algorithm: (median seconds at n, at 4n, their ratio), the two sizes alternating."""
    with tempfile.TemporaryDirectory(prefix="piview-scaling-") as tmp:
        where = folder or Path(tmp)
        small = prepare(where, shape, n, source)
        large = prepare(where, shape, 4 * n, source)
        out: dict[str, tuple[float, float, float]] = {}
        for name in algorithms:
            fn = ALGORITHMS[name]
            a: list[float] = []
            b: list[float] = []
            for _ in range(repeats):
                a.append(_once(fn, small, min_time))
                b.append(_once(fn, large, min_time))
            ta, tb = statistics.median(a), statistics.median(b)
            out[name] = (ta, tb, tb / ta if ta > 0 else float("inf"))
        return out


def main(argv: list[str] | None = None) -> int:
    """Command line: print the table; exit status 1 when a ratio is over the limit."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--n", type=int, default=25_000, help="entries at n (4n is also run)")
    ap.add_argument("--chain-n", type=int, default=250_000, help="the chain's n (4n: 1,000,000)")
    ap.add_argument("--shapes", default=",".join(SHAPES), help="comma-separated")
    ap.add_argument("--algorithms", default=",".join(ALGORITHMS), help="comma-separated")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--source", type=Path, default=CORPUS_TOOLS, help="the session to copy")
    args = ap.parse_args(argv)
    algorithms = [a for a in args.algorithms.split(",") if a]
    worst = 0.0
    print(f"{'shape':<20} {'algorithm':<18} {'n':>9} {'t(n) s':>9} {'t(4n) s':>9} {'ratio':>6}")
    for shape in [s for s in args.shapes.split(",") if s]:
        n = args.chain_n if shape == "chain" else args.n
        got = ratios(shape, n, algorithms=algorithms, repeats=args.repeats, source=args.source)
        for name, (ta, tb, r) in got.items():
            flag = "" if r <= LIMIT else "  OVER"
            print(f"{shape:<20} {name:<18} {n:>9} {ta:>9.4f} {tb:>9.4f} {r:>6.2f}{flag}")
            worst = max(worst, r)
        sys.stdout.flush()
    print(f"worst ratio {worst:.2f} (limit {LIMIT})")
    return 0 if worst <= LIMIT else 1


if __name__ == "__main__":
    raise SystemExit(main())
