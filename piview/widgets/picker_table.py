"""Provides :class:`PickerTable`: the picker's list of sessions, a DataTable of fixed columns.

Textual's DataTable measures every cell of every new row, once the message queue is idle, to
size its automatic columns: for the picker's 600 rows that is thousands of Rich measurements
before the first rows are drawn. The picker gives every column its width, so none of those
measurements can change what is drawn: this table skips them and sizes itself at once. It also
fills an empty table with all its rows in one step (:meth:`PickerTable.fill`), where
``add_row`` sets the cursor, sorts the columns and prompts the message pump once a row; a row
given as a function has its cells made the first time they are read (``LazyCells``),
so that only the rows drawn are formatted. A cell of a one-line row is drawn without the
three layers of renderables DataTable wraps it in (:meth:`PickerTable._render_cell`), to the
same segments. While the table draws its lines, its own and its components' Rich styles are
worked out once, not for every line (each walks the widget's ancestors).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, MutableMapping, Sequence
from itertools import zip_longest
from typing import NamedTuple

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderableType
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.css.styles import RenderStyles
from textual.geometry import Region
from textual.strip import Strip
from textual.widgets import DataTable
from textual.widgets.data_table import ColumnKey, DuplicateKey, Row, RowKey

from piview.widgets.lazy_table import LazyCells, fixed_virtual_size, rows_added

__all__ = ["Cells", "PickerTable"]

Cells = Sequence[Text | str]
"""A row's cells, in the order of the columns."""

SegmentLines = list[list[Segment]]
"""A cell's lines, as DataTable renders them."""


_JOIN = Text("\n")
"""What Rich joins a Text's wrapped lines with."""


def _text_line(
    console: Console, text: Text, width: int, options: ConsoleOptions
) -> list[Segment] | None:
    """The first line of ``console.render(text, options)`` in ``width`` cells, padded with
    spaces of no style, as ``Segment.split_and_crop_lines`` cuts it, for a one-line Text
    drawn without wrapping; None for any other (a tab, a newline, a centred text...)."""
    plain = text.plain
    if "\n" in plain or "\t" in plain or text.end not in ("\n", "") or text.no_wrap is False:
        return None
    justify = text.justify or options.justify or "default"
    overflow = text.overflow or options.overflow or "fold"
    if justify not in ("default", "left", "right") or overflow == "ignore":
        return None
    # Text.wrap without wrapping: Lines.justify, then truncate.
    line = text.copy()
    if justify == "left":
        line.truncate(width, overflow=overflow, pad=True)
    elif justify == "right":
        line.rstrip()
        line.truncate(width, overflow=overflow)
        line.pad_left(width - cell_len(line.plain))
    line.truncate(width, overflow=overflow)
    # Text.__rich_console__: the lines joined (the style becomes a span) and rendered; the
    # end ("\n" or none) only ends the line.
    segments = list(_JOIN.join((line,)).render(console))
    return Segment.adjust_line_length(segments, width, style=Style.null(), pad=True)


class _Settings(NamedTuple):
    """What a cell is drawn with, of the table's reactive settings."""

    fixed_rows: int
    fixed_columns: int
    cell_padding: int
    show_cursor: bool
    show_hover_cursor: bool
    css_foreground: bool
    css_background: bool


class _StyledOnce(RenderStyles):
    """Component styles whose Rich style is the one worked out when they were asked for."""

    def __init__(self, styles: RenderStyles) -> None:
        assert styles.node is not None
        super().__init__(styles.node, styles.base, styles.inline)
        self._once = styles.rich_style

    @property
    def rich_style(self) -> Style:
        """The Rich style, as it was when these styles were asked for."""
        return self._once


