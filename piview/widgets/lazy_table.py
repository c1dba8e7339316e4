"""Provides :class:`LazyTable`: a DataTable of fixed-width columns whose cells are made only
when a row is first drawn or read, and the pieces it shares with the picker's table
(:class:`LazyCells`, one row made on first read; :func:`fixed_virtual_size`; :func:`rows_added`).

No cell is measured (every column has its width), and the rows' keys are set in one step
(:meth:`LazyTable.show_rows`): what is drawn is what the same cells added with ``add_row`` draw.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, MutableMapping, Sequence
from functools import partial
from itertools import zip_longest
from typing import Any, Self, TypeVar

from rich.text import Text
from textual.geometry import Size
from textual.widgets import DataTable
from textual.widgets.data_table import ColumnKey, Row, RowKey

CellT = TypeVar("CellT")

CellMaker = Callable[[int], Sequence[Text]]
"""The cells of row ``n`` (0-based, in the order the rows are shown), one per column."""


class LazyCells(MutableMapping[ColumnKey, CellT]):
    """One row's cells by column (DataTable's mapping of column to cell), made by ``make`` the
    first time any is read or written."""

    __slots__ = ("_cells", "_columns", "_make")

    def __init__(self, columns: Sequence[ColumnKey], make: Callable[[], Sequence[CellT]]) -> None:
        self._columns: Sequence[ColumnKey] | None = columns
        self._make: Callable[[], Sequence[CellT]] | None = make
        self._cells: dict[ColumnKey, CellT] | None = None

    def _row(self) -> dict[ColumnKey, CellT]:
        cells = self._cells
        if cells is None:
            assert self._make is not None and self._columns is not None
            made = self._make()
            if len(made) > len(self._columns):
                raise ValueError("More values provided than there are columns.")
            # As add_row: a row with fewer cells than columns has None in the rest.
            cells = self._cells = dict(zip_longest(self._columns, made))  # type: ignore[arg-type]
            self._make = self._columns = None  # what they held can go
        return cells

    def __getitem__(self, key: ColumnKey) -> CellT:
        return self._row()[key]

    def __setitem__(self, key: ColumnKey, value: CellT) -> None:
        self._row()[key] = value

    def __delitem__(self, key: ColumnKey) -> None:
        del self._row()[key]

    def __iter__(self) -> Iterator[ColumnKey]:
        return iter(self._row())

    def __len__(self) -> int:
        return len(self._row())

    def __repr__(self) -> str:
        return f"LazyCells({self._row()!r})"


class _Rows(dict[RowKey, MutableMapping[ColumnKey, Text]]):
    """The cells of every row by row key, a row's mapping made when first asked for."""

    __slots__ = ("_columns", "_count", "_make", "_places")

    def __init__(self, count: int, make: CellMaker, columns: list[ColumnKey], places: Any) -> None:
        super().__init__()
        self._count, self._make, self._columns, self._places = count, make, columns, places

    def __missing__(self, key: RowKey) -> MutableMapping[ColumnKey, Text]:
        n = self._places.get(key)
        if n is None:
            raise KeyError(key)
        cells = self[key] = LazyCells(self._columns, partial(self._make, n))
        return cells

    def get(self, key: RowKey, default: object = None) -> Any:  # type: ignore[override]
        """The row's cells, as ``dict.get`` (DataTable reads rows so)."""
        try:
            return self[key]
        except KeyError:
            return default

    def __len__(self) -> int:
        return self._count

    def __contains__(self, key: object) -> bool:
        return self._places.get(key) is not None  # type: ignore[arg-type]

    def clear(self) -> None:
        """No rows any more."""
        self._count = 0
        super().clear()


def fixed_virtual_size(table: DataTable[Any]) -> None:
    """Size the table as ``DataTable._update_dimensions`` ends, from its fixed columns and
    one-line rows alone: no cell is measured (the caller checked none is sized by content)."""
    width = sum(column.get_render_width(table) for column in table.columns.values())
    header_height = table.header_height if table.show_header else 0
    table.virtual_size = Size(
        width + table._row_label_column_width,  # noqa: SLF001 - DataTable's own figures
        table._total_row_height + header_height,  # noqa: SLF001
    )


def rows_added(table: DataTable[Any]) -> None:
    """What ``DataTable.add_row`` does after each row (the cursor kept valid and
    highlighted), done once after many were put in place."""
    table._require_update_dimensions = True  # noqa: SLF001 - DataTable's own steps
    table.cursor_coordinate = table.cursor_coordinate
    if table.columns and table.show_cursor and table.cursor_type != "none":
        table._highlight_cursor()  # noqa: SLF001
    table._update_count += 1  # noqa: SLF001
    table.check_idle()


class LazyTable(DataTable[Text]):
    """A DataTable whose columns all have a fixed width and whose rows are made on demand,
    all at once in the order shown (:meth:`show_rows`; no ``sort``, ``add_row``)."""

    def show_rows(self, count: int, make: CellMaker) -> None:
        """Replace the rows by ``count`` rows one line high, row ``n`` holding ``make(n)``
        (made when the row is read or drawn), as ``clear()`` and ``add_row`` for each."""
        self.clear()
        if not count:
            return
        columns = [column.key for column in self.ordered_columns]
        keys = [RowKey(str(n)) for n in range(count)]
        # A map of the kind DataTable keeps (key to place and back), not imported from it.
        places = type(self._row_locations)(dict(zip(keys, range(count), strict=True)))
        self._row_locations = places
        self._data = _Rows(count, make, columns, self._row_locations)  # type: ignore[assignment]
        rows = [Row(key, 1, None, False) for key in keys]
        self.rows = dict(zip(keys, rows, strict=True))
        self._order = (len(rows), self._row_locations, rows, [(key, 0) for key in keys])
        rows_added(self)

    _order: tuple[int, object, list[Row], list[tuple[RowKey, int]]] | None = None
    """The rows in order and the line of each, and for which rows: their number and the
    mapping of their places (``sort`` makes a new one)."""

    def _known_order(self) -> tuple[list[Row], list[tuple[RowKey, int]]] | None:
        order = self._order
        if order is None or order[0] != len(self.rows) or order[1] is not self._row_locations:
            return None
        return order[2], order[3]

    @property
    def ordered_rows(self) -> list[Row]:
        """The rows in order; DataTable makes the list again on every resize and update, a
        pass over every row: this one keeps it while the rows stay the same."""
        known = self._known_order()
        return known[0] if known is not None else super().ordered_rows

    @property
    def _y_offsets(self) -> list[tuple[RowKey, int]]:
        known = self._known_order()
        return known[1] if known is not None else super()._y_offsets

    def clear(self, columns: bool = False) -> Self:
        """Clear the table (and the rows' order kept)."""
        # DataTable.clear empties the list of lines: give it an empty one, not one it makes
        # from every row just for that; the order stops holding when clear makes a new map.
        self._order = (len(self.rows), self._row_locations, [], [])
        return super().clear(columns)

    def _update_dimensions(self, new_rows: Iterable[RowKey]) -> None:
        """The virtual size from the fixed columns and one-line rows: nothing measured."""
        if any(column.auto_width for column in self.columns.values()):
            super()._update_dimensions(new_rows)
            return
        fixed_virtual_size(self)
