"""Provides :class:`Transcript`: the virtualized, Line-API view of one branch of a session.

One ScrollView over a flat list of items (:mod:`piview.render.items`), no widget per message.
Heights start as guesses (:class:`piview.render.layout.BlockLayout`); before each paint the
blocks in the viewport are drawn (:class:`piview.widgets.transcript_strips.BlockStrips`), their
heights fixed and the scroll offset shifted so that what the user looks at stays put (or the
end stays in view while the view follows it). A search's matches are a
:class:`piview.widgets.transcript_search.Search`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import partial
from typing import TYPE_CHECKING

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.geometry import Offset, Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.selection import Selection
from textual.strip import Strip
from textual.worker import Worker

from piview.render.items import Item, ItemKind, ItemList, build_items, kept_from
from piview.render.items_follow import calls_answered, grew_without_compaction
from piview.render.layout import (
    GUTTER,
    BlockLayout,
    Guesses,
    find_item,
    first_guesses,
    index_of_entry,
    nearest_index,
    step_cyclic,
)
from piview.widgets.transcript_search import Search, find_matches, highlight
from piview.widgets.transcript_strips import BlockStrips

if TYPE_CHECKING:
    from piview.model import Session
    from piview.model.query import Query
    from piview.render.prerender import Prerender

_COMPACTED = Style(dim=True)
_KEPT_MARK = Style(color="yellow", bold=True)
_GUTTER_STYLES = {
    (error, focus): Style(color="red" if error else ("bright_blue" if focus else "blue"), bold=True)
    for error in (False, True)
    for focus in (False, True)
}
"""The cursor mark's style by (the block is an error, the transcript has the focus)."""


