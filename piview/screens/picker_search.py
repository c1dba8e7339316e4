"""Provides :class:`PickerTextSearch`: the picker's full-text search, as a mixin of
:class:`piview.screens.picker.PickerScreen`.

A thread worker brings the search index (:mod:`piview.catalog.fts`) up to date in the
background, its progress in the picker's top line; what is typed in the filter is searched
there too (debounced, in a worker; FTS5 syntax, the last word a prefix; ``tools:`` first
searches tool calls and output as well). The best hit of each session comes after the
sessions whose name or folder matches, ranked by bm25, its snippet in the session column with
the words highlighted. Enter on one opens the session on the branch of that entry, with the
entry in view and the match highlighted.
"""

from __future__ import annotations

import time
from bisect import bisect_left
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.timer import Timer
from textual.widgets import DataTable, Input, Static
from textual.worker import get_current_worker

from piview.render.sanitize import sanitize_line

if TYPE_CHECKING:
    from textual.screen import Screen

    from piview.catalog.fts import Hit, Progress
    from piview.catalog.hosts import Root
    from piview.catalog.summaries import SessionSummary
    from piview.model import Session
    from piview.model.query import Query

    _Screen = Screen[None]
else:
    _Screen = object  # a plain mixin: Textual sees only the screen class itself

__all__ = ["FIRST_CANDIDATES", "HIT_LIMIT", "PickerTextSearch", "hit_query", "hit_text"]

HIT_LIMIT = 50
"""Sessions listed for a full-text search (the best hit of each)."""

FIRST_CANDIDATES = 2000
"""The first results rank only the newest this many matching entries (then all of them)."""

_DEBOUNCE = 0.2
"""Seconds of no typing before the text is searched."""


def hit_query(text: str) -> Query:
    """The transcript search (piview's own rule) that highlights an FTS query's words."""
    from piview.catalog.fts_query import parse_fts_query
    from piview.model.query import parse_query

    fq = parse_fts_query(text)
    words = [f'"{t}"' if " " in t else t for t, _prefix in fq.terms]
    return parse_query(" ".join(words))


def hit_text(hit: Hit, width: int = 0) -> Text:
    """A hit's snippet, its matched words highlighted, as the session column shows it:
    in ``width`` cells (0: any), cut so that the first match shows."""
    line = sanitize_line(hit.snippet)
    spans = list(hit.spans) if len(line) == len(hit.snippet) else []
    room = width - 2
    if room > 0 and spans and spans[0][1] > room:
        # Cut the lead: the first match a fifth of the way in, from a word's start.
        cut = max(0, spans[0][0] - room // 5)
        space = line.rfind(" ", 0, cut + 1)
        cut = space + 1 if space >= 0 and cut - space < 12 else cut
        line = "…" + line[cut:]
        spans = [(a - cut + 1, b - cut + 1) for a, b in spans if a >= cut]
    out = Text("» ", style="dim", overflow="ellipsis", no_wrap=True)
    out.append(line)
    for a, b in spans:
        out.stylize("bold reverse", a + 2, b + 2)
    return out


class PickerTextSearch(_Screen):
    """The full-text part of the picker; the screen provides what is declared here."""

    summaries: dict[str, SessionSummary]
    order: list[str]
    roots: list[Root]

    if TYPE_CHECKING:

        def _refill(self) -> None: ...
        def _where(self) -> Text: ...
        def _update_preview(self) -> None: ...
        def _cells(
            self, s: SessionSummary, cols: list[tuple[str, int]], show_project: bool, now: float
        ) -> list[Text | str]: ...

        _cols: list[tuple[str, int]]
        _shown: list[str]

    search_db: Path | None = None
    """Where the search index is (None: :func:`piview.catalog.fts.index_path`)."""
    hits: list[Hit] = []
    """The full-text hits listed, after the sessions matched by name or folder."""
    _hits_for = ""
    _fts_timer: Timer | None = None
    _researched = 0.0
    """When the text was last searched again because the index grew."""
    _fts_repaired = False
    """A query found the index damaged and a new one was swapped in (once per picker)."""
    _fts_status = ""
    fts_ready = False
    """True once the index has every session file."""

    def _db_path(self) -> Path:
        # The index's modules (SQLite, the process pool) are imported on first use: the
        # picker's first rows never wait for them.
        from piview.catalog.fts import index_path

        return self.search_db or index_path()

    # ------------------------------------------------------------------ building

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
            now = time.monotonic()
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
        now = time.monotonic()
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

    # ------------------------------------------------------------------ searching

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
                # First the best of the newest matches (quick for a common word), then the
                # whole ranking, which replaces them.
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
        """A query found the index damaged (the open checks miss some damage of a big index)
        and a new one was swapped in: build it, once per picker."""
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
        # Only the hit rows change: the rows matched by name stay (rebuilding a table of
        # hundreds of rows on every result would make typing lag).
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

    _hit_rows = 0
    """How many hit rows the table has (after the rows matched by name)."""

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
