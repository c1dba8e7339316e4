"""Provides :class:`PickerScreen`: every session of the Pi family on this machine, newest first.

Sessions of Pi, oh-my-pi (its profiles too) and OpenClaw (JSONL files and its SQLite
database) are listed together, each with its host in a column when there is more than one,
grouped by project (by agent for OpenClaw), a subagent's transcript under its parent.

Rows appear at once from quick summaries (header and tail of each file); a thread worker then
indexes each file for its entry count, exact name and cost, taking unchanged files from the
on-disk cache so that a second start is instant. The session chosen is loaded here and posted
as :class:`PickerScreen.SessionChosen`, for the app to open.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime
from functools import partial
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

from piview.catalog.hosts import (
    HOSTS,
    Found,
    Root,
    discover,
    folder_name,
    host_roots,
    root_for_folder,
)
from piview.catalog.lineage import Link
from piview.catalog.summaries import (
    SessionSummary,
    SummaryCache,
    apply_found,
    summarize,
    summarize_full,
)
from piview.render.format import fmt_bytes, fmt_cost, fmt_cost_short
from piview.render.sanitize import sanitize_line
from piview.screens.picker_lineage import PickerLineage
from piview.screens.picker_search import PickerTextSearch, hit_query
from piview.widgets.keybar import KeyBar
from piview.widgets.picker_table import Cells, PickerTable
from piview.widgets.text_input import TextInput

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


def _preview(s: SessionSummary, show_host: bool = False, hit: Hit | None = None) -> Text:
    """The picker's preview of one session (and of the full-text hit chosen in it)."""
    out = Text()
    out.append(sanitize_line(s.title)[:200] + "\n", style="bold")
    folder = sanitize_line(s.cwd) if s.cwd else "?"
    facts = [
        ("host" if show_host else "", s.host + (f" (profile {s.profile})" if s.profile else "")),
        # An OpenClaw session's folder is the gateway's: its agent says more.
        ("agent", _project_label(s)) if s.host == "openclaw" else ("project", folder),
        ("folder" if s.host == "openclaw" else "", folder),
        ("started", _day(s.created)),
        ("entries", f"{s.entries:,}" if s.entries is not None else "…"),
        ("branches", f"{s.leaves:,}" if s.leaves is not None else "…"),
        ("cost", fmt_cost(s.cost) if s.cost is not None else "…"),
        ("models", ", ".join(sanitize_line(m) for m in s.models) or "?"),
    ]
    if s.parent:
        facts.insert(2, ("subagent", f"of {Path(s.parent).name}"))
    for key, value in facts:
        if not key:
            continue
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


def _project_label(s: SessionSummary) -> str:
    """The project column's text: the agent of an OpenClaw session, else its folder's name."""
    if s.host == "openclaw":
        return sanitize_line(s.project)
    return sanitize_line(folder_name(s.cwd)) if s.cwd else ""


