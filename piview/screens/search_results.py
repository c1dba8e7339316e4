"""Provides :class:`SearchResultsScreen`: the results of a search over all branches.

Opened by the session screen for an ``all:`` query; dismisses with the result chosen.
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from piview.model.query import Query
from piview.model.session import Session
from piview.render.sanitize import sanitize_line
from piview.render.search import AllHit
from piview.widgets.keybar import KeyBar
from piview.widgets.search_results import SearchResults


class SearchResultsScreen(ModalScreen[AllHit | None]):
    """Every branch's matches of a query. Dismisses with the chosen result, or ``None``.

    Keys: :attr:`BINDINGS` (the help screen, ``?``, lists them from there, with a line each).
    """

    HELP_TITLE = "Search all branches"

    # A modal screen stops the app's keys: q must quit here too, ? still helps.
    BINDINGS = [
        Binding("escape", "close", "Close", tooltip="close the results (the search stops)"),
        Binding("question_mark", "app.help", "Help", tooltip="this help"),
        Binding("q", "app.quit", "Quit", tooltip="quit"),
    ]

    DEFAULT_CSS = """
    SearchResultsScreen { align: center middle; }
    SearchResultsScreen #box {
        width: 96%; height: 92%; border: round $primary; background: $surface;
    }
    SearchResultsScreen #summary { height: 1; padding: 0 1; color: $text-muted; }
    SearchResultsScreen SearchResults { height: 1fr; }
    """

    def __init__(
        self,
        session: Session,
        query: Query,
        *,
        shown_path: list[int],
        shown_leaf: int | None,
        show_hidden: bool = False,
    ) -> None:
        super().__init__()
        self.session = session
        self.search_query = query
        self._results = SearchResults(
            session, query, shown_path=shown_path, shown_leaf=shown_leaf, show_hidden=show_hidden
        )

    def compose(self) -> ComposeResult:
        """The summary line, the list, the keys."""
        with Vertical(id="box"):
            yield Static(self._summary(), id="summary")
            yield self._results
        yield KeyBar()

    def on_mount(self) -> None:
        """Focus the list."""
        box = self.query_one("#box")
        box.border_title = "search all branches"
        self._results.focus()

    def _summary(self) -> Text:
        r = self._results
        n, total = len(r.hits), len(self.session)
        what = f"/{self.search_query.text}: {n} match{'es' if n != 1 else ''}"
        what += f" on {len(r.branches)} branch{'es' if len(r.branches) != 1 else ''}"
        if r.running:
            what += f"  ·  searching… {100 * r.looked // max(1, total)}%"
        # The query comes from the user: text, never markup.
        return Text(sanitize_line(what))

    @on(SearchResults.Progress)
    def _on_progress(self) -> None:
        self.query_one("#summary", Static).update(self._summary())

    @on(SearchResults.Chosen)
    def _on_chosen(self, event: SearchResults.Chosen) -> None:
        self._results.cancel()
        self.dismiss(event.hit)

    def action_close(self) -> None:
        """Close the results (stopping the search)."""
        self._results.cancel()
        self.dismiss(None)
