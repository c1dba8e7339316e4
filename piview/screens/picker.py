"""Provides :class:`PickerScreen`: every Pi session on this machine, newest first.

Rows appear at once from quick summaries (header and tail of each file); a thread worker then
indexes each file for its entry count, exact name and cost, taking unchanged files from the
on-disk cache so that a second start is instant. The session chosen is loaded here and posted
as :class:`PickerScreen.SessionChosen`, for the app to open.
"""

from __future__ import annotations

import time
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Input, Static
from textual.worker import get_current_worker

from piview.catalog.discovery import find_session_files
from piview.catalog.summaries import SessionSummary, SummaryCache, full_summary, quick_summary
from piview.render.format import fmt_bytes, fmt_cost
from piview.render.sanitize import sanitize_line
from piview.widgets.keybar import KeyBar

if TYPE_CHECKING:
    from piview.model import Session

__all__ = ["PickerScreen"]


def _age(mtime: float, now: float) -> str:
    d = max(0.0, now - mtime)
    for unit, secs in (
        ("y", 31536000),
        ("mo", 2592000),
        ("w", 604800),
        ("d", 86400),
        ("h", 3600),
        ("m", 60),
    ):
        if d >= secs:
            return f"{int(d // secs)}{unit} ago"
    return "now"


class PickerScreen(Screen[None]):
    """Pick a session to open. Type to filter; Enter opens; q quits.

    | Key(s) | Description |
    | :- | :- |
    | (type) | Filter by name, project folder or first message |
    | ↑ ↓ | Move |
    | enter | Open the session |
    | escape | Clear the filter |
    """

    BINDINGS = [
        Binding("down", "move(1)", "Down", show=False),
        Binding("up", "move(-1)", "Up", show=False),
        Binding("pagedown", "move(10)", "Page down", show=False),
        Binding("pageup", "move(-10)", "Page up", show=False),
        Binding("escape", "clear", "Clear filter"),
        Binding("ctrl+q", "app.quit", "Quit"),
    ]

    class SessionChosen(Message):
        """A session was chosen and loaded: the app shows it above the picker."""

        def __init__(self, session: Session) -> None:
            super().__init__()
            self.session = session
            """The session, open (the screen that shows it closes it)."""

    DEFAULT_CSS = """
    PickerScreen #where { height: 1; background: $panel; padding: 0 1; }
    PickerScreen #filter { height: 3; }
    PickerScreen DataTable { height: 1fr; }
    """

    def __init__(self, root: Path, *, cache: SummaryCache | None = None) -> None:
        super().__init__()
        self.root = root
        self.cache = cache or SummaryCache()
        self.summaries: dict[str, SessionSummary] = {}
        self.order: list[str] = []
        self._shown: list[str] = []

    def compose(self) -> ComposeResult:
        """Where we looked, the filter, the list."""
        yield Static(Text(f"Pi sessions in {self.root}", style="bold"), id="where")
        yield Input(placeholder="type to filter by name, project or first message", id="filter")
        yield DataTable(cursor_type="row", zebra_stripes=True)
        yield KeyBar()

    def on_mount(self) -> None:
        """Show quick rows now; index the rest in a worker."""
        table = self.query_one(DataTable)
        table.add_columns("project", "session", "entries", "size", "modified", "cost")
        for path in find_session_files(self.root):
            st = path.stat()
            summary = self.cache.get(path, st.st_size, st.st_mtime)
            if summary is None:
                try:
                    summary = quick_summary(path)
                except OSError:
                    continue
            self.summaries[str(path)] = summary
            self.order.append(str(path))
        self._sort()
        self._refill()
        self.query_one("#filter", Input).focus()
        self._index_all()

    def _sort(self) -> None:
        # Group by project, the project with the newest session first; newest first inside.
        newest: dict[str, float] = {}
        for p in self.order:
            s = self.summaries[p]
            key = s.cwd or ""
            newest[key] = max(newest.get(key, 0.0), s.mtime)
        self.order.sort(
            key=lambda p: (
                -newest[self.summaries[p].cwd or ""],
                self.summaries[p].cwd or "",
                -self.summaries[p].mtime,
            )
        )

    def _matches(self, s: SessionSummary, needle: str) -> bool:
        if not needle:
            return True
        hay = " ".join(x for x in (s.name, s.cwd, s.first_message, s.session_id) if x).lower()
        return all(tok in hay for tok in needle.lower().split())

    def _refill(self) -> None:
        table = self.query_one(DataTable)
        needle = self.query_one("#filter", Input).value.strip()
        table.clear()
        self._shown = [p for p in self.order if self._matches(self.summaries[p], needle)]
        now = time.time()
        last_project = None
        for p in self._shown:
            s = self.summaries[p]
            project = Path(s.cwd).name if s.cwd else "?"
            table.add_row(
                Text(project if s.cwd != last_project else "", style="bold cyan"),
                Text(sanitize_line(s.title)[:48], style="bold" if s.name else ""),
                str(s.entries) if s.entries is not None else "…",
                fmt_bytes(s.size),
                Text(f"{datetime.fromtimestamp(s.mtime):%Y-%m-%d %H:%M}  {_age(s.mtime, now)}"),
                fmt_cost(s.cost) if s.cost is not None else "…",
                key=p,
            )
            last_project = s.cwd

    @work(thread=True, exclusive=True, group="index", description="Indexing sessions")
    def _index_all(self) -> None:
        worker = get_current_worker()
        for p in list(self.order):
            if worker.is_cancelled:
                return
            s = self.summaries[p]
            if s.complete:
                continue
            try:
                full = full_summary(Path(p))
            except OSError:
                continue
            self.cache.put(full)
            self.app.call_from_thread(self._update_row, p, full)
        self.cache.save()

    def _update_row(self, path: str, summary: SessionSummary) -> None:
        self.summaries[path] = summary
        table = self.query_one(DataTable)
        if path not in self._shown:
            return
        try:
            table.update_cell(
                path,
                table.ordered_columns[1].key,
                Text(sanitize_line(summary.title)[:48], style="bold" if summary.name else ""),
            )
            table.update_cell(path, table.ordered_columns[2].key, str(summary.entries))
            table.update_cell(path, table.ordered_columns[5].key, fmt_cost(summary.cost or 0))
        except Exception:  # noqa: BLE001 - the row may have been filtered away meanwhile
            pass

    @on(Input.Changed, "#filter")
    def _on_filter(self, event: Input.Changed) -> None:
        self._refill()

    @on(Input.Submitted, "#filter")
    def _on_filter_submitted(self, event: Input.Submitted) -> None:
        self._open_current()

    @on(DataTable.RowSelected)
    def _on_row(self, event: DataTable.RowSelected) -> None:
        self._open_current()

    def action_move(self, delta: int) -> None:
        """Move the highlighted row."""
        table = self.query_one(DataTable)
        if table.row_count:
            table.move_cursor(row=max(0, min(table.cursor_row + delta, table.row_count - 1)))

    def action_clear(self) -> None:
        """Clear the filter."""
        self.query_one("#filter", Input).value = ""

    def _open_current(self) -> None:
        table = self.query_one(DataTable)
        if not self._shown or table.cursor_row < 0:
            return
        path = self._shown[min(table.cursor_row, len(self._shown) - 1)]
        from piview.model import SessionOpenError, load_session

        try:
            session = load_session(path)
        except SessionOpenError as exc:
            self.notify(str(exc), severity="error", markup=False)
            return
        # The app opens it: the picker knows nothing of the session screen.
        self.post_message(self.SessionChosen(session))
