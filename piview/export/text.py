"""Provides the text writer of ``piview print``: a branch drawn with the viewer's renderers.

Colour on a terminal, plain text into a pipe (Rich decides). The lines are laid out by
:mod:`piview.render.fastlayout` and written in chunks by
:class:`~piview.render.linewriter.LineWriter`, the first item at once, so the output streams.
A long branch has its second half drawn by a forked process (:mod:`piview.export.forked`).
Branch summaries are printed whole, system messages cut to a preview unless
``system="full"``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from rich.console import Console, Group
from rich.segment import Segment

from piview.export.doc import ToolsMode
from piview.export.forked import ForkedPart, Sink, can_fork
from piview.render.fastlayout import layout
from piview.render.item import ItemList
from piview.render.items import Item, build_items, print_lines, print_options, render_header
from piview.render.linewriter import LineWriter
from piview.render.plain import plain_output
from piview.render.roles._common import BODY_INDENT, more_line
from piview.render.roles._fields import details_in_body, fork_note

if TYPE_CHECKING:
    from piview.model.session import Session

__all__ = ["PARALLEL_BYTES", "SYSTEM_PREVIEW_LINES", "SystemMode", "ToolsMode", "print_branch"]

SystemMode = Literal["preview", "full"]
"""How system messages are printed: their first lines with a line count, or whole."""

SYSTEM_PREVIEW_LINES = 12
"""Lines of a system message printed in preview, below its header."""

_TOOL_KINDS = frozenset({"tool", "orphan_result", "bash"})
_ALWAYS_EXPANDED = frozenset({"branch_summary", "system", "custom"})


def _expanded(item: Item, *, thinking: bool, tools: str) -> bool:
    if item.kind == "thinking":
        return thinking
    if item.kind in _TOOL_KINDS:
        return tools == "full"
    if item.kind in _ALWAYS_EXPANDED:
        return True
    return item.expanded


PARALLEL_BYTES = 4 * 1024 * 1024
"""Bytes of entries a branch holds before its second half is drawn by a second process."""


def print_branch(
    session: Session,
    leaf: int | None,
    *,
    thinking: bool,
    tools: str,
    hidden: bool,
    console: Console,
    system: SystemMode = "preview",
    processes: int | None = None,
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
        processes: 2 draws the second half of the branch in a forked process, 1 draws it
            all here; ``None`` chooses 2 for a branch of :data:`PARALLEL_BYTES` or more where
            a second CPU is idle (:func:`~piview.export.forked.can_fork`).
    """
    if leaf is None:
        leaf = session.tree.leaf
    if leaf is None:
        return
    items = build_items(session, session.tree.path(leaf), show_hidden=hidden)
    # Without colour (a pipe, a file), styles are never written: skip choosing them.
    # Print has no inspector: what an assistant's header has no room for goes under its text.
    with plain_output(console.color_system is None), details_in_body():
        printer = _Printer(session, console, thinking=thinking, tools=tools, system=system)
        printer.run(items, processes)


class _Printer:
    """Draws items and writes them, a blank line between two."""

    def __init__(
        self, session: Session, console: Console, *, thinking: bool, tools: str, system: str
    ) -> None:
        self.session = session
        self.console = console
        self.thinking = thinking
        self.tools = tools
        self.system = system
        self.width = max(20, console.width)
        # Lines already fit the page: written as they are, without another pass to cut them
        # (only a console narrower than the narrowest page, 20 columns, still cuts).
        self.crop = console.width < self.width

    def run(self, items: ItemList, processes: int | None) -> None:
        """All the items, each written as soon as it is drawn (in chunks: the output streams)."""
        out = LineWriter(self.console)
        note = fork_note(self.session, self.width)
        if note is not None:  # a fork names its parent session first, as the export does
            out.lines(layout(self.console, Group(note), self.console.options), crop=True)
            out.blank()
        split = self._split(items, processes) if out.direct else len(items)
        if split >= len(items):
            self.draw(items, 0, len(items), out)
            out.close()
            return
        # The second half in a forked child (sharing the loaded session), read back in order.
        with ForkedPart(lambda sink: self._draw_to(items, split, sink)) as part:
            self.draw(items, 0, split, out)
            out.close()
            if not part.copy(out.write):
                # The child stopped early: the items it did not write are drawn here.
                self.draw(items, split + part.done, len(items), out)
                out.close()

    def _draw_to(self, items: ItemList, start: int, sink: Sink) -> None:
        out = LineWriter(self.console, sink=sink)
        self.draw(items, start, len(items), out)
        out.close()

    def _split(self, items: ItemList, processes: int | None) -> int:
        """Where the second process takes over (``len(items)``: no second process)."""
        n = len(items)
        if processes == 1 or n < 2 or (processes is None and not can_fork()):
            return n
        length = self.session.line_length
        # What an item costs to draw, roughly: a fixed part and its entry's size.
        costs = [512 + length(items.entry(k)) for k in range(n)]
        total = sum(costs)
        if processes is None and total < PARALLEL_BYTES:
            return n
        half, run = total / 2, 0
        for k, c in enumerate(costs):
            run += c
            if run >= half:
                return max(1, min(n - 1, k + 1))
        return n

    def draw(self, items: ItemList, start: int, stop: int, out: LineWriter) -> None:
        """Items ``start`` to ``stop`` (a blank line before each but the branch's first)."""
        session, console, width = self.session, self.console, self.width
        thinking, tools = self.thinking, self.tools
        preview = self.system == "preview"
        options = print_options(console, width)  # made once, not for every item
        for k in range(start, stop):
            item = items[k]
            if k:
                out.blank()
            expanded = _expanded(item, thinking=thinking, tools=tools)
            if tools == "none" and item.kind in _TOOL_KINDS:
                # In a Group: printed bare, a Text would wrap instead of being cut to one line.
                head = Group(render_header(session, item, expanded=False, width=width))
                out.lines(layout(console, head, console.options), crop=True)
                continue
            lines = print_lines(
                session, item, expanded=expanded, width=width, console=console, options=options
            )
            if item.kind == "system" and preview:
                lines = _preview(console, lines)
            out.lines(lines, crop=self.crop)


def _preview(console: Console, lines: list[list[Segment]]) -> list[list[Segment]]:
    """The header and the first :data:`SYSTEM_PREVIEW_LINES` lines, and how many were left."""
    body = len(lines) - 1
    if body <= SYSTEM_PREVIEW_LINES + 1:  # a note would take the line it saves
        return lines
    kept = lines[: 1 + SYSTEM_PREVIEW_LINES]
    note = more_line(body - SYSTEM_PREVIEW_LINES)
    kept.append([Segment(" " * BODY_INDENT), *note.render(console, end="")])
    return kept
