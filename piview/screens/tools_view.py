"""Provides :class:`ToolsScreen`: every tool call of the branch, filterable, with totals."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import ModalScreen
from textual.widgets import DataTable, Input, Static

from piview.model.tools import ToolRow, tool_rows, tool_stats
from piview.render.format import fmt_duration_ms
from piview.render.sanitize import sanitize_line
from piview.render.tooltable import STATUS_STYLE, argument_summary
from piview.widgets.keybar import KeyBar

if TYPE_CHECKING:
    from piview.model import Session

__all__ = ["ToolsScreen"]

STATUSES = ("all", "ok", "error", "no_result", "orphan_result")


class ToolsScreen(ModalScreen[tuple[int, int] | None]):
    """The tools view. Dismisses with ``(entry, part)`` of the chosen call, or ``None``.

    | Key(s) | Description |
    | :- | :- |
    | enter | Jump to the call in the transcript |
    | s | Cycle the status filter |
    | / | Filter by tool name |
    | escape | Close |
    """

    BINDINGS = [
        Binding("escape,T", "close", "Close"),
        Binding("s", "cycle_status", "Status filter"),
        Binding("slash", "focus_filter", "Name filter"),
    ]

    DEFAULT_CSS = """
    ToolsScreen { align: center middle; }
    ToolsScreen #box { width: 96%; height: 92%; border: round $primary; background: $surface; }
    ToolsScreen #filter { height: 3; }
    ToolsScreen DataTable { height: 1fr; }
    ToolsScreen #totals { height: auto; max-height: 10; color: $text-muted; padding: 0 1; }
    """

    def __init__(self, session: Session, path: list[int]) -> None:
        super().__init__()
        self.session = session
        self.rows: list[ToolRow] = tool_rows(session, path)
        self.status = "all"
        self.name_filter = ""
        self._shown: list[ToolRow] = []

    def compose(self) -> ComposeResult:
        """Filter field, the table, and totals per tool."""
        from textual.containers import Vertical

        with Vertical(id="box"):
            yield Input(placeholder="filter by tool name", id="filter")
            yield DataTable(cursor_type="row", zebra_stripes=True)
            yield Static(id="totals")
        yield KeyBar()

    def on_mount(self) -> None:
        """Fill the table and focus it."""
        table = self.query_one(DataTable)
        table.add_columns("#", "tool", "arguments", "status", "latency", "chars out", "entry")
        self._refill()
        table.focus()

    def _refill(self) -> None:
        table = self.query_one(DataTable)
        table.clear()
        needle = self.name_filter.lower()
        self._shown = [
            r
            for r in self.rows
            if (self.status == "all" or r.status == self.status) and needle in r.name.lower()
        ]
        for n, r in enumerate(self._shown, 1):
            table.add_row(
                str(n),
                Text(sanitize_line(r.name), style="bold"),
                # Text, not str: DataTable parses str cells as markup ("[a-z]+", "[/x]").
                Text(sanitize_line(argument_summary(r.name, r.arguments, limit=48))),
                Text(r.status, style=STATUS_STYLE[r.status]),
                fmt_duration_ms(r.latency_ms),
                f"{r.output_chars:,}" if r.output_chars is not None else "–",
                Text(sanitize_line(self.session.ids[r.entry][:8])),
            )
        totals = tool_stats(self._shown)
        lines = [
            f"{len(self._shown)} of {len(self.rows)} calls · status: {self.status}"
            + (f" · name: {self.name_filter}" if self.name_filter else "")
        ]
        for st in totals[:6]:
            lines.append(
                f"{st.name:<16} {st.count:>4} calls  {st.errors:>3} errors  "
                f"median {fmt_duration_ms(st.median_ms):>7}  max {fmt_duration_ms(st.max_ms):>7}"
            )
        if len(totals) > 6:
            rest = totals[6:]
            lines.append(
                f"… {len(rest)} more: " + ", ".join(f"{st.name} {st.count}" for st in rest)
            )
        self.query_one("#totals", Static).update(Text("\n".join(lines)))

    def action_cycle_status(self) -> None:
        """all → ok → error → no_result → orphan_result → all."""
        self.status = STATUSES[(STATUSES.index(self.status) + 1) % len(STATUSES)]
        self._refill()

    def action_focus_filter(self) -> None:
        """Type a tool name to filter."""
        self.query_one("#filter", Input).focus()

    @on(Input.Changed, "#filter")
    def _on_filter(self, event: Input.Changed) -> None:
        self.name_filter = event.value.strip()
        self._refill()

    @on(Input.Submitted, "#filter")
    def _on_filter_done(self, event: Input.Submitted) -> None:
        self.query_one(DataTable).focus()

    @on(DataTable.RowSelected)
    def _on_select(self, event: DataTable.RowSelected) -> None:
        r = self._shown[event.cursor_row]
        self.dismiss((r.entry, r.part))

    def action_close(self) -> None:
        """Close without jumping."""
        self.dismiss(None)
