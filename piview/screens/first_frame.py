"""Provides :class:`AfterFrame`, what waits for a screen's first frame written, and
:class:`FirstResumeScreen`, a screen not restyled whole again when first shown.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual import events, on
from textual.screen import Screen


class AfterFrame:
    """Callbacks run once a screen's next frame is written; the screen calls
    :meth:`written` after each paint. ``held``: the screen is the app's first, whose paints
    inside Textual's start-up batch are never written: nothing runs until :meth:`release`.
    """

    __slots__ = ("_held", "_waiting")

    def __init__(self, *, held: bool = False) -> None:
        self._waiting: list[Callable[[], object]] = []
        self._held = held

    def add(self, callback: Callable[[], object]) -> None:
        """Run ``callback`` once the screen's next frame is written."""
        self._waiting.append(callback)

    def release(self) -> None:
        """The start-up batch is over (the app is ready): the next paint is written."""
        self._held = False

    def written(self, screen: Screen[Any]) -> None:
        """The screen painted a frame: the callbacks waiting run from its queue, once."""
        if self._waiting and not self._held:
            waiting, self._waiting = self._waiting, []
            for callback in waiting:
                screen.call_later(callback)


class FirstResumeScreen(Screen[None]):
    """A screen whose first resume, just after its mount styled every widget, does not
    restyle the whole screen again (this handler runs before :class:`Screen`'s own)."""

    _resumed = False

    @on(events.ScreenResume)
    def _first_resume(self, event: events.ScreenResume) -> None:
        if not self._resumed:
            self._resumed = True
            event.refresh_styles = False
