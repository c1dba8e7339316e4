"""Provides :class:`PickerScreen`: every session of the Pi family on this machine, newest first.

Sessions of Pi, oh-my-pi and OpenClaw are listed together, grouped by project, a subagent's
transcript under its parent. Rows appear at once from quick summaries; a thread worker then
indexes each file (unchanged ones from the on-disk cache). Another keeps the full-text index
(:mod:`piview.catalog.fts`) up to date; the filter's text is searched there too, each
session's best hit listed after the sessions whose name or folder matches. The session chosen
is loaded here and posted as :class:`PickerScreen.SessionChosen`, for the app to open.
"""

from __future__ import annotations

import time
from bisect import bisect_left
from collections.abc import Callable
from datetime import datetime
from functools import partial
from pathlib import Path
from time import monotonic
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer
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
from piview.catalog.lineage import Link, link_files, subagent_files, thread_order
from piview.catalog.summaries import (
    SessionSummary,
    SummaryCache,
    apply_found,
    summarize,
    summarize_full,
)
from piview.render.format import fmt_bytes, fmt_cost, fmt_cost_short
from piview.render.sanitize import sanitize_line
from piview.screens.picker_search import hit_query, hit_text
from piview.widgets.keybar import KeyBar
from piview.widgets.picker_table import Cells, PickerTable
from piview.widgets.text_input import TextInput

if TYPE_CHECKING:
    from piview.catalog.fts import Hit, Progress
    from piview.model import Session
    from piview.model.query import Query

HIT_LIMIT = 50
"""Sessions listed for a full-text search (the best hit of each)."""

FIRST_CANDIDATES = 2000
"""The first results rank only the newest this many matching entries (then all of them)."""

_DEBOUNCE = 0.2
"""Seconds of no typing before the text is searched."""


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


