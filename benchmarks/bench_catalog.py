"""Benchmark: the search index over a folder of many sessions, next to ``grep -r`` of it.

Generates (once) a folder of sessions with :mod:`benchmarks.gen_session` (``--sessions``
files of varied sizes in project folders, about ``--total`` bytes in all; each session's
words varied so that some are rare), then measures in one run:

- the cold build: time, bytes read against the folder's size, with a pool of 2 processes;
- the index's size on disk against the sessions' size;
- an update with nothing changed, and one after appending to a few files (bytes read);
- first results: the median (and 90th percentile) time of a search returning the best 20
  hits with their snippets, and of the picker's search (best hit of each session), over
  many queries;
- ``grep -r -l -i`` of the same words over the same folder (median).

    python benchmarks/bench_catalog.py --dir /tmp/bench/catalog --sessions 512 --total 1GB
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.gen_session import NOUNS, generate, parse_size  # noqa: E402
from piview.catalog.discovery import find_session_files  # noqa: E402
from piview.catalog.fts import SearchIndex  # noqa: E402
from piview.catalog.fts_query import parse_fts_query  # noqa: E402

QUERIES = [
    "parser",
    "cache buffer",
    '"empty schema"',
    "restor*",
    "theme OR thumbnail",
    "crashes KeyError",
    "compaction",
    "leaf NOT tree",
    "selectState",
    "footer list",
    '"option 3"',
    "settings*",
]
"""Queries run as they are; the benchmark adds rare words (a session's own variants)."""


def _one(args: tuple[str, int, int]) -> int:
    """Write session ``k`` of ``size`` bytes at ``path``, its words varied: three nouns get
    a suffix that only some sessions share (1 in 7, 1 in 37, 1 in 211)."""
    path, size, k = args
    tmp = path + ".tmp"
    generate(tmp, size, seed=k, branch_every=400, image_every=150)
    data = Path(tmp).read_bytes()
    for n, mod in enumerate((7, 37, 211)):
        noun = NOUNS[(k + 11 * n) % len(NOUNS)].encode()
        data = data.replace(b" " + noun + b" ", b" " + noun + f"x{k % mod}m{mod} ".encode())
    Path(tmp).write_bytes(data)
    os.replace(tmp, path)
    return len(data)


def make_folder(root: Path, count: int, total: int) -> None:
    """``count`` sessions of about ``total`` bytes in all, in 24 project folders."""
    rng = random.Random(0)
    weights = [rng.lognormvariate(0, 0.8) for _ in range(count)]
    scale = total / sum(weights)
    jobs = []
    for k, w in enumerate(weights):
        folder = root / f"--home-dev-src-proj{k % 24:02d}--"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"2026-05-{1 + k % 28:02d}T10-00-00-000Z_{k:05d}.jsonl"
        if not path.exists():
            jobs.append((str(path), max(20_000, int(w * scale)), k))
    if jobs:
        print(f"generating {len(jobs)} sessions in {root} …", flush=True)
        with ProcessPoolExecutor(2) as pool:
            list(pool.map(_one, jobs, chunksize=4))


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.parent.glob(path.name + "*") if p.is_file())


def _ms(xs: list[float]) -> str:
    xs = sorted(xs)
    p90 = xs[min(len(xs) - 1, int(0.9 * len(xs)))]
    return f"median {1000 * statistics.median(xs):.1f} ms, p90 {1000 * p90:.1f} ms"


