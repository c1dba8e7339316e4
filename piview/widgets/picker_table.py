"""Provides :class:`PickerTable`: the picker's list of sessions, a DataTable of fixed columns.

Textual's DataTable measures every cell of every new row, once the message queue is idle, to
size its automatic columns: for the picker's 600 rows that is thousands of Rich measurements
before the first rows are drawn. The picker gives every column its width, so none of those
measurements can change what is drawn: this table skips them and sizes itself at once.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.text import Text
from textual.geometry import Size
from textual.widgets import DataTable
from textual.widgets._data_table import RowKey

__all__ = ["PickerTable"]


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
        # As DataTable._update_dimensions ends: only what fixed columns and rows give.
        width = sum(column.get_render_width(self) for column in self.columns.values())
        header_height = self.header_height if self.show_header else 0
        self.virtual_size = Size(
            width + self._row_label_column_width, self._total_row_height + header_height
        )
