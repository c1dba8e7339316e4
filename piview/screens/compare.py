"""Provides :class:`CompareScreen`: two branches compared from their common ancestor.

Opened from the branch panel (``m``, then ``=``); the comparison is computed in a worker. Enter
on an item opens its entry on its own branch in a :class:`BranchScreen`.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Static

from piview.model.branchdiff import BranchDiff, compare_branches
from piview.model.session import Session
from piview.render.branchdiff import Section, comparison_sections
from piview.render.sanitize import sanitize_line
from piview.screens.session import SessionScreen, session_title
from piview.widgets.compare_list import CompareList
from piview.widgets.keybar import KeyBar
from piview.widgets.offthread import compute_off_thread
from piview.widgets.transcript import Transcript


def _compute(session: Session, leaf_a: int, leaf_b: int) -> tuple[BranchDiff, list[Section]]:
    diff = compare_branches(session, leaf_a, leaf_b)
    return diff, comparison_sections(session, diff)


class CompareScreen(Screen[None]):
    """The comparison of the branches to ``leaf_a`` (A) and ``leaf_b`` (B).

    Keys: :attr:`BINDINGS` (the help screen, ``?``, lists them from there, with a line each).
    """

    HELP_TITLE = "Comparison"

    BINDINGS = [
        Binding("escape", "close", "Back", tooltip="back to the session"),
    ]

    DEFAULT_CSS = """
    CompareScreen { layout: vertical; }
    CompareScreen #title { height: 1; background: $panel; color: $text; padding: 0 1; }
    CompareScreen #status { height: 1; background: $panel; color: $text-muted; padding: 0 1; }
    """

    def __init__(self, session: Session, leaf_a: int, leaf_b: int) -> None:
        super().__init__()
        self.session = session
        self.leaf_a = leaf_a
        self.leaf_b = leaf_b
        self.diff: BranchDiff | None = None
        """The comparison, once the worker has computed it."""

    def compose(self) -> ComposeResult:
        """Title, the rows, a status line and the keys."""
        ids = self.session.ids
        title = Text(no_wrap=True, overflow="ellipsis")
        title.append("Compare ", "bold")
        title.append(f"A {sanitize_line(ids[self.leaf_a][:8])}", "bold")
        title.append(" with ", "bold")
        title.append(f"B {sanitize_line(ids[self.leaf_b][:8])}", "bold")
        title.append("  ·  " + sanitize_line(session_title(self.session)), "dim")
        yield Static(title, id="title")
        yield CompareList(id="rows")
        yield Static("comparing the two branches…", id="status")
        yield KeyBar()

    def on_mount(self) -> None:
        """Compute the comparison off the UI thread (a long side reads many entries)."""
        self.query_one(CompareList).focus()
        compute_off_thread(
            self,
            partial(_compute, self.session, self.leaf_a, self.leaf_b),
            self._computed,
            group="compare",
            description="Comparing two branches",
        )

    def _computed(self, result: tuple[BranchDiff, list[Section]] | None) -> None:
        status = self.query_one("#status", Static)
        if result is None:
            status.update("the comparison failed (see the log)")
            return
        diff, sections = result
        self.diff = diff
        self.query_one(CompareList).show(self.session, diff, sections)
        anc = diff.ancestor
        where = f"fork at {self.session.ids[anc][:8]}" if anc is not None else "no common ancestor"
        status.update(
            Text(
                sanitize_line(
                    f"{where}  ·  A {len(diff.a.entries):,} entries, B {len(diff.b.entries):,} "
                    "after it  ·  enter: show an item on its branch"
                )
            )
        )

    @on(CompareList.Chosen)
    def _on_chosen(self, event: CompareList.Chosen) -> None:
        screen = BranchScreen(self.session, leaf=event.entry, follow=False, part=event.part)
        screen.leaf = event.leaf  # the item's own branch, not the newest leaf under it
        self.app.push_screen(screen)

    def action_close(self) -> None:
        """Back to the session."""
        self.dismiss(None)


class BranchScreen(SessionScreen):
    """A branch opened from the comparison (escape returns to it), focusing block ``part`` of
    the entry (a tool call's index in its message)."""

    def __init__(self, session: Session, *, part: int = -1, **kwargs: Any) -> None:
        super().__init__(session, **kwargs)
        self._focus_part = part

    def on_mount(self) -> None:
        """Once the session screen has shown the branch, focus the item's own block."""
        if self._focus_part >= 0:
            self.call_after_refresh(self._focus_block)

    def _focus_block(self) -> None:
        transcript = self.query_one(Transcript)
        entry = self._focus_entry
        for k, item in enumerate(transcript.items):
            if item.entry == entry and item.part == self._focus_part:
                transcript.focus_item(k)
                return

    def action_escape(self) -> None:
        """Close the search or leave the panel as the session screen does; else go back."""
        if not self.search_keys.escape():
            self.dismiss(None)
