"""Provides :class:`EntryJsonScreen`: any entry exactly as the file has it, as JSON, with its
line number."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.binding import Binding

from piview.render.format import fmt_bytes
from piview.render.jsonview import MAX_JSON_CHARS, json_syntax
from piview.render.roles._fields import entry_rows
from piview.render.sanitize import sanitize, sanitize_line
from piview.widgets.pager import PagerModal

if TYPE_CHECKING:
    from piview.model import Session

_DECODE_LIMIT = 8 * 1024 * 1024
"""Lines longer than this are shown as their first characters, not decoded."""


def entry_json_renderable(session: Session, entry: int) -> RenderableType:
    """Entry ``entry``'s line: where it is, and its JSON (unknown fields included)."""
    length = session.line_length(entry)
    head = Text()
    head.append("entry ", style="bold")
    head.append(sanitize_line(session.ids[entry]) or "?", style="bold cyan")
    head.append(f"  ·  line {session.line_of(entry):,}  ·  {fmt_bytes(length)}", style="dim")
    node = session.nodes[entry]
    kind = node.type or "?"
    role = node.message.role if node.message is not None else None
    head.append(f"  ·  {kind}" + (f" / {role}" if role else ""), style="dim")
    if length > _DECODE_LIMIT:
        raw = session.read_line(entry)[:MAX_JSON_CHARS].decode("utf-8", "replace")
        note = Text(
            f"\nThe line is {fmt_bytes(length)}: its first {MAX_JSON_CHARS:,} characters, "
            "as written.",
            style="yellow",
        )
        return Group(head, note, Text(sanitize(raw, tabs=False)))
    value = session.raw(entry)
    if value is None:
        return Group(head, Text("\nThe line no longer decodes (changed on disk?).", style="red"))
    facts = _facts(session, entry)
    if facts is None:
        return Group(head, Text(""), json_syntax(value))
    return Group(head, Text(""), facts, Text(""), json_syntax(value))


def _facts(session: Session, entry: int) -> Table | None:
    """What a header has no room for (usage in full, the raw stop reason, endTurn…), read."""
    try:
        rows = entry_rows(session.entry(entry))
    except Exception:  # noqa: BLE001 - the JSON below still shows everything
        return None
    if not rows:
        return None
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold")
    table.add_column()
    for label, value in rows:  # Text cells: a str would be read as Rich markup
        table.add_row(Text(label), Text(value))
    return table


class EntryJsonScreen(PagerModal):
    """A modal with the raw JSON of one entry. Escape closes it; it scrolls like a pager."""

    HELP_TITLE = "Entry JSON"

    BINDINGS = [
        Binding("question_mark", "app.help", "Help", tooltip="this help"),
        Binding("escape,i", "dismiss", "Close"),
        Binding("q", "app.quit", "Quit", show=False, tooltip="quit"),
    ]

    DEFAULT_CSS = """
    EntryJsonScreen { align: center middle; }
    EntryJsonScreen > PagerScroll {
        width: 90%; height: 90%; border: round $primary; background: $surface; padding: 0 1;
    }
    """

    def __init__(self, session: Session, entry: int) -> None:
        super().__init__()
        self.session = session
        self.entry = entry

    def content(self) -> RenderableType:
        """The entry's JSON."""
        return entry_json_renderable(self.session, self.entry)
