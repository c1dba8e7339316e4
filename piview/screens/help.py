"""Provides :class:`HelpScreen`: every key, grouped by where it works."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

__all__ = ["HELP_SECTIONS", "HelpScreen"]

HELP_SECTIONS: list[tuple[str, list[tuple[str, str]]]] = [
    (
        "Transcript",
        [
            ("j / ↓", "next block"),
            ("k / ↑", "previous block"),
            ("g / G", "first / last block"),
            ("[ / ]", "previous / next user message"),
            ("enter, click", "expand or collapse the focused block"),
            ("t", "expand or collapse all thinking"),
            ("o", "expand or collapse all tool output"),
            ("e", "next error (tool error, error or aborted turn)"),
            ("' / \"", "next / previous labelled entry"),
            ("/", "search: every word, re:regex, smart case"),
            ("tab, ^r", "in the field: all branches / regex"),
            ("n / N", "next / previous match"),
            ("space / pgup", "page down / up"),
        ],
    ),
    (
        "Views",
        [
            ("b", "branch panel: pick any entry, its newest leaf is shown"),
            ("u", "usage sidebar: tokens and cost"),
            ("H", "show or hide hidden entries"),
            ("ctrl+p", "command palette: every action"),
            ("?", "this help"),
            ("q", "quit"),
        ],
    ),
    (
        "Branch panel",
        [
            ("↑ ↓ / j k", "move"),
            ("enter", "show the branch through this entry"),
            ("← →", "fold / unfold a branch"),
            ("' / \"", "next / previous labelled entry, folded ones too"),
            ("f", "cycle filter: default, no-tools, user-only, labeled-only, all"),
            ("/ , n N", "search every entry, folded ones too; next / previous match"),
            ("escape", "back to the transcript"),
        ],
    ),
]
"""Every key piview knows, by section: (key, what it does)."""


class HelpScreen(ModalScreen[None]):
    """A modal listing every key. Any of escape, q or ? closes it."""

    BINDINGS = [Binding("escape,q,question_mark", "dismiss", "Close")]

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll {
        width: 72; height: auto; max-height: 90%;
        border: round $primary; background: $surface; padding: 0 1;
    }
    """

    def compose(self) -> ComposeResult:
        """One table per section."""
        with VerticalScroll():
            yield Static(Text("piview — keys", style="bold"))
            for title, rows in HELP_SECTIONS:
                table = Table(
                    title=title,
                    title_justify="left",
                    title_style="bold",
                    show_header=False,
                    box=None,
                    padding=(0, 2),
                )
                table.add_column(style="bold cyan", no_wrap=True)
                table.add_column()
                for key, what in rows:
                    table.add_row(key, what)
                yield Static(table)
            yield Static(Text("escape closes this help", style="dim"))

    def action_dismiss(self, result: None = None) -> None:  # type: ignore[override]
        """Close the help."""
        self.dismiss(None)
