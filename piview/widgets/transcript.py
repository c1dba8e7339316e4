"""Provides :class:`Transcript`: the virtualized, Line-API view of one branch of a session.

No widget per message: the transcript is one ScrollView over a flat list of items (see
:mod:`piview.render.items`). Heights start as estimates; only the items that intersect the
viewport are rendered (with Rich, at the current width) and cached as strips. When a rendered
height differs from its estimate, the prefix sums are fixed and the scroll offset is shifted so
that what the user is looking at stays put.
"""

from __future__ import annotations

import time
from array import array
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import accumulate
from typing import TYPE_CHECKING

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.worker import Worker, get_current_worker

from piview.render.items import Item, ItemList, build_items, item_lines, item_text
from piview.render.prerender import Key, Lines, Prerender, console_signature

if TYPE_CHECKING:
    from piview.model import Session

__all__ = ["Transcript"]

_GUTTER = 2
_MAX_ESTIMATE = 30


@dataclass(slots=True)
class _Search:
    query: str
    matches: list[int]
    hits: set[int]
    current: int = -1
    running: bool = False


class Transcript(ScrollView, can_focus=True):
    """The transcript of one branch: root to leaf, one item per block.

    | Key(s) | Description |
    | :- | :- |
    | j, down | Next block |
    | k, up | Previous block |
    | g, home | First block |
    | G, end | Last block |
    | [ / ] | Previous / next user message |
    | enter | Expand or collapse the focused block |
    | t | Expand or collapse all thinking |
    | o | Expand or collapse all tool output |
    | e | Next error |
    | n / N | Next / previous search match |
    """

    BINDINGS = [
        Binding("j,down", "move(1)", "Next", show=False),
        Binding("k,up", "move(-1)", "Previous", show=False),
        Binding("g,home", "first", "Top", show=False),
        Binding("G,end", "last", "Bottom", show=False),
        Binding("right_square_bracket", "user(1)", "Next user", show=False),
        Binding("left_square_bracket", "user(-1)", "Prev user", show=False),
        Binding("enter", "toggle", "Expand"),
        Binding("t", "toggle_kind('thinking')", "Thinking"),
        Binding("o", "toggle_kind('tool')", "Output", tooltip="Expand or collapse all tool output"),
        Binding("e", "next_error", "Next error"),
        Binding("n", "search_step(1)", "Next match", show=False),
        Binding("N", "search_step(-1)", "Prev match", show=False),
        Binding("pagedown,space", "page(1)", "Page down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
    ]

    DEFAULT_CSS = """
    Transcript {
        background: $surface;
        scrollbar-gutter: stable;
        overflow-x: hidden;
    }
    """

    class CursorMoved(Message):
        """The focused block changed."""

        def __init__(self, transcript: Transcript, index: int, entry: int | None) -> None:
            super().__init__()
            self.transcript = transcript
            self.index = index
            """Item index in the transcript."""
            self.entry = entry
            """Entry index of the focused block, if any."""

        @property
        def control(self) -> Transcript:
            """The transcript."""
            return self.transcript

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, Transcript.CursorMoved)

    class SearchUpdated(Message):
        """Search matches arrived, or the search finished, started or was cleared."""

        def __init__(self, transcript: Transcript) -> None:
            super().__init__()
            self.transcript = transcript

        @property
        def control(self) -> Transcript:
            """The transcript."""
            return self.transcript

    def __init__(
        self,
        session: Session,
        *,
        id: str | None = None,  # noqa: A002
        prerender: Prerender | None = None,
    ) -> None:
        super().__init__(id=id)
        self.session = session
        self._prerender = prerender
        """Blocks of the first frame, rendered by a child process while Textual loaded."""
        self._prerendered: dict[Key, Lines] = {}
        self.items: Sequence[Item] = ItemList()
        self.path: list[int] = []
        self.show_hidden = False
        self.cursor = 0
        self._expanded: dict[tuple[int, int], bool] = {}
        # Arrays, not lists: a 1 GB session has ~500,000 blocks (a list of ints costs 36 B each).
        self._heights = array("i")
        self._offsets = array("q", [0])
        self._exact: bytearray = bytearray()
        self._cache: LRUCache[tuple[int, int, bool, int], list[Strip]] = LRUCache(512)
        self._width = 0
        self._search: _Search | None = None
        self._search_gen = 0
        self._search_worker: Worker[None] | None = None
        self._follow_end = True

    # ------------------------------------------------------------------ model

    def set_path(
        self,
        path: list[int],
        *,
        focus_entry: int | None = None,
        items: ItemList | None = None,
    ) -> None:
        """Show the entries of ``path`` (root to leaf); focus ``focus_entry`` or the last block.

        ``items``: the items of ``path`` already built (by a worker, for a big file).
        """
        self.path = path
        if items is None:
            items = build_items(self.session, path, show_hidden=self.show_hidden)
        self.items = items
        self._clear_rendered()
        self._reset_heights()
        target = len(self.items) - 1
        if focus_entry is not None:
            found = self.index_of_entry(focus_entry)
            if found is not None:
                target = found
        self.cursor = max(0, target)
        if self._search is not None:
            self._cancel_search()
            self._search = None
        if focus_entry is None:
            self._follow_end = True
            self.call_after_refresh(self._deferred_end)
        else:
            self._follow_end = False
            self.call_after_refresh(self.scroll_to_item, self.cursor)
        self.refresh()
        self._post_cursor()

    def update_path(self, path: list[int]) -> None:
        """Show a longer (or different) path, keeping what is already measured.

        Used when the file grows: the blocks both paths share keep their heights; the last
        few are rendered again, since a tool call's result may just have arrived.
        """
        self._measure_deferred()
        old = self.items
        new = build_items(self.session, path, show_hidden=self.show_hidden)
        same = 0
        for a, b in zip(old, new, strict=False):
            if (a.kind, a.entry, a.part) != (b.kind, b.entry, b.part):
                break
            same += 1
        fresh_from = max(0, same - 8)
        self.path = path
        self.items = new
        self._clear_rendered()
        self._heights = self._heights[:fresh_from] + array(
            "i", [self._estimate(it) for it in new[fresh_from:]]
        )
        self._exact = self._exact[:fresh_from] + bytearray(len(new) - fresh_from)
        self._recompute_offsets()
        if self.cursor >= len(new):
            self.cursor = max(0, len(new) - 1)
        if self._follow_end:
            self.cursor = max(0, len(new) - 1)
            self.call_after_refresh(self._deferred_end)
            self._post_cursor()
        self.refresh()

    @property
    def following_end(self) -> bool:
        """True while the view sticks to the end (new blocks scroll into view)."""
        return self._follow_end

    def focus_item(self, index: int) -> None:
        """Focus item ``index`` and bring it into view."""
        self._set_cursor(index)

    def set_show_hidden(self, show: bool, *, items: ItemList | None = None) -> None:
        """Show or hide hidden entries, keeping the focused entry in view.

        ``items``: the path's items for that setting, already built (by a worker).
        """
        entry = self.current_entry
        self.show_hidden = show
        if items is None:
            items = build_items(self.session, self.path, show_hidden=show)
        self.items = items
        self._clear_rendered()
        self._reset_heights()
        self.cursor = 0
        if entry is not None:
            found = self.index_of_entry(entry)
            self.cursor = found if found is not None else self._nearest_index(entry)
        self.call_after_refresh(self.scroll_to_item, self.cursor)
        self.refresh()

    def _nearest_index(self, entry: int) -> int:
        """The last item drawn for an entry at or before ``entry`` on the path."""
        position = {e: j for j, e in enumerate(self.path)}
        limit = position.get(entry, 0)
        best = 0
        for k, item in enumerate(self.items):
            if position.get(item.entry, 0) <= limit:
                best = k
        return best

    def index_of_entry(self, entry: int) -> int | None:
        """Index of the first item of ``entry`` (or of the item that draws it, for results)."""
        items = self.items
        if isinstance(items, ItemList):
            found = items.first_of(entry)
            if found is not None:
                return found
        else:
            for k, item in enumerate(items):
                if item.entry == entry:
                    return k
        ref = self.session.pairing.result_call.get(entry)
        if ref is not None:
            for k, item in enumerate(self.items):
                if item.kind == "tool" and (item.entry, item.part) == ref:
                    return k
        return None

    @property
    def current_item(self) -> Item | None:
        """The focused block."""
        return self.items[self.cursor] if 0 <= self.cursor < len(self.items) else None

    @property
    def current_entry(self) -> int | None:
        """Entry index of the focused block."""
        item = self.current_item
        return item.entry if item is not None else None

    def is_expanded(self, item: Item) -> bool:
        """Whether ``item`` is shown expanded."""
        return self._expanded.get((item.entry, item.part), item.expanded)

    # ------------------------------------------------------------------ heights

    def _estimate(self, item: Item) -> int:
        if item.collapsible and not self.is_expanded(item):
            return 2
        n = self.session.line_length(item.entry) if item.entry >= 0 else 0
        width = max(20, self._width - _GUTTER)
        return max(2, min(_MAX_ESTIMATE, 2 + n // (width * 2)))

    def _reset_heights(self) -> None:
        # Before the first layout, guess the full screen less the scrollbar (the default
        # layout): a right guess saves a second pass over every item on the first render.
        guess = self.app.size.width - self.styles.scrollbar_size_vertical
        self._width = self.scrollable_content_region.width or self.size.width or guess or 80
        if isinstance(self.items, ItemList):
            width = max(20, self._width - _GUTTER)
            lengths = self.session.index.lengths
            self._heights = self.items.estimates(lengths, width, _MAX_ESTIMATE)
            if self._expanded:  # blocks the user opened or closed: only those differ
                where = self.items.position_map()
                for key in self._expanded:
                    k = where.get(key)
                    if k is not None:
                        self._heights[k] = self._estimate(self.items[k])
        else:
            self._heights = array("i", map(self._estimate, self.items))
        self._exact = bytearray(len(self.items))
        self._recompute_offsets()

    def _recompute_offsets(self) -> None:
        self._offsets = array("q", accumulate(self._heights, initial=0))
        self.virtual_size = Size(self._width, self._offsets[-1])

    def _item_at_line(self, y: int) -> int:
        return max(0, min(len(self.items) - 1, bisect_right(self._offsets, y) - 1))

    def _strips(self, index: int) -> list[Strip]:
        item = self.items[index]
        expanded = self.is_expanded(item)
        key = (item.entry, item.part, expanded, self._width)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        width = max(20, self._width - _GUTTER)
        if self._prerender is not None:
            self._take_prerendered()
        lines = self._prerendered.pop((item.entry, item.part, expanded, width), None)
        if lines is None:
            lines = item_lines(
                self.session, item, expanded=expanded, width=width, console=self.app.console
            )
        strips = [Strip(line, width) for line in lines]
        strips.append(Strip.blank(width))  # one blank line between blocks
        self._cache[key] = strips
        return strips

    def _clear_rendered(self) -> None:
        # A block's look may depend on the blocks before it (the model shown when it changes):
        # another path or filter renders again. The child's blocks are for the first path.
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
        if got is not None and got[0] == console_signature(self.app.console):
            self._prerendered = got[1]

    def _measure(self, index: int) -> bool:
        """Render item ``index``; fix its height. True when the height changed."""
        strips = self._strips(index)
        self._exact[index] = 1
        if len(strips) != self._heights[index]:
            self._heights[index] = len(strips)
            return True
        return False

    def _settle(self) -> None:
        """Render every item in the viewport, correcting heights while keeping the view still."""
        if not self.items:
            return
        if not self._follow_end:
            # At the end, the blocks left for later are off screen: the first frame goes out
            # without them (only the scrollbar is rough until they are measured).
            self._measure_deferred()
        height = self.scrollable_content_region.height or self.size.height
        deferred = False
        for attempt in range(8):
            top = round(self.scroll_y)
            if attempt == 0 and self._follow_end and top != max(0, self._offsets[-1] - height):
                # The view is about to stick to the end (the first screen: scroll_y is still
                # 0): draw the end first, and the blocks at scroll_y only after this paint.
                deferred = self._defer_measure(top, height)
            if deferred:
                top = max(0, self._offsets[-1] - height)
            anchor = self._item_at_line(top)
            into = top - self._offsets[anchor]
            first, last = anchor, self._item_at_line(top + height)
            changed = False
            for k in range(first, last + 1):
                if not self._exact[k]:
                    changed |= self._measure(k)
            if not changed:
                if deferred and round(self.scroll_y) != top:
                    self.set_scroll(None, top)
                return
            self._recompute_offsets()
            if self._follow_end:
                new_top = max(0, self._offsets[-1] - height)
            else:
                new_top = self._offsets[anchor] + min(into, self._heights[anchor] - 1)
            self.set_scroll(None, max(0, min(new_top, self._offsets[-1] - height)))

    def _defer_measure(self, top: int, height: int) -> bool:
        """Measure the blocks at lines ``top``..``top + height`` after the next paint; False
        when there is nothing to measure there.

        They are not shown (the view goes to the end), but measuring them fixes their heights,
        hence the scrollbar, exactly as before the first screen was made to skip them.
        """
        first, last = self._item_at_line(top), self._item_at_line(top + height)
        if all(self._exact[first : last + 1]):
            return False
        self._deferred_window = (self.items, first, last)
        # Two hops: at startup this runs while Textual batches updates, and a callback
        # scheduled now would run before the first frame is actually written.
        self.call_after_refresh(self.call_after_refresh, self._measure_deferred)
        return True

    _deferred_window: tuple[Sequence[Item], int, int] | None = None
    """Blocks :meth:`_defer_measure` left to measure: ``(items, first, last)``."""

    def _measure_deferred(self) -> None:
        """Measure the blocks :meth:`_defer_measure` left, if any.

        Runs after the first paint, and before anything that reads or changes heights and
        scroll offsets (a render, a scroll, a key, a click), so these see the heights they
        always saw.
        """
        if self._deferred_window is None:
            return
        window, self._deferred_window = self._deferred_window, None
        if window[0] is not self.items:
            return  # another path or filter since: its own settling measures what shows
        _items, first, last = window
        height = self.scrollable_content_region.height or self.size.height
        top = round(self.scroll_y)
        anchor = self._item_at_line(top)
        into = top - self._offsets[anchor]
        changed = False
        for k in range(first, last + 1):
            if not self._exact[k]:
                changed |= self._measure(k)
        if not changed:
            return
        self._recompute_offsets()
        if self._follow_end:
            new_top = max(0, self._offsets[-1] - height)
        else:  # the user moved since the first screen: keep what they see still
            new_top = self._offsets[anchor] + min(into, self._heights[anchor] - 1)
        self.set_scroll(None, max(0, min(new_top, self._offsets[-1] - height)))
        self.refresh()

    # ------------------------------------------------------------------ rendering

    def render_lines(self, crop: Region) -> list[Strip]:
        """Settle heights for the viewport before Textual asks for each line."""
        width = self.scrollable_content_region.width or self.size.width
        if width and width != self._width:
            self._cache.clear()
            self._reset_heights()
        self._settle()
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        """One screen line: a gutter (cursor mark) and the item's rendered line."""
        line = round(self.scroll_y) + y
        width = self.scrollable_content_region.width
        if not self.items or line >= self._offsets[-1]:
            return Strip.blank(width, self.rich_style)
        index = self._item_at_line(line)
        strips = self._strips(index)
        row = line - self._offsets[index]
        strip = strips[row] if row < len(strips) else Strip.blank(width - _GUTTER)
        if self._search is not None and index in self._search.hits:
            strip = _highlight(strip, self._search.query)
        mark = "▌ " if index == self.cursor and row < len(strips) - 1 else "  "
        style = self._gutter_style(index)
        out = Strip.join([Strip([Segment(mark, style)], _GUTTER), strip])
        return out.crop_extend(0, width, self.rich_style).apply_style(self.rich_style)

    def _gutter_style(self, index: int) -> Style:
        item = self.items[index]
        color = "red" if item.error else ("bright_blue" if self.has_focus else "blue")
        return Style(color=color, bold=True)

    def on_resize(self, event: events.Resize) -> None:
        """Re-estimate at the new width (cached strips are keyed by width)."""
        self.refresh()

    # ------------------------------------------------------------------ scrolling

    def _deferred_end(self) -> None:
        # Set before the first layout; skip it if the user has moved since. The blocks left
        # for after the first frame stay left: measuring them re-scrolls to the end anyway.
        if self._follow_end:
            self._scroll_to_end(measure_deferred=False)

    def _scroll_to_end(self, *, measure_deferred: bool = True) -> None:
        if measure_deferred:
            self._measure_deferred()
        if not self.items:
            return
        height = self.scrollable_content_region.height or self.size.height
        # Measure from the end until a screen is filled, so the end is exact.
        filled = 0
        k = len(self.items) - 1
        changed = False
        while k >= 0 and filled < height:
            changed |= self._measure(k)
            filled += self._heights[k]
            k -= 1
        if changed:
            self._recompute_offsets()
        self._follow_end = True
        self.set_scroll(None, max(0, self._offsets[-1] - height))
        self.refresh()

    def scroll_to_item(self, index: int) -> None:
        """Bring item ``index`` into view: its top at the top, or whole when it fits."""
        self._measure_deferred()
        if not self.items:
            return
        index = max(0, min(index, len(self.items) - 1))
        if self._measure(index):
            self._recompute_offsets()
        height = self.scrollable_content_region.height or self.size.height
        top, bottom = self._offsets[index], self._offsets[index + 1]
        y = round(self.scroll_y)
        if top < y or bottom - top > height:
            y = top
        elif bottom > y + height:
            y = bottom - height
        self._follow_end = index == len(self.items) - 1 and bottom - top <= height
        self.set_scroll(None, max(0, min(y, self._offsets[-1] - height)))
        self.refresh()

    def _set_cursor(self, index: int) -> None:
        if not self.items:
            return
        self.cursor = max(0, min(index, len(self.items) - 1))
        self.scroll_to_item(self.cursor)
        self._post_cursor()

    def _post_cursor(self) -> None:
        self.post_message(self.CursorMoved(self, self.cursor, self.current_entry))

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if round(new_value) < round(old_value):
            self._follow_end = False

    # ------------------------------------------------------------------ actions

    def action_move(self, delta: int) -> None:
        """Focus the next (or previous) block."""
        self._set_cursor(self.cursor + delta)

    def action_first(self) -> None:
        """Focus the first block."""
        self._set_cursor(0)

    def action_last(self) -> None:
        """Focus the last block and follow the end."""
        self.cursor = max(0, len(self.items) - 1)
        self._scroll_to_end()
        self._post_cursor()

    def action_page(self, direction: int) -> None:
        """Scroll by a page and focus the block at the top."""
        self._measure_deferred()
        height = self.scrollable_content_region.height or self.size.height
        y = max(0, min(round(self.scroll_y) + direction * (height - 1), self._offsets[-1] - height))
        self.set_scroll(None, y)
        self.cursor = self._item_at_line(
            y + (height - 1 if direction > 0 and y + height >= self._offsets[-1] else 0)
        )
        self._post_cursor()
        self.refresh()

    def _find(self, start: int, step: int, pred: object) -> int | None:
        k = start + step
        while 0 <= k < len(self.items):
            if pred(self.items[k]):  # type: ignore[operator]
                return k
            k += step
        return None

    def action_user(self, step: int) -> None:
        """Focus the next (or previous) user message."""
        found = self._find(self.cursor, step, lambda it: it.user)
        if found is not None:
            self._set_cursor(found)
        else:
            self.app.bell()

    def action_next_error(self) -> None:
        """Focus the next error (wrapping around)."""
        found = self._find(self.cursor, 1, lambda it: it.error)
        if found is None:
            found = self._find(-1, 1, lambda it: it.error)
        if found is None:
            self.notify("No errors on this branch", timeout=3)
            return
        self._set_cursor(found)

    def action_toggle(self) -> None:
        """Expand or collapse the focused block."""
        item = self.current_item
        if item is None or not item.collapsible:
            return
        self._set_expanded([self.cursor], not self.is_expanded(item))
        self.scroll_to_item(self.cursor)

    def action_toggle_kind(self, kind: str) -> None:
        """Expand or collapse every block of one kind (thinking or tool output)."""
        items = self.items
        if isinstance(items, ItemList):
            where = items.positions(kind, collapsible=True)
        else:
            where = [k for k, it in enumerate(items) if it.kind == kind and it.collapsible]
        if not where:
            return
        expand = not all(self.is_expanded(items[k]) for k in where)
        self._set_expanded(where, expand)
        self.scroll_to_item(self.cursor)

    def _set_expanded(self, where: Iterable[int], expanded: bool) -> None:
        """Expand or collapse the items at positions ``where``; only their heights change."""
        self._measure_deferred()
        items = self.items
        for k in where:
            it = items[k]
            self._expanded[(it.entry, it.part)] = expanded
            self._exact[k] = 0
            self._heights[k] = self._estimate(it)
        self._recompute_offsets()
        self.refresh()

    def on_click(self, event: events.Click) -> None:
        """Click a block to focus it; click the focused block to expand or collapse it."""
        self._measure_deferred()
        line = round(self.scroll_y) + event.y
        if not self.items or line >= self._offsets[-1]:
            return
        index = self._item_at_line(line)
        if index == self.cursor:
            self.action_toggle()
        else:
            self.cursor = index
            self._post_cursor()
            self.refresh()

    # ------------------------------------------------------------------ search

    def search(self, query: str) -> None:
        """Search the blocks of this branch for ``query`` (case-insensitive), in a worker.

        Matches appear as they are found (the first one after the cursor is focused);
        :class:`SearchUpdated` reports progress. A new search, or :meth:`clear_search`,
        cancels the one running.
        """
        self._cancel_search()
        query = query.strip()
        if not query:
            self._search = None
            self.refresh()
            self.post_message(self.SearchUpdated(self))
            return
        self._search_gen += 1
        self._search = _Search(query, [], set(), running=True)
        self.post_message(self.SearchUpdated(self))
        self._search_worker = self.run_worker(
            partial(self._search_thread, query, self.items, self._search_gen),
            thread=True,
            group="search",
            description=f"Searching for {query!r}",
            exit_on_error=False,
        )

    def _cancel_search(self) -> None:
        worker = self._search_worker
        if worker is not None and not worker.is_finished:
            worker.cancel()
        self._search_worker = None

    def _search_thread(self, query: str, items: Sequence[Item], gen: int) -> None:
        worker = get_current_worker()
        session = self.session
        needle = query.lower()
        # JSON escapes quotes, backslashes and control characters: only a plain ASCII needle
        # is sure to appear as-is in the raw line, so only then is the byte prefilter exact.
        raw_needle = needle.encode() if _plain(needle) else None
        checked: dict[int, bool] = {}
        batch: list[int] = []
        last = time.monotonic()
        for k, item in enumerate(items):
            if worker.is_cancelled:
                return
            entries = [item.entry]
            if item.kind == "tool":
                entries += session.pairing.call_results.get((item.entry, item.part), [])
            if not any(_raw_contains(session, e, raw_needle, checked) for e in entries):
                continue
            if needle in item_text(session, item).lower():
                batch.append(k)
            now = time.monotonic()
            if batch and now - last > 0.1:
                self.app.call_from_thread(self._add_matches, gen, batch, False)
                batch, last = [], now
        if not worker.is_cancelled:
            self.app.call_from_thread(self._add_matches, gen, batch, True)

    def _add_matches(self, gen: int, found: list[int], done: bool) -> None:
        s = self._search
        if s is None or gen != self._search_gen:
            return
        first = not s.matches and bool(found)
        s.matches.extend(found)
        s.hits.update(found)
        if done:
            s.running = False
        if first:
            self.action_search_step(1)
        elif done and not s.matches:
            self.notify(f"No match for {s.query!r} on this branch", timeout=3, markup=False)
        self.refresh()
        self.post_message(self.SearchUpdated(self))

    def clear_search(self) -> None:
        """Forget the current search (cancelling it if it runs)."""
        self._cancel_search()
        self._search = None
        self.refresh()
        self.post_message(self.SearchUpdated(self))

    @property
    def searching(self) -> bool:
        """True while a search is still running."""
        return self._search is not None and self._search.running

    @property
    def search_state(self) -> tuple[str, int, int] | None:
        """(query, current match number from 1, number of matches) of the active search."""
        s = self._search
        if s is None:
            return None
        return s.query, s.current + 1, len(s.matches)

    def action_search_step(self, step: int) -> None:
        """Focus the next (or previous) search match, wrapping around."""
        s = self._search
        if s is None or not s.matches:
            if s is not None:
                self.notify(f"No match for {s.query!r}", timeout=3, markup=False)
            return
        if step > 0:
            nxt = next((j for j, k in enumerate(s.matches) if k > self.cursor), 0)
        else:
            nxt = next(
                (j for j in range(len(s.matches) - 1, -1, -1) if s.matches[j] < self.cursor),
                len(s.matches) - 1,
            )
        s.current = nxt
        item = self.items[s.matches[nxt]]
        if item.collapsible and not self.is_expanded(item):
            self._set_expanded([s.matches[nxt]], True)
        self._set_cursor(s.matches[nxt])


def _plain(needle: str) -> bool:
    return needle.isascii() and needle.isprintable() and '"' not in needle and "\\" not in needle


def _raw_contains(
    session: Session, entry: int, needle: bytes | None, memo: dict[int, bool]
) -> bool:
    if needle is None:
        return True
    hit = memo.get(entry)
    if hit is None:
        hit = memo[entry] = needle in session.read_line(entry).lower()
    return hit


def _highlight(strip: Strip, query: str) -> Strip:
    text = strip.text.lower()
    needle = query.lower()
    start = text.find(needle)
    if start < 0:
        return strip
    style = Style(reverse=True, bold=True)
    cuts: list[int] = []
    spans: list[tuple[int, int]] = []
    while start >= 0:
        spans.append((start, start + len(needle)))
        cuts += [start, start + len(needle)]
        start = text.find(needle, start + len(needle))
    parts = strip.divide(cuts)
    out: list[Strip] = []
    pos = 0
    for part in parts:
        width = part.cell_length
        if any(a <= pos < b for a, b in spans):
            part = part.apply_style(style)
        out.append(part)
        pos += width
    return Strip.join(out)
