"""Provides the table of ``piview tools``: every tool call of a branch, and totals per tool."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from rich.console import Group
from rich.table import Table
from rich.text import Text

from piview.catalog.subagents import short_child
from piview.model.toolargs import read_range
from piview.model.tools import ToolRow, tool_stats
from piview.render.format import fmt_duration_ms, plural

if TYPE_CHECKING:
    from pathlib import Path

    from piview.model import Session

STATUS_STYLE = {
    "ok": "green",
    "error": "bold red",
    "no_result": "yellow",
    "orphan_result": "magenta",
}
"""How each status is coloured."""


def argument_summary(name: str, args: Any, limit: int = 60) -> str:
    """A one-line summary of a call's arguments: the path, command or pattern when known."""
    if not isinstance(args, dict):
        text = "" if args is None else json.dumps(args, ensure_ascii=False)
    else:
        path = args.get("path") or args.get("file_path")
        agent, task = args.get("agent"), args.get("task")
        if name == "subagent" and isinstance(args.get("workflowScript"), str):
            text = "workflow"
        elif name == "subagent" and isinstance(agent, str):
            text = agent + (f": {task}" if isinstance(task, str) else "")
        elif name == "bash" and isinstance(args.get("command"), str):
            text = "$ " + args["command"]
        elif name == "grep" and isinstance(args.get("pattern"), str):
            text = f"/{args['pattern']}/" + (f" in {path}" if path else "")
        elif name == "find" and isinstance(args.get("pattern"), str):
            text = args["pattern"] + (f" in {path}" if path else "")
        elif isinstance(path, str):
            text = path
            if name == "read":
                text += read_range(args)
        else:
            text = json.dumps(args, ensure_ascii=False, sort_keys=True)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def children_cell(session: Session, kids: list[Path | None]) -> str:
    """The child sessions of a subagent call, by their run folders (``""`` for others)."""
    if not kids:
        return ""
    names = [short_child(session.path or "", k) for k in kids]
    return " ".join(names) if len(names) <= 3 else f"{' '.join(names[:2])} +{len(names) - 2}"


def tools_table(
    session: Session, rows: list[ToolRow], kids: list[list[Path | None]] | None = None
) -> Group:
    """The calls table (with the child sessions of subagent calls, ``kids``, when there are
    any) and the per-tool totals table."""
    calls = Table(title=f"{plural(len(rows), 'tool call')} on this branch", title_justify="left")
    with_kids = kids is not None and any(kids)
    for col, just in (
        ("#", "right"),
        ("entry", "left"),
        ("tool", "left"),
        ("arguments", "left"),
        ("status", "left"),
        ("latency", "right"),
        ("chars out", "right"),
        *([("subagents", "left")] if with_kids else []),
    ):
        wraps = col in ("arguments", "subagents")
        calls.add_column(col, justify=just, no_wrap=not wraps)  # type: ignore[arg-type]
    for n, r in enumerate(rows, 1):
        cells: list[str | Text] = [
            str(n),
            session.ids[r.entry][:8],
            r.name,
            Text(argument_summary(r.name, r.arguments)),
            Text(r.status, style=STATUS_STYLE[r.status]),
            fmt_duration_ms(r.latency_ms),
            f"{r.output_chars:,}" if r.output_chars is not None else "–",
        ]
        if with_kids and kids is not None:
            cells.append(children_cell(session, kids[n - 1]))
        calls.add_row(*cells)
    totals = Table(title="per tool", title_justify="left")
    for col in ("tool", "calls", "errors", "median", "max"):
        totals.add_column(col, justify="left" if col == "tool" else "right")
    for st in tool_stats(rows):
        totals.add_row(
            st.name,
            str(st.count),
            str(st.errors),
            fmt_duration_ms(st.median_ms),
            fmt_duration_ms(st.max_ms),
        )
    return Group(calls, totals)
