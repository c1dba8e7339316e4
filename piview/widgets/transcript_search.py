"""Provides :class:`TranscriptSearch`: the transcript's search, as a mixin of
:class:`piview.widgets.transcript.Transcript`.

A thread worker finds the blocks of the branch that match the query (the rule is
:mod:`piview.model.query`: words or ``re:``, smart case) and hands them to the UI thread in
batches; ``n`` / ``N`` step through them and :func:`highlight` marks the matches in a drawn
line, which it leaves whole. The key bindings and the ``SearchUpdated`` message stay on the
widget.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip
from textual.worker import Worker, get_current_worker

from piview.render.items import Item

if TYPE_CHECKING:
    from textual.scroll_view import ScrollView as _Widget

    from piview.model import Session
    from piview.model.query import Query
else:
    _Widget = object  # a plain mixin: Textual sees only the widget class itself

__all__ = ["TranscriptSearch", "highlight"]


@dataclass(slots=True)
class _Search:
    query: Query
    matches: list[int]
    hits: set[int]
    current: int = -1
    running: bool = False
    target: tuple[int, int] | None = None
    """``(entry, part)`` of the block to focus when it is found (a result chosen from the
    search over all branches), instead of the first match after the cursor."""


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
        def _shown_blocks(self) -> range: ...

    def search(self, query: str | Query, *, target: tuple[int, int] | None = None) -> None:
        """Search the blocks of this branch for ``query`` (see :mod:`piview.model.query`),
        in a worker.

        Matches appear as they are found (the first one after the cursor is focused, or
        the block ``target`` = ``(entry, part)`` if it matches, the first matching block of
        the entry for a part of -1); ``SearchUpdated`` reports
        progress. A new search, or :meth:`clear_search`, cancels the one running.
        """
        self._cancel_search()
        if isinstance(query, str):
            # Imported on first use, as the search below: the first screen searches nothing.
            from piview.model.query import parse_query

            q = parse_query(query)
        else:
            q = query
        if q.blank and q.error is None:  # nothing to look for: no search
            self._search = None
            self.refresh()
            self._post_search_updated()
            return
        self._search_gen += 1
        if self._search is not None:
            self.refresh()  # the last search's marks go (the new one's come as found)
        self._search = _Search(q, [], set(), running=not q.blank, target=target)
        self._post_search_updated()
        if q.blank:
            if q.error:
                self.notify(f"Bad regular expression: {q.error}", severity="error", markup=False)
            return
        self._search_worker = self.run_worker(
            partial(self._search_thread, q, self.items, self._search_gen),
            thread=True,
            group="search",
            description=f"Searching for {q.text!r}",
            exit_on_error=False,
        )

    def search_next_path(self, query: Query, target: tuple[int, int]) -> None:
        """Run ``query`` on the next path shown (see :meth:`search`), focusing ``target``:
        used to show a result of the search over all branches on its branch."""
        self._next_path_search = (query, target)

    _next_path_search: tuple[Query, tuple[int, int]] | None = None

    def _search_new_path(self) -> None:
        """Another path is shown: forget the search, or start the one asked for it."""
        pending, self._next_path_search = self._next_path_search, None
        if pending is not None:
            self.search(pending[0], target=pending[1])
        elif self._search is not None:
            self._cancel_search()
            self._search = None

    def _cancel_search(self) -> None:
        worker = self._search_worker
        if worker is not None and not worker.is_finished:
            worker.cancel()
        self._search_worker = None

    def _search_thread(self, query: Query, items: Sequence[Item], gen: int) -> None:
        from piview.render.search import item_matches

        worker = get_current_worker()
        session = self.session
        checked: dict[int, bool] = {}
        batch: list[int] = []
        last = time.monotonic()
        for k, item in enumerate(items):
            if worker.is_cancelled:
                return
            if not item_matches(session, item, query, checked):
                continue
            batch.append(k)
            now = time.monotonic()
            if now - last > 0.1:
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
        if s.target is not None:
            k = next((k for k in found if self._is_target(k, s.target)), None)
            if k is not None:
                s.target = None
                s.current = len(s.matches) - len(found) + found.index(k)
                self._focus_match(k)
            elif done:
                s.target = None
                if s.matches:
                    self.action_search_step(1)
        elif first:
            self.action_search_step(1)
        if done and not s.matches:
            self.notify(f"No match for {s.query.text!r} on this branch", timeout=3, markup=False)
        shown = self._shown_blocks()
        if any(k in shown for k in found):  # else nothing on screen is marked anew
            self.refresh()
        self._post_search_updated()

    def _is_target(self, k: int, target: tuple[int, int]) -> bool:
        """Block ``k`` is ``target`` = ``(entry, part)``; a part of -1 is any of the entry's."""
        entry, part = self._item_key(k)
        return entry == target[0] and (part == target[1] or target[1] == -1)

    def _item_key(self, k: int) -> tuple[int, int]:
        item = self.items[k]
        return item.entry, item.part

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
        return s.query.text, s.current + 1, len(s.matches)

    @property
    def search_query(self) -> Query | None:
        """The active search's query."""
        return self._search.query if self._search is not None else None

    def action_search_step(self, step: int) -> None:
        """Focus the next (or previous) search match, wrapping around."""
        s = self._search
        if s is None or not s.matches:
            if s is not None:
                self.notify(f"No match for {s.query.text!r}", timeout=3, markup=False)
            return
        if step > 0:
            nxt = next((j for j, k in enumerate(s.matches) if k > self.cursor), 0)
        else:
            nxt = next(
                (j for j in range(len(s.matches) - 1, -1, -1) if s.matches[j] < self.cursor),
                len(s.matches) - 1,
            )
        s.current = nxt
        self._focus_match(s.matches[nxt])

    def _focus_match(self, k: int) -> None:
        item = self.items[k]
        if item.collapsible and not self.is_expanded(item):
            self._set_expanded([k], True)
        self._set_cursor(k)


def highlight(strip: Strip, query: Query) -> Strip:
    """``strip`` with every match of ``query`` in reverse video; the text, the other styles
    and the length stay as they are."""
    spans = query.spans(strip.text)
    if not spans:
        return strip
    mark = Style(reverse=True, bold=True)
    out: list[Segment] = []
    pos = 0  # character offset of the segment in strip.text
    k = 0
    for seg in strip:
        text, style, control = seg
        end = pos + len(text)
        while k < len(spans) and spans[k][1] <= pos:
            k += 1
        if control or k == len(spans) or spans[k][0] >= end:
            out.append(seg)
            pos = end
            continue
        at = pos
        j = k
        while j < len(spans) and spans[j][0] < end:
            a, b = max(spans[j][0], pos), min(spans[j][1], end)
            if a > at:
                out.append(Segment(text[at - pos : a - pos], style))
            out.append(Segment(text[a - pos : b - pos], style + mark if style else mark))
            at = b
            if spans[j][1] > end:
                break
            j += 1
        if at < end:
            out.append(Segment(text[at - pos :], style))
        pos = end
    return Strip(out, strip.cell_length)
