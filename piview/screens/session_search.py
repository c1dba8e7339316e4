"""Provides :class:`SearchKeys`: the session screen's search field and escape key.

``/`` opens the field for the branch panel when it has the focus, else for the transcript; an
``all:`` query (tab in the field) searches every branch
(:class:`piview.screens.search_results.SearchResultsScreen`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widgets import Input

from piview.widgets.branch_panel import BranchPanel
from piview.widgets.transcript import Transcript

if TYPE_CHECKING:
    from piview.model.query import Query
    from piview.render.search import AllHit
    from piview.screens.session import SessionScreen
    from piview.widgets.search_field import SearchField


class SearchKeys:
    """The search field and escape of ``screen``."""

    def __init__(self, screen: SessionScreen) -> None:
        self._screen = screen
        self._tree = False
        """The search field is open for the branch panel."""

    async def open(self) -> None:
        """Open the search field: for the branch panel when it has the focus, else for the
        transcript."""
        screen = self._screen
        panel = screen.query_one(BranchPanel)
        self._tree = panel.has_class("-visible") and panel.has_focus
        box = self.box()
        if box is None:
            from piview.widgets.search_field import SearchField

            # Mounted on first use: one widget less to build before the first screen.
            box = SearchField(id="search")
            await screen.mount(box, before="#status")
        box.scopes = not self._tree
        box.placeholder = (
            "search the tree: words, or re:regex (enter: find, escape: close)"
            if self._tree
            else "search this branch: words, or re:regex; tab: all branches (enter: find)"
        )
        box.add_class("-visible")
        box.focus()

    def box(self) -> SearchField | None:
        # Imported with the field's first use (the first screen has none).
        from piview.widgets.search_field import SearchField

        found = self._screen.query("#search").results(SearchField)
        return next(iter(found), None)

    def escape(self) -> bool:
        """Close the search field, leave the branch panel, or clear the search (cancelling
        it if it still runs); False when there was none of these to do."""
        screen = self._screen
        box = self.box()
        if box is not None and box.has_class("-visible"):
            box.remove_class("-visible")
            self.target().focus()
            return True
        panel = screen.query_one(BranchPanel)
        if panel.has_class("-visible") and panel.has_focus:
            screen.query_one(Transcript).focus()
            return True
        transcript = screen.query_one(Transcript)
        if transcript.search_state is not None:
            running = transcript.searching
            transcript.clear_search()  # cancels a search still running
            screen.update_status()
            if running:
                screen.notify("Search cancelled", timeout=3)
            return True
        return False

    def target(self) -> Transcript | BranchPanel:
        """What the search field searches: the branch panel or the transcript."""
        screen = self._screen
        if self._tree and screen.query_one(BranchPanel).has_class("-visible"):
            return screen.query_one(BranchPanel)
        return screen.query_one(Transcript)

    def submit(self, event: Input.Submitted) -> None:
        """Run the search typed in the field, and close it."""
        target = self.target()
        screen = self._screen
        event.input.remove_class("-visible")
        from piview.model.query import parse_query

        query = parse_query(event.value)
        if isinstance(target, Transcript) and query.all_branches:
            target.focus()
            if query.blank:
                target.search(query)  # clears the search, or says the expression is bad
            else:
                self._all_branches(target, query)
        else:
            target.search(event.value)
            target.focus()
        screen.update_status()

    def _all_branches(self, transcript: Transcript, query: Query) -> None:
        """Open the results of ``query`` on every branch; show the one chosen on its branch
        (not while only the tail of a big file is loaded)."""

        screen = self._screen
        if screen.session.partial:
            screen.notify(
                "The whole file is still loading: search all branches once it is loaded",
                timeout=4,
            )
            return
        # Imported on the first search of every branch: the first screen never shows it.
        from piview.screens.search_results import SearchResultsScreen

        def chosen(hit: AllHit | None) -> None:
            if hit is None:
                return
            transcript.search_next_path(query.on_one_branch(), (hit.entry, hit.part))
            screen.show_branch(hit.leaf, focus_entry=hit.entry)
            transcript.focus()

        screen.app.push_screen(
            SearchResultsScreen(
                screen.session,
                query,
                shown_path=list(transcript.path),
                shown_leaf=screen.leaf,
                show_hidden=transcript.show_hidden,
            ),
            chosen,
        )
