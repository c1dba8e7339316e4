"""Benchmark: issue #17's table, each row next to its baseline measured in the same run.

Rows (medians over ``--runs``, piview and its baseline alternating, each in a fresh process):

* first screen of the 50 MB session, real terminal (tmux 120x40), against the one-line
  Textual app of ``tmux_first_screen.py``; target at most 1.15x the app;
* the 1 GB session loaded in the viewer, headless, until the status line no longer says it
  is loading (``bench_scale.py``'s viewer run), against one msgspec skeleton pass over the
  file (id, parentId, type, timestamp, role, usage) on one core; target at most 1.2x the
  pass and a peak RSS of at most 250 MB;
* ``piview info`` on the 1 GB session reopened from its index cache, against reading the
  cache file once; target at most 1 s;
* keys on the 50 MB session (``bench_viewer.py``), from the key sent to the last frame it
  caused, piview's own share: the same key on a small fixture is the harness and is
  subtracted (for ``t`` and ``o`` a fixture with thinking and tool output, where they toggle
  something too); target at most 50 ms each;
* the session picker's first rows over 600 small sessions (generated once into
  ``--picker-dir``), tmux 120x40, index of the sessions warm, against the one-line Textual
  app; target at most the app's first screen + 100 ms.

    python benchmarks/bench_limits.py --runs 3
    python benchmarks/bench_limits.py --runs 3 --skip viewer_1g,info_1g   # the quick rows

Never writes the session files; the index caches go to temporary folders.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.bench_load import run  # noqa: E402 - after the path is set
from benchmarks.bench_scale import APP  # noqa: E402
from benchmarks.bench_viewer import VIEWER  # noqa: E402
from benchmarks.tmux_first_screen import HELLO, first_screen  # noqa: E402

SKELETON = r"""
import json, resource, sys, time
import msgspec

class Usage(msgspec.Struct):
    input: int = 0
    output: int = 0
    cacheRead: int = 0
    cacheWrite: int = 0
    totalTokens: int = 0

class Message(msgspec.Struct):
    role: str = ""
    usage: Usage | None = None

class Skeleton(msgspec.Struct):
    type: str = ""
    id: str | None = None
    parentId: str | None = None
    timestamp: str | None = None
    message: Message | None = None

t0 = time.perf_counter()
decode = msgspec.json.Decoder(Skeleton).decode
n = 0
with open(sys.argv[1], "rb") as f:
    for line in f:
        if line.strip():
            try:
                decode(line)
            except msgspec.ValidationError:
                pass
            n += 1
