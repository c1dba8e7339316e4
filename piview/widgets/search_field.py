"""Provides :class:`SearchField`: the session screen's search box."""

from __future__ import annotations

from textual.binding import Binding
from textual.widgets import Input

__all__ = ["SearchField"]


class SearchField(Input):
    """The search field: enter finds, escape closes (both shown in the footer)."""

    BINDINGS = [
        Binding("enter", "submit", "Find"),
        Binding("escape", "screen.escape", "Close"),
    ]
