"""The picker's first rows (issue #17): nothing before them that they do not need.

Its table never measures the cells of its fixed-width columns, and the summary indexer and
the text index's process start once the first rows are drawn, not before.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import textual.widgets._data_table as data_table
from rich.text import Text
from textual.app import App, ComposeResult
from textual.screen import Screen
from textual.widgets import DataTable

from piview.app import make_app
from piview.catalog.fts import Progress
from piview.screens.picker import PickerScreen
from piview.widgets.picker_table import PickerTable
from tests.app.test_debugging import T0, _copy_as, build_sessions
from tests.conftest import fixture

SIZE = (120, 30)


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("PIVIEW_SEARCH_DB", raising=False)
    root = tmp_path / "sessions"
    build_sessions(root)
    return root


def _count_measures(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    calls: list[object] = []
    measure = data_table.measure

    def counted(console: object, renderable: object, default: int, **kw: object) -> int:
        calls.append(renderable)
        return measure(console, renderable, default, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(data_table, "measure", counted)
    return calls


async def test_picker_rows_are_never_measured(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app = make_app(sessions_root=root)
    async with app.run_test(size=SIZE) as pilot:
        calls = _count_measures(monkeypatch)  # after the columns' labels were measured
        picker = app.screen
        assert isinstance(picker, PickerScreen)
        picker._refill()  # noqa: SLF001 - the rows added again, as a filter does
        await pilot.pause()
        table = picker.query_one(DataTable)
        assert isinstance(table, PickerTable) and table.row_count >= 3
        labels = len(table.columns)
        assert len(calls) <= labels  # the labels of the columns added again; no cell
        assert table.virtual_size.height == table.row_count + 1  # the rows and the header


class _Tables(App[None]):
    """A PickerTable beside a DataTable, with the same columns and rows."""

    def __init__(self, auto: bool) -> None:
        super().__init__()
        self.auto = auto

    def compose(self) -> ComposeResult:
        yield PickerTable(id="picker", cursor_type="row", zebra_stripes=True)
        yield DataTable(id="plain", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        for table in self.query(DataTable):
            table.styles.height = 12
            table.add_column("name", width=None if self.auto else 12, key="name")
            table.add_column("size", width=8, key="size")
            for i in range(40):
                table.add_row(f"session number {i}" * (1 + i % 3), f"{i} kB", key=str(i))


@pytest.mark.parametrize("auto", [False, True], ids=["fixed", "auto-width"])
async def test_picker_table_draws_as_a_data_table(auto: bool) -> None:
    app = _Tables(auto)
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        ours, theirs = app.query_one("#picker", DataTable), app.query_one("#plain", DataTable)
        assert ours.virtual_size == theirs.virtual_size
        assert [c.get_render_width(ours) for c in ours.ordered_columns] == [
            c.get_render_width(theirs) for c in theirs.ordered_columns
        ]
        for y in range(10):
            assert ours.render_line(y).text == theirs.render_line(y).text


async def test_indexers_start_after_the_first_rows(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    events: list[str] = []
    refresh = Screen._compositor_refresh  # noqa: SLF001

    def drawn(self: Screen[object]) -> None:
        if isinstance(self, PickerScreen) and "drawn" not in events:
            events.append("drawn")
        refresh(self)

    monkeypatch.setattr(Screen, "_compositor_refresh", drawn)
    index_all, fts_build = PickerScreen._index_all, PickerScreen._fts_build  # noqa: SLF001

    def _index_all(self: PickerScreen) -> object:
        events.append("index")
        return index_all(self)

    def _fts_build(self: PickerScreen, paths: list[str]) -> object:
        events.append("fts")
        return fts_build(self, paths)

    monkeypatch.setattr(PickerScreen, "_index_all", _index_all)
    monkeypatch.setattr(PickerScreen, "_fts_build", _fts_build)
    app = make_app(sessions_root=root)
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        picker = app.screen
        assert isinstance(picker, PickerScreen)
        assert picker.fts_ready
        assert all(s.complete for s in picker.summaries.values())
    assert events[0] == "drawn" and {"index", "fts"} <= set(events), events


class _Filled(App[None]):
    """Two PickerTables: one filled at once, one a row at a time; highlights counted."""

    def __init__(self) -> None:
        super().__init__()
        self.highlighted: dict[str, int] = {}

    def compose(self) -> ComposeResult:
        yield PickerTable(id="fill", cursor_type="row", zebra_stripes=True)
        yield PickerTable(id="one", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        rows = [(f"k{i}", [Text(f"row {i}", justify="right"), f"{i} kB"]) for i in range(30)]
        for table in self.query(PickerTable):
            table.styles.height = 12
            table.add_column("name", width=12, key="name")
            table.add_column("size", width=8, key="size")
            table.add_column("note", width=6, key="note")  # no cell given: empty
        self.query_one("#fill", PickerTable).fill(rows)
        one = self.query_one("#one", PickerTable)
        for key, cells in rows:
            one.add_row(*cells, key=key)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        name = event.data_table.id or ""
        self.highlighted[name] = self.highlighted.get(name, 0) + 1


async def test_fill_is_adding_the_rows_one_by_one() -> None:
    app = _Filled()
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        fill, one = app.query_one("#fill", PickerTable), app.query_one("#one", PickerTable)
        assert fill.row_count == one.row_count == 30
        assert [fill.get_row_at(i) for i in range(30)] == [one.get_row_at(i) for i in range(30)]
        assert list(fill.rows) == list(one.rows)
        assert fill.cursor_coordinate == one.cursor_coordinate
        assert fill.virtual_size == one.virtual_size
        assert app.highlighted == {"fill": 1, "one": 1}
        for y in range(12):
            assert fill.render_line(y).text == one.render_line(y).text
        await pilot.press("down", "down")
        fill.fill([("k99", ["more", "1 kB"])])  # not empty: row by row
        assert fill.row_count == 31 and fill.get_row_at(30) == ["more", "1 kB", None]
        with pytest.raises(data_table.DuplicateKey):
            fill.fill([("k99", ["again"])])


async def test_the_text_index_finishing_while_the_picker_closes_is_no_error(root: Path) -> None:
    """The text index's worker says it is done from its thread; when that lands as the app
    closes, the picker's widgets are gone. It raised ``NoMatches('#where')`` (seen in CI,
    an app closed 0.1 s after it started)."""
    app = make_app(sessions_root=root)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, PickerScreen)
        await screen.query_one("#where").remove()
        screen._fts_progress(Progress(1, 2, 10, 20))  # noqa: SLF001 - the worker's calls
        screen._fts_done("")  # noqa: SLF001
        await pilot.pause()


class _Lazy(App[None]):
    """A PickerTable filled with functions that make each row's cells (``lazy``), or with
    the cells themselves; the rows whose cells were made are counted."""

    def __init__(self, lazy: bool) -> None:
        super().__init__()
        self.lazy = lazy
        self.made: list[int] = []

    def compose(self) -> ComposeResult:
        yield PickerTable(cursor_type="row", zebra_stripes=True)

    def cells(self, i: int) -> list[Text | str]:
        self.made.append(i)
        return [Text(f"row {i}", justify="right"), f"{i} kB"]

    def on_mount(self) -> None:
        table = self.query_one(PickerTable)
        table.styles.height = 12
        table.add_column("name", width=12, key="name")
        table.add_column("size", width=8, key="size")
        table.add_column("note", width=6, key="note")  # no cell given: empty
        if self.lazy:
            table.fill([(f"k{i}", lambda i=i: self.cells(i)) for i in range(300)])
        else:
            table.fill([(f"k{i}", self.cells(i)) for i in range(300)])


async def _lazy_run(lazy: bool) -> tuple[list[int], list[object]]:
    """What one table does: the rows made, then what is drawn and read, in order."""
    app = _Lazy(lazy)
    seen: list[object] = []
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        table = app.query_one(PickerTable)
        made = sorted(set(app.made))
        seen += [table.virtual_size, table.row_count]
        seen += [table.render_line(y) for y in range(12)]
        seen += [table.get_row_at(200), str(table.get_row_at(200)[0])]
        table.update_cell("k250", "size", "big")
        seen += [table.get_row("k250"), [table.get_cell(f"k{i}", "size") for i in range(245, 255)]]
        table.move_cursor(row=299)
        await pilot.pause()
        seen += [table.render_line(y) for y in range(12)]
        seen.append(len(app.made))
    return made, seen


async def test_fill_makes_the_cells_of_the_rows_drawn_only() -> None:
    made, lazy = await _lazy_run(True)
    _all, eager = await _lazy_run(False)
    assert made and set(made) <= set(range(12)), made  # the rows on screen, no more
    assert lazy[:-1] == eager[:-1]  # drawn, read, updated, scrolled: the same
    assert lazy[-1] < 60 and eager[-1] == 300, (lazy[-1], eager[-1])  # never every row


async def test_picker_formats_only_the_rows_it_draws(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("PIVIEW_SEARCH_DB", raising=False)
    root = tmp_path / "sessions"
    for i in range(120):
        dest = root / f"--home-dev-src-p{i % 7}--" / f"2026-05-14T09-00_{i:03d}.jsonl"
        _copy_as(fixture("linear.jsonl"), dest, f"/home/dev/src/p{i % 7}", T0 + 60 * i)
    made: list[str] = []
    cells = PickerScreen._cells  # noqa: SLF001

    def counted(self: PickerScreen, s: object, *args: object) -> object:
        made.append(s.path)  # type: ignore[attr-defined]
        return cells(self, s, *args)  # type: ignore[arg-type]

    app = make_app(sessions_root=root)
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        picker = app.screen
        assert isinstance(picker, PickerScreen)
        monkeypatch.setattr(PickerScreen, "_cells", counted)
        picker._refill()  # noqa: SLF001 - the rows made again, as a filter does
        await pilot.pause()
        table = picker.query_one(DataTable)
        assert table.row_count == 120
        assert 0 < len(made) <= SIZE[1]  # the rows on screen, not all 120
        # A row read later is made then, whole.
        row = table.get_row_at(100)
        shown = picker.summaries[picker._shown[100]]  # noqa: SLF001
        assert len(row) == len(picker._cols) and made[-1] == shown.path  # noqa: SLF001
        assert str(row[[n for n, _w in picker._cols].index("session")]) == shown.title  # noqa: SLF001


def _odd_cells(i: int) -> list[Text | str | None]:
    """Cells of every kind a table meets: justified, cut, styled, wide, tabbed, two lines."""
    styled = Text("bold ", style="bold cyan", overflow="ellipsis", no_wrap=True)
    styled.append("and dim", style="dim")
    styled.stylize("reverse", 2, 7)
    return [
        Text(f"{i:,}", justify="right"),
        styled,
        Text(f"漢字のセッション {i} — a long title that will not fit", overflow="ellipsis"),
        Text("tab\there", justify="center", overflow="crop"),
        Text("two\nlines", justify="full", overflow="fold"),
        f"[b]markup[/b] {i}" if i % 2 else "",
        None if i % 3 else Text("🙂 emoji", justify="left"),
        Text(""),
        Text(f" {i % 10}  " if i % 2 else f"  spaced {i}  ", justify="right", style="italic"),
        Text("x" * (i % 13), overflow="crop", justify="right"),
        Text("wide漢字漢字漢字", overflow="ellipsis", style="underline"),
        Text(f"no end {i}", end=""),
        Text("wraps when it may", no_wrap=False),
        Text("ignored overflow", overflow="ignore"),
        _spanned(i),
    ]


def _spanned(i: int) -> Text:
    """A Text whose spans reach past where it is cut, and one empty span."""
    out = Text(f"span{i} over the edge", justify="right" if i % 2 else "left")
    out.stylize("bold", 0, 4)
    out.stylize("red", 3, 30)
    out.stylize("blue", 5, 5)
    return out


class _Drawn(App[None]):
    """One table, a PickerTable or a DataTable, with :func:`_odd_cells` rows."""

    def __init__(self, picker: bool) -> None:
        super().__init__()
        self.picker = picker

    def compose(self) -> ComposeResult:
        kind = PickerTable if self.picker else DataTable
        yield kind(cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.styles.height = 14
        for k, w in enumerate((7, 9, 12, 6, 5, 8, 1, 3, 10, 4, 6, 11, 7, 9, 8)):
            table.add_column(f"c{k}", width=w, key=f"c{k}")
        for i in range(40):
            table.add_row(*_odd_cells(i), key=str(i))


async def _drawn(picker: bool) -> list[object]:
    out: list[object] = []
    app = _Drawn(picker)

    def draw(table: DataTable[object]) -> None:
        out.extend(table.render_line(y) for y in range(14))
        table._clear_caches()  # noqa: SLF001 - and all of it drawn at once, anew
        out.extend(table.render_lines(table.region.reset_offset))

    async with app.run_test(size=(160, 20)) as pilot:
        await pilot.pause()
        table = app.query_one(DataTable)
        draw(table)
        await pilot.hover(DataTable, offset=(20, 4))
        table.move_cursor(row=5)
        await pilot.pause()
        draw(table)
        table.cursor_type = "cell"
        table.move_cursor(row=7, column=2)
        await pilot.pause()
        draw(table)
        table.blur()
        await pilot.pause()
        draw(table)
    return out


async def test_picker_table_cells_are_drawn_as_data_table_draws_them() -> None:
    # Strips equal: the same text, the same styles, the same meta (row and column of a click).
    ours, theirs = await _drawn(True), await _drawn(False)
    assert len(ours) == len(theirs) == 112
    for k, (a, b) in enumerate(zip(ours, theirs, strict=True)):
        assert list(a) == list(b), k  # type: ignore[call-overload]


async def test_picker_rows_read_no_markup(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Markup would load Rich's table of emoji codes (~2 ms) before the first rows.
    app = make_app(sessions_root=root)
    async with app.run_test(size=SIZE) as pilot:
        picker = app.screen
        assert isinstance(picker, PickerScreen)
        labels = [str(c.label) for c in picker.query_one(DataTable).ordered_columns]
        calls: list[str] = []
        from_markup = Text.from_markup

        def counted(text: str, **kw: object) -> Text:
            calls.append(text)
            return from_markup(text, **kw)  # type: ignore[arg-type]

        monkeypatch.setattr(Text, "from_markup", counted)
        picker._refill()  # noqa: SLF001 - the columns and rows made again
        await pilot.pause()
        table = picker.query_one(DataTable)
        assert [str(c.label) for c in table.ordered_columns] == labels
        assert calls == []


async def test_files_changed_since_the_cache_show_as_they_are_now(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The first rows come from the summary cache; a file added, grown or removed since it
    # was written is listed as it is now (and indexed), one gone is not listed.
    from piview.catalog.discovery import cache_dir

    app = make_app(sessions_root=root)
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
    assert (cache_dir() / "sessions.json").exists()
    linear, tools, tree = (
        root / "--home-dev-src-alpha--" / "2026-05-14T09-00_linear.jsonl",
        root / "--home-dev-src-beta--" / "2026-05-15T09-00_tools.jsonl",
        root / "--home-dev-src-alpha--" / "2026-05-14T18-00_tree.jsonl",
    )
    added = root / "--home-dev-src-gamma--" / "2026-05-16T09-00_added.jsonl"
    _copy_as(fixture("linear.jsonl"), added, "/home/dev/src/gamma", T0 + 5 * 3600)
    lines = tree.read_bytes().splitlines(keepends=True)
    grown = b'{"type":"session_info","id":"zz000001","parentId":null,'
    grown += b'"timestamp":"2026-05-05T20:00:00.000Z","name":"renamed since"}\n'
    tree.write_bytes(b"".join(lines) + grown)
    tools.unlink()
    app = make_app(sessions_root=root)
    async with app.run_test(size=SIZE) as pilot:
        picker = app.screen
        assert isinstance(picker, PickerScreen)
        assert set(picker._shown) == {str(added), str(linear), str(tree)}  # noqa: SLF001
        assert picker.summaries[str(tree)].name == "renamed since"
        await app.workers.wait_for_complete()
        await pilot.pause()
        table = picker.query_one(DataTable)
        titles = {p: str(table.get_cell(p, "session")) for p in picker._shown}  # noqa: SLF001
        assert titles[str(tree)] == "renamed since"
        assert picker.summaries[str(added)].complete and picker.summaries[str(tree)].complete
        assert str(table.get_cell(str(tree), "entries")) == "24"
