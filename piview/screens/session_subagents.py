"""Provides :class:`Subagents`: enter on a subagent call opens the child session it started
(one of its children, picked, for a parallel or chain run), and ``P`` in the child comes back.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.screen import Screen

if TYPE_CHECKING:
    from piview.model import Session
    from piview.render.item import Item


class Subagents:
    """Enter on ``screen``'s subagent call: the child's session pushed with
    ``open_screen(child, follow=False, from_picker=True)`` (escape comes back to the call)."""

    def __init__(
        self, screen: Screen[Any], session: Session, open_screen: Callable[..., Screen[Any]]
    ) -> None:
        self._screen = screen
        self._session = session
        self._open_screen = open_screen

    def children(self, item: Item) -> list[tuple[Text, Path | None]] | None:
        """The rows of the subagent call ``item`` and each child's file, or None when it is
        not a subagent call."""
        if item.kind != "tool":
            return None
        from piview.render.roles.subagent import call_rows

        return call_rows(self._session, item.entry, item.part)

    def enter(self, item: Item) -> bool:
        """Open the child of the subagent call ``item`` (True), or do nothing (False: it is
        not one, and enter expands the block as usual)."""
        rows = self.children(item)
        if rows is None:
            return False
        screen = self._screen
        found = [p for _t, p in rows if p is not None]
        if not rows:
            screen.notify("This call started no child session.", timeout=3)
        elif not found:
            what = (
                "The child session of this call is"
                if len(rows) == 1
                else "None of this call's child sessions is"
            )
            screen.notify(f"{what} not on this machine.", severity="warning")
        elif len(rows) == 1:
            self.open(found[0])
        else:
            from piview.screens.subagent_runs import SubagentRunsScreen

            screen.app.push_screen(SubagentRunsScreen(rows), self._chosen)
        return True

    def _chosen(self, path: Path | None) -> None:
        if path is not None:
            self.open(path)

    def open(self, path: Path) -> None:
        """Load ``path`` in a worker and push its screen."""
        screen = self._screen
        screen.notify(f"Opening {path.name}…", timeout=2, markup=False)
        screen.run_worker(
            partial(self._load, path),
            name="_open_child",
            group="child",
            description="Opening the child session",
            exclusive=True,
            thread=True,
        )

    def _load(self, path: Path) -> None:
        from piview.model import SessionOpenError, load_session

        app = self._screen.app
        try:
            child = load_session(path)
        except SessionOpenError as exc:
            app.call_from_thread(self._screen.notify, str(exc), severity="error", markup=False)
            return
        app.call_from_thread(self._show, child)

    def _show(self, child: Session) -> None:
        screen = self._open_screen(child, follow=False, from_picker=True)
        self._screen.app.push_screen(screen)
