"""Provides :class:`TranscriptSearch`: the transcript's search, as a mixin of
:class:`piview.widgets.transcript.Transcript`.

A thread worker finds the blocks of the branch that contain the query and hands them to the UI
thread in batches; ``n`` / ``N`` step through them and :func:`highlight` marks the query in a
drawn line. The key bindings and the ``SearchUpdated`` message stay on the widget.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from rich.style import Style
from textual.strip import Strip
from textual.worker import Worker, get_current_worker

from piview.render.items import Item, item_text

if TYPE_CHECKING:
    from textual.scroll_view import ScrollView as _Widget

    from piview.model import Session
else:
    _Widget = object  # a plain mixin: Textual sees only the widget class itself

__all__ = ["TranscriptSearch", "highlight"]


@dataclass(slots=True)
class _Search:
    query: str
    matches: list[int]
    hits: set[int]
    current: int = -1
    running: bool = False


class TranscriptSearch(_Widget):
    """Search over the transcript's blocks; the widget provides what is declared here."""

    session: Session
    items: Sequence[Item]
    cursor: int

    _search: _Search | None = None
    _search_gen = 0
    _search_worker: Worker[None] | None = None

    if TYPE_CHECKING:

        def is_expanded(self, item: Item) -> bool: ...
        def _set_cursor(self, index: int) -> None: ...
        def _set_expanded(self, where: Iterable[int], expanded: bool) -> None: ...
        def _post_search_updated(self) -> None: ...

    def search(self, query: str) -> None:
        """Search the blocks of this branch for ``query`` (case-insensitive), in a worker.

        Matches appear as they are found (the first one after the cursor is focused);
        ``SearchUpdated`` reports progress. A new search, or :meth:`clear_search`,
        cancels the one running.
        """
        self._cancel_search()
        query = query.strip()
        if not query:
            self._search = None
            self.refresh()
            self._post_search_updated()
            return
        self._search_gen += 1
        self._search = _Search(query, [], set(), running=True)
        self._post_search_updated()
        self._search_worker = self.run_worker(
            partial(self._search_thread, query, self.items, self._search_gen),
            thread=True,
            group="search",
            description=f"Searching for {query!r}",
            exit_on_error=False,
        )

    def _cancel_search(self) -> None:
        worker = self._search_worker
        if worker is not None and not worker.is_finished:
            worker.cancel()
        self._search_worker = None

    def _search_thread(self, query: str, items: Sequence[Item], gen: int) -> None:
        worker = get_current_worker()
        session = self.session
        needle = query.lower()
        # JSON escapes quotes, backslashes and control characters: only a plain ASCII needle
        # is sure to appear as-is in the raw line, so only then is the byte prefilter exact.
        raw_needle = needle.encode() if _plain(needle) else None
        checked: dict[int, bool] = {}
        batch: list[int] = []
        last = time.monotonic()
        for k, item in enumerate(items):
            if worker.is_cancelled:
                return
            entries = [item.entry]
            if item.kind == "tool":
                entries += session.pairing.call_results.get((item.entry, item.part), [])
            if not any(_raw_contains(session, e, raw_needle, checked) for e in entries):
                continue
            if needle in item_text(session, item).lower():
                batch.append(k)
            now = time.monotonic()
            if batch and now - last > 0.1:
                self.app.call_from_thread(self._add_matches, gen, batch, False)
                batch, last = [], now
        if not worker.is_cancelled:
            self.app.call_from_thread(self._add_matches, gen, batch, True)

    def _add_matches(self, gen: int, found: list[int], done: bool) -> None:
        s = self._search
        if s is None or gen != self._search_gen:
            return
        first = not s.matches and bool(found)
        s.matches.extend(found)
        s.hits.update(found)
        if done:
            s.running = False
        if first:
            self.action_search_step(1)
        elif done and not s.matches:
            self.notify(f"No match for {s.query!r} on this branch", timeout=3, markup=False)
        self.refresh()
        self._post_search_updated()

    def clear_search(self) -> None:
        """Forget the current search (cancelling it if it runs)."""
        self._cancel_search()
        self._search = None
        self.refresh()
        self._post_search_updated()

    @property
    def searching(self) -> bool:
        """True while a search is still running."""
        return self._search is not None and self._search.running

    @property
    def search_state(self) -> tuple[str, int, int] | None:
        """(query, current match number from 1, number of matches) of the active search."""
        s = self._search
        if s is None:
            return None
        return s.query, s.current + 1, len(s.matches)

    def action_search_step(self, step: int) -> None:
        """Focus the next (or previous) search match, wrapping around."""
        s = self._search
        if s is None or not s.matches:
            if s is not None:
                self.notify(f"No match for {s.query!r}", timeout=3, markup=False)
            return
        if step > 0:
            nxt = next((j for j, k in enumerate(s.matches) if k > self.cursor), 0)
        else:
            nxt = next(
                (j for j in range(len(s.matches) - 1, -1, -1) if s.matches[j] < self.cursor),
                len(s.matches) - 1,
            )
        s.current = nxt
        item = self.items[s.matches[nxt]]
        if item.collapsible and not self.is_expanded(item):
            self._set_expanded([s.matches[nxt]], True)
        self._set_cursor(s.matches[nxt])


def _plain(needle: str) -> bool:
    return needle.isascii() and needle.isprintable() and '"' not in needle and "\\" not in needle


def _raw_contains(
    session: Session, entry: int, needle: bytes | None, memo: dict[int, bool]
) -> bool:
    if needle is None:
        return True
    hit = memo.get(entry)
    if hit is None:
        hit = memo[entry] = needle in session.read_line(entry).lower()
    return hit


def highlight(strip: Strip, query: str) -> Strip:
    """``strip`` with every occurrence of ``query`` (case-insensitive) in reverse video."""
    text = strip.text.lower()
    needle = query.lower()
    start = text.find(needle)
    if start < 0:
        return strip
    style = Style(reverse=True, bold=True)
    cuts: list[int] = []
    spans: list[tuple[int, int]] = []
    while start >= 0:
        spans.append((start, start + len(needle)))
        cuts += [start, start + len(needle)]
        start = text.find(needle, start + len(needle))
    parts = strip.divide(cuts)
    out: list[Strip] = []
    pos = 0
    for part in parts:
        width = part.cell_length
        if any(a <= pos < b for a, b in spans):
            part = part.apply_style(style)
        out.append(part)
        pos += width
    return Strip.join(out)
