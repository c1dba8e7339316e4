"""Benchmark: search, on the branch shown and over all branches, in one process.

For each query: the blocks of the file's branch that match (what ``/`` runs in its worker)
and every branch's matches (``/all:``, :func:`piview.render.search.scan_all`), with the
longest gap between two batches of the scan (how long a cancel may wait).

    python benchmarks/bench_search.py /tmp/bench/s50.jsonl logo error 're:err(or|no)' Error
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from piview.model import load_session  # noqa: E402 - after the path is set
from piview.model.query import parse_query  # noqa: E402
from piview.render.items import build_items  # noqa: E402
from piview.render.search import item_matches, scan_all  # noqa: E402


def main() -> None:
    """Measure each query given on the command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file")
    parser.add_argument("queries", nargs="+")
    args = parser.parse_args()
    s = load_session(args.file)
    s.pairing  # noqa: B018 - computed once, as the viewer has it before a search
    leaf = s.tree.leaf
    path = s.tree.path(leaf) if leaf is not None else []
    items = build_items(s, path)
    print(f"{len(s)} entries, {s.tree.leaf_count()} leaves, {len(items)} blocks on the branch")
    for text in args.queries:
        query = parse_query(text)
        t = time.perf_counter()
        memo: dict[int, bool] = {}
        on_branch = sum(item_matches(s, item, query, memo) for item in items)
        branch_s = time.perf_counter() - t
        t = last = time.perf_counter()
        hits = 0
        gap = 0.0
        for _looked, batch in scan_all(s, query, shown_path=path, shown_leaf=leaf):
            now = time.perf_counter()
            gap, last = max(gap, now - last), now
            hits += len(batch)
        all_s = time.perf_counter() - t
        print(
            f"{text!r:18} this branch {on_branch:7} in {branch_s:5.2f} s   "
            f"all branches {hits:7} in {all_s:5.2f} s (longest gap {gap * 1000:.0f} ms)"
        )


if __name__ == "__main__":
    main()
