"""Provides :class:`PickerTable`: the picker's list of sessions, a DataTable of fixed columns.

Every column has its width, so no new row is measured; :meth:`PickerTable.fill` fills an empty
table in one step, a row given as a function made when first read (``LazyCells``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, MutableMapping, Sequence
from itertools import zip_longest

from rich.text import Text
from textual.widgets import DataTable
from textual.widgets.data_table import ColumnKey, DuplicateKey, Row, RowKey

from piview.widgets.lazy_table import LazyCells, fixed_virtual_size, rows_added

Cells = Sequence[Text | str]
"""A row's cells, in the order of the columns."""


class PickerTable(DataTable[Text | str]):
    """A DataTable whose columns all have a fixed width: new rows are never measured."""

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

    def fill(self, rows: Iterable[tuple[str, Cells | Callable[[], Cells]]]) -> None:
        """``add_row(*cells, key=key)`` for each ``(key, cells)`` in one step; ``cells`` may be
        a function giving them, called when they are first read (:class:`LazyCells`)."""
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
