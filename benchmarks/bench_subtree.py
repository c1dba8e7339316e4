"""Benchmark: the branch panel's usage figures against the panel's own flatten, in one process.

Loads a session, then times (medians of ``--repeats`` runs, CPU time) the subtree sums
(:func:`piview.model.subtree.compute_sums`), the sidebar's cost by branch on top of them and
the panel's flatten, and prints their ratio: the figures come with the panel's rows, so what
counts is what they add to its worker.

    python benchmarks/bench_subtree.py /tmp/bench/s50.jsonl /tmp/bench/s1g.jsonl
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from piview.model import load_session  # noqa: E402 - after the path is set
from piview.model.branchcost import branch_costs  # noqa: E402
from piview.model.subtree import compute_sums  # noqa: E402
from piview.model.treeview import flatten  # noqa: E402


def _median(fn: object, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t = time.process_time()  # CPU time: the machine may be shared
        fn()  # type: ignore[operator]
        times.append(time.process_time() - t)
    return statistics.median(times)


def main() -> None:
    """Measure each file given on the command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(
        f"{'file':<24} {'entries':>9} {'leaves':>7} {'sums s':>8} {'costs s':>8} "
        f"{'flatten s':>9} {'sums/flatten':>12}"
    )
    for name in args.files:
        s = load_session(name)
        leaf = s.tree.leaf
        sums = _median(lambda s=s: compute_sums(s.nodes, s.tree), args.repeats)  # type: ignore[misc]

        def costs(s=s, leaf=leaf) -> None:
            s.derived.clear()
            branch_costs(s, leaf)

        with_costs = _median(costs, args.repeats)

        def flat_fresh(s=s) -> None:
            s.derived.clear()  # the filter's visibility is part of the panel's work
            flatten(s)

        flat = _median(flat_fresh, args.repeats)
        print(
            f"{Path(name).name:<24} {len(s):>9} {s.tree.leaf_count():>7} {sums:>8.3f} "
            f"{with_costs:>8.3f} {flat:>9.3f} {sums / flat:>12.2f}"
        )


if __name__ == "__main__":
    main()
