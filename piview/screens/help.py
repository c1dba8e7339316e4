"""Provides :class:`HelpScreen`: every key of the screen it was opened from, read from the
bindings themselves (:mod:`piview.widgets.keymap`), so it cannot drift from what they do."""

from __future__ import annotations

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from piview.render.plugins import REGISTRY
from piview.widgets.keymap import KeyGroup


class HelpScreen(ModalScreen[None]):
    """A modal listing every key, by the part of the screen it works in. Escape or ? closes it;
    q quits, as everywhere."""

    BINDINGS = [
        Binding("escape,question_mark", "dismiss", "Close"),
        Binding("q", "app.quit", "Quit", show=False, tooltip="quit"),
    ]

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll {
        width: 76; max-width: 100%; height: auto; max-height: 90%;
        border: round $primary; background: $surface; padding: 0 1;
    }
    """

    def __init__(self, groups: list[KeyGroup], legend: RenderableType | None = None) -> None:
        super().__init__()
        self.groups = groups
        self.legend = legend
        """What the screen's colours mean, under its keys (the timeline's ``help_legend``)."""

    def compose(self) -> ComposeResult:
        """One table per part of the screen."""
        with VerticalScroll():
            yield Static(Text("piview — keys", style="bold"))
            for group in self.groups:
                table = Table(
                    title=group.title,
                    title_justify="left",
                    title_style="bold",
                    show_header=False,
                    box=None,
                    padding=(0, 2),
                )
                table.add_column(style="bold cyan", no_wrap=True)
                table.add_column()
                for k in group.keys:
                    table.add_row(" ".join(k.keys), k.what)
                yield Static(table)
            if self.legend is not None:
                yield Static(self.legend)
            if plugins := REGISTRY.load():  # with the packages they came from
                yield Static(Text("renderer plugins: " + "; ".join(plugins), style="dim"))
            yield Static(Text("escape closes this help", style="dim"))

    def on_mount(self) -> None:
        """Focus the list, so the arrows scroll it."""
        self.query_one(VerticalScroll).focus()

    def action_dismiss(self, result: None = None) -> None:  # type: ignore[override]
        """Close the help."""
        self.dismiss(None)
