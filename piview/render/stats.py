"""Provides the terminal form of ``piview stats``: one row per group with a bar, the total, and
what deduplication and nested usage amount to."""

from __future__ import annotations

from pathlib import Path

from rich.bar import Bar
from rich.console import Console
from rich.table import Table
from rich.text import Text

from piview.catalog.stats import Group, StatsReport
from piview.model.usage import UsageTotals
from piview.render.format import fmt_cost, fmt_tokens, plural
from piview.render.pipe import PipeConsole
from piview.render.sanitize import sanitize_line

BAR_WIDTH = 12
"""Cells of each row's cost bar."""

_HEADINGS = {
    "day": "day",
    "week": "week of",
    "month": "month",
    "project": "project",
    "model": "model",
    "session": "session",
}


def _label(report: StatsReport, g: Group, depth: int) -> Text:
    if report.by != "session":
        return Text(sanitize_line(g.key), no_wrap=True, overflow="ellipsis")
    # Pi names files <time>_<session id>.jsonl: the id is what tells sessions apart.
    stem = Path(g.key).stem
    sid = stem.partition("_")[2] or stem
    out = Text(no_wrap=True, overflow="ellipsis")
    if depth:
        # A subagent starts fresh with a task; a fork copies its parent's history.
        mark = "⤷ " if g.link.startswith("subagent") else "└ "
        out.append("  " * (depth - 1) + mark, style="dim")
    if g.name:
        out.append(sanitize_line(g.name), style="bold")
    else:
        out.append(sanitize_line(sid))
    return out


_DROP_ORDER = ("(1h)", "reasoning", "sessions", "cache write", "bar", "cache read", "abandoned")
"""The columns given up, first to last, while the table does not fit the width."""
_LABEL_MIN = 16


def stats_table(report: StatsReport, *, width: int = 100, bars: bool = True) -> Table:
    """The table of every group and the total (main-model usage; nested and summary usage
    apart), with the least needed columns left out until it fits ``width`` cells."""
    by_session = report.by == "session"
    top = max((g.main.cost for g in report.groups), default=0.0)
    depth: dict[str, int] = {}
    rows: list[dict[str, Text | Bar | str]] = []
    for g in report.groups:
        d = depth[g.key] = depth[g.parent] + 1 if g.parent in depth else 0
        rows.append(_cells(report, g, _label(report, g, d), top))
    total = _cells(report, report.total, Text("total", style="bold"), top)
    total["bar"] = ""
    names = ["label", "sessions", "input", "output", "cache read", "cache write", "(1h)"]
    names += ["reasoning", "cost"]
    if by_session:
        names += ["active path", "abandoned"]
        names.remove("sessions")
        if report.total.subagents is not None and report.total.subagents.count:
            names.insert(names.index("cost") + 1, "subagents")
    if report.total.tools.count:
        names.append("nested")
    if report.total.summaries.count:
        names.append("summaries")
    if bars and top:
        names.append("bar")
    # Columns that are zero everywhere say nothing: the 1-hour cache and reasoning often are.
    for optional in ("(1h)", "reasoning"):
        if all(str(r[optional]) == "0" for r in [*rows, total]):
            names.remove(optional)

    def cells_width(name: str) -> int:
        if name == "bar":
            return BAR_WIDTH
        if name == "label":
            return _LABEL_MIN
        return max(len(name), *(len(str(r[name])) for r in [*rows, total]))

    for name in _DROP_ORDER:
        if sum(cells_width(n) + 3 for n in names) <= width:
            break
        if name in names:
            names.remove(name)
    rest = sum(cells_width(n) + 3 for n in names if n != "label")
    table = Table(show_edge=False, pad_edge=False, header_style="bold")
    for name in names:
        if name == "label":
            table.add_column(
                _HEADINGS[report.by],
                no_wrap=True,
                overflow="ellipsis",
                min_width=_LABEL_MIN,
                max_width=max(_LABEL_MIN, width - rest - 1),
            )
        elif name == "bar":
            table.add_column("", width=BAR_WIDTH, no_wrap=True)
        else:
            style = "magenta" if name in ("nested", "summaries") else None
            table.add_column(name, justify="right", no_wrap=True, style=style)
    for r in rows:
        table.add_row(*(r[n] for n in names))
    table.add_section()
    table.add_row(*(total[n] for n in names))
    return table


