"""The terminal table of ``piview stats``: it fits the width, numbers are never cut, the
least needed columns go first, bars on a terminal."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from piview.catalog.discovery import find_session_files
from piview.catalog.lineage import with_subagents
from piview.catalog.stats import collect_stats
from piview.render.stats import print_stats, stats_table
from tests.conftest import fixture


def _draw(by: str, width: int, *, terminal: bool = False) -> str:
    report = collect_stats(with_subagents(find_session_files(fixture("forks"))), by=by)
    out = io.StringIO()
    console = Console(file=out, width=width, force_terminal=terminal, color_system=None)
    print_stats(report, console=console)
    return out.getvalue()


@pytest.mark.parametrize("width", [80, 120, 200])
def test_the_session_table_fits_and_keeps_every_cost_whole(width: int) -> None:
    text = _draw("session", width)
    lines = text.splitlines()
    assert all(len(line) <= width for line in lines)
    head = lines[0]
    # The folder holds a subagent's file: its column is kept before the abandoned branches'.
    wide = width >= 120
    for col in ("session", "input", "output", "cost", "subagents", "active path"):
        assert col in head
    assert ("abandoned" in head) == wide
    for cost in ("$1.25", "$0.44", "$0.0054", "$1.74", "$1.43", *(["$0.31"] if wide else [])):
        assert cost in text
    assert ("cache write" in head) == (width >= 120)
    # Forks sit under the file they came from.
    assert "└ Retry design" in text and "  └ Retry design" in text
    assert "Deduplicated: 14 records copied by forks" in text.replace("\n", " ")


def test_bars_only_on_a_terminal() -> None:
    assert "█" in _draw("day", 120, terminal=True)
    assert "█" not in _draw("day", 120, terminal=False)


def test_all_zero_columns_are_left_out() -> None:
    report = collect_stats(with_subagents(find_session_files(fixture("forks"))), by="model")
    out = io.StringIO()
    Console(file=out, width=200).print(stats_table(report, width=200, bars=False))
    head = out.getvalue().splitlines()[0]
    assert "reasoning" not in head and "(1h)" not in head and "cache write" in head
