"""Benchmark: why the tools view and the picker keep their DataTable subclasses (issue #28).

``widgets/lazy_table.py`` and ``widgets/picker_table.py`` reach into DataTable's internals so
that rows of fixed-width columns are never measured and a row's cells are made when first
drawn. This times, in one headless app per run and alternating, from putting ``N`` rows of six
fixed-width columns in an empty table to the first frame after it:

* ``stock``: the public way, ``DataTable.add_rows`` (every new cell is measured on idle);
* ``lazy``: ``LazyTable.show_rows`` (the tools view);
* ``picker``: ``PickerTable.fill`` (the session picker);
* ``fast``: ``textual_fastdatatable`` with its Arrow backend, when it is installed (the
  maintained alternative the issue names; its import time is printed too).

Medians over ``--runs``.

    python benchmarks/bench_tables.py --runs 3 --rows 600,5000,31360
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rich.text import Text  # noqa: E402
from textual.app import App, ComposeResult  # noqa: E402
from textual.widgets import DataTable  # noqa: E402

from piview.widgets.lazy_table import LazyTable  # noqa: E402
from piview.widgets.picker_table import PickerTable  # noqa: E402

WIDTHS = (6, 20, 40, 10, 10, 20)


def cells(n: int) -> list[Text]:
    """Row ``n``: six short cells, as a tool row has."""
    return [Text(str(n)), Text("bash"), Text(f"ls -la /some/path/{n}"), Text("0.1s")] + [
        Text("ok"),
        Text("x" * 15),
    ]


def fill_stock(table: Any, count: int) -> None:
    table.add_rows([cells(n) for n in range(count)])


def fill_lazy(table: Any, count: int) -> None:
    table.show_rows(count, cells)


def fill_picker(table: Any, count: int) -> None:
    table.fill((str(n), (lambda n=n: cells(n))) for n in range(count))


async def _time(kind: type[DataTable[Any]], fill: Callable[[Any, int], None], count: int) -> float:
    class Bench(App[None]):
        def compose(self) -> ComposeResult:
            yield kind(cursor_type="row", zebra_stripes=True)

    app = Bench()
    async with app.run_test(size=(120, 40)) as pilot:
        table = app.query_one(kind)
        for n, width in enumerate(WIDTHS):
            table.add_column(f"c{n}", width=width)
        await pilot.pause()
        start = time.perf_counter()
        fill(table, count)
        await pilot.pause()
        return (time.perf_counter() - start) * 1000


async def _time_fast(count: int) -> float:
    from textual_fastdatatable import ArrowBackend
    from textual_fastdatatable import DataTable as FastTable

    header = tuple(f"c{n}" for n in range(len(WIDTHS)))

    class Bench(App[None]):
        def compose(self) -> ComposeResult:
            yield FastTable(cursor_type="row", zebra_stripes=True, data=[header])

    app = Bench()
    async with app.run_test(size=(120, 40)) as pilot:
        table = app.query_one(FastTable)
        await pilot.pause()
        start = time.perf_counter()
        records = [header] + [tuple(c.plain for c in cells(n)) for n in range(count)]
        table.backend = ArrowBackend.from_records(records, has_header=True)
        table.refresh()
        await pilot.pause()
        return (time.perf_counter() - start) * 1000


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--rows", default="600,5000,31360")
    a = ap.parse_args(argv)
    try:
        start = time.perf_counter()
        import textual_fastdatatable  # noqa: F401

        print(f"textual_fastdatatable import: {(time.perf_counter() - start) * 1000:.0f} ms")
        fast = True
    except ImportError:
        print("textual_fastdatatable not installed: its column is left out")
        fast = False
    for count in (int(n) for n in a.rows.split(",")):
        times: dict[str, list[float]] = {"stock": [], "lazy": [], "picker": [], "fast": []}
        for _ in range(a.runs):
            times["stock"].append(asyncio.run(_time(DataTable, fill_stock, count)))
            times["lazy"].append(asyncio.run(_time(LazyTable, fill_lazy, count)))
            times["picker"].append(asyncio.run(_time(PickerTable, fill_picker, count)))
            if fast:
                times["fast"].append(asyncio.run(_time_fast(count)))
        row = "  ".join(f"{name} {statistics.median(t):7.0f} ms" for name, t in times.items() if t)
        print(f"{count:>6} rows: {row}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