def _cells(report: StatsReport, g: Group, label: Text, top: float) -> dict[str, Text | Bar | str]:
    u = g.main
    cells: dict[str, Text | Bar | str] = {
        "label": label,
        "sessions": f"{len(g.sessions):,}",
        "input": fmt_tokens(u.input),
        "output": fmt_tokens(u.output),
        "cache read": fmt_tokens(u.cache_read),
        "cache write": fmt_tokens(u.cache_write),
        "(1h)": fmt_tokens(u.cache_write1h),
        "reasoning": fmt_tokens(u.reasoning),
        "cost": Text(fmt_cost(u.cost), style="bold"),
        "active path": fmt_cost(g.path.cost) if g.path is not None else "",
        "abandoned": fmt_cost(g.abandoned.cost) if g.abandoned is not None else "",
        "nested": fmt_cost(g.tools.cost) if g.tools.count else "",
        "subagents": fmt_cost(g.subagents.cost) if g.subagents and g.subagents.count else "",
        "summaries": fmt_cost(g.summaries.cost) if g.summaries.count else "",
        "bar": Bar(top, 0, u.cost, width=BAR_WIDTH, color="cyan") if top else "",
    }
    return cells


def print_stats(report: StatsReport, *, console: Console | None = None) -> None:
    """Print the table and the lines under it (deduplication, nested usage, unreadable)."""
    console = console or PipeConsole()
    bars = console.is_terminal
    if not report.groups:
        console.print(f"No usage found in {plural(report.files, 'session file')}.")
    else:
        console.print(stats_table(report, width=console.width, bars=bars))
    d = report.deduplicated
    total = report.total
    console.print(
        f"{plural(report.files, 'session file')}, {plural(len(total.sessions), 'session')} "
        f"with usage, {plural(total.main.count, 'model call')} counted."
    )
    if d.count:
        console.print(
            f"[bold]Deduplicated:[/] {plural(d.count, 'record')} copied by forks "
            f"({fmt_tokens(d.tokens)} tokens, {fmt_cost(d.cost)}) counted once, in the file "
            "where they first appeared.",
            highlight=False,
        )
    else:
        console.print("Deduplicated: nothing (no copied history found).", highlight=False)
    if report.repeated.count:
        r = report.repeated
        console.print(
            f"[bold]Subagents[/] counted once, in their own files: "
            f"{plural(r.count, 'subagent result')} repeating their usage "
            f"({fmt_tokens(r.tokens)} tokens, {fmt_cost(r.cost)}) left out.",
            highlight=False,
        )
    if total.tools.count:
        t = total.tools
        console.print(
            f"[magenta]Nested usage[/] (tool results' own model calls; not in the columns "
            f"above): {plural(t.count, 'record')}, {fmt_tokens(t.tokens)} tokens, "
            f"{fmt_cost(t.cost)}.",
            highlight=False,
        )
    if total.summaries.count:
        t = total.summaries
        console.print(
            f"[magenta]Summaries[/] (their own model calls; not in the columns above): "
            f"{plural(t.count, 'record')}, "
            f"{fmt_tokens(t.tokens)} tokens, {fmt_cost(t.cost)}.",
            highlight=False,
        )
    if total.tools.count or total.summaries.count:
        t = UsageTotals()
        for part in (total.main, total.tools, total.summaries):
            t += part
        console.print(
            f"[bold]All usage[/] (all three, as Pi's /session counts it): "
            f"{fmt_tokens(t.tokens)} tokens, {fmt_cost(t.cost)}.",
            highlight=False,
        )
    for _path, reason in report.unreadable[:20]:
        console.print(Text.assemble(("skipped ", "yellow"), reason), highlight=False)
