"""Provides the human-readable form of ``piview info``."""

from __future__ import annotations

import os
from typing import Any

from rich.console import Console
from rich.table import Table

from piview.render.format import fmt_cost, fmt_tokens, plural
from piview.render.pipe import PipeConsole


def print_info(info: dict[str, Any], *, path: str, console: Console | None = None) -> None:
    """Print the summary of ``piview info`` as tables."""
    console = console or PipeConsole()  # `piview info FILE | head` ends with status 0
    head = Table.grid(padding=(0, 2))
    head.add_column(style="bold")
    head.add_column()
    head.add_row("file", path)
    head.add_row("session", str(info["session_id"] or "–"))
    head.add_row("name", str(info["name"] or "–"))
    if info.get("title"):
        head.add_row("title", str(info["title"]))
    head.add_row("cwd", str(info["cwd"] or "–"))
    of = info.get("subagent_of")
    if of:
        call = f" (call {of['tool_call_id']})" if of.get("tool_call_id") else ""
        head.add_row("subagent of", f"{of['path']}{call}")
    elif info.get("parent_session"):
        head.add_row("forked from", str(info["parent_session"]))
    head.add_row("version", str(info["version"]))
    head.add_row("entries", str(info["entries"]))
    head.add_row(
        "tree",
        f"{plural(len(info['roots']), 'root')}, {plural(len(info['leaves']), 'leaf')}, "
        f"{plural(len(info['branch_points']), 'branch point')}, "
        f"path of {plural(len(info['path']), 'entry')}",
    )
    head.add_row("leaf", str(info["leaf"] or "–"))
    if "stream" in info:  # Pi's event stream, folded into a session
        what = {"json": "pi --mode json", "rpc": "pi --mode rpc", "piview": "piview's capture"}
        errors = len(info["extension_errors"])
        head.add_row(
            "stream",
            f"{what.get(info['stream'], info['stream'])} · "
            f"{plural(sum(info['events'].values()), 'event')} · "
            f"{plural(errors, 'extension error')}",
        )
    console.print(head)
    counts = Table(title="entries", title_justify="left", show_edge=False)
    counts.add_column("type")
    counts.add_column("count", justify="right")
    for k, v in info["entry_types"].items():
        counts.add_row(k, str(v))
    for k, v in info["roles"].items():
        counts.add_row(f"  role {k}", str(v))
    console.print(counts)
    if info.get("events"):
        events = Table(title="stream events", title_justify="left", show_edge=False)
        events.add_column("type")
        events.add_column("count", justify="right")
        for k, v in info["events"].items():
            events.add_row(k, f"{v:,}")
        console.print(events)
        for e in info["extension_errors"]:
            console.print(
                f"[bold red]extension error[/] {e['extension']} in {e['event']}: {e['error']}",
                markup=True,
                highlight=False,
            )
    tc = info["tool_calls"]
    console.print(
        f"[bold]tool calls[/] {plural(tc['calls'], 'call')}, {plural(tc['results'], 'result')}, "
        f"{tc['paired']} paired, {tc['unanswered']} unanswered, "
        f"{plural(tc['orphan_results'], 'orphan result')}, {plural(tc['errors'], 'error')}"
    )
    usage = Table(title="usage", title_justify="left", show_edge=False)
    for col in ("", "input", "output", "cache read", "cache write", "(1h)", "reasoning", "cost"):
        # The labels unwrapped: at 80 columns the numbers' headers wrap instead.
        usage.add_column(col, justify="right" if col else "left", no_wrap=not col)
    rows = [
        ("branch", "path"),
        ("whole file", "all"),
        ("tool results", "tools"),
        ("summaries", "summaries"),
        ("total", "total"),  # Pi's /session: the three above
    ]
    if info.get("subagents"):
        rows.append(("with subagents", "with_subagents"))  # the file's and its children's
    side = info["usage"].get("model_usage") or {}
    if side.get("input") or side.get("output") or side.get("cost"):
        rows.append(("other model work", "model_usage"))  # oh-my-pi's model_usage entries
    for label, key in rows:
        if key == "total":
            usage.add_section()
        u = info["usage"][key]
        usage.add_row(
            label,
            fmt_tokens(u["input"]),
            fmt_tokens(u["output"]),
            fmt_tokens(u["cacheRead"]),
            fmt_tokens(u["cacheWrite"]),
            fmt_tokens(u["cacheWrite1h"]),
            fmt_tokens(u["reasoning"]),
            fmt_cost(u["cost"]),
        )
    console.print(usage)
    if info.get("subagents"):
        kids = info["subagents"]
        console.print(f"[bold]subagents[/] {plural(len(kids), 'child session')}:", highlight=False)
        for k in kids[:20]:
            console.print(
                f"  {k['agent'] or '?'}  {fmt_cost(k['cost'])}  {fmt_tokens(k['tokens'])} tokens"
                f"  {os.path.relpath(k['path'], os.path.dirname(os.path.abspath(path)))}",
                markup=False,
                highlight=False,
            )
        if len(kids) > 20:
            console.print(f"  … and {len(kids) - 20} more")
    if info["bad_lines"]:
        console.print(f"[bold yellow]{plural(len(info['bad_lines']), 'bad line')} skipped:[/]")
        for b in info["bad_lines"][:20]:
            console.print(f"  line {b['line']}: {b['reason']}", markup=False, highlight=False)
        if len(info["bad_lines"]) > 20:
            console.print(f"  … and {len(info['bad_lines']) - 20} more")