class PickerTable(DataTable[Text | str]):
    """A DataTable whose columns all have a fixed width: new rows are never measured."""

    _drawing: dict[tuple[str, ...], RenderStyles] | None = None
    """While lines are drawn: the component styles asked for so far; else None."""
    _drawing_style: Style | None = None
    _drawing_settings: _Settings | None = None

    def render_lines(self, crop: Region) -> list[Strip]:
        """The lines of ``crop``, as DataTable draws them; the Rich styles of the table and
        of its components (the header, the rows' stripes), and the settings each cell reads,
        worked out once for all of them: nothing can change them while they are drawn."""
        self._drawing, self._drawing_style, self._drawing_settings = {}, None, None
        try:
            return super().render_lines(crop)
        finally:
            self._drawing = self._drawing_style = self._drawing_settings = None

    def _settings(self) -> _Settings:
        """The reactive settings a cell is drawn with (read once per :meth:`render_lines`:
        each read of a reactive attribute costs a lookup through Textual's descriptor)."""
        settings = self._drawing_settings
        if settings is None:
            settings = _Settings(
                self.fixed_rows,
                self.fixed_columns,
                self.cell_padding,
                self.show_cursor,
                self._show_hover_cursor,
                self.cursor_foreground_priority == "css",
                self.cursor_background_priority == "css",
            )
            if self._drawing is not None:
                self._drawing_settings = settings
        return settings

    @property
    def rich_style(self) -> Style:
        """The table's Rich style (once per :meth:`render_lines`)."""
        if self._drawing is None:
            return super().rich_style
        if self._drawing_style is None:
            self._drawing_style = super().rich_style
        return self._drawing_style

    def get_component_styles(self, *names: str) -> RenderStyles:
        """A component's styles (their Rich style once per :meth:`render_lines`)."""
        drawing = self._drawing
        if drawing is None:
            return super().get_component_styles(*names)
        styles = drawing.get(names)
        if styles is None:
            styles = drawing[names] = _StyledOnce(super().get_component_styles(*names))
        return styles

    def _update_dimensions(self, new_rows: Iterable[RowKey]) -> None:
        """The virtual size, without measuring the new rows' cells when no column or row is
        sized by its content (else as DataTable does)."""
        keys = list(new_rows)
        rows = [self.rows.get(key) for key in keys]
        if any(c.auto_width for c in self.columns.values()) or any(
            row is not None and (row.auto_height or row.label is not None) for row in rows
        ):
            super()._update_dimensions(keys)
            return
        fixed_virtual_size(self)

    def _render_cell(
        self,
        row_index: int,
        column_index: int,
        base_style: Style,
        width: int,
        cursor: bool = False,
        hover: bool = False,
    ) -> SegmentLines:
        """A cell's lines, as DataTable renders them; a body cell of a one-line row without
        the ``Styled(Padding(cell))`` it renders through the console (which takes longer)."""
        settings = self._settings()
        if (
            row_index < settings.fixed_rows
            or column_index < settings.fixed_columns  # a label, a header or a fixed cell
            or width - 2 * settings.cell_padding < 1
        ):
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        row_key = self._row_locations.get_key(row_index)
        column_key = self._column_locations.get_key(column_index)
        row = self.rows.get(row_key) if row_key is not None else None
        if row is None or column_key is None or row.height != 1 or row.auto_height:
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        assert row_key is not None
        # The key DataTable caches a cell under: a cell drawn either way is drawn once.
        cache_key = (
            row_key,
            column_key,
            base_style,
            cursor,
            hover,
            settings.show_hover_cursor,
            self._update_count,
            self._pseudo_class_state,
        )
        cache = self._cell_render_cache
        lines = cache.get(cache_key)
        if lines is None:
            base_style += Style.from_meta({"row": row_index, "column": column_index})
            _label, cells = self._get_row_renderables(row_index)
            component_style, post_style = self._get_styles_to_render_cell(
                False,
                False,
                False,
                hover,
                cursor,
                settings.show_cursor,
                settings.show_hover_cursor,
                settings.css_foreground,
                settings.css_background,
            )
            lines = self._one_line(
                cells[column_index],
                width,
                settings.cell_padding,
                base_style + component_style,
                post_style,
            )
            cache[cache_key] = lines
        return lines

    def _one_line(
        self, cell: RenderableType, width: int, pad: int, pre_style: Style, post_style: Style
    ) -> SegmentLines:
        """What ``console.render_lines(Styled(Padding(cell, (0, pad)), pre_style,
        post_style), options)`` gives one line high and ``width`` wide, in fewer steps."""
        console = self.app.console
        inner = width - 2 * pad
        # Padding: the cell in the width less the padding, one line, padded with spaces of
        # no style (its style is "none").
        options = self.app.console_options.update_dimensions(inner, 1).update(no_wrap=True)
        null = Style.null()
        line = _text_line(console, cell, inner, options) if type(cell) is Text else None
        if line is None:
            split = Segment.split_and_crop_lines(
                console.render(cell, options), inner, style=null, pad=True, include_new_lines=False
            )
            line = next(iter(split), None)
        if line is None:
            line = [Segment(" " * inner, null)]
        if pad:
            side = Segment(" " * pad, null)
            line = [side, *line, side]
        # Styled: pre_style under each segment's style, post_style over it.
        if pre_style:
            line = [
                Segment(text, None if control else pre_style + style, control)
                for text, style, control in line
            ]
        if post_style:
            line = [
                Segment(
                    text,
                    None if control else (style + post_style if style else post_style),
                    control,
                )
                for text, style, control in line
            ]
        return [Segment.adjust_line_length(line, width, pad=True)]

    def fill(self, rows: Iterable[tuple[str, Cells | Callable[[], Cells]]]) -> None:
        """``add_row(*cells, key=key)`` for each ``(key, cells)``, one line high, in one step:
        the same rows, cursor and highlight as adding them one by one to an empty table.

        ``cells`` may be a function giving them: it is called when they are first read
        (:class:`LazyCells`), with the columns of now."""
        if self.row_count:
            for key, cells in rows:
                self.add_row(*(cells() if callable(cells) else cells), key=key)
            return
        columns = [column.key for column in self.ordered_columns]
        locations, data, meta, new = self._row_locations, self._data, self.rows, self._new_rows
        for key, cells in rows:
            row_key = RowKey(key)
            if row_key in locations:
                raise DuplicateKey(f"The row key {row_key!r} already exists.")
            if callable(cells):
                row: MutableMapping[ColumnKey, Text | str] = LazyCells(columns, cells)
            elif len(cells) > len(columns):
                raise ValueError("More values provided than there are columns.")
            else:
                row = dict(zip_longest(columns, cells))  # type: ignore[arg-type]
            locations[row_key] = len(meta)
            data[row_key] = row  # type: ignore[assignment]
            meta[row_key] = Row(row_key, 1, None, False)
            new.add(row_key)
        if not meta:
            return
        rows_added(self)
