"""Provides :class:`PickerLineage`: the picker's threaded view (``ctrl+t``), as a mixin of
:class:`piview.screens.picker.PickerScreen`.

Forks are listed under the session they were forked from (their header's ``parentSession``,
or ``branchedFrom``), subagents' files under their session; the headers and the sessions'
own folders are read in a thread worker the first time the view is asked for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.worker import get_current_worker

from piview.catalog.hosts import Found
from piview.catalog.lineage import Link, link_files, subagent_files, thread_order
from piview.catalog.summaries import SessionSummary, SummaryCache, apply_found, summarize
from piview.render.sanitize import sanitize_line

if TYPE_CHECKING:
    from textual.screen import Screen

    _Screen = Screen[None]
else:
    _Screen = object  # a plain mixin: Textual sees only the screen class itself

__all__ = ["PickerLineage"]


class PickerLineage(_Screen):
    """The threaded view of the picker; the screen provides what is declared here."""

    summaries: dict[str, SessionSummary]
    order: list[str]
    found: dict[str, Found]
    cache: SummaryCache
    threaded: bool
    _links: dict[str, Link] | None
    _depth: dict[str, int]
    _nested: set[str]

    if TYPE_CHECKING:

        def _sort(self) -> None: ...
        def _refill(self) -> None: ...
        def _index_all(self) -> object: ...  # a thread worker's method

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
        thread: a few thousand sessions take a moment."""
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