class Transcript(ScrollView, can_focus=True):
    """The transcript of one branch: root to leaf, one item per block.

    Keys: :attr:`BINDINGS` (the help screen, ``?``, lists them from there, with a line each).
    """

    HELP_TITLE = "Transcript"

    BINDINGS = [
        Binding("j,down", "move(1)", "Next", show=False, tooltip="next block"),
        Binding("k,up", "move(-1)", "Previous", show=False, tooltip="previous block"),
        Binding("g,home", "first", "Top", show=False, tooltip="first block"),
        Binding("G,end", "last", "Bottom", show=False, tooltip="last block"),
        Binding(
            "right_square_bracket", "user(1)", "Next user", show=False, tooltip="next user message"
        ),
        Binding(
            "left_square_bracket",
            "user(-1)",
            "Prev user",
            show=False,
            tooltip="previous user message",
        ),
        Binding(
            "enter",
            "toggle",
            "Expand",
            tooltip="expand or collapse the focused block (a subagent call: open its child)",
        ),
        Binding(
            "t", "toggle_kind('thinking')", "Thinking", tooltip="expand or collapse all thinking"
        ),
        Binding("o", "toggle_kind('tool')", "Output", tooltip="expand or collapse all tool output"),
        Binding(
            "e",
            "next_error",
            "Next error",
            tooltip="next error (tool error, error or aborted turn, failed command)",
        ),
        Binding("apostrophe", "label(1)", "Next label", show=False, tooltip="next labelled entry"),
        Binding(
            "quotation_mark",
            "label(-1)",
            "Prev label",
            show=False,
            tooltip="previous labelled entry",
        ),
        Binding(
            "right_curly_bracket",
            "jump('compaction', 1)",
            "Next compaction",
            show=False,
            tooltip="next compaction",
        ),
        Binding(
            "left_curly_bracket",
            "jump('compaction', -1)",
            "Prev compaction",
            show=False,
            tooltip="previous compaction",
        ),
        Binding(
            "m", "jump('model', 1)", "Next model change", show=False, tooltip="next model change"
        ),
        Binding(
            "M",
            "jump('model', -1)",
            "Prev model change",
            show=False,
            tooltip="previous model change",
        ),
        Binding(
            "exclamation_mark",
            "jump('bash', 1)",
            "Next ! command",
            show=False,
            tooltip="next ! shell command (wraps around)",
        ),
        Binding("n", "search_step(1)", "Next match", show=False, tooltip="next search match"),
        Binding("N", "search_step(-1)", "Prev match", show=False, tooltip="previous search match"),
        Binding("pagedown,space", "page(1)", "Page down", show=False, tooltip="page down"),
        Binding("pageup", "page(-1)", "Page up", show=False, tooltip="page up"),
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

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, Transcript.CursorMoved)

    class SearchUpdated(Message):
        """Search matches arrived, or the search finished, started or was cleared."""

        def __init__(self, transcript: Transcript) -> None:
            super().__init__()
            self.transcript = transcript

    def __init__(
        self,
        session: Session,
        *,
        id: str | None = None,  # noqa: A002
        prerender: Prerender | None = None,
    ) -> None:
        super().__init__(id=id)
        self.session = session
        self.enter_hook: Callable[[Item], bool] | None = None
        """Asked first on enter: True when it opened what the block points to."""
        self._blocks = BlockStrips(session, prerender, lambda: self.app.console)
        """The drawn lines of the blocks (some from the first frame's child process)."""
        self.items = ItemList()
        self.path: list[int] = []
        self.show_hidden = False
        self.cursor = 0
        self.after_paint: Callable[[], object] | None = None
        """Called after each paint of the transcript (the screen's first-frame callbacks)."""
        self._layout = BlockLayout(session)
        """Heights and first lines of the blocks (and which the user expanded)."""
        self._width = 0
        """The width the heights were guessed for and the strips drawn at."""
        self._follow_end = True
        self._deferred_window: tuple[ItemList, int, int] | None = None
        """Blocks :meth:`_defer_measure` left to measure: ``(items, first, last)``."""
        self._other_hidden: tuple[list[int], int, bool, ItemList] | None = None
        """The path, its length, the setting and the items of the other hidden setting."""
        self._kept_for: object = None
        self._kept = 0
        """Where :meth:`_kept_from` was found, for which item list."""
        self._frame_style: Style | None = None
        """The widget's style while :meth:`render_lines` draws a frame."""
        self._search: Search | None = None
        self._search_gen = 0
        self._search_worker: Worker[None] | None = None
        self._next_path_search: tuple[Query, tuple[int, int]] | None = None

    # ------------------------------------------------------------------ model

    def set_path(
        self,
        path: list[int],
        *,
        focus_entry: int | None = None,
        items: ItemList | None = None,
    ) -> None:
        """Show the entries of ``path`` (root to leaf); focus ``focus_entry`` or the last block.
        ``items``: the items of ``path`` already built (by a worker, for a big file)."""
        self.path = path
        self._other_hidden = None
        if items is None:
            items = build_items(self.session, path, show_hidden=self.show_hidden)
        self.items = items
        self._blocks.clear()
        self._reset_heights()
        target = len(self.items) - 1
        if focus_entry is not None:
            found = self.index_of_entry(focus_entry)
            if found is not None:
                target = found
        self.cursor = max(0, target)
        self._search_new_path()
        if focus_entry is None:
            self._follow_end = True
            self.call_after_refresh(self._deferred_end)
        else:
            self._follow_end = False
            self.call_after_refresh(self.scroll_to_item, self.cursor)
        self.refresh()
        self._post_cursor()

    def update_path(
        self, path: list[int], *, added: Iterable[int] = (), items: ItemList | None = None
    ) -> None:
        """Show a longer (or different) path (the file grew by ``added``), keeping the heights
        of the blocks both share but the last few and the calls answered in ``added``."""
        self._measure_deferred()
        old = self.items
        new = (
            items
            if items is not None
            else build_items(self.session, path, show_hidden=self.show_hidden)
        )
        same = old.common_prefix(new)
        fresh_from = max(0, same - 8)
        if self._kept_for is old and grew_without_compaction(old, new, same):
            self._kept_for = new  # the same blocks are compacted away
        self.path = path
        self._other_hidden = None
        self.items = new
        self._blocks.clear()
        self._layout.keep_prefix(new, fresh_from, self._width)
        stale = [k for k in calls_answered(self.session, new, added) if k < fresh_from]
        if stale:
            self._layout.guess_again(new, stale, self._width)
        self._update_virtual_size()
        if self.cursor >= len(new):
            self.cursor = max(0, len(new) - 1)
        if self._follow_end:
            self.cursor = max(0, len(new) - 1)
            self.call_after_refresh(self._deferred_end)
            self._post_cursor()
        self.refresh()

    def focus_item(self, index: int) -> None:
        """Focus item ``index`` and bring it into view."""
        self._set_cursor(index)

    def set_show_hidden(self, show: bool, *, items: ItemList | None = None) -> None:
        """Show or hide hidden entries, keeping the focused entry in view; ``items``: the
        path's items for that setting, already built (by a worker)."""
        entry, other = self.current_entry, self._other_items(show)
        self._other_hidden = (self.path, len(self.path), self.show_hidden, self.items)
        self.show_hidden = show
        if items is not None:
            self.items = items
        elif other is not None:
            self.items = other  # H pressed again on the same branch: no build
        else:
            self.items = build_items(self.session, self.path, show_hidden=show)
        # The drawn blocks are kept: an entry's block is the same with either setting.
        self._reset_heights()
        self.cursor = 0
        if entry is not None:
            found = self.index_of_entry(entry)
            if found is None:
                found = nearest_index(self.items, self.path, entry)
            self.cursor = found
        self.call_after_refresh(self.scroll_to_item, self.cursor)
        self.refresh()

    def keep_other_hidden(
        self, path: list[int], show_hidden: bool, items: ItemList, guesses: Guesses | None = None
    ) -> None:
        """Keep ``items``, the blocks of ``path`` for the other ``show_hidden`` setting (built
        ahead), for ``H``; ``guesses``: their heights, from :meth:`guesses_ahead`."""
        if path is self.path and show_hidden != self.show_hidden:
            self._other_hidden = (path, len(path), show_hidden, items)
            if guesses is not None:
                self._layout.keep_guesses(items, *guesses)

    @property
    def guess_width(self) -> int:
        """The width the blocks' heights are guessed (and the blocks drawn) for."""
        return self._width

    def keep_guesses(self, items: Sequence[Item], guesses: Guesses) -> None:
        """Keep the heights of ``items`` guessed ahead (for a new width) if they are the
        items shown."""
        if items is self.items and isinstance(items, ItemList):
            self._layout.keep_guesses(items, *guesses)

    def guesses_ahead(self, width: int | None = None) -> Callable[[ItemList], Guesses]:
        """What guesses the heights of an item list as a reset at ``width`` (the width
        shown now) would, in a worker (the blocks' states copied now, on the UI thread)."""
        lengths, width = self.session.index.lengths, width or self._width
        expanded = dict(self._layout.expanded)

        def guess(items: ItemList) -> Guesses:
            return lengths, width, expanded, first_guesses(items, lengths, width, expanded)

        return guess

    @property
    def has_other_hidden(self) -> bool:
        """Whether the blocks of the path shown with the other hidden setting are kept."""
        return self._other_items(not self.show_hidden) is not None

    def _other_items(self, show_hidden: bool) -> ItemList | None:
        """The items of the path shown with hidden entries shown or not, if kept."""
        o = self._other_hidden
        if o is not None and o[0] is self.path and o[1:3] == (len(self.path), show_hidden):
            return o[3]
        return None

    def index_of_entry(self, entry: int) -> int | None:
        """Index of the first item of ``entry`` (or of the item that draws it, for results)."""
        return index_of_entry(self.session, self.items, entry)

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
        return self._layout.is_expanded(item)

    def _strips(self, index: int) -> list[Strip]:
        item = self.items[index]
        return self._blocks.get(item, self.is_expanded(item), self._width)

    # ------------------------------------------------------------------ measuring, scrolling

    @property
    def following_end(self) -> bool:
        """True while the view sticks to the end (new blocks scroll into view)."""
        return self._follow_end

    def _reset_heights(self) -> None:
        # Before the first layout: the full screen less the scrollbar (the default layout).
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
        """Scroll so that the anchor's block starts on the same screen line as before (the
        blocks above it measured first, so that the settling keeps it still too)."""
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
            # At the end, the blocks left for later are off screen: the first frame skips them.
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
            if not self._measure_still(lay.block_at(top), lay.block_at(top + height), top, height):
                if deferred and round(self.scroll_y) != top:
                    self.set_scroll(None, top)
                return

    def _measure_still(self, first: int, last: int, top: int, height: int) -> bool:
        """Measure the blocks ``first``..``last`` not measured yet, and scroll so that line
        ``top`` stays where it is on screen (the end, while the view follows it); False when
        no height changed."""
        lay = self._layout
        anchor = lay.block_at(top)
        into = top - lay.offsets[anchor]
        changed = False
        for k in range(first, last + 1):
            if not lay.exact[k]:
                changed |= self._measure(k)
        if not changed:
            return False
        self._recompute_offsets()
        if self._follow_end:
            new_top = max(0, lay.total - height)
        else:  # the user may have moved since the first screen: what they see stays still
            new_top = lay.offsets[anchor] + min(into, lay.heights[anchor] - 1)
        self.set_scroll(None, max(0, min(new_top, lay.total - height)))
        return True

    def _defer_measure(self, top: int, height: int) -> bool:
        """Measure the blocks at lines ``top``..``top + height`` (off screen: the view goes to
        the end) after the next paint; False when there is nothing to measure there."""
        first, last = self._item_at_line(top), self._item_at_line(top + height)
        if all(self._layout.exact[first : last + 1]):
            return False
        self._deferred_window = (self.items, first, last)
        # Two hops: at startup this runs while Textual batches updates, and a callback
        # scheduled now would run before the first frame is actually written.
        self.call_after_refresh(self.call_after_refresh, self._measure_deferred)
        return True

    def _measure_deferred(self) -> None:
        """Measure the blocks :meth:`_defer_measure` left, if any: after the first paint, and
        before anything that reads or changes heights and scroll offsets."""
        if self._deferred_window is None:
            return
        window, self._deferred_window = self._deferred_window, None
        if window[0] is not self.items:
            return  # another path or filter since: its own settling measures what shows
        _items, first, last = window
        height = self.scrollable_content_region.height or self.size.height
        if self._measure_still(first, last, round(self.scroll_y), height):
            self.refresh()

    def _deferred_end(self) -> None:
        # Skip it if the user has moved since; the blocks left for later stay left.
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
        # Textual clamps the offset to the new end when the blocks' total shrinks (no user
        # scrolled): only a move up that leaves the end stops following it.
        if round(new_value) < round(old_value) and round(new_value) < self.max_scroll_y:
            self._follow_end = False

    # ------------------------------------------------------------------ rendering

    def render_lines(self, crop: Region) -> list[Strip]:
        """Settle heights for the viewport before Textual asks for each line."""
        width = self.scrollable_content_region.width or self.size.width
        if width and width != self._width:
            # A new width changes every height: the block the reader is on stays put.
            anchor = self._screen_anchor()
            self._reset_heights()
            self._restore_anchor(anchor)
        self._settle()
        # The widget's style is the same for every line of a frame: computed once for it.
        self._frame_style = self.rich_style
        try:
            return super().render_lines(crop)
        finally:
            self._frame_style = None
            if self.after_paint is not None:
                self.after_paint()

    def render_line(self, y: int) -> Strip:
        """One screen line: a gutter (cursor mark) and the item's rendered line."""
        line = round(self.scroll_y) + y
        width = self.scrollable_content_region.width
        lay = self._layout
        rich_style = self._frame_style or self.rich_style
        if not self.items or line >= lay.total:
            return Strip.blank(width, rich_style)
        index = lay.block_at(line)
        strips = self._strips(index)
        row = line - lay.offsets[index]
        strip = strips[row] if row < len(strips) else Strip.blank(width - GUTTER)
        if self._search is not None and index in self._search.hits:
            strip = highlight(strip, self._search.query)
        mark = "▌ " if index == self.cursor and row < len(strips) - 1 else "  "
        style = _GUTTER_STYLES[self.items[index].error, self.has_focus]
        kept = self._kept_from()
        if index < kept:
            # Compacted away: the model sees the compaction's summary instead of these.
            strip = strip.apply_style(_COMPACTED)
        elif index == kept and kept and row == 0 and mark == "  ":
            mark, style = "✂ ", _KEPT_MARK
        out = Strip.join([Strip([Segment(mark, style)], GUTTER), strip])
        out = out.crop_extend(0, width, rich_style).apply_style(rich_style)
        selection = self.text_selection
        if selection is not None:
            span = selection.get_span(line)
            if span is not None:
                start, end = span
                end = width if end == -1 else end
                style_ = self.screen.get_component_rich_style("screen--selection")
                out = Strip.join(
                    [out.crop(0, start), out.crop(start, end).apply_style(style_),
                     out.crop(end, width)]
                )  # fmt: skip
        # Offsets let Textual map the mouse to lines for text selection.
        return out.apply_offsets(0, line)

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The text under a mouse selection: only the lines it spans are drawn for it."""
        lay = self._layout
        if not self.items or not lay.total:
            return None
        first = 0 if selection.start is None else selection.start.y
        last = lay.total - 1 if selection.end is None else min(selection.end.y, lay.total - 1)
        if last < first:
            return None
        texts: list[str] = []
        for y in range(first, last + 1):
            index = self._item_at_line(y)
            strips = self._strips(index)
            row = y - lay.offsets[index]
            body = strips[row].text if row < len(strips) else ""
            texts.append(" " * GUTTER + body)
        shifted = Selection(
            None if selection.start is None else Offset(selection.start.x, 0),
            None if selection.end is None else Offset(selection.end.x, last - first),
        )
        return shifted.extract("\n".join(texts)), "\n"

    def selection_updated(self, selection: Selection | None) -> None:
        """Draw the selection."""
        self.refresh()

    def _kept_from(self) -> int:
        """Items before this one were compacted away (see :func:`kept_from`); cached per
        item list."""
        items = self.items
        if self._kept_for is not items:
            self._kept_for = items
            self._kept = kept_from(self.session, items)
        return self._kept

    def on_resize(self, event: events.Resize) -> None:
        """Re-estimate at the new width (cached strips are keyed by width)."""
        self.refresh()

    # ------------------------------------------------------------------ cursor

    def _set_cursor(self, index: int) -> None:
        if not self.items:
            return
        self.cursor = max(0, min(index, len(self.items) - 1))
        self.scroll_to_item(self.cursor)
        self._post_cursor()

    def _post_cursor(self) -> None:
        self.post_message(self.CursorMoved(self, self.cursor, self.current_entry))

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
        lay = self._layout
        y = max(0, min(round(self.scroll_y) + direction * (height - 1), lay.total - height))
        self.set_scroll(None, y)
        self.cursor = self._item_at_line(
            y + (height - 1 if direction > 0 and y + height >= lay.total else 0)
        )
        self._post_cursor()
        self.refresh()

    # The enter binding's "toggle", not DOMNode's own action_toggle(attribute).
    def action_toggle(self) -> None:  # type: ignore[override]
        """Expand or collapse the focused block."""
        item = self.current_item
        if item is not None and self.enter_hook is not None and self.enter_hook(item):
            return  # the screen opened what the block points to (a subagent's session)
        if item is None or not item.collapsible:
            return
        self._set_expanded([self.cursor], not self.is_expanded(item))
        self.scroll_to_item(self.cursor)

    def action_toggle_kind(self, kind: ItemKind) -> None:
        """Expand or collapse every block of one kind (thinking or tool output)."""
        lay = self._layout
        if not lay.kind_positions(self.items, kind):
            return
        expand = not lay.kind_expanded(self.items, kind)
        self._measure_deferred()
        lay.set_kind_expanded(self.items, kind, expand, self._width)
        self._update_virtual_size()
        self.refresh()
        self.scroll_to_item(self.cursor)

    def _set_expanded(self, where: Iterable[int], expanded: bool) -> None:
        """Expand or collapse the items at positions ``where``; only their heights change."""
        self._measure_deferred()
        self._layout.set_expanded(self.items, where, expanded, self._width)
        self._update_virtual_size()
        self.refresh()

    def on_click(self, event: events.Click) -> None:
        """One click on a block focuses it and expands or collapses it."""
        self._measure_deferred()
        line = round(self.scroll_y) + event.y
        if not self.items or line >= self._layout.total:
            return
        index = self._item_at_line(line)
        if index != self.cursor:
            self.cursor = index
            self._post_cursor()
            self.refresh()
        if self.items[index].collapsible:
            self.action_toggle()

    # ------------------------------------------------------------------ search

    def search(self, query: str | Query, *, target: tuple[int, int] | None = None) -> None:
        """Search the blocks of this branch for ``query`` in a worker, focusing the first match
        after the cursor (or ``target`` = ``(entry, part)``, part -1: the entry's first)."""

        self._cancel_search()
        if isinstance(query, str):
            # Imported on first use, as the search's own: the first screen searches nothing.
            from piview.model.query import parse_query

            q = parse_query(query)
        else:
            q = query
        if q.blank and q.error is None:  # nothing to look for: no search
            self._search = None
            self.refresh()
            self.post_message(self.SearchUpdated(self))
            return
        self._search_gen += 1
        if self._search is not None:
            self.refresh()  # the last search's marks go (the new one's come as found)
        self._search = Search(q, target, running=not q.blank)
        self.post_message(self.SearchUpdated(self))
        if q.blank:
            if q.error:
                self.notify(f"Bad regular expression: {q.error}", severity="error", markup=False)
            return
        gen, call = self._search_gen, self.app.call_from_thread
        self._search_worker = self.run_worker(
            partial(find_matches, self.session, self.items, q,
                    lambda found, done: call(self._add_matches, gen, found, done)),
            thread=True,
            group="search",
            description=f"Searching for {q.text!r}",
            exit_on_error=False,
        )  # fmt: skip

    def search_next_path(self, query: Query, target: tuple[int, int]) -> None:
        """Run ``query`` on the next path shown (see :meth:`search`), focusing ``target``:
        used to show a result of the search over all branches on its branch."""
        self._next_path_search = (query, target)

    def _search_new_path(self) -> None:
        """Another path is shown: forget the search, or start the one asked for it."""
        pending, self._next_path_search = self._next_path_search, None
        if pending is not None:
            self.search(pending[0], target=pending[1])
        elif self._search is not None:
            self._cancel_search()
            self._search = None

    def _cancel_search(self) -> None:
        worker = self._search_worker
        if worker is not None and not worker.is_finished:
            worker.cancel()
        self._search_worker = None

    def _add_matches(self, gen: int, found: list[int], done: bool) -> None:
        s = self._search
        if s is None or gen != self._search_gen:
            return
        focus = s.add(found, done, self.items, self.cursor)
        if focus is not None:
            self._focus_match(focus)
        if done and not s.matches:
            self.notify(f"No match for {s.query.text!r} on this branch", timeout=3, markup=False)
        shown = self._shown_blocks()
        if any(k in shown for k in found):  # else nothing on screen is marked anew
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
        return None if s is None else (s.query.text, s.current + 1, len(s.matches))

    def action_search_step(self, step: int) -> None:
        """Focus the next (or previous) search match, wrapping around."""
        s = self._search
        if s is None:
            return
        k = s.step(self.cursor, step)
        if k is None:
            self.notify(f"No match for {s.query.text!r}", timeout=3, markup=False)
        else:
            self._focus_match(k)

    def _focus_match(self, k: int) -> None:
        item = self.items[k]
        if item.collapsible and not self.is_expanded(item):
            self._set_expanded([k], True)
        self._set_cursor(k)

    # ------------------------------------------------------------------ jumps

    def action_user(self, step: int) -> None:
        """Focus the next (or previous) user message."""
        found = find_item(self.items, self.cursor, step, lambda it: it.user)
        if found is not None:
            self._set_cursor(found)
        else:
            self.app.bell()

    def action_label(self, step: int) -> None:
        """Focus the next (or previous) labelled entry of the branch, wrapping around."""
        session = self.session
        if session is None or not self.items:
            return
        spots = self.items.first_positions_of(session.labels)  # one pass, at C speed
        if not spots:
            elsewhere = len(session.labels)
            self.notify(
                "No labelled entry on this branch"
                + (f" ({elsewhere} on other branches: b shows them)" if elsewhere else ""),
                timeout=3,
            )
            return
        self._set_cursor(step_cyclic(spots, self.cursor, step)[0])

    _JUMPS: dict[str, str] = {
        "compaction": "compaction",
        "model": "model change",
        "bash": "! shell command",
    }

    def _jump_targets(self, kind: str) -> list[int]:
        """Positions of the items ``action_jump`` goes to, in order (found at C speed)."""
        items = self.items
        item_kind = "divider" if kind == "model" else kind
        spots = items.positions(item_kind)  # type: ignore[arg-type]
        if kind == "model":
            nodes = self.session.nodes
            spots = [k for k in spots if nodes[items[k].entry].type == "model_change"]
        return spots

    def action_jump(self, kind: str, step: int) -> None:
        """Focus the next (or previous) compaction, model change or ``!`` command, wrapping
        around and saying so."""
        what = self._JUMPS.get(kind, kind)
        spots = self._jump_targets(kind)
        if not spots:
            self.notify(f"No {what} on this branch", timeout=3)
            return
        target, wrapped = step_cyclic(spots, self.cursor, step)
        if wrapped:
            where = "below: back to the first one" if step > 0 else "above: back to the last one"
            self.notify(f"No more {what}s {where}", timeout=3)
        self._set_cursor(target)

    def action_next_error(self) -> None:
        """Focus the next error (wrapping around)."""
        found = find_item(self.items, self.cursor, 1, lambda it: it.error)
        wrapped = found is None
        if found is None:
            found = find_item(self.items, -1, 1, lambda it: it.error)
        if found is None:
            self.notify("No errors on this branch", timeout=3)
            return
        if wrapped:
            self.notify("No more errors below: back to the first one", timeout=3)
        self._set_cursor(found)
