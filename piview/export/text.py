"""Provides the text writer of ``piview print``: a branch drawn with the viewer's renderers.

The same per-role renderers as the transcript view draw each item; the flags choose what is
expanded. Output goes to whatever Rich console is given: with colour on a terminal, plain
text when piped (Rich detects that when the console is built with defaults).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console, Group

from piview.export.doc import ToolsMode
from piview.render.items import Item, build_items, render_header, render_item

if TYPE_CHECKING:
    from piview.model.session import Session

__all__ = ["ToolsMode", "print_branch"]

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
