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
from textual.containers import Horizontal
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Input, Static
from textual.worker import get_current_worker

from piview.catalog.discovery import find_session_files
from piview.catalog.summaries import SessionSummary, SummaryCache, full_summary, quick_summary
from piview.render.format import fmt_bytes, fmt_cost, fmt_cost_short
from piview.render.sanitize import sanitize_line
from piview.screens.picker_search import PickerTextSearch, hit_query
from piview.widgets.keybar import KeyBar

if TYPE_CHECKING:
    from piview.catalog.fts import Hit
    from piview.model import Session
    from piview.model.query import Query

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


def _day(iso: str | None) -> str:
    """``2026-05-14`` of an ISO timestamp (local time), ``""`` when absent."""
    if not iso:
        return ""
    try:
        return f"{datetime.fromisoformat(iso.replace('Z', '+00:00')).astimezone():%Y-%m-%d}"
    except ValueError:
        return ""


def _preview(s: SessionSummary, hit: Hit | None = None) -> Text:
    """The picker's preview of one session (and of the full-text hit chosen in it)."""
    out = Text()
    out.append(sanitize_line(s.title)[:200] + "\n", style="bold")
    facts = [
        ("project", sanitize_line(s.cwd) if s.cwd else "?"),
        ("started", _day(s.created)),
        ("entries", f"{s.entries:,}" if s.entries is not None else "…"),
        ("branches", f"{s.leaves:,}" if s.leaves is not None else "…"),
        ("cost", fmt_cost(s.cost) if s.cost is not None else "…"),
        ("models", ", ".join(sanitize_line(m) for m in s.models) or "?"),
    ]
    for key, value in facts:
        out.append(f"\n{key:<9}", style="dim")
        out.append(value)
    if hit is not None:
        out.append(f"\n\nmatch ({hit.role})\n", style="bold")
        out.append(sanitize_line(hit.snippet)[:400])
    for title, text in (("first prompt", s.first_message), ("last answer", s.last_message)):
        if text:
            out.append(f"\n\n{title}\n", style="bold")
            out.append(sanitize_line(text)[:400])
    return out


