"""Every hand-made nasty file through the whole pipeline: nothing raises, hangs or leaks.

The files are generated at run time into a temporary folder (:mod:`tests.fuzz.nasty`). Each
goes through :func:`tests.fuzz.pipeline.exercise` under a time limit; the two biggest go
through it in a fresh process that measures memory (``tests.fuzz.memprobe``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.fuzz.nasty import BIG, NASTY, build
from tests.fuzz.pipeline import Report, exercise, hang_guard

pytestmark = pytest.mark.fuzz

MEMORY = ("line_50mb", "image_20mb")
"""Measured in a fresh process (see :func:`test_memory_stays_bounded`)."""

MEMORY_FACTOR = 6
"""Peak Python allocations allowed, as a multiple of the file's size."""
RSS_FACTOR = 12
"""Growth of the resident set allowed (it also counts freed memory not yet returned)."""

TIME_LIMIT = 90.0
"""Seconds one file may take through the pipeline before it counts as a hang."""

# What each file must have made the loader see: proof that the nasty part was read.
EXPECT: dict[str, Callable[[Report], bool]] = {
    "ansi_everywhere": lambda r: r.entries > 40 and r.bad_lines >= 1,
    "control_ids": lambda r: r.duplicate_ids > 0 and r.items_rendered > 10,
    "wrong_types": lambda r: r.entries > 1000 and r.items_rendered > 1000,
    "nan_and_huge_numbers": lambda r: r.bad_lines > 0 and r.entries > 50,
    "deep_nesting": lambda r: r.bad_lines > 0 and r.entries > 0,
    "images": lambda r: r.items_rendered >= 100,
    "cycles": lambda r: r.cycles >= 3 and r.entries > 10_000,
    "duplicate_ids": lambda r: r.duplicate_ids > 0,
    "non_utf8": lambda r: r.entries > 10 and r.bad_lines > 0,
    "utf16": lambda r: r.entries == 0 and r.bad_lines > 0,
    "structure": lambda r: r.bad_lines > 5 and r.entries > 30,
    "empty": lambda r: r.entries == 0 and r.bad_lines == 0,
    "blank_lines": lambda r: r.entries == 0 and r.bad_lines == 0,
    "siblings_100k": lambda r: r.entries == 100_001,
    "chain_100k": lambda r: r.longest_path == 100_000,
}

_CASES = [name for name in sorted(NASTY) if name not in MEMORY]


@pytest.mark.parametrize("name", _CASES)
def test_nasty_file(name: str, tmp_path: Path) -> None:
    """Load, decode every entry, build the tree, pair, sum, render and print: no exception,
    no hang, nothing forbidden on screen, and the file untouched."""
    path = build(name, tmp_path)
    before = os.stat(path)
    with hang_guard(TIME_LIMIT, name):
        report = exercise(path, sample=150 if name in BIG else None)
    after = os.stat(path)
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]
    check = EXPECT.get(name)
    assert check is None or check(report), report


@pytest.mark.parametrize("name", MEMORY)
def test_memory_stays_bounded(name: str, tmp_path: Path) -> None:
    """The 50 MB line and the 20 MB image go through the pipeline with a peak of Python
    allocations under 6× the file size (the figures are printed: run with ``-s``)."""
    path = build(name, tmp_path)
    proc = subprocess.run(
        [sys.executable, "-m", "tests.fuzz.memprobe", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=TIME_LIMIT,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    figures = json.loads(proc.stdout.strip().splitlines()[-1])
    size = figures["size"]
    print(
        f"\n{name}: {size / 2**20:.1f} MB file, tracemalloc peak {figures['peak'] / 2**20:.0f} MB "
        f"({figures['peak'] / size:.1f}×), RSS growth {figures['rss_growth'] / 2**20:.0f} MB "
        f"({figures['rss_growth'] / size:.1f}×), {figures['seconds']} s"
    )
    assert figures["items"] > 0
    assert figures["peak"] < MEMORY_FACTOR * size, figures
    assert figures["rss_growth"] < RSS_FACTOR * size, figures
