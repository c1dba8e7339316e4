"""Provides :class:`GotoScreen`: the ``:`` prompt, which takes an entry id (or a prefix)."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from piview.widgets.text_input import TextInput


class GotoScreen(ModalScreen[str | None]):
    """Ask for an entry id; dismisses with what was typed (stripped), or None on escape."""

    HELP_TITLE = "Go to entry"

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    DEFAULT_CSS = """
    GotoScreen { align: center middle; }
    GotoScreen > Vertical {
        width: 60; max-width: 100%; height: auto; border: round $primary;
        background: $surface; padding: 0 1;
    }
    GotoScreen Static { color: $text-muted; }
    """

    def compose(self) -> ComposeResult:
        """A line of help and the field."""
        with Vertical():
            yield Static("Go to entry: its id, or the first characters of it")
            yield TextInput(placeholder="entry id", id="goto")

    @on(Input.Submitted, "#goto")
    def _submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        """Close without going anywhere."""
        self.dismiss(None)