class PickerScreen(PickerTextSearch, Screen[None]):
    """Pick a session to open. Type to filter; Enter opens; Escape clears, then quits.

    | Key(s) | Description |
    | :- | :- |
    | (type) | Filter by name, project folder or first message, and search every session's text |
    | ↑ ↓ | Move |
    | enter | Open the session |
    | ctrl+s | Sort by last activity, start, size, cost or name |
    | escape | Clear the filter; on an empty filter, quit |
    | ctrl+c, ctrl+q | Quit |
    """

    HELP_TITLE = "Picker"
    """The heading of this part's keys in the help screen."""

    BINDINGS = [
        Binding("down", "move(1)", "Down", show=False),
        Binding("up", "move(-1)", "Up", show=False),
        Binding("pagedown", "move(10)", "Page down", show=False),
        Binding("pageup", "move(-10)", "Page up", show=False),
        Binding("ctrl+s", "cycle_sort", "Sort"),
        # One key, two meanings: the footer shows the one that applies (check_action).
        Binding("escape", "clear", "Clear filter"),
        Binding("escape", "app.quit", "Quit"),
        # ctrl+c would copy from the filter field: here it quits, as in any terminal tool.
        Binding("ctrl+c", "app.quit", "Quit", show=False, priority=True),
    ]

    SORTS = ("last activity", "started", "size", "cost", "name")
    """The orders ctrl+s cycles through (last activity groups the sessions by project)."""

    PREVIEW_MIN_WIDTH = 140
    """From this width on, a pane beside the list previews the selected session."""

    class SessionChosen(Message):
        """A session was chosen and loaded: the app shows it above the picker."""

        def __init__(
            self, session: Session, *, entry: int | None = None, search: Query | None = None
        ) -> None:
            super().__init__()
            self.session = session
            """The session, open (the screen that shows it closes it)."""
            self.entry = entry
            """The entry of a full-text hit: shown on its branch, in view."""
            self.search = search
            """The words of a full-text hit, highlighted in the transcript."""

    DEFAULT_CSS = """
    PickerScreen #where { height: 1; background: $panel; padding: 0 1; }
    PickerScreen #filter { height: 3; }
    PickerScreen #empty { height: auto; padding: 0 1; color: $text-warning; display: none; }
    PickerScreen #body { height: 1fr; }
    PickerScreen DataTable { height: 1fr; width: 1fr; }
    PickerScreen #preview {
        width: 44; height: 1fr; padding: 0 1; border-left: tall $panel; display: none;
    }
    """

    def __init__(
        self, root: Path, *, cache: SummaryCache | None = None, search_db: Path | None = None
    ) -> None:
        super().__init__()
        self.search_db = search_db
        self.root = root
        self.cache = cache or SummaryCache()
        self.summaries: dict[str, SessionSummary] = {}
        self.order: list[str] = []
        self.sort = self.SORTS[0]
        self._shown: list[str] = []
        self._layout_width = 0
        self._cols: list[tuple[str, int]] = []

    def compose(self) -> ComposeResult:
        """Where we looked, the filter, the list."""
        yield Static(Text(f"Pi sessions in {self.root}", style="bold"), id="where")
        yield Input(
            placeholder="type to search names, projects and text (tools: for tool output too)",
            id="filter",
        )
        yield Static(id="empty")
        with Horizontal(id="body"):
            yield DataTable(cursor_type="row", zebra_stripes=True)
            yield Static(id="preview")
        yield KeyBar()

    def on_mount(self) -> None:
        """Show quick rows now; index the rest in a worker."""
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
        self._fts_start()

    def _sort(self) -> None:
        summaries = self.summaries
        if self.sort == "last activity":
            # Grouped by project, the project with the newest session first; newest first
            # inside a project.
            newest: dict[str, float] = {}
            for p in self.order:
                s = summaries[p]
                key = s.cwd or ""
                newest[key] = max(newest.get(key, 0.0), s.mtime)
            self.order.sort(
                key=lambda p: (
                    -newest[summaries[p].cwd or ""],
                    summaries[p].cwd or "",
                    -summaries[p].mtime,
                )
            )
        elif self.sort == "started":
            self.order.sort(key=lambda p: summaries[p].created or "", reverse=True)
        elif self.sort == "size":
            self.order.sort(key=lambda p: -summaries[p].size)
        elif self.sort == "cost":
            self.order.sort(key=lambda p: -(summaries[p].cost or 0.0))
        else:
            self.order.sort(key=lambda p: summaries[p].title.lower())

    def _matches(self, s: SessionSummary, needle: str) -> bool:
        if not needle:
            return True
        hay = " ".join(x for x in (s.name, s.cwd, s.first_message, s.session_id) if x).lower()
        return all(tok in hay for tok in needle.lower().split())

    def _columns(self, width: int) -> list[tuple[str, int]]:
        """``(column, width)`` for ``width`` cells: the session's title takes what is free,
        numbers are never cut, and the least needed columns go first when it is narrow."""
        projects = [Path(s.cwd).name for s in self.summaries.values() if s.cwd]
        cols = [
            ("project", min(20, max([7, *map(len, projects)]))),
            ("session", 0),
            ("entries", 7),
            ("size", 8),
            ("started", 10),
            ("modified", 24),
            ("cost", 8),
        ]
        # While the title would get less than 30 cells: drop or shorten, least needed first.
        for step in ("started", "size", "age only", "entries", "project"):
            if width - sum(w + 2 for _n, w in cols) >= 30:
                break
            if step == "age only":
                cols = [(n, 8) if n == "modified" else (n, w) for n, w in cols]
            else:
                cols = [c for c in cols if c[0] != step]
        free = width - sum(w + 2 for _n, w in cols)
        return [(n, max(12, free) if n == "session" else w) for n, w in cols]

    def _cells(
        self, s: SessionSummary, cols: list[tuple[str, int]], show_project: bool, now: float
    ) -> list[Text | str]:
        widths = dict(cols)
        out: dict[str, Text | str] = {
            "project": Text(
                (Path(s.cwd).name if s.cwd else "?") if show_project else "",
                style="bold cyan",
                overflow="ellipsis",
                no_wrap=True,
            ),
            "session": Text(
                sanitize_line(s.title)[:500],
                style="bold" if s.name else "",
                overflow="ellipsis",
                no_wrap=True,
            ),
            "entries": Text(f"{s.entries:,}" if s.entries is not None else "…", justify="right"),
            "size": Text(fmt_bytes(s.size), justify="right"),
            "started": Text(_day(s.created)),
            "modified": Text(
                f"{datetime.fromtimestamp(s.mtime):%Y-%m-%d %H:%M}  {_age(s.mtime, now)}"
                if widths.get("modified", 0) >= 24
                else _age(s.mtime, now)
            ),
            "cost": Text(fmt_cost_short(s.cost) if s.cost is not None else "…", justify="right"),
        }
        return [out[n] for n, _w in cols]

    def _refill(self) -> None:
        table = self.query_one(DataTable)
        needle = self.query_one("#filter", Input).value.strip()
        self._layout_width = self.size.width
        preview = self.query_one("#preview", Static)
        preview.display = self.size.width >= self.PREVIEW_MIN_WIDTH
        # The table's width before the first layout: the screen, less the preview and the
        # scrollbar.
        width = (self.size.width or 80) - (46 if preview.display else 0) - 2
        self._cols = self._columns(width)
        table.clear(columns=True)
        for name, w in self._cols:
            table.add_column(name, width=w, key=name)
        self._shown = [p for p in self.order if self._matches(self.summaries[p], needle)]
        now = time.time()
        last_project: str | None | bool = False
        grouped = self.sort == "last activity"
        for p in self._shown:
            s = self.summaries[p]
            show = not grouped or s.cwd != last_project
            table.add_row(*self._cells(s, self._cols, show, now), key=p)
            last_project = s.cwd
        self._add_hit_rows(table, now)
        empty = self.query_one("#empty", Static)
        if not self._shown and self.order:
            empty.update(Text(self._no_match_text(needle)))
        elif not self.order:
            empty.update(Text(f"No session files in {self.root}."))
        empty.display = not self._shown and not self.hits
        self._update_preview()

    def on_resize(self) -> None:
        """Columns follow the terminal's width."""
        if self.is_mounted and self.size.width != self._layout_width:
            self._refill()

    @on(DataTable.RowHighlighted)
    def _on_highlight(self, event: DataTable.RowHighlighted) -> None:
        self._update_preview()

    def _update_preview(self) -> None:
        preview = self.query_one("#preview", Static)
        if not preview.display:
            return
        table = self.query_one(DataTable)
        hit = self.hit_at(table.cursor_row)
        if hit is not None:
            preview.update(_preview(self.summaries[hit.session_path], hit))
            return
        if not self._shown or table.cursor_row < 0:
            preview.update("")
            return
        s = self.summaries[self._shown[min(table.cursor_row, len(self._shown) - 1)]]
        preview.update(_preview(s))

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
        k = self._shown.index(path)
        grouped = self.sort == "last activity"
        prev = self.summaries[self._shown[k - 1]].cwd if k else False
        cells = self._cells(summary, self._cols, not grouped or summary.cwd != prev, time.time())
        try:
            for (name, _w), cell in zip(self._cols, cells, strict=True):
                if name in ("session", "entries", "cost"):
                    table.update_cell(path, name, cell)
        except Exception:  # noqa: BLE001 - the row may have been filtered away meanwhile
            pass
        if table.cursor_row == k:
            self._update_preview()

    @on(Input.Changed, "#filter")
    def _on_filter(self, event: Input.Changed) -> None:
        self._fts_schedule()
        self._refill()
        self.refresh_bindings()  # escape: clear or quit

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

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Escape clears a filter, and quits when there is none."""
        if action in ("clear", "app.quit") and self.is_mounted:
            has_filter = bool(self.query_one("#filter", Input).value)
            if action == "clear":
                return has_filter
            return not has_filter or None  # ctrl+c quits whatever the filter holds
        return True

    def action_clear(self) -> None:
        """Clear the filter."""
        self.query_one("#filter", Input).value = ""

    def action_cycle_sort(self) -> None:
        """Last activity → started → size → cost → name."""
        self.sort = self.SORTS[(self.SORTS.index(self.sort) + 1) % len(self.SORTS)]
        self._sort()
        self._refill()
        self.notify(f"Sorted by {self.sort}", timeout=2)

    def _open_current(self) -> None:
        table = self.query_one(DataTable)
        hit = self.hit_at(table.cursor_row)
        if hit is not None:
            path = hit.session_path
        elif not self._shown or table.cursor_row < 0:
            return
        else:
            path = self._shown[min(table.cursor_row, len(self._shown) - 1)]
        from piview.model import SessionOpenError, load_session

        try:
            session = load_session(path)
        except SessionOpenError as exc:
            self.notify(str(exc), severity="error", markup=False)
            return
        # The app opens it: the picker knows nothing of the session screen.
        if hit is None:
            self.post_message(self.SessionChosen(session))
            return
        entry = self._hit_entry(session, hit)
        search = hit_query(self._hits_for) if entry is not None else None
        self.post_message(self.SessionChosen(session, entry=entry, search=search))
