"""Benchmark: the tree's children of a big session (``model/tree.py`` ``_children``), this
checkout's against another checkout's, on the same parents in one process, alternating:
the median wall time and the memory each allocates above what it returns (``tracemalloc``
peak minus the result), which adds to the peak of the whole load (issue #17, row 2).

    python benchmarks/bench_tree_children.py --base /tmp/idmap-base --runs 5
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import sys
import time
import tracemalloc
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from piview.model import load_session  # noqa: E402 - after the path is set


def _module(tree: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        f"tree_{abs(hash(tree))}", tree / "piview/model/tree.py"
    )
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up there
    spec.loader.exec_module(mod)
    return mod


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; print medians and peaks."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--file", type=Path, default=Path("/tmp/bench/s1g.jsonl"))
    ap.add_argument("--base", type=Path, required=True)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args(argv)
    print(f"load average before: {os.getloadavg()}", flush=True)
    s = load_session(args.file)
    parents = s.tree.parents
    stamps = [s.nodes.timestamp(i) for i in range(len(s))]
    mods = {"this": _module(ROOT), "base": _module(args.base)}
    want = None
    for name, mod in mods.items():
        got = mod._children(parents, stamps)
        shape = (got[0].start.tolist(), got[0].items.tolist(), got[1])
        if want is None:
            want = shape
        assert shape == want, f"{name} differs"
        del got, shape
    times: dict[str, list[float]] = {k: [] for k in mods}
    for run in range(args.runs):
        for name in list(mods) if run % 2 == 0 else list(reversed(mods)):
            t = time.perf_counter()
            mods[name]._children(parents, stamps)
            times[name].append(time.perf_counter() - t)
    for name, mod in mods.items():
        tracemalloc.start()
        out = mod._children(parents, stamps)
        cur, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        del out
        print(
            f"{name}: {statistics.median(times[name]) * 1000:.0f} ms (median of {args.runs}), "
            f"peak {peak / 2**20:.1f} MB, kept {cur / 2**20:.1f} MB, n={len(parents)}"
        )
    print(f"load average after: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
