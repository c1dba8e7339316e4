"""Provides :class:`SearchField`: the session screen's search box, whose toggles write the
query's prefixes (``all:``, ``re:``, :mod:`piview.model.query`) into the text itself."""

from __future__ import annotations

from textual.binding import Binding

from piview.model.query import ALL_PREFIX, REGEX_PREFIX, toggle_prefix
from piview.widgets.text_input import TextInput


class SearchField(TextInput):
    """The search field: enter finds, escape closes, tab switches between this branch and
    all branches, ctrl+r between words and a regular expression (all shown in the footer)."""

    HELP_TITLE = "Search field"

    BINDINGS = [
        Binding("enter", "submit", "Find", tooltip="find (on every branch with all:)"),
        Binding("escape", "screen.escape", "Close", tooltip="close the field"),
        Binding(
            "tab",
            "toggle_prefix('all:')",
            "All branches",
            tooltip="this branch or all branches (all:): a list of every branch's matches",
        ),
        Binding(
            "ctrl+r",
            "toggle_prefix('re:')",
            "Regex",
            tooltip="words or a regular expression (re:); a capital letter matches case",
        ),
    ]

    scopes = True
    """Whether the search can cover all branches (the transcript's can; the panel's always
    looks at every entry)."""

    def action_toggle_prefix(self, prefix: str) -> None:
        """Switch ``all:`` or ``re:`` on or off at the start of the query."""
        if prefix not in (ALL_PREFIX, REGEX_PREFIX):
            return
        self.value = toggle_prefix(self.value, prefix)
        self.cursor_position = len(self.value)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The scope toggle only where there is a choice of scope."""
        if action == "toggle_prefix" and parameters == (ALL_PREFIX,) and not self.scopes:
            return False
        return super().check_action(action, parameters)
