"""Provides the human-readable form of ``piview context``: settings, then a row per message."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from piview.render.format import fmt_tokens
from piview.render.pipe import PipeConsole
from piview.render.sanitize import sanitize_line


def print_context(data: dict[str, Any], *, console: Console | None = None) -> None:
    """Print a ``piview context --json`` object as a header and a table of messages."""
    console = console or PipeConsole()
    model = data["model"]
    model_text = f"{model['provider'] or '?'}/{model['modelId'] or '?'}" if model else "–"
    head = Table.grid(padding=(0, 2))
    head.add_column(style="bold")
    head.add_column()
    # Everything comes from the file: sanitised, so no escape sequence reaches the terminal.
    head.add_row("at", Text(sanitize_line(data["at"])))
    head.add_row("thinking", Text(sanitize_line(data["thinking_level"])))
    head.add_row("model", Text(sanitize_line(model_text)))
    messages = data["messages"]
    sent = sum(1 for m in messages if m["sent"])
    head.add_row("messages", f"{len(messages)} built, {sent} sent")
    head.add_row("estimate", f"{fmt_tokens(data['estimate'])} tokens (Pi's estimateTokens)")
    console.print(head)
    system = data["system"]
    if system is not None:
        console.print(Text("system prompt", style="bold"))
        for p in system["prompts"]:
            console.print(Text(sanitize_line(f"  {p['entry_id']}  {p['text']}")[:200]))
        for name, sec in system["sections"].items():
            console.print(Text(sanitize_line(f"  § {name}: {sec['text']}")[:160]))
        for name in system["removed_sections"]:
            console.print(Text(sanitize_line(f"  § {name}: removed")))
        tools = ", ".join(t["name"] for t in system["tools"]) or "none"
        console.print(Text(sanitize_line(f"  tools: {tools}")))
    table = Table(show_edge=False, pad_edge=False, expand=True)
    table.add_column("#", justify="right")
    table.add_column("entry", no_wrap=True)
    table.add_column("role", no_wrap=True)
    table.add_column("≈ tokens", justify="right", no_wrap=True)
    table.add_column("estimate", justify="right", no_wrap=True)
    table.add_column("text", ratio=1, no_wrap=True, overflow="ellipsis")
    for n, m in enumerate(messages, 1):
        role = m["role"] if m["sent"] else f"{m['role']} (not sent)"
        tokens = fmt_tokens(m["tokens"]) if m["tokens"] is not None else "–"
        estimate = fmt_tokens(m["estimate"]) if m["estimate"] is not None else "–"
        # Text, not str: a str cell would be parsed as Rich markup ("[git-context]").
        table.add_row(
            str(n),
            Text(sanitize_line(m["entry_id"])),
            Text(sanitize_line(role)),
            tokens,
            estimate,
            Text(sanitize_line(m["text"])[:300]),
        )
    console.print(table)
