"""Provides :class:`ToolsScreen`: every tool call of the branch, filterable, sortable, with
totals per tool."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import ModalScreen
from textual.widgets import DataTable, Input, Static

from piview.catalog.subagents import SUBAGENT_TOOLS, call_children
from piview.model.tools import (
    ToolRow,
    ToolStats,
    branch_tool_rows,
    cached_tool_rows,
    tool_stats,
)
from piview.render.format import fmt_duration_ms
from piview.render.sanitize import sanitize_line
from piview.render.tooltable import STATUS_STYLE, argument_summary, children_cell
from piview.widgets.keybar import KeyBar
from piview.widgets.lazy_table import LazyTable
from piview.widgets.text_input import TextInput

if TYPE_CHECKING:
    from piview.model import Session

STATUSES = ("all", "ok", "error", "no_result", "orphan_result")

_MISSING = float("inf")


def _by_latency(r: ToolRow) -> tuple[float, int]:
    return (-r.latency_ms if r.latency_ms is not None else _MISSING, r.entry)


def _by_output(r: ToolRow) -> tuple[float, int]:
    return (-r.output_chars if r.output_chars is not None else _MISSING, r.entry)


SORTS: dict[str, Callable[[ToolRow], Any] | None] = {
    "call order": None,
    "latency": _by_latency,  # slowest first, calls without a result last
    "output": _by_output,  # biggest first
    "name": lambda r: (r.name, r.entry, r.part),
    "status": lambda r: (STATUSES.index(r.status), r.entry, r.part),
}
"""The orders ``S`` cycles through."""

_STATUS_WIDTH = len("orphan_result")


class ToolsScreen(ModalScreen[tuple[int, int] | None]):
    """The tools view. Dismisses with ``(entry, part)`` of the chosen call, or ``None``.

    Keys: :attr:`BINDINGS` (the help screen, ``?``, lists them from there, with a line each).
    """

    AUTO_FOCUS = "DataTable"
    HELP_TITLE = "Tools view"

    BINDINGS = [
        Binding("escape,T", "close", "Close"),
        Binding("q", "app.quit", "Quit", show=False, tooltip="quit"),
        Binding("question_mark", "app.help", "Help", tooltip="this help"),
        Binding("s", "cycle_status", "Status filter"),
        Binding("S", "cycle_sort", "Sort"),
        Binding("slash", "focus_filter", "Name filter"),
    ]

    DEFAULT_CSS = """
    ToolsScreen { align: center middle; }
    ToolsScreen #box { width: 96%; height: 92%; border: round $primary; background: $surface; }
    ToolsScreen #filter { height: 3; }
    ToolsScreen DataTable { height: 1fr; }
    ToolsScreen #totals { height: auto; max-height: 10; color: $text-muted; padding: 0 1; }
    """

    TOTALS_FULL_HEIGHT = 30
    """Below this many lines the totals per tool take one line, so the calls keep the room."""

    BIG_BRANCH = 2_000
    """Branches of at least this many entries have their calls collected in a worker (unless
    the session screen collected them ahead), the view usable meanwhile."""

    def __init__(self, session: Session, path: list[int]) -> None:
        super().__init__()
        self.session = session
        self._path = path
        rows = cached_tool_rows(session, path)
        if rows is None and len(path) < self.BIG_BRANCH:
            rows = branch_tool_rows(session, path)
        self.collecting = rows is None
        self.rows: list[ToolRow] = rows or []
        self.status = "all"
        self.sort = "call order"
        self.name_filter = ""
        self._shown: list[ToolRow] = []
        self._rows_changed()
        self._layout_for: tuple[int, int] = (0, 0)

    def _rows_changed(self) -> None:
        self._all_stats: list[ToolStats] | None = None
        names = {r.name for r in self.rows}
        self._name_width = max((len(sanitize_line(n)) for n in names), default=4)
        self._subagents = bool(names & SUBAGENT_TOOLS)
        """Whether a column names the child sessions of subagent calls."""

    def compose(self) -> ComposeResult:
        """Filter field, the table, and totals per tool."""
        from textual.containers import Vertical

        with Vertical(id="box"):
            yield TextInput(placeholder="filter by tool name", id="filter")
            yield LazyTable(cursor_type="row", zebra_stripes=True)
            yield Static(id="totals")
        yield KeyBar()

    def on_mount(self) -> None:
        """Fill the table and focus it (a long branch's calls arrive from a worker)."""
        self._refill()
        self.query_one(DataTable).focus()
        if self.collecting:
            from piview.widgets.offthread import compute_off_thread

            session, path = self.session, self._path
            compute_off_thread(
                self,
                lambda: branch_tool_rows(session, path),
                self._collected,
                group="tool-rows",
                description="Collecting tool calls",
            )

    def _collected(self, rows: list[ToolRow] | None) -> None:
        self.collecting = False
        self.rows = rows or []
        self._rows_changed()
        if self.is_mounted:
            self._refill()

    def on_resize(self) -> None:
        """Columns and totals follow the size."""
        if self._layout_for != (self.size.width, self.size.height):
            self._refill()

    # ------------------------------------------------------------------ layout

    def _columns(self, width: int) -> list[tuple[str, int]]:
        """``(label, width)`` of the columns that fit ``width`` cells; the arguments take
        what is left, and the least useful columns go first when it is narrow."""
        cols = [
            ("#", max(1, len(str(len(self.rows))))),
            ("tool", min(max(4, self._name_width), 18)),
            ("arguments", 0),
            ("status", _STATUS_WIDTH),
            ("latency", 7),
            ("chars out", 9),
            ("entry", 8),
        ]
        if self._subagents:
            cols.insert(4, ("subagents", 17))
        for drop in ("entry", "chars out", "latency"):
            used = sum(w + 2 for _n, w in cols)  # each cell has one cell of padding a side
            if width - used >= 24:
                break
            cols = [c for c in cols if c[0] != drop]
        used = sum(w + 2 for _n, w in cols)
        args = max(10, width - used)
        return [(n, args if n == "arguments" else w) for n, w in cols]

    def _refill(self) -> None:
        table = self.query_one(LazyTable)
        # Before the first layout: the box (96 %) less its border and the scrollbar.
        width = max(40, (table.size.width or int(self.size.width * 0.96) - 2) - 2)
        self._layout_for = (self.size.width, self.size.height)
        cursor = table.cursor_row
        table.clear(columns=True)
        cols = self._columns(width)
        for name, w in cols:
            table.add_column(name, width=w, key=name)
        needle = self.name_filter.lower()
        status = self.status
        if status == "all" and not needle:
            shown = list(self.rows)
        else:
            shown = [
                r
                for r in self.rows
                if (status == "all" or r.status == status) and needle in r.name.lower()
            ]
        key = SORTS[self.sort]
        self._shown = sorted(shown, key=key) if key is not None else shown
        # A row's cells are made when it is first drawn: thousands of calls open at once.
        table.show_rows(len(self._shown), partial(self._cells, [n for n, _w in cols], cols))
        if self._shown:
            table.move_cursor(row=min(max(0, cursor), len(self._shown) - 1))
        self.query_one("#totals", Static).update(Text("\n".join(self._totals())))

    def _cells(self, names: list[str], cols: list[tuple[str, int]], n: int) -> list[Text]:
        """The cells of the ``n``-th row shown, in the columns ``names``."""
        r = self._shown[n]
        args_width = dict(cols)["arguments"]
        make: dict[str, Callable[[], Text]] = {
            "#": lambda: Text(str(r.number)),  # the call's number on the branch
            "tool": lambda: Text(sanitize_line(r.name), style="bold"),
            # Text, not str: DataTable parses str cells as markup ("[a-z]+", "[/x]").
            "arguments": lambda: Text(
                sanitize_line(argument_summary(r.name, r.arguments, limit=args_width))
            ),
            "status": lambda: Text(r.status, style=STATUS_STYLE[r.status]),
            "latency": lambda: Text(fmt_duration_ms(r.latency_ms), justify="right"),
            "chars out": lambda: Text(
                f"{r.output_chars:,}" if r.output_chars is not None else "–", justify="right"
            ),
            "entry": lambda: Text(sanitize_line(self.session.ids[r.entry][:8])),
            "subagents": lambda: self._children_cell(r),
        }
        return [make[name]() for name in names]

    def _children_cell(self, r: ToolRow) -> Text:
        kids = call_children(self.session, r.name, r.arguments, r.result)
        return Text(sanitize_line(children_cell(self.session, kids)), style="cyan")

    def _totals(self) -> list[str]:
        if self.collecting:
            return [f"collecting the tool calls of {len(self._path):,} entries…"]
        n = len(self.rows)
        head = (
            f"{len(self._shown)} of {n} call{'' if n == 1 else 's'} · status: {self.status}"
            + (f" · name: {self.name_filter}" if self.name_filter else "")
            + (f" · sorted by {self.sort}" if self.sort != "call order" else "")
        )
        if len(self._shown) == len(self.rows):  # every row: summed once, not every refill
            if self._all_stats is None:
                self._all_stats = tool_stats(self.rows)
            totals = self._all_stats
        else:
            totals = tool_stats(self._shown)
        if self.size.height and self.size.height < self.TOTALS_FULL_HEIGHT:
            # Short screen: one line, so that the calls keep the room.
            brief = [
                f"{st.name} {st.count}" + (f" ({st.errors} ✗)" if st.errors else "")
                for st in totals
            ]
            return [head + (" · " + ", ".join(brief) if brief else "")]
        lines = [head]
        for st in totals[:6]:
            calls = "call " if st.count == 1 else "calls"
            errors = "error " if st.errors == 1 else "errors"
            lines.append(
                f"{st.name:<16} {st.count:>4} {calls}  {st.errors:>3} {errors}  "
                f"median {fmt_duration_ms(st.median_ms):>7}  max {fmt_duration_ms(st.max_ms):>7}"
            )
        if len(totals) > 6:
            rest = totals[6:]
            lines.append(
                f"… {len(rest)} more: " + ", ".join(f"{st.name} {st.count}" for st in rest)
            )
        return lines

    # ------------------------------------------------------------------ actions

    def action_cycle_status(self) -> None:
        """all → ok → error → no_result → orphan_result → all."""
        self.status = STATUSES[(STATUSES.index(self.status) + 1) % len(STATUSES)]
        self._refill()

    def action_cycle_sort(self) -> None:
        """call order → latency → output → name → status → call order."""
        orders = list(SORTS)
        self.sort = orders[(orders.index(self.sort) + 1) % len(orders)]
        self._refill()
        self.notify(f"Sorted by {self.sort}", timeout=2)

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
