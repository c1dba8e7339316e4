"""Provides :class:`SubagentRunsScreen`: the children of one subagent call, to pick one."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option


class SubagentRunsScreen(ModalScreen[Path | None]):
    """One row per child run; dismisses with the chosen child's file (None on escape)."""

    HELP_TITLE = "Subagent runs"

    BINDINGS = [
        Binding("escape", "cancel", "Back", tooltip="back to the call"),
        Binding("enter", "choose", "Open", tooltip="open the child session"),
    ]

    DEFAULT_CSS = """
    SubagentRunsScreen { align: center middle; }
    SubagentRunsScreen > Vertical {
        width: 90%; max-width: 110; height: auto; max-height: 80%; border: round $primary;
        background: $surface; padding: 0 1;
    }
    SubagentRunsScreen Static { color: $text-muted; }
    SubagentRunsScreen OptionList { height: auto; max-height: 20; border: none; }
    """

    def __init__(self, rows: list[tuple[Text, Path | None]]) -> None:
        super().__init__()
        self._rows = rows

    def compose(self) -> ComposeResult:
        """A line of help and the rows (a child whose file is missing cannot be chosen)."""
        with Vertical():
            yield Static("Children of this call · enter opens one · escape goes back")
            options = []
            for k, (text, path) in enumerate(self._rows):
                if path is None:
                    text = text.copy()
                    text.append("  (session file not found)", style="yellow")
                options.append(Option(text, id=str(k), disabled=path is None))
            yield OptionList(*options, id="runs")

    def on_mount(self) -> None:
        """Focus the first child that can be opened."""
        runs = self.query_one(OptionList)
        runs.focus()
        first = next((k for k, (_t, p) in enumerate(self._rows) if p is not None), None)
        if first is not None:
            runs.highlighted = first

    @on(OptionList.OptionSelected, "#runs")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self._rows[int(event.option.id or 0)][1])

    def action_choose(self) -> None:
        """Open the highlighted child."""
        runs = self.query_one(OptionList)
        if runs.highlighted is not None:
            self.dismiss(self._rows[runs.highlighted][1])

    def action_cancel(self) -> None:
        """Back to the call."""
        self.dismiss(None)
