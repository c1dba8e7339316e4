"""Provides :class:`BlockStrips`: the drawn lines of the transcript's blocks, cached.

A block is drawn once per width and expanded state, or taken from what the prerender child
drew for the first frame (:mod:`piview.render.prerender`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from textual.cache import LRUCache
from textual.strip import Strip

from piview.render.itemlines import item_lines
from piview.render.items import Item
from piview.render.layout import text_width
from piview.render.prerender import Key, Lines, Prerender, console_signature

if TYPE_CHECKING:
    from rich.console import Console

    from piview.model import Session


class BlockStrips:
    """The strips of a session's blocks, by ``(entry, part, hidden, expanded, view width)``
    (a hidden entry's block is dim); ``console`` gives the app's console, once mounted."""

    def __init__(
        self, session: Session, prerender: Prerender | None, console: Callable[[], Console]
    ) -> None:
        self.session = session
        self._console = console
        self._prerender = prerender
        """Blocks of the first frame, rendered by a child process while Textual loaded."""
        self._prerendered: dict[Key, Lines] = {}
        self._cache: LRUCache[tuple[int, int, bool, bool, int], list[Strip]] = LRUCache(512)

    def get(self, item: Item, expanded: bool, view_width: int) -> list[Strip]:
        """The lines of ``item`` in a view ``view_width`` wide, and one blank line after it."""
        key = (item.entry, item.part, item.hidden, expanded, view_width)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        width = text_width(view_width)
        if self._prerender is not None:
            self._take_prerendered()
        lines = self._prerendered.pop((item.entry, item.part, expanded, width), None)
        if lines is None:
            lines = item_lines(
                self.session, item, expanded=expanded, width=width, console=self._console()
            )
        strips = [Strip(line, width) for line in lines]
        strips.append(Strip.blank(width))  # one blank line between blocks
        self._cache[key] = strips
        return strips

    def clear(self) -> None:
        """Forget every drawn block (another path or filter)."""
        # A block may depend on the ones before it (a model change): another path renders.
        self._cache.clear()
        if self._prerender is None:
            self._prerendered.clear()

    def _take_prerendered(self) -> None:
        """Collect the child's blocks (once), if they are what this widget would draw."""
        pre, self._prerender = self._prerender, None
        if pre is None or pre.session is not self.session:
            if pre is not None:
                pre.close()
            return
        got = pre.take()
        if got is not None and got[0] == console_signature(self._console()):
            self._prerendered = got[1]