class PickerScreen(PickerTextSearch, PickerLineage, Screen[None]):
    """Pick a session to open. Type to filter (name, folder, first message or any text;
    ``host:NAME`` for one host); Enter opens; Escape clears, then quits.

    Keys: :attr:`BINDINGS` (the help screen, ``?``, lists them from there, with a line each).
    """

    HELP_TITLE = "Picker"
    """The heading of this part's keys in the help screen."""

    BINDINGS = [
        Binding("down", "move(1)", "Down", show=False),
        Binding("up", "move(-1)", "Up", show=False),
        Binding("pagedown", "move(10)", "Page down", show=False),
        Binding("pageup", "move(-10)", "Page up", show=False),
        Binding("ctrl+s", "cycle_sort", "Sort"),
        Binding("ctrl+o", "cycle_host", "Host"),
        Binding(
            "ctrl+t",
            "toggle_threads",
            "Threads",
            tooltip="threaded: forks under the session they came from, subagents under theirs",
        ),
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
        self,
        root: Path | None = None,
        *,
        cache: SummaryCache | None = None,
        roots: list[Root] | None = None,
        search_db: Path | None = None,
    ) -> None:
        super().__init__()
        self.search_db = search_db
        self.root = root
        """The ``--sessions`` folder; None: every host's folders (:attr:`roots`)."""
        if roots is None:
            roots = [root_for_folder(root)] if root is not None else host_roots()
        self.roots = roots
        self.cache = cache or SummaryCache()
        self.found: dict[str, Found] = {}
        self.host = ""
        """The host shown (ctrl+o); empty: every host."""
        self.summaries: dict[str, SessionSummary] = {}
        self.order: list[str] = []
        self.sort = self.SORTS[0]
        self._shown: list[str] = []
        self._layout_width = 0
        self._cols: list[tuple[str, int]] = []
        self.threaded = False
        """Rows as a tree of lineage (ctrl+t): forks and subagents under their parent."""
        self._links: dict[str, Link] | None = None
        self._depth: dict[str, int] = {}
        self._nested: set[str] = set()
        """Subagents' files (in a session's own folder): listed in the threaded view only."""

    def compose(self) -> ComposeResult:
        """Where we looked, the filter, the list."""
        yield Static(self._where(), id="where")
        yield TextInput(
            placeholder="type to search names, projects and text (tools: for tool output too)",
            id="filter",
        )
        yield Static(id="empty")
        with Horizontal(id="body"):
            yield PickerTable(cursor_type="row", zebra_stripes=True)
            yield Static(id="preview")
        yield KeyBar()

    def _where(self) -> Text:
        hosts = {"pi": "Pi", "omp": "oh-my-pi", "openclaw": "OpenClaw"}
        if self.root is not None:
            host = self.roots[0].host if self.roots else "pi"
            text = f"{hosts.get(host, 'Pi')} sessions in {self.root}"
        else:
            seen = [hosts[h] for h in HOSTS if any(r.host == h for r in self.roots)]
            text = f"Sessions of {', '.join(seen) or 'Pi'} ({len(self.roots)} folders)"
        if self.host:
            text += f"  ·  host: {self.host} only (ctrl+o)"
        return Text(text, style="bold", overflow="ellipsis", no_wrap=True)

    @property
    def hosts(self) -> list[str]:
        """The hosts of the sessions listed, in :data:`HOSTS` order."""
        present = {s.host for s in self.summaries.values()}
        return [h for h in HOSTS if h in present]

    def on_mount(self) -> None:
        """Show quick rows now; index the rest in a worker."""
        for found in discover(self.roots):
            summary = self.cache.get(found.path, found.size, found.mtime)
            if summary is not None:
                summary = apply_found(summary, found)
            else:
                try:
                    summary = summarize(found)
                except OSError:
                    continue
            self.found[found.path] = found
            self.summaries[found.path] = summary
            self.order.append(found.path)
        self._sort()
        self._refill()
        self.refresh_bindings()  # ctrl+o: only with more than one host
        self.query_one("#filter", Input).focus()
        # The indexer takes the interpreter lock from the UI: it starts after the first rows.
        self.call_after_refresh(self._index_all)
        self._fts_start()

    def _sort(self) -> None:
        summaries = self.summaries
        # Subagents are not sorted on their own: each follows its parent.
        children: dict[str, list[str]] = {}
        top: list[str] = []
        for p in self.order:
            parent = summaries[p].parent
            if parent is not None and parent in summaries:
                children.setdefault(parent, []).append(p)
            else:
                top.append(p)
        self.order = top
        if self.sort == "last activity":
            # Grouped by project (by agent for OpenClaw), the project with the newest session
            # first; newest first inside a project.
            newest: dict[str, float] = {}
            for p in self.order:
                s = summaries[p]
                newest[s.project] = max(newest.get(s.project, 0.0), s.activity)
            self.order.sort(
                key=lambda p: (
                    -newest[summaries[p].project],
                    summaries[p].project,
                    -summaries[p].activity,
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
        if children:
            out: list[str] = []

            def add(p: str) -> None:
                out.append(p)
                for c in sorted(children.get(p, ()), key=lambda c: -summaries[c].activity):
                    add(c)

            for p in self.order:
                add(p)
            self.order = out

    def _matches(self, s: SessionSummary, needle: str) -> bool:
        if self.host and s.host != self.host:
            return False
        if not needle:
            return True
        hay = " ".join(
            x for x in (s.name, s.cwd, s.group, s.first_message, s.session_id) if x
        ).lower()
        for tok in needle.lower().split():
            # host:omp (a prefix is enough: host:o, host:claw does not) keeps one host.
            if tok.startswith("host:"):
                if not s.host.startswith(tok[5:]):
                    return False
            elif tok not in hay:
                return False
        return True

    def _columns(self, width: int) -> list[tuple[str, int]]:
        """``(column, width)`` for ``width`` cells: the session's title takes what is free,
        numbers are never cut, and the least needed columns go first when it is narrow."""
        # The widest project label: each distinct folder (or agent) measured once.
        one_each = {(s.host, s.cwd, s.group): s for s in self.summaries.values()}.values()
        cols = [
            ("project", min(20, max([7, *(len(_project_label(s)) for s in one_each)]))),
            ("session", 0),
            ("entries", 7),
            ("size", 8),
            ("started", 10),
            ("modified", 24),
            ("cost", 8),
        ]
        if len(self.hosts) > 1:  # one host: no column saying it on every row
            cols.insert(1, ("host", 8))
        # While the title would get less than 30 cells: drop or shorten, least needed first.
        steps = ("started", "size", "age only", "entries", "narrow project", "host", "project")
        for step in steps:
            if width - sum(w + 2 for _n, w in cols) >= 30:
                break
            if step == "age only":
                cols = [(n, 8) if n == "modified" else (n, w) for n, w in cols]
            elif step == "narrow project":
                if any(n == "host" for n, _w in cols):
                    cols = [(n, min(w, 12)) if n == "project" else (n, w) for n, w in cols]
            else:
                cols = [c for c in cols if c[0] != step]
        free = width - sum(w + 2 for _n, w in cols)
        return [(n, max(12, free) if n == "session" else w) for n, w in cols]

    def _cells(
        self, s: SessionSummary, cols: list[tuple[str, int]], show_project: bool, now: float
    ) -> list[Text | str]:
        widths = dict(cols)
        sub = s.parent is not None and s.parent in self.summaries
        out: dict[str, Text | str] = {
            "project": Text(
                (_project_label(s) or "?") if show_project and not sub else "",
                style="bold cyan",
                overflow="ellipsis",
                no_wrap=True,
            ),
            "host": Text(
                f"{s.host}:{s.profile}" if s.profile else s.host,
                style="dim" if s.host == "pi" else "",
                overflow="ellipsis",
                no_wrap=True,
            ),
            "session": self._title_cell(s, sub),
            "entries": Text(f"{s.entries:,}" if s.entries is not None else "…", justify="right"),
            "size": Text(fmt_bytes(s.size), justify="right"),
            "started": Text(_day(s.created)),
            "modified": Text(
                f"{datetime.fromtimestamp(s.activity):%Y-%m-%d %H:%M}  {_age(s.activity, now)}"
                if widths.get("modified", 0) >= 24
                else _age(s.activity, now)
            ),
            "cost": Text(fmt_cost_short(s.cost) if s.cost is not None else "…", justify="right"),
        }
        return [out[n] for n, _w in cols]

    def _refill(self) -> None:
        table = self.query_one(PickerTable)
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
            # A Text: a str is read as markup, which loads Rich's emoji codes.
            table.add_column(Text(name), width=w, key=name)
        self._shown = [p for p in self.order if self._matches(self.summaries[p], needle)]
        if self.threaded:
            self._shown = self._thread(self._shown)
        elif self._nested:
            self._shown = [p for p in self._shown if p not in self._nested]
        now = time.time()
        last_project: str | None | bool = False
        grouped = self.sort == "last activity"
        # Each row's cells are made when the table first reads them (the rows drawn).
        rows: list[tuple[str, Callable[[], Cells]]] = []
        for p in self._shown:
            s = self.summaries[p]
            if s.parent is not None and s.parent in self.summaries:
                rows.append((p, partial(self._cells, s, self._cols, False, now)))
                continue
            show = not grouped or s.project != last_project or self.threaded
            rows.append((p, partial(self._cells, s, self._cols, show, now)))
            last_project = s.project
        table.fill(rows)
        self._add_hit_rows(table, now)
        empty = self.query_one("#empty", Static)
        if not self._shown and self.order:
            empty.update(Text(self._no_match_text(needle)))
        elif not self.order:
            where = self.root or ", ".join(str(r.path) for r in self.roots) or "any host's folder"
            empty.update(Text(f"No session files in {where}."))
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
            preview.update(_preview(self.summaries[hit.session_path], len(self.hosts) > 1, hit))
            return
        if not self._shown or table.cursor_row < 0:
            preview.update("")
            return
        s = self.summaries[self._shown[min(table.cursor_row, len(self._shown) - 1)]]
        preview.update(_preview(s, show_host=len(self.hosts) > 1))

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
                full = summarize_full(self.found[p])
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
        prev = self._group_above(k)
        show = not grouped or summary.project != prev or self.threaded
        cells = self._cells(summary, self._cols, show, time.time())
        try:
            for (name, _w), cell in zip(self._cols, cells, strict=True):
                if name in ("session", "entries", "cost"):
                    table.update_cell(path, name, cell)
        except Exception:  # noqa: BLE001 - the row may have been filtered away meanwhile
            pass
        if table.cursor_row == k:
            self._update_preview()

    def _group_above(self, k: int) -> str | None:
        """The project of the nearest top-level row above row ``k`` (None at the top)."""
        for j in range(k - 1, -1, -1):
            s = self.summaries[self._shown[j]]
            if s.parent is None or s.parent not in self.summaries:
                return s.project
        return None

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
        """Escape clears a filter, and quits when there is none; ctrl+o is there only when
        sessions of more than one host are listed."""
        if action == "cycle_host":
            return len(self.hosts) > 1 or bool(self.host)
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

    def action_cycle_host(self) -> None:
        """Every host → Pi → oh-my-pi → OpenClaw (those listed) → every host."""
        cycle = ["", *self.hosts]
        self.host = cycle[(cycle.index(self.host) + 1) % len(cycle)] if self.host in cycle else ""
        self._show_where()
        self._refill()
        self.notify(f"Host: {self.host or 'all'}", timeout=2)

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