class PickerScreen(Screen[None]):
    """Pick a session to open. Type to filter (name, folder, first message or any text;
    ``host:NAME`` for one host); Enter opens; Escape clears, then quits.

    Keys: :attr:`BINDINGS` (the help screen, ``?``, lists them from there, with a line each).
    """

    HELP_TITLE = "Picker"

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
        """Where the search index is (None: :func:`piview.catalog.fts.index_path`)."""
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
        self.hits: list[Hit] = []
        """The full-text hits listed, after the sessions matched by name or folder."""
        self._hits_for = ""
        self._hit_rows = 0
        """How many hit rows the table has (after the rows matched by name)."""
        self._fts_timer: Timer | None = None
        self._researched = 0.0
        """When the text was last searched again because the index grew."""
        self._fts_repaired = False
        """A query found the index damaged and a new one was swapped in (once per picker)."""
        self._fts_status = ""
        self.fts_ready = False
        """True once the index has every session file."""

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
            # By project (agent for OpenClaw), the newest project first, newest first in each.
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
        needle = self._needle()
        self._layout_width = self.size.width
        preview = self.query_one("#preview", Static)
        preview.display = self.size.width >= self.PREVIEW_MIN_WIDTH
        # The table's width before the first layout: the screen less preview and scrollbar.
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

    # ------------------------------------------------------------------ threaded view

    def _title_cell(self, s: SessionSummary, sub: bool) -> Text:
        out = Text(overflow="ellipsis", no_wrap=True)
        depth = self._depth.get(s.path, 0) if self.threaded else 0
        if depth:
            link = self._links.get(s.path) if self._links else None
            mark = "⤷ " if link is not None and link.kind == "subagent" else "└ "
            out.append("  " * (depth - 1) + mark, style="dim")
        elif sub:
            out.append("↳ ")
        out.append(sanitize_line(s.title)[:500], style="bold" if s.name else "")
        return out

    def _thread(self, shown: list[str]) -> list[str]:
        """``shown`` as a tree: each file under the one it was forked from (or is a subagent
        of), siblings in the order of the sort; the depth of each row in ``_depth``."""
        links = self._links or {}
        order = thread_order(shown, {p: link.parent for p, link in links.items()})
        self._depth = dict(order)
        return [p for p, _d in order]

    def action_toggle_threads(self) -> None:
        """Threaded rows (forks under their parent) or the plain list."""
        self.threaded = not self.threaded
        if self.threaded and self._links is None:
            self._find_lineage()  # the rows are threaded when it is done
        else:
            self._refill()
        self.notify(
            "Threaded: forks under their parent" if self.threaded else "Not threaded", timeout=2
        )

    @work(thread=True, exclusive=True, group="lineage", description="Finding forks")
    def _find_lineage(self) -> None:
        """Every file's header line and each session's own folder (subagents), off the UI
        thread."""
        worker = get_current_worker()
        known = [p for p in self.order if "#" not in p]  # database sessions have no header file
        subs: list[tuple[Found, SessionSummary]] = []
        for p in known:
            if worker.is_cancelled:
                return
            for sub in subagent_files(p):
                if str(sub) in self.summaries:
                    continue
                try:
                    st = sub.stat()
                    found = Found(
                        str(sub), self.found[p].host, st.st_size, st.st_mtime, parent=None
                    )
                    summary = self.cache.get(sub, st.st_size, st.st_mtime) or summarize(found)
                except OSError:
                    continue
                subs.append((found, apply_found(summary, found)))
        links = link_files([*known, *(f.path for f, _s in subs)])
        if not worker.is_cancelled:
            self.app.call_from_thread(self._lineage_found, subs, links)

    def _lineage_found(
        self, subs: list[tuple[Found, SessionSummary]], links: dict[str, Link]
    ) -> None:
        for found, summary in subs:
            key = found.path
            if key not in self.summaries:
                self.found[key] = found
                self.summaries[key] = summary
                self.order.append(key)
                self._nested.add(key)
        self._links = links
        self._sort()
        self._refill()
        if any(not s.complete for _f, s in subs):
            self._index_all()

    # ------------------------------------------------------------------ full-text search

    def _db_path(self) -> Path:
        # The index's modules are imported on first use: the first rows never wait for them.
        from piview.catalog.fts import index_path

        return self.search_db or index_path()

    def _fts_start(self) -> None:
        """Bring the index up to date in the background, once the first rows are drawn (its
        process would take the second core from the first frame)."""
        self._fts_status = "indexing text…"
        self._show_where()
        # An OpenClaw database's sessions (DB#ID) are not files: not in the text index.
        self.call_after_refresh(self._fts_build, [p for p in self.order if "#" not in p])

    @work(thread=True, exclusive=True, group="fts-build", description="Indexing session text")
    def _fts_build(self, paths: list[str]) -> None:
        from piview.catalog.fts import Progress
        from piview.catalog.fts_build import update_in_process

        worker = get_current_worker()
        last = [0.0]

        def progress(value: tuple[int, int, int, int]) -> None:
            p = Progress(*value)
            now = monotonic()
            if p.files_total and (now - last[0] > 0.25 or p.files_done == p.files_total):
                last[0] = now
                self.app.call_from_thread(self._fts_progress, p)

        # In a process of its own: the writer would take the interpreter lock from the UI.
        try:
            why = update_in_process(
                self._db_path(),
                paths,
                roots=[r.path for r in self.roots],
                progress=progress,
                cancelled=lambda: worker.is_cancelled,
            )
        except Exception as exc:  # noqa: BLE001 - the index is optional: say so, go on
            why = str(exc)
        if not worker.is_cancelled:
            self.app.call_from_thread(self._fts_done, f"no text search ({why})" if why else "")

    def _fts_progress(self, p: Progress) -> None:
        pct = 100 * p.bytes_done // p.bytes_total if p.bytes_total else 100
        self._fts_status = f"indexing text {p.files_done}/{p.files_total} ({pct}%)"
        if not self._show_where():
            return
        now = monotonic()
        if self._needle() and p.files_done and (not self.hits or now - self._researched > 3):
            self._researched = now
            self._fts_search(self._needle())  # what is indexed so far

    def _fts_done(self, status: str) -> None:
        self.fts_ready = not status
        self._fts_status = status
        if self._show_where() and self._needle():
            self._fts_search(self._needle())  # again, over the whole index

    def _show_where(self) -> bool:
        """Show where the sessions come from and the text index's state; False when the
        screen's widgets are gone (the app is closing: a worker's last word can come after)."""
        where = self.query("#where").results(Static)
        shown = False
        for line in where:
            out = self._where()
            if self._fts_status:
                out.append(f"  ·  {self._fts_status}", style="dim")
            line.update(out)
            shown = True
        return shown

    def _needle(self) -> str:
        return self.query_one("#filter", Input).value.strip()

    def _fts_schedule(self) -> None:
        """The filter changed: search the text once typing pauses."""
        if self._fts_timer is not None:
            self._fts_timer.stop()
        needle = self._needle()
        if not needle:
            self.hits, self._hits_for = [], ""
            return
        self._fts_timer = self.set_timer(_DEBOUNCE, lambda: self._fts_search(needle))

    @work(thread=True, exclusive=True, group="fts-search", description="Searching text")
    def _fts_search(self, needle: str) -> None:
        from piview.catalog.fts import SearchIndex
        from piview.catalog.fts_query import parse_fts_query

        query = parse_fts_query(needle, prefix_last=True)
        if query.blank:
            return
        worker = get_current_worker()
        index = None
        try:
            index = SearchIndex(self._db_path(), readonly=True)
            try:
                # The best of the newest matches first (quick), then the whole ranking.
                for candidates in (FIRST_CANDIDATES, None):
                    hits = index.search(
                        query, limit=HIT_LIMIT, per_session=1, candidates=candidates
                    )
                    if worker.is_cancelled:
                        return
                    self.app.call_from_thread(self._fts_found, needle, hits)
            finally:
                index.close()
        except Exception as exc:  # noqa: BLE001 - an unreadable index: no text hits
            if not worker.is_cancelled:
                self.app.call_from_thread(self._fts_found, needle, [])
            if index is not None and not self._fts_repaired:
                try:
                    replaced = index.replace_if_damaged(exc)
                except OSError as why:
                    self._fts_repaired = True
                    self.app.call_from_thread(
                        self.notify,
                        f"The search index is damaged and cannot be replaced: {why}",
                        timeout=5,
                    )
                    return
                if replaced:
                    self._fts_repaired = True
                    self.app.call_from_thread(self._fts_rebuild)

    def _fts_rebuild(self) -> None:
        """A query found the index damaged and a new one was swapped in: build it."""

        self.notify("The search index was damaged: building it again", timeout=4)
        self._fts_start()

    def _fts_found(self, needle: str, hits: list[Hit]) -> None:
        if needle != self._needle():
            return  # typed on meanwhile: a newer search comes
        table = self.query_one(DataTable)
        row = table.cursor_row
        was = self.hit_at(row)
        new = [h for h in hits if h.session_path in self.summaries]
        if new == self.hits and needle == self._hits_for:
            return
        # Only the hit rows change (rebuilding hundreds of rows per result lags typing).
        for k in range(self._hit_rows):
            table.remove_row(f"hit:{k}")
        self._hit_rows = 0
        self.hits, self._hits_for = new, needle
        self._add_hit_rows(table, time.time())
        empty = self.query_one("#empty", Static)
        if not self._shown and self.order and not self.hits:
            empty.update(Text(self._no_match_text(needle)))
        empty.display = not self._shown and not self.hits
        # The row under the cursor stays under it (the hits come again as the index grows).
        if was is not None:
            same = [(h.session_path, h.offset) for h in self.hits]
            key = (was.session_path, was.offset)
            row = len(self._shown) + same.index(key) if key in same else 0
        if 0 < row < table.row_count:
            table.move_cursor(row=row)
        self._update_preview()

    def _add_hit_rows(self, table: DataTable[Text | str], now: float) -> None:
        """The hits of the current filter, after the rows matched by name or folder (the
        table has none: it was cleared, or they were removed)."""
        if self._hits_for != self._needle():
            self.hits, self._hits_for = [], ""
        self._hit_rows = len(self.hits)
        for k, hit in enumerate(self.hits):
            cells = self._cells(self.summaries[hit.session_path], self._cols, True, now)
            names = [n for n, _w in self._cols]
            if "session" in names:
                k_col = names.index("session")
                cells[k_col] = hit_text(hit, self._cols[k_col][1])
            table.add_row(*cells, key=f"hit:{k}")

    def _no_match_text(self, needle: str) -> str:
        """What the picker says when neither a name nor (yet) the text matches."""
        text = f"No session matches {needle!r} (of {len(self.order)}). Escape clears it."
        if not self.fts_ready and not self._fts_status.startswith("no text"):
            text += " The text is still being indexed: matches appear as it is."
        return text

    def hit_at(self, row: int) -> Hit | None:
        """The hit in table row ``row``, None for a row matched by name."""
        k = row - len(self._shown)
        return self.hits[k] if 0 <= k < len(self.hits) else None

    def _hit_entry(self, session: Session, hit: Hit) -> int | None:
        """The entry of ``hit`` in the loaded ``session``: by byte offset, else by id."""
        offsets = session.index.offsets
        k = bisect_left(offsets, hit.offset)
        if k < len(offsets) and offsets[k] == hit.offset:
            return k
        return session.find(hit.entry_id) if hit.entry_id else None
