"""Provides ``piview print``: one branch of a session written out with the viewer's rendering.

The same per-role renderers as the transcript view draw each item; the flags choose what is
expanded. Output goes to whatever Rich console is given: with colour on a terminal, plain
text when piped (Rich detects that when the console is built with defaults).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

from rich.console import Console, Group

from piview.render.items import Item, build_items, render_header, render_item
from piview.render.pipe import PipeConsole

if TYPE_CHECKING:
    from piview.model.session import Session

__all__ = ["ToolsMode", "cmd_print", "print_branch"]

ToolsMode = Literal["full", "preview", "none"]

_TOOL_KINDS = frozenset({"tool", "orphan_result", "bash"})


def _expanded(item: Item, *, thinking: bool, tools: str) -> bool:
    if item.kind == "thinking":
        return thinking
    if item.kind in _TOOL_KINDS:
        return tools == "full"
    return item.expanded


def print_branch(
    session: Session,
    leaf: int | None,
    *,
    thinking: bool,
    tools: str,
    hidden: bool,
    console: Console,
) -> None:
    """Write the branch root→``leaf`` (the file's last entry when ``None``) to ``console``.

    Args:
        session: the loaded session.
        leaf: entry index of the branch's last entry.
        thinking: expand thinking blocks (else one line each).
        tools: ``full`` (expanded), ``preview`` (collapsed preview) or ``none`` (only the
            one-line header) for tool calls, orphan results and ``!`` shell runs.
        hidden: include ``display: false`` custom messages and ``custom`` entries.
        console: where to write; its width is the page width.
    """
    if leaf is None:
        leaf = session.tree.leaf
    if leaf is None:
        return
    items = build_items(session, session.tree.path(leaf), show_hidden=hidden)
    width = max(20, console.width)
    first = True
    for item in items:
        if not first:
            console.print()
        first = False
        expanded = _expanded(item, thinking=thinking, tools=tools)
        if tools == "none" and item.kind in _TOOL_KINDS:
            # In a Group: printed bare, a Text would wrap instead of being cut to one line.
            console.print(Group(render_header(session, item, expanded=False, width=width)))
        else:
            console.print(render_item(session, item, expanded=expanded, width=width))


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="piview print",
        description="Print one branch of a session (root to leaf) as text.",
    )
    p.add_argument("file", help="a Pi session file (.jsonl)")
    p.add_argument(
        "--leaf", metavar="ID", help="print the branch through this entry (id or unique prefix)"
    )
    p.add_argument("--thinking", action="store_true", help="show thinking blocks in full")
    p.add_argument(
        "--tools",
        choices=("full", "preview", "none"),
        default="preview",
        help="tool output: full, a short preview (default), or none (one line per call)",
    )
    p.add_argument(
        "--hidden",
        action="store_true",
        help="include hidden content (display:false messages, extension state)",
    )
    return p


def cmd_print(argv: Sequence[str], console: Console | None = None) -> int:
    """``piview print FILE [--leaf ID] [--thinking] [--tools full|preview|none] [--hidden]``.

    Raises:
        piview.cli.CliError: the file cannot be read, or ``--leaf`` matches no entry or
            several.
    """
    from piview.cli import CliError, resolve_branch
    from piview.model import SessionOpenError, load_session

    args = _parser().parse_args(list(argv))
    try:
        session = load_session(args.file)
    except SessionOpenError as exc:
        raise CliError(str(exc)) from None
    # Same --leaf rule as the other subcommands: the branch through that entry, down to its
    # newest leaf (errors for unknown or ambiguous ids are raised there).
    leaf, _entry = resolve_branch(session, args.leaf, args.file)
    console = console or PipeConsole(highlight=False)
    print_branch(
        session,
        leaf,
        thinking=args.thinking,
        tools=args.tools,
        hidden=args.hidden,
        console=console,
    )
    return 0
