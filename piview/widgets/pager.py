"""Provides :class:`PagerScroll`, a scrollable box with the keys of a pager (nothing animates:
an animated End stopped short while the height grew), and :class:`PagerModal` around it.
"""

from __future__ import annotations

from rich.console import RenderableType
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from piview.widgets.keybar import KeyBar


class PagerScroll(VerticalScroll):
    """A :class:`VerticalScroll` that scrolls like ``less``."""

    HELP_TITLE = "Scrolling"

    BINDINGS = [
        Binding("j,down", "line(1)", "Down", show=False),
        Binding("k,up", "line(-1)", "Up", show=False),
        Binding("space,pagedown", "page(1)", "Page down", show=False),
        Binding("b,pageup", "page(-1)", "Page up", show=False),
        Binding("g,home", "top", "Top", show=False),
        Binding("G,end", "end", "End", show=False),
    ]

    def action_line(self, step: int) -> None:
        """Scroll ``step`` lines."""
        self.scroll_to(y=self.scroll_y + step, animate=False, immediate=True)

    def action_page(self, step: int) -> None:
        """Scroll ``step`` pages (one line of the last page stays in view)."""
        page = max(1, self.scrollable_content_region.height - 1)
        self.scroll_to(y=self.scroll_y + step * page, animate=False, immediate=True)

    def action_top(self) -> None:
        """Go to the top at once."""
        self.scroll_to(y=0, animate=False, immediate=True)

    def action_end(self) -> None:
        """Go to the end at once (after the layout, so that a long text is measured)."""
        self.scroll_end(animate=False, immediate=True)
        self.call_after_refresh(self.scroll_end, animate=False, immediate=True)


class PagerModal(ModalScreen[None]):
    """A modal showing :meth:`content` in a :class:`PagerScroll`, over the keys."""

    def content(self) -> RenderableType:
        """What the box shows."""
        raise NotImplementedError

    def compose(self) -> ComposeResult:
        """The content in a scrollable box."""
        with PagerScroll():
            yield Static(self.content())
        yield KeyBar()

    def on_mount(self) -> None:
        """Focus the scroll area so keys scroll it."""
        self.query_one(PagerScroll).focus()

    def action_dismiss(self, result: None = None) -> None:  # type: ignore[override]
        """Close."""
        self.dismiss(None)
