"""Benchmark: ``piview print`` against ``piview export --format html`` of the same branch.

Four commands run on the same file, alternating, each in a fresh interpreter (imports and
loading included, the index cache off): print in plain mode (its output going to a file as
it would into a pipe), print in colour (``--color always``, the same file), print with
``--tools none`` (plain), and export. The medians of wall time and of CPU time (user +
system of the child and of any process it starts) are printed, and the ratios print /
export, with the load average before and after: the target is print within 1.5x of export.
On a loaded machine compare the CPU ratios (print's forked child only saves wall time when
a core is idle).

    python benchmarks/bench_print.py                       # generates a 50 MB session in /tmp
    python benchmarks/bench_print.py --file SESSION.jsonl --runs 5
    python benchmarks/bench_print.py --size 5MB -- --tools none   # extra arguments for print
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def timed(argv: list[str], out: Path, root: Path = ROOT) -> tuple[float, float]:
    """``(wall, cpu)`` seconds of one run of ``python -m piview argv`` (the tree at ``root``)
    writing to ``out``."""
    env = {**os.environ, "PIVIEW_NO_CACHE": "1", "PYTHONPATH": str(root), "COLORTERM": "truecolor"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    with out.open("wb") as f:
        # Run from the tree itself: ``-m`` puts the working directory first on the path.
        subprocess.run(
            [sys.executable, "-m", "piview", *argv], stdout=f, env=env, check=True, cwd=root
        )
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


MODES = ("plain", "colour", "none", "export")


def bench(
    path: Path, runs: int, print_args: list[str], base: Path | None = None
) -> dict[str, dict[str, float]]:
    """Medians of the commands on ``path``, run alternately ``runs`` times each; with
    ``base`` (another checkout) its three prints too, as ``base-plain`` and so on."""
    names = [*MODES, *(f"base-{m}" for m in MODES if m != "export")] if base else list(MODES)
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in names}
    sizes: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="piview-bench-print-") as tmp:
        html = Path(tmp) / "out.html"
        commands = {
            "plain": ["print", str(path), *print_args],
            "colour": ["print", str(path), "--color", "always", *print_args],
            "none": ["print", str(path), "--tools", "none", *print_args],
            "export": ["export", str(path), "--format", "html", "-o", str(html)],
        }
        for _ in range(runs):
            for name, argv in commands.items():
                out = Path(tmp) / f"{name}.out"
                times[name].append(timed(argv, out))
                sizes[name] = float(out.stat().st_size)
                if base is not None and name != "export":
                    base_out = Path(tmp) / f"base-{name}.out"
                    times[f"base-{name}"].append(timed(argv, base_out, base))
                    if base_out.read_bytes() != out.read_bytes():
                        print(f"note: {name}: the base tree's output differs", file=sys.stderr)
    result = {
        name: {
            "wall": statistics.median(w for w, _ in t),
            "cpu": statistics.median(c for _, c in t),
        }
        for name, t in times.items()
    }
    result["output"] = {"plain_bytes": sizes["plain"], "colour_bytes": sizes["colour"]}
    return result


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print the medians and the ratios."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--file", type=Path, help="a session file (default: generate one)")
    ap.add_argument("--size", default="50MB", help="size of the generated session (50MB)")
    ap.add_argument("--runs", type=int, default=3, help="runs of each command (3)")
    ap.add_argument(
        "--base", type=Path, help="another checkout of piview whose prints are timed too"
    )
    ap.add_argument("print_args", nargs="*", help="extra arguments for piview print")
    args = ap.parse_args(argv)
    path = args.file
    if path is None:
        from benchmarks.gen_session import generate, parse_size

        path = Path(tempfile.gettempdir()) / f"piview-bench-print-{args.size}.jsonl"
        if not path.exists():
            generate(str(path), parse_size(args.size))
    load_before = os.getloadavg()
    path = path.resolve()  # the commands run from each tree's folder
    r = bench(path, args.runs, args.print_args, args.base.resolve() if args.base else None)
    load_after = os.getloadavg()
    e = r["export"]
    extra = " ".join(args.print_args)
    print(f"file    {path} ({path.stat().st_size / 1e6:.1f} MB), {args.runs} runs each, medians")
    loads = " / ".join(f"{a:.2f} {b:.2f} {c:.2f}" for a, b, c in (load_before, load_after))
    print(f"load    {loads} (1, 5, 15 min; before / after)")
    labels = (
        ("plain", "print (pipe)"),
        ("colour", "print --color always"),
        ("none", "print --tools none"),
    )
    for name, label in labels:
        m = r[name]
        print(f"{label:22} wall {m['wall']:7.2f} s   cpu {m['cpu']:7.2f} s   {extra}")
    print(f"{'export --format html':22} wall {e['wall']:7.2f} s   cpu {e['cpu']:7.2f} s")
    for name in ("plain", "colour", "none"):
        m = r[name]
        wall, cpu = m["wall"] / e["wall"], m["cpu"] / e["cpu"]
        print(f"ratio {name:16} wall {wall:7.2f}x   cpu {cpu:7.2f}x   (target: 1.5x)")
    if args.base is not None:
        print(f"base    {args.base}")
        for name, label in labels:
            b, m = r[f"base-{name}"], r[name]
            print(
                f"{'base ' + label:27} wall {b['wall']:7.2f} s   cpu {b['cpu']:7.2f} s   "
                f"now / base: wall {m['wall'] / b['wall']:5.2f}x  cpu {m['cpu'] / b['cpu']:5.2f}x"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
