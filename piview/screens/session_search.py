"""Provides :class:`SessionSearch`: the session screen's search field and escape key, as a
mixin of :class:`piview.screens.session.SessionScreen`.

``/`` opens the field for the branch panel when it has the focus, else for the transcript;
enter runs the search there, or, for an ``all:`` query (tab in the field), over every branch:
the results open in :class:`piview.screens.search_results.SearchResultsScreen` and the one
chosen is shown on its branch. Escape closes the field, leaves the panel, clears the search,
or goes back to the picker, in that order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widgets import Input

from piview.widgets.branch_panel import BranchPanel
from piview.widgets.transcript import Transcript

if TYPE_CHECKING:
    from textual.screen import Screen

    from piview.model import Session
    from piview.model.query import Query
    from piview.render.search import AllHit
    from piview.widgets.search_field import SearchField

    _Screen = Screen[None]
else:
    _Screen = object  # a plain mixin: Textual sees only the screen class itself

__all__ = ["SessionSearch"]


class SessionSearch(_Screen):
    """The search field and escape; the screen provides what is declared here."""

    session: Session
    from_picker: bool

    if TYPE_CHECKING:

        def _update_status(self) -> None: ...
        def show_branch(self, leaf: int | None, *, focus_entry: int | None = None) -> None: ...

        leaf: int | None

    async def action_search(self) -> None:
        """Open the search field: for the branch panel when it has the focus, else for the
        transcript."""
        panel = self.query_one(BranchPanel)
        self._search_tree = panel.has_class("-visible") and panel.has_focus
        box = self._search_box()
        if box is None:
            from piview.widgets.search_field import SearchField

            # Mounted on first use: one widget less to build before the first screen.
            box = SearchField(id="search")
            await self.mount(box, before="#status")
        box.scopes = not self._search_tree
        box.placeholder = (
            "search the tree: words, or re:regex (enter: find, escape: close)"
            if self._search_tree
            else "search this branch: words, or re:regex; tab: all branches (enter: find)"
        )
        box.add_class("-visible")
        box.focus()

    _search_tree = False
    """The search field is open for the branch panel."""

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """While the search field has the focus, the screen's keys are letters to type:
        the footer then shows only the field's own (find, close). A screen just swapped in
        (the whole file for its tail) takes no key before its widgets are mounted."""
        if not self.is_mounted:
            return False
        return not (isinstance(self.focused, Input) and action != "escape")

    def _search_box(self) -> SearchField | None:
        # Imported with the field's first use (the first screen has none).
        from piview.widgets.search_field import SearchField

        found = self.query("#search").results(SearchField)
        return next(iter(found), None)

    def action_escape(self) -> None:
        """Close the search field, leave the branch panel, clear the search (cancelling it
        if it still runs), or go back to the picker."""
        box = self._search_box()
        if box is not None and box.has_class("-visible"):
            box.remove_class("-visible")
            self._search_target().focus()
            return
        panel = self.query_one(BranchPanel)
        if panel.has_class("-visible") and panel.has_focus:
            self.query_one(Transcript).focus()
            return
        transcript = self.query_one(Transcript)
        if transcript.search_state is not None:
            running = transcript.searching
            transcript.clear_search()  # cancels a search still running
            self._update_status()
            if running:
                self.notify("Search cancelled", timeout=3)
            return
        if self.from_picker:
            self.session.close()
            self.dismiss(None)

    def _search_target(self) -> Transcript | BranchPanel:
        """What the search field searches: the branch panel or the transcript."""
        if self._search_tree and self.query_one(BranchPanel).has_class("-visible"):
            return self.query_one(BranchPanel)
        return self.query_one(Transcript)

    def _submit_search(self, event: Input.Submitted) -> None:
        """Run the search typed in the field, and close it."""
        target = self._search_target()
        event.input.remove_class("-visible")
        from piview.model.query import parse_query

        query = parse_query(event.value)
        if isinstance(target, Transcript) and query.all_branches:
            target.focus()
            if query.blank:
                target.search(query)  # clears the search, or says the expression is bad
            else:
                self._search_all_branches(target, query)
            self._update_status()
            return
        target.search(event.value)
        target.focus()
        self._update_status()

    def _search_all_branches(self, transcript: Transcript, query: Query) -> None:
        """Open the results of ``query`` on every branch; show the one chosen on its branch.

        Not while only the tail of a big file is loaded: the results would miss the rest.
        """
        if self.session.partial:
            self.notify(
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
            self.show_branch(hit.leaf, focus_entry=hit.entry)
            transcript.focus()

        self.app.push_screen(
            SearchResultsScreen(
                self.session,
                query,
                shown_path=list(transcript.path),
                shown_leaf=self.leaf,
                show_hidden=transcript.show_hidden,
            ),
            chosen,
        )
