"""Provides :class:`TranscriptViewport`: how the transcript keeps its view still, as a mixin
of :class:`piview.widgets.transcript.Transcript`.

Heights start as guesses (:class:`piview.render.layout.BlockLayout`); before each paint the
blocks in the viewport are rendered, their heights fixed and the scroll offset shifted so that
what the user looks at stays put, or the end stays in view while the view follows it. On the
first screen the blocks at the top are measured only after the end has been painted.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from textual.geometry import Size

from piview.render.items import Item
from piview.render.layout import BlockLayout

if TYPE_CHECKING:
    from textual.scroll_view import ScrollView as _Widget
    from textual.strip import Strip
else:
    _Widget = object  # a plain mixin: Textual sees only the widget class itself

__all__ = ["TranscriptViewport"]


class TranscriptViewport(_Widget):
    """Measuring and scrolling over the blocks; the widget provides what is declared here."""

    items: Sequence[Item]
    _layout: BlockLayout
    _width: int
    """The width the heights were guessed for and the strips drawn at."""
    _follow_end: bool
    cursor: int

    if TYPE_CHECKING:

        def _strips(self, index: int) -> list[Strip]: ...

    @property
    def following_end(self) -> bool:
        """True while the view sticks to the end (new blocks scroll into view)."""
        return self._follow_end

    def _reset_heights(self) -> None:
        # Before the first layout, guess the full screen less the scrollbar (the default
        # layout): a right guess saves a second pass over every item on the first render.
        guess = self.app.size.width - self.styles.scrollbar_size_vertical
        self._width = self.scrollable_content_region.width or self.size.width or guess or 80
        self._layout.reset(self.items, self._width)
        self._update_virtual_size()

    def _screen_anchor(self) -> tuple[int, int] | None:
        """``(item, screen line of its first line)`` to keep still across a relayout: the
        cursor's block when it is on screen, else the block at the top; None at the end
        (the view sticks to the end) or before the first layout."""
        lay = self._layout
        if not self.items or self._follow_end or not self._width or not lay.offsets:
            return None
        top = round(self.scroll_y)
        height = self.scrollable_content_region.height or self.size.height
        cursor = min(self.cursor, len(self.items) - 1)
        start = lay.offsets[cursor]
        if top <= start < top + height:
            return cursor, start - top
        anchor = self._item_at_line(top)
        return anchor, lay.offsets[anchor] - top

    def _restore_anchor(self, anchor: tuple[int, int] | None) -> None:
        """Scroll so that the anchor's block starts on the same screen line as before.

        The blocks above it on screen are measured first, so the settling that follows (which
        keeps the top block still) keeps this one still too.
        """
        if anchor is None:
            return
        index, row = anchor
        lay = self._layout
        self._measure(index)
        above, k = 0, index - 1
        while k >= 0 and above < row:
            self._measure(k)
            above += lay.heights[k]
            k -= 1
        self._recompute_offsets()
        height = self.scrollable_content_region.height or self.size.height
        top = lay.offsets[index] - row
        self.set_scroll(None, max(0, min(top, lay.total - height)))

    def _recompute_offsets(self) -> None:
        self._layout.recompute()
        self._update_virtual_size()

    def _update_virtual_size(self) -> None:
        self.virtual_size = Size(self._width, self._layout.total)

    def _item_at_line(self, y: int) -> int:
        return self._layout.block_at(y)

    def _shown_blocks(self) -> range:
        """The blocks on screen (at their current heights)."""
        top = round(self.scroll_y)
        height = self.scrollable_content_region.height or self.size.height
        return range(self._item_at_line(top), self._item_at_line(top + height) + 1)

    def _measure(self, index: int) -> bool:
        """Render item ``index``; fix its height. True when the height changed."""
        return self._layout.measured(index, len(self._strips(index)))

    def _settle(self) -> None:
        """Render every item in the viewport, correcting heights while keeping the view still."""
        if not self.items:
            return
        lay = self._layout
        if not self._follow_end:
            # At the end, the blocks left for later are off screen: the first frame goes out
            # without them (only the scrollbar is rough until they are measured).
            self._measure_deferred()
        height = self.scrollable_content_region.height or self.size.height
        deferred = False
        for attempt in range(8):
            top = round(self.scroll_y)
            if attempt == 0 and self._follow_end and top != max(0, lay.total - height):
                # The view is about to stick to the end (the first screen: scroll_y is still
                # 0): draw the end first, and the blocks at scroll_y only after this paint.
                deferred = self._defer_measure(top, height)
            if deferred:
                top = max(0, lay.total - height)
            anchor = self._item_at_line(top)
            into = top - lay.offsets[anchor]
            first, last = anchor, self._item_at_line(top + height)
            changed = False
            for k in range(first, last + 1):
                if not lay.exact[k]:
                    changed |= self._measure(k)
            if not changed:
                if deferred and round(self.scroll_y) != top:
                    self.set_scroll(None, top)
                return
            self._recompute_offsets()
            if self._follow_end:
                new_top = max(0, lay.total - height)
            else:
                new_top = lay.offsets[anchor] + min(into, lay.heights[anchor] - 1)
            self.set_scroll(None, max(0, min(new_top, lay.total - height)))

    def _defer_measure(self, top: int, height: int) -> bool:
        """Measure the blocks at lines ``top``..``top + height`` after the next paint; False
        when there is nothing to measure there.

        They are not shown (the view goes to the end), but measuring them fixes their heights,
        hence the scrollbar, exactly as before the first screen was made to skip them.
        """
        first, last = self._item_at_line(top), self._item_at_line(top + height)
        if all(self._layout.exact[first : last + 1]):
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
        lay = self._layout
        height = self.scrollable_content_region.height or self.size.height
        top = round(self.scroll_y)
        anchor = self._item_at_line(top)
        into = top - lay.offsets[anchor]
        changed = False
        for k in range(first, last + 1):
            if not lay.exact[k]:
                changed |= self._measure(k)
        if not changed:
            return
        self._recompute_offsets()
        if self._follow_end:
            new_top = max(0, lay.total - height)
        else:  # the user moved since the first screen: keep what they see still
            new_top = lay.offsets[anchor] + min(into, lay.heights[anchor] - 1)
        self.set_scroll(None, max(0, min(new_top, lay.total - height)))
        self.refresh()

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
        lay = self._layout
        height = self.scrollable_content_region.height or self.size.height
        # Measure from the end until a screen is filled, so the end is exact.
        filled = 0
        k = len(self.items) - 1
        changed = False
        while k >= 0 and filled < height:
            changed |= self._measure(k)
            filled += lay.heights[k]
            k -= 1
        if changed:
            self._recompute_offsets()
        self._follow_end = True
        self.set_scroll(None, max(0, lay.total - height))
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
        lay = self._layout
        top, bottom = lay.offsets[index], lay.offsets[index + 1]
        y = round(self.scroll_y)
        if top < y or bottom - top > height:
            y = top
        elif bottom > y + height:
            y = bottom - height
        self._follow_end = index == len(self.items) - 1 and bottom - top <= height
        self.set_scroll(None, max(0, min(y, lay.total - height)))
        self.refresh()

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        """Stop following the end once the user scrolls up."""
        super().watch_scroll_y(old_value, new_value)
        # Textual clamps the offset to the new end when the blocks' total shrinks (the file
        # grew and the last blocks' heights are guessed again): the view is still at the end,
        # and no user scrolled. Only a move up that leaves the end stops following it.
        if round(new_value) < round(old_value) and round(new_value) < self.max_scroll_y:
            self._follow_end = False