def main() -> None:
    """Build, measure, print one figure a line (and ``--json`` for the record)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", default="/tmp/bench/catalog", help="the sessions' folder")
    parser.add_argument("--sessions", type=int, default=512)
    parser.add_argument("--total", default="1GB", help="about this much in all")
    parser.add_argument("--db", default="/tmp/bench/catalog-search.db")
    parser.add_argument("--repeat", type=int, default=5, help="runs of each query")
    parser.add_argument("--json", metavar="OUT", help="also write the figures here")
    args = parser.parse_args()
    root = Path(args.dir)
    make_folder(root, args.sessions, parse_size(args.total))
    files = find_session_files(root)
    size = sum(p.stat().st_size for p in files)
    figures: dict[str, object] = {"sessions": len(files), "bytes": size}
    print(f"{len(files)} sessions, {size / 1e9:.2f} GB in {root}")

    db = Path(args.db)
    for p in db.parent.glob(db.name + "*"):
        p.unlink()
    index = SearchIndex(db)
    t = time.perf_counter()
    index.update(files, workers=2)
    build = time.perf_counter() - t
    stats = index.stats()
    figures |= {"build_s": build, "bytes_read": index.bytes_read, "entries": stats["entries"]}
    print(
        f"cold build: {build:.1f} s ({size / build / 1e6:.0f} MB/s, 2 processes), "
        f"{stats['entries']:,} entries; read {index.bytes_read:,} bytes of {size:,} "
        f"({index.bytes_read / size:.3f}×)"
    )
    db_size = _size(db)
    figures["db_bytes"] = db_size
    print(f"index on disk: {db_size / 1e6:.0f} MB = {db_size / size:.3f} of the sessions")

    t = time.perf_counter()
    read = index.bytes_read
    index.update(files)
    noop = time.perf_counter() - t
    print(f"update, nothing changed: {1000 * noop:.0f} ms, read {index.bytes_read - read} bytes")
    figures["noop_update_s"] = noop

    # Append a turn to five sessions (copies: the generated ones stay as they are).
    extra = root.parent / (root.name + "-appended")
    shutil.rmtree(extra, ignore_errors=True)
    extra.mkdir(parents=True)
    copies = []
    for src in files[:5]:
        dst = extra / src.name
        shutil.copy(src, dst)
        copies.append(dst)
    index.update(files + copies)
    line = json.dumps(
        {
            "type": "message",
            "id": "ffffaaaa",
            "parentId": None,
            "timestamp": "2026-06-01T00:00:00Z",
            "message": {"role": "user", "content": "appendedword for the benchmark"},
        }
    )
    for dst in copies:
        with open(dst, "a") as f:
            f.write(line + "\n")
    read = index.bytes_read
    t = time.perf_counter()
    index.update(files + copies)
    append = time.perf_counter() - t
    print(
        f"update after appending {len(line) + 1} bytes to 5 files: {1000 * append:.0f} ms, "
        f"read {index.bytes_read - read} bytes; found: {len(index.search('appendedword'))}"
    )
    figures |= {"append_s": append, "append_read": index.bytes_read - read}
    index.update(files)  # the copies dropped again
    shutil.rmtree(extra)
    index.close()

    queries = list(QUERIES)
    for k in (3, 5, 17):
        for n, mod in enumerate((7, 37, 211)):
            queries.append(f"{NOUNS[(k + 11 * n) % len(NOUNS)]}x{k % mod}m{mod}")
    reader = SearchIndex(db, readonly=True)
    timings: dict[str, list[float]] = {}
    for q in queries:
        for _ in range(args.repeat):
            for name, kw in (
                ("first 20 (newest 2000 matches ranked)", {"limit": 20, "candidates": 2000}),
                ("top 20, every match ranked", {"limit": 20}),
                (
                    "picker first (best of each session)",
                    {"limit": 50, "per_session": 1, "candidates": 2000},
                ),
                ("picker, every match ranked", {"limit": 50, "per_session": 1}),
            ):
                fq = parse_fts_query(q, prefix_last="picker" in name)
                t = time.perf_counter()
                reader.search(fq, **kw)  # type: ignore[arg-type]
                timings.setdefault(name, []).append(time.perf_counter() - t)
    for name, xs in timings.items():
        print(
            f"{name}, {len(queries)} queries × {args.repeat}: {_ms(xs)}, "
            f"max {1000 * max(xs):.0f} ms"
        )
        figures[name] = statistics.median(xs)
    reader.close()

    greps: list[float] = []
    for q in queries[::3]:
        words = [t for t, _p in parse_fts_query(q).terms]
        t = time.perf_counter()
        subprocess.run(
            ["grep", "-r", "-l", "-i", "-F", words[0], str(root)],
            stdout=subprocess.DEVNULL,
            check=False,
        )
        greps.append(time.perf_counter() - t)
    print(f"grep -r -l -i of one word of {len(greps)} of the queries: {_ms(greps)}")
    figures["grep_median_s"] = statistics.median(greps)
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