print(json.dumps({"seconds": time.perf_counter() - t0, "entries": n,
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""
"""The floor of a full load: every line decoded once into the fields the tree needs."""

READ = r"""
import json, sys, time
t0 = time.perf_counter()
n = sum(len(p.read_bytes()) for p in __import__("pathlib").Path(sys.argv[1]).rglob("*")
        if p.is_file())
print(json.dumps({"seconds": time.perf_counter() - t0, "bytes": n}))
"""
"""Reading every file of the index cache once."""

KEYS = (
    "key_g_top",
    "key_G_bottom",
    "key_k_prev_block",
    "key_t_all_thinking",
    "key_o_all_tools",
    "key_enter_toggle",
    "key_left_bracket_user",
    "switch_branch",
)
SMALL = ROOT / "tests" / "fixtures" / "sessions" / "tree_branches.jsonl"
"""The harness's share of a key: the same key on a file of a few entries."""
SMALL_TOGGLE = ROOT / "tests" / "fixtures" / "sessions" / "edit_tools.jsonl"
"""The harness of ``t`` and ``o``: a file of a few entries with thinking and tool output, so
that the key toggles something and draws its frames there too (on ``SMALL`` it does nothing
and draws no frame, and the harness would count as piview's share)."""
HARNESS_FILE = {"key_t_all_thinking": SMALL_TOGGLE, "key_o_all_tools": SMALL_TOGGLE}


def med(values: list[float]) -> float:
    """The median."""
    return statistics.median(values)


class Table:
    """The rows measured so far, printed as they come and at the end."""

    def __init__(self) -> None:
        self.rows: list[tuple[str, str, str, str, str, bool]] = []

    def add(self, row: str, piview: str, base: str, ratio: str, target: str, met: bool) -> None:
        """Record one row and print it at once (the run is long)."""
        self.rows.append((row, piview, base, ratio, target, met))
        print(f"  {row}: {piview} | {base} | {ratio} | {target} | {'met' if met else 'NOT met'}")
        sys.stdout.flush()

    def markdown(self) -> str:
        """The table as Markdown (as the README shows it)."""
        out = [
            "| | piview | baseline (same run) | ratio | target | met |",
            "|---|---|---|---|---|---|",
        ]
        out += [
            f"| {r} | {p} | {b} | {q} | {t} | {'yes' if m else 'no'} |"
            for r, p, b, q, t, m in self.rows
        ]
        return "\n".join(out)


def piview_command(*args: str, env: str = "") -> str:
    """The real ``python -m piview`` of this checkout, for tmux."""
    return f"env {env} PYTHONPATH={ROOT} {sys.executable} -m piview {' '.join(args)}"


def first_screen_row(table: Table, path: Path, runs: int, hello: Path) -> float:
    """Row 1: first screen of ``path`` in tmux against the one-line app; returns the app's."""
    ours, app = [], []
    for _ in range(runs):
        ours.append(first_screen(piview_command("--no-follow", str(path)), "block "))
        app.append(first_screen(f"{sys.executable} {hello}", "block hello"))
    p, b = med(ours), med(app)
    table.add(
        f"first screen, {path.stat().st_size / 2**20:.0f} MB, tmux 120x40",
        f"{p * 1000:.0f} ms",
        f"one-line Textual app {b * 1000:.0f} ms",
        f"{p / b:.2f}x",
        "≤ 1.15x",
        p <= 1.15 * b,
    )
    return b


def viewer_row(table: Table, path: Path, runs: int) -> None:
    """Row 2: the whole file loaded in the viewer against the skeleton pass."""
    ours, base = [], []
    for _ in range(runs):
        ours.append(run(APP, path))
        base.append(run(SKELETON, path))
    p, b = med([r["seconds"] for r in ours]), med([r["seconds"] for r in base])
    rss = med([r["rss_mb"] for r in ours])
    table.add(
        f"whole {path.stat().st_size / 2**30:.0f} GB file loaded in the viewer (headless)",
        f"{p:.1f} s, peak RSS {rss:.0f} MB",
        f"msgspec skeleton pass {b:.1f} s ({med([r['rss_mb'] for r in base]):.0f} MB)",
        f"{p / b:.2f}x",
        "≤ 1.2x, ≤ 250 MB",
        p <= 1.2 * b and rss <= 250,
    )


def info_row(table: Table, path: Path, runs: int) -> None:
    """Row 3: ``piview info`` reopened from the index cache against reading the cache."""
    with tempfile.TemporaryDirectory(prefix="piview-limits-cache-") as cache:
        env = {**os.environ, "XDG_CACHE_HOME": cache, "PYTHONPATH": str(ROOT)}
        info = [sys.executable, "-m", "piview", "info", str(path)]
        subprocess.run(info, env=env, check=True, capture_output=True)  # writes the cache
        index = Path(cache) / "piview" / "index"
        ours, base = [], []
        for _ in range(runs):
            t0 = time.perf_counter()
            subprocess.run(info, env=env, check=True, capture_output=True)
            ours.append(time.perf_counter() - t0)
            base.append(run(READ, index)["seconds"])
        size = sum(f.stat().st_size for f in index.rglob("*") if f.is_file())
    p, b = med(ours), med(base)
    table.add(
        f"reopen {path.stat().st_size / 2**30:.0f} GB from the index cache (`piview info`)",
        f"{p:.2f} s",
        f"reading the cache once ({size / 2**20:.0f} MB) {b:.2f} s",
        f"{p / b:.1f}x",
        "≤ 1 s",
        p <= 1.0,
    )


def keys_row(table: Table, path: Path, runs: int) -> None:
    """Row 4: each key on ``path`` minus the same key on a small file (the harness)."""
    big: list[dict[str, float]] = []
    small: dict[Path, list[dict[str, float]]] = {SMALL: [], SMALL_TOGGLE: []}
    for _ in range(runs):
        big.append(run(VIEWER, path))
        for file, results in small.items():
            results.append(run(VIEWER, file))
    for key in KEYS:
        values = [r[key] for r in big if key in r]
        if not values:
            continue
        file = HARNESS_FILE.get(key, SMALL)
        harness = med([r[key] for r in small[file] if key in r] or [0.0])
        total = med(values)
        own = total - harness
        table.add(
            f"key {key.removeprefix('key_')}, {path.stat().st_size / 2**20:.0f} MB",
            f"{own * 1000:.0f} ms own ({total * 1000:.0f} ms in all)",
            f"harness (same key, {file.name}) {harness * 1000:.0f} ms",
            "—",
            "≤ 50 ms",
            own <= 0.050,
        )


def make_sessions(folder: Path, count: int) -> None:
    """``count`` small generated sessions in 30 project folders (kept for the next run)."""
    from benchmarks.gen_session import generate

    have = list(folder.rglob("*.jsonl")) if folder.is_dir() else []
    if len(have) >= count:
        return
    for i in range(count):
        d = folder / f"--home-dev-src-p{i % 30:02d}--"
        d.mkdir(parents=True, exist_ok=True)
        generate(d / f"2026-05-{1 + i % 28:02d}T10-00-00-000Z_{i:05d}.jsonl", 16 * 1024, seed=i)


def picker_row(table: Table, folder: Path, runs: int, hello: Path) -> None:
    """Row 5: the picker's first rows against the one-line app, alternating."""
    count = len(list(folder.rglob("*.jsonl")))
    with tempfile.TemporaryDirectory(prefix="piview-limits-picker-") as cache:
        command = piview_command("--sessions", str(folder), env=f"XDG_CACHE_HOME={cache}")
        marker = "Refactor the session"  # a session's name in a row, not the header
        cold = first_screen(command, marker)  # builds the picker's index
        # Killed at its first rows, the picker never writes its summary cache: "index warm"
        # needs one run that lasts until it has (bench_startup.warm_picker).
        from benchmarks.bench_startup import warm_picker

        warm_picker(command, Path(cache))
        ours, app = [], []
        for _ in range(runs):
            ours.append(first_screen(command, marker))
            app.append(first_screen(f"{sys.executable} {hello}", "block hello"))
    p, b = med(ours), med(app)
    table.add(
        f"picker, first rows, {count} sessions (tmux 120x40, index warm; cold {cold:.2f} s)",
        f"{p * 1000:.0f} ms",
        f"one-line Textual app {b * 1000:.0f} ms",
        f"+{(p - b) * 1000:.0f} ms",
        "≤ app + 100 ms",
        p <= b + 0.100,
    )


ROWS = ("first_screen", "viewer_1g", "info_1g", "keys", "picker")


def main() -> None:
    """Measure every row asked for and print the table."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--s50", type=Path, default=Path("/tmp/bench/s50.jsonl"))
    ap.add_argument("--s1g", type=Path, default=Path("/tmp/bench/s1g.jsonl"))
    ap.add_argument("--picker-dir", type=Path, default=Path("/tmp/bench/limits-picker"))
    ap.add_argument("--sessions", type=int, default=600)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--skip", default="", help=f"rows to leave out, of {','.join(ROWS)}")
    args = ap.parse_args()
    for path in (args.s50, args.s1g):
        if not path.exists():
            sys.exit(f"{path} is missing: python benchmarks/gen_session.py {path} --size ...")
    if shutil.which("tmux") is None:
        sys.exit("tmux is not installed")
    with tempfile.TemporaryDirectory(prefix="piview-limits-") as tmp:
        hello = Path(tmp) / "hello.py"
        hello.write_text(HELLO)
        measure(args, hello)


def measure(args: argparse.Namespace, hello: Path) -> None:
    """Every row not skipped, then the table as Markdown."""
    skip = set(filter(None, args.skip.split(",")))
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    load = os.getloadavg()
    print(f"issue #17, medians of {args.runs} runs, started {started}, load {load[0]:.1f}")
    table = Table()
    if "first_screen" not in skip:
        first_screen_row(table, args.s50, args.runs, hello)
    if "viewer_1g" not in skip:
        viewer_row(table, args.s1g, args.runs)
    if "info_1g" not in skip:
        info_row(table, args.s1g, args.runs)
    if "keys" not in skip:
        keys_row(table, args.s50, args.runs)
    if "picker" not in skip:
        make_sessions(args.picker_dir, args.sessions)
        picker_row(table, args.picker_dir, args.runs, hello)
    end = os.getloadavg()
    print(f"\nload average at the end {end[0]:.1f} (1 min), {end[1]:.1f} (5 min)\n")
    print(table.markdown())


if __name__ == "__main__":
    main()
