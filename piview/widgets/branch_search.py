"""Provides :class:`TreeSearch`: the branch panel's search, as a mixin of
:class:`piview.widgets.branch_panel.BranchPanel`.

The entries that match (folded ones too) are found in a worker; then the cursor goes to the
first one at or after it, and ``n`` / ``N`` step through the rest. The key bindings and the
footer that shows the matches stay on the panel.
"""

from __future__ import annotations

from bisect import bisect_left
from functools import partial
from typing import TYPE_CHECKING

from piview.widgets.offthread import compute_off_thread

if TYPE_CHECKING:
    from textual.scroll_view import ScrollView as _Widget

    from piview.model.session import Session
    from piview.model.treefilter import FilterMode
else:
    _Widget = object  # a plain mixin: Textual sees only the widget class itself

__all__ = ["TreeSearch"]


class TreeSearch(_Widget):
    """Search over the panel's entries; the panel provides what is declared here."""

    _session: Session | None

    if TYPE_CHECKING:

        @property
        def filter_mode(self) -> FilterMode: ...
        @property
        def cursor_entry(self) -> int | None: ...
        def move_to_entry(self, entry: int) -> None: ...

    def search(self, query: str) -> None:
        """Find the entries matching ``query`` in their row text and label (every word, or a
        ``re:`` regular expression; smart case), folded ones too, in a worker; then put the
        cursor on the first one at or after it.

        ``n`` / ``N`` step through the matches; a blank query clears them.
        """
        self._search_generation += 1
        if self._session is None or not query.split():
            self.clear_search()
            return
        # Imported on first use: the first screen searches nothing.
        from piview.model.query import parse_query
        from piview.model.treesearch import search_entries

        error = parse_query(query).error
        if error is not None:
            self.notify(f"Bad regular expression: {error}", severity="error", markup=False)
        generation = self._search_generation
        session, mode = self._session, self.filter_mode
        self.searching = True
        self.refresh()
        compute_off_thread(
            self,
            partial(search_entries, session, query, mode),
            partial(self._searched, generation, query),
            group="tree-search",
            description="Searching the session tree",
        )

    def clear_search(self) -> None:
        """Forget the matches."""
        self._search_generation += 1
        self.searching = False
        self._matches = []
        self._match_at = -1
        self._query = ""
        self.refresh()

    @property
    def search_state(self) -> tuple[str, int, int] | None:
        """``(query, current match (1-based), matches)`` after a search, else None."""
        if not self._query:
            return None
        return self._query, self._match_at + 1, len(self._matches)

    def _searched(self, generation: int, query: str, found: list[int] | None) -> None:
        if generation != self._search_generation:
            return
        self.searching = False
        self._query = query
        self._matches = found or []
        self._match_at = -1
        if self._matches:
            here = self.cursor_entry
            k = bisect_left(self._matches, here) if here is not None else 0
            self._go_to_match(k % len(self._matches))
        self.refresh()

    def action_search_step(self, step: int) -> None:
        """Go to the next (or previous) match of the last search."""
        if self._matches:
            self._go_to_match((self._match_at + step) % len(self._matches))

    def _go_to_match(self, k: int) -> None:
        self._match_at = k
        self.move_to_entry(self._matches[k])
        self.refresh()

    _search_generation = 0
    _matches: list[int] = []  # noqa: RUF012 - replaced, never mutated
    _match_at = -1
    _query = ""
    searching = False
    """True while a search runs in its worker."""
