"""Provides :class:`BranchKeys`: the branch panel's keys (cursor moves, enter, folds, the
filter and labels) and its mouse clicks, as a mixin of
:class:`piview.widgets.branch_panel.BranchPanel`, which holds their bindings.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import events

from piview.model.treefilter import FilterMode, next_filter
from piview.model.treeview import Folds, Row, TreeRows, refold

if TYPE_CHECKING:
    from textual.message import Message
    from textual.scroll_view import ScrollView as _Widget

    from piview.model.session import Session
else:
    _Widget = object  # a plain mixin: Textual sees only the widget class itself

__all__ = ["BranchKeys"]


class BranchKeys(_Widget):
    """The panel's actions; the panel provides what is declared here."""

    _session: Session | None
    _tree_rows: TreeRows | None
    _folds: Folds
    _stale: bool
    _generation: int
    building: bool
    cursor: int
    filter_mode: FilterMode

    if TYPE_CHECKING:

        @property
        def rows(self) -> list[Row]: ...
        @property
        def cursor_entry(self) -> int | None: ...
        def move_to_entry(self, entry: int) -> None: ...
        def _rebuild(self, keep: int | None, *, force: bool = False) -> None: ...
        def _apply(self, tree_rows: TreeRows, keep: int | None) -> None: ...
        def _body_height(self) -> int: ...
        def EntrySelected(self, panel: object, entry: int, leaf: int) -> Message: ...  # noqa: N802

    def action_move(self, delta: int) -> None:
        """Move the cursor by ``delta`` rows."""
        self.cursor += delta

    def action_page(self, direction: int) -> None:
        """Move the cursor by a page."""
        self.cursor += direction * self._body_height()

    def action_jump_to(self, row: int) -> None:
        """Move the cursor to ``row`` (negative counts from the end)."""
        self.cursor = row if row >= 0 else len(self.rows) + row

    def action_select(self) -> None:
        """Post :class:`EntrySelected` for the row under the cursor."""
        entry = self.cursor_entry
        if entry is None or self._session is None:
            return
        # As Pi's HTML export: the path through the entry down to its newest leaf.
        leaf = self._session.tree.newest_leaf(entry)
        self.post_message(self.EntrySelected(self, entry, leaf))

    def action_toggle_fold(self) -> None:
        """Fold or unfold the segment under the cursor."""
        row = self._fold_target()
        if row is not None:
            self._set_fold(row, not self.rows[row].folded)

    def action_fold(self) -> None:
        """Fold the cursor's segment, or go to the start of the enclosing segment."""
        rows = self.rows
        if not rows:
            return
        row = rows[self.cursor]
        if row.expanded:
            self._set_fold(self.cursor, True)
            return
        assert self._tree_rows is not None
        start = self._tree_rows.segment_start(self.cursor)
        if start is not None:
            self.cursor = start

    def action_unfold(self) -> None:
        """Unfold the cursor's segment, or go to the next branch start below."""
        rows = self.rows
        if not rows:
            return
        if rows[self.cursor].folded:
            self._set_fold(self.cursor, False)
            return
        for k in range(self.cursor + 1, len(rows)):
            if rows[k].connector:
                self.cursor = k
                return

    # ----------------------------------------------------------------- filter and folds

    def action_label(self, step: int) -> None:
        """Move to the next (or previous) labelled entry in tree order, wrapping around and
        unfolding what hides it."""
        rows = self.rows
        walk = self._tree_rows.walk if self._tree_rows is not None else None
        if walk is None or not rows:
            return
        target = walk.next_labelled(walk.pre[rows[self.cursor].entry], step)
        if target is None:
            self.notify("No labelled entry in this filter", timeout=3)
            return
        self.move_to_entry(target)

    def action_cycle_filter(self, step: int) -> None:
        """Switch to the next (or previous) filter mode."""
        self.filter_mode = next_filter(self.filter_mode, step)

    def _fold_target(self) -> int | None:
        rows = self.rows
        if not rows:
            return None
        if rows[self.cursor].foldable:
            return self.cursor
        assert self._tree_rows is not None
        return self._tree_rows.segment_start(self.cursor)

    def _set_fold(self, row: int, folded: bool) -> None:
        entry = self.rows[row].entry
        self._folds.set(entry, folded)
        tree_rows = self._tree_rows
        if tree_rows is None or tree_rows.walk is None or self.building or self._stale:
            self._rebuild(keep=entry)
            return
        # Only this row's subtree changes: cut its rows out, or lay them out again.
        self._generation += 1
        self._apply(refold(tree_rows, row, self._folds), entry)

    # ----------------------------------------------------------------- mouse

    def on_click(self, event: events.Click) -> None:
        """A click moves the cursor to the row and selects it."""
        y = event.y
        if y >= self.scrollable_content_region.height - 1:
            return
        row = round(self.scroll_y) + y
        if 0 <= row < len(self.rows):
            self.cursor = row
            self.action_select()
