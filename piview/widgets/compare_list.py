"""Provides :class:`CompareList`: the rows of a branch comparison, with a cursor on its items.

The rows come from :func:`piview.render.branchdiff.layout_rows`: side by side when the list is
at least :data:`~piview.render.branchdiff.COLUMNS_MIN_WIDTH` wide, else one side under the
other. The render layer caps every section, so an ``OptionList`` is enough.
"""

from __future__ import annotations

from typing import ClassVar

from rich.console import RenderableType
from rich.padding import Padding
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from piview.model.branchdiff import BranchDiff
from piview.model.session import Session
from piview.render.branchdiff import (
    COLUMNS_MIN_WIDTH,
    Row,
    Section,
    layout_rows,
    pair_table,
)

_MARK = "▸ "
_NO_MARK = "  "


class CompareList(OptionList):
    """The comparison's rows; enter posts :class:`CompareList.Chosen` for the item's entry."""

    HELP_TITLE = "Branch comparison"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("down,j", "cursor_down", "Down", show=False, tooltip="next item"),
        Binding("up,k", "cursor_up", "Up", show=False, tooltip="previous item"),
        Binding("home,g", "first", "First", show=False, tooltip="first item"),
        Binding("end,G", "last", "Last", show=False, tooltip="last item"),
        Binding(
            "enter", "select", "Show", tooltip="show this entry in the transcript, on its branch"
        ),
        Binding(
            "left,h", "side(0)", "Side A", show=False, tooltip="side by side: choose side A's item"
        ),
        Binding(
            "right,l", "side(1)", "Side B", show=False, tooltip="side by side: choose side B's item"
        ),
    ]

    DEFAULT_CSS = """
    CompareList { height: 1fr; border: none; padding: 0 1; }
    CompareList:focus { border: none; }
    CompareList > .option-list--option-disabled { color: $foreground; }
    """

    class Chosen(Message):
        """An item was chosen: show ``entry`` (its block ``part``) on the branch to ``leaf``."""

        def __init__(self, entry: int, part: int, leaf: int) -> None:
            self.entry = entry
            """The entry to show (index in file order)."""
            self.part = part
            """The block of the entry to focus (a tool call's index), -1 for its first."""
            self.leaf = leaf
            """The leaf of its side's branch."""
            super().__init__()

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002 - Textual's name
        super().__init__(id=id)
        self._session: Session | None = None
        self._diff: BranchDiff | None = None
        self._sections: list[Section] = []
        self._rows: list[Row] = []
        self._columns: bool | None = None
        self.side = 0
        """In columns: the side whose item enter opens (0: A, 1: B)."""
        self._marked: int | None = None

    @property
    def rows(self) -> list[Row]:
        """The rows as laid out now."""
        return self._rows

    @property
    def columns(self) -> bool:
        """True when the two sides are drawn side by side."""
        return bool(self._columns)

    def show(self, session: Session, diff: BranchDiff, sections: list[Section]) -> None:
        """Show the comparison ``diff`` (its ``sections`` from the render layer)."""
        self._session, self._diff, self._sections = session, diff, sections
        self._columns = None
        self._layout()

    def _wide(self) -> bool:
        width = self.size.width or (self.app.size.width if self.is_attached else 0)
        return width >= COLUMNS_MIN_WIDTH

    def _layout(self) -> None:
        if self._session is None or self._diff is None:
            return
        columns = self._wide()
        if columns == self._columns:
            return
        self._columns = columns
        keep = self._current_entry()
        self._rows = layout_rows(self._session, self._diff, self._sections, columns=columns)
        self._marked = None
        self.set_options(
            Option(self._prompt(row, marked=False), disabled=not self._selectable(row))
            for row in self._rows
        )
        target = next(
            (
                k
                for k, r in enumerate(self._rows)
                if keep is not None and keep in (_entry(r, 0), _entry(r, 1))
            ),
            None,
        )
        if target is None:
            # The first item after the side titles: the common ancestor.
            start = next((k for k, r in enumerate(self._rows) if r.kind == "heading"), 0)
            target = next(
                (k for k, r in enumerate(self._rows) if k > start and self._selectable(r)), None
            )
        self.highlighted = target

    @staticmethod
    def _selectable(row: Row) -> bool:
        return row.kind in ("wide", "pair") and row.entry(0) is not None

    def _prompt(self, row: Row, *, marked: bool) -> RenderableType:
        if row.kind == "blank":
            return Text("")
        if row.kind == "pair" and row.side is None:
            a, b = row.a, row.b
            marks = (_NO_MARK, _NO_MARK)
            if marked:
                side = self.side if _entry(row, self.side) is not None else 1 - self.side
                marks = (_MARK, _NO_MARK) if side == 0 else (_NO_MARK, _MARK)
            return pair_table(
                a.text if a is not None else None, b.text if b is not None else None, marks
            )
        if row.kind == "wide" and self._columns and row.a is not None:
            return Padding(row.a.text, (0, 0, 0, len(_NO_MARK) + 1))
        return row.a.text if row.a is not None else Text("")

    def _current_entry(self) -> int | None:
        k = self.highlighted
        if k is None or not 0 <= k < len(self._rows):
            return None
        return self._rows[k].entry(self.side)

    def chosen(self) -> tuple[int, int, int] | None:
        """``(entry, part, leaf)`` of the item under the cursor, if it stands for an entry."""
        k = self.highlighted
        if k is None or self._diff is None or not 0 <= k < len(self._rows):
            return None
        row = self._rows[k]
        if row.side is not None:
            side = row.side
        elif row.kind == "pair":
            side = self.side if _entry(row, self.side) is not None else 1 - self.side
        else:
            side = 0  # the ancestor: on either branch; A's
        cell = row.cell(side)
        if cell is None or cell.entry is None:
            return None
        leaf = (self._diff.a if side == 0 else self._diff.b).leaf
        return cell.entry, cell.part, leaf

    # ----------------------------------------------------------------- events and actions

    def watch_highlighted(self, highlighted: int | None) -> None:
        """Move the ``▸`` mark of the side by side rows to the highlighted one."""
        super().watch_highlighted(highlighted)
        self._remark()

    def _remark(self) -> None:
        if not self._columns:
            return
        k = self.highlighted
        old = self._marked
        if old is not None and old != k and 0 <= old < len(self._rows):
            self.replace_option_prompt_at_index(old, self._prompt(self._rows[old], marked=False))
        self._marked = None
        row = self._rows[k] if k is not None and 0 <= k < len(self._rows) else None
        if k is not None and row is not None and row.side is None and row.kind == "pair":
            self.replace_option_prompt_at_index(k, self._prompt(row, marked=True))
            self._marked = k

    def on_resize(self, event: events.Resize) -> None:
        """Lay the rows out again when the width crosses the columns line."""
        self._layout()

    def action_side(self, side: int) -> None:
        """Choose the side (in columns) whose item enter opens."""
        self.side = side
        self._remark()

    def action_select(self) -> None:
        """Post :class:`Chosen` for the item under the cursor."""
        got = self.chosen()
        if got is not None:
            self.post_message(self.Chosen(*got))

    def action_last(self) -> None:
        """Go to the last item."""
        k = next(
            (k for k in range(len(self._rows) - 1, -1, -1) if self._selectable(self._rows[k])), None
        )
        if k is not None:
            self.highlighted = k

    def action_first(self) -> None:
        """Go to the first item."""
        k = next((k for k, r in enumerate(self._rows) if self._selectable(r)), None)
        if k is not None:
            self.highlighted = k

    def on_mouse_down(self, event: events.MouseDown) -> None:
        """Side by side, a click chooses its half's side (the click then selects)."""
        if self._columns:
            self.side = 0 if event.x < self.size.width // 2 else 1


def _entry(row: Row, side: int) -> int | None:
    cell = row.a if side == 0 else row.b
    return cell.entry if cell is not None else None
