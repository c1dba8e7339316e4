"""Provides the text writer of ``piview print``: a branch drawn with the viewer's renderers.

The same per-role renderers as the transcript view draw each item; the flags choose what is
expanded. Output goes to whatever Rich console is given: with colour on a terminal, plain
text when piped (Rich detects that when the console is built with defaults). Each item is
written as soon as it is drawn, so the output streams (``| head`` stops the work early).

What a reader of a printed branch needs is never folded away: branch summaries are printed
whole, system messages with their text (a long one cut to a preview with a line count,
unless ``system="full"``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from rich.console import Console, Group
from rich.segment import Segment

from piview.export.doc import ToolsMode
from piview.render.fastlayout import layout
from piview.render.item import ItemList
from piview.render.items import Item, build_items, print_lines, render_header
from piview.render.linewriter import LineWriter
from piview.render.plain import plain_output
from piview.render.roles._common import BODY_INDENT, more_line

if TYPE_CHECKING:
    from piview.model.session import Session

__all__ = ["SYSTEM_PREVIEW_LINES", "SystemMode", "ToolsMode", "print_branch"]

SystemMode = Literal["preview", "full"]
"""How system messages are printed: their first lines with a line count, or whole."""

SYSTEM_PREVIEW_LINES = 12
"""Lines of a system message printed in preview, below its header."""

_TOOL_KINDS = frozenset({"tool", "orphan_result", "bash"})
_ALWAYS_EXPANDED = frozenset({"branch_summary", "system"})


def _expanded(item: Item, *, thinking: bool, tools: str) -> bool:
    if item.kind == "thinking":
        return thinking
    if item.kind in _TOOL_KINDS:
        return tools == "full"
    if item.kind in _ALWAYS_EXPANDED:
        return True
    return item.expanded


def print_branch(
    session: Session,
    leaf: int | None,
    *,
    thinking: bool,
    tools: str,
    hidden: bool,
    console: Console,
    system: SystemMode = "preview",
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
        system: ``preview`` cuts a long system message to its first
            :data:`SYSTEM_PREVIEW_LINES` lines and counts the rest; ``full`` prints it whole.
    """
    if leaf is None:
        leaf = session.tree.leaf
    if leaf is None:
        return
    items = build_items(session, session.tree.path(leaf), show_hidden=hidden)
    # Without colour (a pipe, a file), styles are never written: skip choosing them.
    with plain_output(console.color_system is None):
        _print_items(session, items, thinking=thinking, tools=tools, system=system, console=console)


def _print_items(
    session: Session,
    items: ItemList,
    *,
    thinking: bool,
    tools: str,
    system: SystemMode,
    console: Console,
) -> None:
    """Each item, as soon as it is drawn (the output streams), a blank line between two."""
    width = max(20, console.width)
    # Lines already fit the page: written as they are, without another pass to cut them
    # (only a console narrower than the narrowest page, 20 columns, still cuts).
    crop = console.width < width
    out = LineWriter(console)
    first = True
    for item in items:
        if not first:
            out.blank()
        first = False
        expanded = _expanded(item, thinking=thinking, tools=tools)
        if tools == "none" and item.kind in _TOOL_KINDS:
            # In a Group: printed bare, a Text would wrap instead of being cut to one line.
            head = Group(render_header(session, item, expanded=False, width=width))
            out.lines(layout(console, head, console.options), crop=True)
            continue
        lines = print_lines(session, item, expanded=expanded, width=width, console=console)
        if item.kind == "system" and system == "preview":
            lines = _preview(console, lines)
        out.lines(lines, crop=crop)
    out.close()


def _preview(console: Console, lines: list[list[Segment]]) -> list[list[Segment]]:
    """The header and the first :data:`SYSTEM_PREVIEW_LINES` lines, and how many were left."""
    body = len(lines) - 1
    if body <= SYSTEM_PREVIEW_LINES + 1:  # a note would take the line it saves
        return lines
    kept = lines[: 1 + SYSTEM_PREVIEW_LINES]
    note = more_line(body - SYSTEM_PREVIEW_LINES)
    kept.append([Segment(" " * BODY_INDENT), *note.render(console, end="")])
    return kept
