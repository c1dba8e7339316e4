"""Provides the human-readable form of ``piview timeline``: totals, a table by tool, and one
line per run."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from piview.render.format import fmt_duration_ms, fmt_iso_short, fmt_tokens, plural
from piview.render.pipe import PipeConsole
from piview.render.sanitize import sanitize_line


def _share(part: float, whole: float) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "–"


def print_timeline(data: dict[str, Any], *, console: Console | None = None) -> None:
    """Print a ``piview timeline --json`` object as totals, a table by tool, and runs."""
    console = console or PipeConsole()  # `piview timeline FILE | head` ends with status 0
    totals = data["totals"]
    runs = data["runs"]
    wall = totals["wall_ms"]
    head = Table.grid(padding=(0, 2))
    head.add_column(style="bold")
    head.add_column(justify="right")
    head.add_column()
    turns = sum(len(r["turns"]) for r in runs)
    head.add_row("runs", f"{len(runs):,}", plural(turns, "turn"))
    head.add_row("wall", fmt_duration_ms(wall), "first prompt to last result")
    for key, what in (
        ("model_ms", "streaming"),
        ("tool_ms", "a tool running (parallel calls once)"),
        ("wait_ms", "waiting for the next prompt"),
    ):
        head.add_row(
            key[: -len("_ms")], fmt_duration_ms(totals[key]), f"{_share(totals[key], wall)}  {what}"
        )
    console.print(head)
    by_tool = totals["by_tool"]
    if by_tool:
        table = Table(show_edge=False, pad_edge=False)
        table.add_column("tool", no_wrap=True)
        for name in ("calls", "total", "p50", "max", "errors"):
            table.add_column(name, justify="right", no_wrap=True)
        for name, t in sorted(by_tool.items(), key=lambda kv: -kv[1]["total_ms"]):
            table.add_row(
                Text(sanitize_line(name)),  # from the file: no markup, no escapes
                f"{t['calls']:,}",
                fmt_duration_ms(t["total_ms"]),
                fmt_duration_ms(t["p50_ms"]),
                fmt_duration_ms(t["max_ms"]),
                f"{t['errors']:,}" if t["errors"] else "",
            )
        console.print()
        console.print(table)
    if not runs:
        return
    table = Table(show_edge=False, pad_edge=False)
    table.add_column("#", justify="right")
    table.add_column("prompt", no_wrap=True)
    table.add_column("start", no_wrap=True)
    table.add_column("wait", justify="right", no_wrap=True)
    table.add_column("turns", justify="right", no_wrap=True)
    table.add_column("model", justify="right", no_wrap=True)
    table.add_column("calls", justify="right", no_wrap=True)
    table.add_column("context", justify="right", no_wrap=True)
    for n, r in enumerate(runs, 1):
        model = sum(t["model_ms"] for t in r["turns"])
        calls = sum(len(t["tools"]) for t in r["turns"])
        last = r["turns"][-1]["context"] if r["turns"] else None
        context = last["reported_input"] if last is not None else None
        table.add_row(
            str(n),
            Text(sanitize_line(r["entry_id"] or "–")),
            fmt_iso_short(r["start"]),
            fmt_duration_ms(r["wait_ms"]) if r["wait_ms"] else "",
            str(len(r["turns"])),
            fmt_duration_ms(model),
            str(calls) if calls else "",
            fmt_tokens(context) if context is not None else "–",
        )
    console.print()
    console.print(table)
