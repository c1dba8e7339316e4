"""Provides :class:`Transcript`: the virtualized, Line-API view of one branch of a session.

No widget per message: the transcript is one ScrollView over a flat list of items (see
:mod:`piview.render.items`). Heights start as estimates; only the items that intersect the
viewport are rendered (with Rich, at the current width) and cached as strips. When a rendered
height differs from its estimate, the prefix sums are fixed and the scroll offset is shifted so
that what the user is looking at stays put.

The parts: the heights and prefix sums are :class:`piview.render.layout.BlockLayout`; keeping
the view still is :mod:`piview.widgets.transcript_viewport`; the cached strips are
:mod:`piview.widgets.transcript_strips`; the search is :mod:`piview.widgets.transcript_search`;
the jumps to the next block of a sort are :mod:`piview.widgets.transcript_jumps`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.geometry import Offset, Region
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.selection import Selection
from textual.strip import Strip

from piview.render.items import Item, ItemKind, ItemList, build_items, kept_from
from piview.render.items_follow import calls_answered, grew_without_compaction
from piview.render.layout import (
    GUTTER,
    BlockLayout,
    Guesses,
    first_guesses,
    index_of_entry,
    nearest_index,
)
from piview.widgets.transcript_jumps import TranscriptJumps
from piview.widgets.transcript_search import TranscriptSearch, highlight
from piview.widgets.transcript_strips import BlockStrips
from piview.widgets.transcript_viewport import TranscriptViewport

if TYPE_CHECKING:
    from piview.model import Session
    from piview.render.prerender import Prerender

__all__ = ["Transcript"]

_COMPACTED = Style(dim=True)
_KEPT_MARK = Style(color="yellow", bold=True)
_GUTTER_STYLES = {
    (error, focus): Style(color="red" if error else ("bright_blue" if focus else "blue"), bold=True)
    for error in (False, True)
    for focus in (False, True)
}
"""The cursor mark's style by (the block is an error, the transcript has the focus)."""


class Transcript(TranscriptViewport, TranscriptSearch, TranscriptJumps, ScrollView, can_focus=True):
    """The transcript of one branch: root to leaf, one item per block.

    Keys: :attr:`BINDINGS` (the help screen, ``?``, lists them from there, with a line each).
    """

    HELP_TITLE = "Transcript"
    """The heading of this part's keys in the help screen."""

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
        Binding("enter", "toggle", "Expand", tooltip="expand or collapse the focused block"),
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
        self._blocks = BlockStrips(session, prerender, lambda: self.app.console)
        """The drawn lines of the blocks (some from the first frame's child process)."""
        self.items: Sequence[Item] = ItemList()
        self.path: list[int] = []
        self.show_hidden = False
        self.cursor = 0
        self._layout = BlockLayout(session)
        """Heights and first lines of the blocks (and which the user expanded)."""
        self._width = 0
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
        """Show a longer (or different) path, keeping what is already measured.

        Used when the file grows by the entries ``added``: the blocks both paths share keep
        their heights, but for the last few, and for the tool calls whose results are among
        ``added`` (however far back: parallel calls), which are measured again. ``items``: the
        items of ``path`` already built (extended, or built by a worker).
        """
        self._measure_deferred()
        old = self.items
        new = (
            items
            if items is not None
            else build_items(self.session, path, show_hidden=self.show_hidden)
        )
        if isinstance(old, ItemList):
            same = old.common_prefix(new)
        else:
            same = 0
            for a, b in zip(old, new, strict=False):
                if (a.kind, a.entry, a.part) != (b.kind, b.entry, b.part):
                    break
                same += 1
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
        """Show or hide hidden entries, keeping the focused entry in view.

        ``items``: the path's items for that setting, already built (by a worker).
        """
        entry = self.current_entry
        shown = (self.path, len(self.path), self.show_hidden, self.items)
        self.show_hidden = show
        other = self._other_hidden
        self._other_hidden = shown
        if items is not None:
            self.items = items
        elif other is not None and other[0] is self.path and other[1:3] == (len(self.path), show):
            self.items = other[3]  # H pressed again on the same branch: no build
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
        """Keep ``items``, the blocks of ``path`` with hidden entries shown or not as
        ``show_hidden`` says (built ahead, in a worker), for ``H`` to switch to without
        building them; ignored unless ``path`` is the path shown and ``show_hidden`` the
        setting it is not shown with. ``guesses``: their heights guessed ahead too, as
        :meth:`guesses_ahead` asked."""
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
        other = self._other_hidden
        return (
            other is not None
            and other[0] is self.path
            and other[1:3] == (len(self.path), not self.show_hidden)
        )

    _other_hidden: tuple[list[int], int, bool, Sequence[Item]] | None = None
    """The path, its length, the setting and the items before the last :meth:`set_show_hidden`
    (the items of the other setting, while the path stays the same list)."""

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

    # ------------------------------------------------------------------ rendering

    def render_lines(self, crop: Region) -> list[Strip]:
        """Settle heights for the viewport before Textual asks for each line."""
        self.settle_frame()
        # The widget's style is the same for every line of this frame; Textual computes it
        # from the CSS at each ask (half of a line's time).
        self._frame_style = self.rich_style
        try:
            return super().render_lines(crop)
        finally:
            self._frame_style = None

    def settle_frame(self) -> None:
        """What a paint does before drawing a line: heights fixed for the width and the
        blocks in view, the scroll offset kept (for a screen that skips a paint Textual would
        throw away, :meth:`piview.screens.session.SessionScreen._compositor_refresh`)."""
        width = self.scrollable_content_region.width or self.size.width
        if width and width != self._width:
            # A new width changes every height: the block the reader is on stays where it is.
            # The drawn blocks are kept (keyed by width): a panel closed again finds them.
            anchor = self._screen_anchor()
            self._reset_heights()
            self._restore_anchor(anchor)
        self._settle()

    _frame_style: Style | None = None

    def render_line(self, y: int) -> Strip:
        """One screen line: a gutter (cursor mark) and the item's rendered line."""
        line = round(self.scroll_y) + y
        width = self.scrollable_content_region.width
        lay = self._layout
        rich_style = self._frame_style or self.rich_style
        if not self.items or line >= lay.total:
            return Strip.blank(width, rich_style)
        index = self._item_at_line(line)
        strips = self._strips(index)
        row = line - lay.offsets[index]
        strip = strips[row] if row < len(strips) else Strip.blank(width - GUTTER)
        if self._search is not None and index in self._search.hits:
            strip = highlight(strip, self._search.query)
        mark = "▌ " if index == self.cursor and row < len(strips) - 1 else "  "
        style = self._gutter_style(index)
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
            self._kept = kept_from(self.session, items) if isinstance(items, ItemList) else 0
        return self._kept

    _kept_for: object = None
    _kept = 0

    def _gutter_style(self, index: int) -> Style:
        item = self.items[index]
        return _GUTTER_STYLES[item.error, self.has_focus]

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

    def _post_search_updated(self) -> None:
        self.post_message(self.SearchUpdated(self))

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

    # Textual's DOMNode has an action_toggle(attribute) of its own; this one is the "toggle"
    # action of the enter binding, and keeps that name.
    def action_toggle(self) -> None:  # type: ignore[override]
        """Expand or collapse the focused block."""
        item = self.current_item
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
