"""The views a key opens on a big session: the work each does is for what is on screen, or
was done ahead.

``T`` on a branch of thousands of tool calls: the calls are collected once (ahead, in a
worker, while the user reads the branch) and kept while the tree stays the same; the table
makes the cells of the rows it draws only, and draws what a DataTable filled with
``add_row`` draws. ``b``: the hidden panel's rows are flattened ahead in a worker, and shown
if nothing they depend on changed since.
"""

from __future__ import annotations

import gc
import shutil
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.widgets import DataTable, Static

import piview.screens.session as session_module
import piview.screens.session_views as session_views
import piview.screens.tools_view as tools_view
import piview.widgets.branch_ahead as branch_ahead
import piview.widgets.branch_panel as branch_panel_module
import piview.widgets.idle_gc as idle_gc
import piview.widgets.transcript as transcript_module
from piview.app import make_app
from piview.model import Session, load_session, usage_report
from piview.model.branchcost import branch_costs
from piview.model.tools import ToolRow, branch_tool_rows, cached_tool_rows, tool_rows
from piview.model.treeview import TreeRows
from piview.screens.session import SessionScreen
from piview.screens.tools_view import ToolsScreen
from piview.widgets.branch_panel import BranchPanel
from piview.widgets.lazy_table import LazyTable
from piview.widgets.transcript import Transcript
from piview.widgets.usage_sidebar import UsageSidebar
from tests.app.test_key_work import write_turns
from tests.conftest import fixture

SIZE = (120, 40)


@pytest.fixture(scope="module")
def many_calls(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A branch of 3,000 tool calls (12,000 entries)."""
    return write_turns(tmp_path_factory.mktemp("calls") / "calls.jsonl", 3000)


class _Tables(App[None]):
    """A LazyTable and a DataTable filled with add_row, the same cells, one above the other."""

    CSS = "DataTable { height: 12; }"

    def __init__(self, cells: list[list[str]], made: list[int]) -> None:
        super().__init__()
        self.cells, self.made = cells, made

    def compose(self) -> ComposeResult:
        yield LazyTable(cursor_type="row", zebra_stripes=True, id="lazy")
        yield DataTable(cursor_type="row", zebra_stripes=True, id="eager")

    def on_mount(self) -> None:
        from rich.text import Text

        lazy, eager = self.query_one("#lazy", LazyTable), self.query_one("#eager", DataTable)
        for table in (lazy, eager):
            for name, width in (("#", 5), ("name", 10), ("status", 8)):
                table.add_column(name, width=width, key=name)

        def make(n: int) -> list[Text]:
            self.made.append(n)
            return [Text(c, style="bold" if k == 1 else "") for k, c in enumerate(self.cells[n])]

        lazy.show_rows(len(self.cells), make)
        for row in self.cells:
            eager.add_row(*(Text(c, style="bold" if k == 1 else "") for k, c in enumerate(row)))


async def test_a_lazy_table_draws_what_add_row_draws_making_only_the_rows_drawn() -> None:
    cells = [[str(n), f"tool{n % 7}", "ok" if n % 5 else "error"] for n in range(5000)]
    made: list[int] = []
    app = _Tables(cells, made)
    async with app.run_test(size=(40, 30)) as pilot:
        await pilot.pause()
        lazy, eager = app.query_one("#lazy", LazyTable), app.query_one("#eager", DataTable)

        async def styled(table: DataTable[object]) -> list[list[tuple[str, object]]]:
            """The table's lines as drawn with the focus (text and style, not the meta)."""
            table.focus()
            await pilot.pause()
            return [
                [(s.text, s.style and s.style.clear_meta_and_links()) for s in table.render_line(y)]
                for y in range(table.size.height)
            ]

        assert lazy.row_count == eager.row_count == 5000
        assert lazy.virtual_size == eager.virtual_size
        first = await styled(lazy)
        assert first == await styled(eager)
        assert "tool3" in str(first) and "error" in str(first)
        assert len(set(made)) < 20  # only the rows on screen were made
        for keys in (["down"] * 3, ["pagedown"], ["ctrl+end"], ["up"], ["ctrl+home"]):
            for table in (lazy, eager):
                table.focus()
                await pilot.press(*keys)
            await pilot.pause()
            assert lazy.cursor_row == eager.cursor_row
            assert await styled(lazy) == await styled(eager)
        assert [str(c) for c in lazy.get_row_at(4321)] == cells[4321]
        assert len(set(made)) < 60


def test_the_tool_rows_of_a_branch_are_collected_once_per_tree(many_calls: Path) -> None:
    s = load_session(many_calls)
    path = s.tree.path(s.tree.leaf)
    assert cached_tool_rows(s, path) is None
    rows = branch_tool_rows(s, path)
    assert [(r.entry, r.part, r.status) for r in rows] == [
        (r.entry, r.part, r.status) for r in tool_rows(s, path)
    ]
    assert cached_tool_rows(s, path) is rows and branch_tool_rows(s, path) is rows
    assert cached_tool_rows(s, path[:-4]) is None  # another branch: not these rows


def test_the_tool_rows_kept_are_stale_once_the_file_grew(tmp_path: Path) -> None:
    live = tmp_path / "live.jsonl"
    shutil.copy(fixture("edit_tools.jsonl"), live)
    s = load_session(live)
    path = s.tree.path(s.tree.leaf)
    rows = branch_tool_rows(s, path)
    leaf_id = s.ids[path[-1]]
    with live.open("a") as f:  # a result arriving for nothing, under the same leaf's parent
        f.write(
            '{"type":"message","id":"zz000001","parentId":"' + leaf_id + '",'
            '"timestamp":"2026-05-14T10:00:00.000Z","message":{"role":"toolResult",'
            '"toolCallId":"nope","toolName":"bash","content":[],"isError":false}}\n'
        )
    assert s.poll() != "none"
    assert cached_tool_rows(s, path) is None  # the tree is a new one: the rows may differ
    new_path = s.tree.path(s.tree.leaf)
    fresh = branch_tool_rows(s, new_path)
    assert fresh is not rows and len(fresh) == len(rows) + 1
    assert fresh[-1].status == "orphan_result"


async def test_tools_view_opens_with_calls_collected_ahead_and_makes_visible_cells_only(
    many_calls: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made: list[str] = []
    summary = tools_view.argument_summary

    def counted(name: str, args: object, limit: int = 60) -> str:
        made.append(name)
        return summary(name, args, limit=limit)

    monkeypatch.setattr(tools_view, "argument_summary", counted)
    monkeypatch.setattr(SessionScreen, "AHEAD_AFTER", 0.05)
    app = make_app(load_session(many_calls))
    async with app.run_test(size=SIZE) as pilot:
        s = app.session
        assert s is not None
        # The timer fires once the screen is up, however long that takes on a busy machine:
        # wait for its worker's rows (never for a fixed time).
        rows = None
        for _ in range(200):
            await pilot.pause(0.05)
            await app.workers.wait_for_complete()
            rows = cached_tool_rows(s, app.screen.query_one(Transcript).path)
            if rows is not None:
                break
        assert rows is not None and len(rows) == 3000  # collected ahead, before T
        await pilot.press("T")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ToolsScreen)
        assert not screen.collecting and screen.rows is rows
        table = screen.query_one(DataTable)
        assert table.row_count == 3000
        assert 0 < len(made) < 60  # the rows on screen, not 3,000
        await pilot.press("ctrl+end")
        await pilot.pause()
        assert table.cursor_row == 2999
        assert len(made) < 120
        assert str(table.get_row_at(2999)[0]) == "3000"
        await pilot.press("S")  # latency: every row in another order, still made lazily
        await pilot.pause()
        assert screen.sort == "latency" and table.row_count == 3000
        assert len(made) < 200


async def test_tools_view_of_a_branch_left_at_once_collects_in_a_worker(
    many_calls: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """T before the calls were collected ahead: the view says it is collecting, then lists
    them all, as the rows a DataTable would have listed."""
    monkeypatch.setattr(SessionScreen, "AHEAD_AFTER", 60.0)
    release = threading.Event()

    def held(session: Session, path: list[int]) -> list[ToolRow]:
        release.wait(10)
        return branch_tool_rows(session, path)

    monkeypatch.setattr(tools_view, "branch_tool_rows", held)
    app = make_app(load_session(many_calls))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("T")
        screen = app.screen
        assert isinstance(screen, ToolsScreen) and screen.collecting
        assert "collecting the tool calls of 12,000 entries" in str(
            screen.query_one("#totals", Static).render()
        )
        release.set()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert not screen.collecting and len(screen.rows) == 3000
        s = app.session
        assert s is not None
        expected = tool_rows(s, s.tree.path(s.tree.leaf))
        table = screen.query_one(DataTable)
        assert [str(table.get_row_at(n)[1]) for n in (0, 1500, 2999)] == [
            expected[n].name for n in (0, 1500, 2999)
        ]
        assert [str(table.get_row_at(n)[3]) for n in range(0, 3000, 17)] == [
            expected[n].status for n in range(0, 3000, 17)
        ]


# --------------------------------------------------------------------------- b


def _row_keys(panel: BranchPanel) -> list[tuple[int, str, bool, bool]]:
    return [(r.entry, r.connector, r.on_path, r.is_leaf) for r in panel.rows]


async def test_the_hidden_branch_panel_is_flattened_ahead_and_shown_without_flattening(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``b`` after a moment on the branch: the rows flattened in a worker are shown, the same
    rows as a panel flattened on show; nothing is flattened on the UI thread."""
    monkeypatch.setattr(branch_ahead, "AHEAD_MIN", 1)
    monkeypatch.setattr(SessionScreen, "AHEAD_AFTER", 0.05)
    on_ui: list[str] = []
    flatten = branch_panel_module.flatten

    def watched(*args: object, **kwargs: object) -> TreeRows:
        if threading.current_thread() is threading.main_thread():
            on_ui.append("flatten")
        return flatten(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(branch_panel_module, "flatten", watched)
    app = make_app(load_session(fixture("tree_branches.jsonl")))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.2)
        await app.workers.wait_for_complete()
        panel = app.screen.query_one(BranchPanel)
        assert panel._ahead is not None  # noqa: SLF001
        await pilot.press("b")
        await pilot.pause()
        assert on_ui == [] and panel.has_focus
        ahead_rows = _row_keys(panel)
        assert app.session is not None
        fresh = flatten(app.session, panel.leaf, panel.filter_mode, panel._folds.copy())  # noqa: SLF001
        fresh_rows = [(r.entry, r.connector, r.on_path, r.is_leaf) for r in fresh.rows]
        assert ahead_rows == fresh_rows and len(ahead_rows) > 5
        # The keys work on those rows as on rows flattened on show.
        await pilot.press("f")
        await pilot.pause()
        assert panel.filter_mode == "no-tools" and on_ui == ["flatten"]


async def test_rows_flattened_ahead_are_dropped_when_what_they_show_changed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(branch_ahead, "AHEAD_MIN", 1)
    monkeypatch.setattr(SessionScreen, "AHEAD_AFTER", 0.05)
    app = make_app(load_session(fixture("tree_branches.jsonl")))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.2)
        await app.workers.wait_for_complete()
        screen = app.screen
        assert isinstance(screen, SessionScreen)
        panel = screen.query_one(BranchPanel)
        assert panel._ahead is not None  # noqa: SLF001
        s = app.session
        assert s is not None
        other = next(leaf for leaf in s.tree.leaves() if leaf != screen.leaf)
        screen.AHEAD_AFTER = 60.0  # this time, no flattening ahead again
        screen.show_branch(other)  # while hidden: another active path
        await pilot.press("b")
        await pilot.pause()
        active = [r.entry for r in panel.rows if r.is_leaf and r.on_path]
        assert active == [other]


async def test_enter_in_the_panel_on_the_branch_shown_builds_nothing_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An entry of the branch shown chosen in the panel: the transcript focuses it with the
    blocks it has, the panel keeps its rows; another branch is built and flattened."""
    built: list[int] = []
    flattened: list[int] = []
    build, flatten = transcript_module.build_items, branch_panel_module.flatten

    def counted_build(*args: Any, **kwargs: Any) -> Any:
        built.append(1)
        return build(*args, **kwargs)

    def counted_flatten(*args: Any, **kwargs: Any) -> Any:
        flattened.append(1)
        return flatten(*args, **kwargs)

    monkeypatch.setattr(transcript_module, "build_items", counted_build)
    monkeypatch.setattr(branch_panel_module, "flatten", counted_flatten)
    app = make_app(load_session(fixture("tree_branches.jsonl")))
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, SessionScreen)
        t = screen.query_one(Transcript)
        assert app.session is not None
        screen.show_branch(app.session.tree.newest_leaf(0))  # where enter on its entries goes
        await pilot.pause()
        items, leaf = t.items, screen.leaf
        await pilot.press("b")
        await pilot.pause()
        panel = screen.query_one(BranchPanel)
        s = app.session
        assert s is not None and leaf is not None
        path = s.tree.path(leaf)
        rows = panel.rows
        first = next(
            k
            for k, r in enumerate(rows)
            if r.entry in path[1:-1] and s.tree.newest_leaf(r.entry) == leaf
        )
        built.clear()
        flattened.clear()
        panel.cursor = first
        await pilot.press("enter")
        await pilot.pause()
        assert screen.leaf == leaf and t.items is items and panel.rows is rows
        assert t.current_entry == rows[first].entry
        assert built == [] and flattened == []
        # Another branch: its blocks are built, the panel marks its path.
        panel.focus()
        other = next(k for k, r in enumerate(panel.rows) if s.tree.newest_leaf(r.entry) != leaf)
        panel.cursor = other
        await pilot.press("enter")
        await pilot.pause()
        assert screen.leaf != leaf and t.items is not items
        assert built == [1] and flattened == [1]


# --------------------------------------------------------------------------- H


async def test_h_after_a_moment_on_a_long_branch_shows_blocks_built_ahead(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The blocks with hidden entries shown are built in a worker ahead; ``H`` shows them
    (the same blocks a build on the UI thread makes) without building on the UI thread."""
    monkeypatch.setattr(SessionScreen, "AHEAD_AFTER", 0.05)
    path = write_turns(tmp_path / "hidden.jsonl", 600, custom_every=3)  # 2,600 entries
    on_ui: list[bool] = []
    build = transcript_module.build_items

    def watched(*args: Any, **kwargs: Any) -> Any:
        on_ui.append(threading.current_thread() is threading.main_thread())
        return build(*args, **kwargs)

    monkeypatch.setattr(transcript_module, "build_items", watched)
    app = make_app(load_session(path))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.2)
        await app.workers.wait_for_complete()
        t = app.screen.query_one(Transcript)
        assert t.has_other_hidden
        before = [(it.kind, it.entry, it.part) for it in t.items]
        on_ui.clear()
        await pilot.press("H")
        await pilot.pause()
        assert t.show_hidden and on_ui == []
        s = app.session
        assert s is not None
        fresh = build(s, t.path, show_hidden=True)
        shown = [(it.kind, it.entry, it.part) for it in t.items]
        assert shown == [(it.kind, it.entry, it.part) for it in fresh]
        assert len(shown) > len(before)  # the custom entries are there
        await pilot.press("H")  # back: the blocks it had
        await pilot.pause()
        assert [(it.kind, it.entry, it.part) for it in t.items] == before and on_ui == []


async def test_blocks_built_ahead_for_a_branch_left_meanwhile_are_not_kept(
    tmp_path: Path,
) -> None:
    path = write_turns(tmp_path / "hidden.jsonl", 40, custom_every=3)
    app = make_app(load_session(path))
    async with app.run_test(size=SIZE) as pilot:
        t = app.screen.query_one(Transcript)
        s = app.session
        assert s is not None
        stale = list(t.path)  # another list: a branch shown before this one
        t.keep_other_hidden(stale, True, transcript_module.build_items(s, stale, show_hidden=True))
        assert not t.has_other_hidden
        t.keep_other_hidden(t.path, False, t.items)  # the setting shown: nothing to keep
        assert not t.has_other_hidden
        await pilot.press("H")
        await pilot.pause()
        assert t.show_hidden


# --------------------------------------------------------------------------- u


async def test_u_shows_the_usage_summed_ahead_without_a_worker(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The hidden sidebar's figures are summed ahead in a worker; ``u`` shows them at once
    (no "Summing usage…" and no worker), the figures a sum made then gives; after another
    branch is shown they are summed again."""
    monkeypatch.setattr(session_module, "_USAGE_IN_WORKER", 1)
    monkeypatch.setattr(SessionScreen, "AHEAD_AFTER", 0.05)
    app = make_app(load_session(fixture("tree_branches.jsonl")))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.2)
        await app.workers.wait_for_complete()
        screen = app.screen
        assert isinstance(screen, SessionScreen)
        s = app.session
        assert s is not None and screen.leaf is not None
        assert screen.usage_summed_ahead(screen.leaf) is not None
        started: list[str] = []
        monkeypatch.setattr(
            SessionScreen, "_usage_worker", lambda self, *a: started.append("worker")
        )
        await pilot.press("u")
        await pilot.pause()
        side = screen.query_one(UsageSidebar)
        assert started == [] and side.report is not None
        assert side.report == usage_report(s.nodes, s.tree.path(screen.leaf))
        assert side.branches == branch_costs(s, screen.leaf)
        await pilot.press("u")
        other = next(leaf for leaf in s.tree.leaves() if leaf != screen.leaf)
        screen.show_branch(other)
        assert screen.usage_summed_ahead(other) is None  # not for this branch yet
        await pilot.press("u")
        await pilot.pause()
        assert started == ["worker"]


# --------------------------------------------------------------------------- garbage


async def test_full_garbage_collections_wait_for_the_app_to_be_idle() -> None:
    """Once a session is shown, CPython's own full collections are rarer, and the app
    makes one when it is idle (no young pass for a moment) after enough middle passes."""
    fulls: list[float] = []

    def note(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and info["generation"] == 2:
            fulls.append(time.monotonic())

    before = gc.get_threshold()
    app = make_app(load_session(fixture("tree_branches.jsonl")))
    gc.callbacks.append(note)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            assert gc.get_threshold()[2] == idle_gc.DEFERRED_FULL
            gc.collect()
            fulls.clear()
            junk = []
            while gc.get_count()[2] < idle_gc.IDLE_FULL:  # busy: middle passes pile up
                junk.append([[] for _ in range(100)])
            assert fulls == []  # CPython's own full pass was put off
            busy_until = time.monotonic()
            await pilot.pause(3 * idle_gc.QUIET)  # idle
            assert fulls and fulls[0] > busy_until
            assert gc.get_count()[2] < idle_gc.IDLE_FULL
    finally:
        gc.callbacks.remove(note)
        gc.set_threshold(*before)


async def test_nothing_is_made_ahead_for_a_session_whose_keys_work_in_a_worker(
    many_calls: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past :data:`AHEAD_MAX` entries (a 1 GB session) the keys already do their work in a
    worker: nothing is made ahead, where it would share the interpreter for minutes."""
    monkeypatch.setattr(SessionScreen, "AHEAD_AFTER", 0.05)
    monkeypatch.setattr(session_views, "AHEAD_MAX", 1_000)
    monkeypatch.setattr(branch_panel_module, "BIG_TREE", 1_000)
    monkeypatch.setattr(session_module, "_USAGE_IN_WORKER", 1)
    app = make_app(load_session(many_calls))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.3)
        await app.workers.wait_for_complete()
        screen = app.screen
        assert isinstance(screen, SessionScreen)
        s = app.session
        assert s is not None
        t = screen.query_one(Transcript)
        assert cached_tool_rows(s, t.path) is None
        assert screen.query_one(BranchPanel)._ahead is None  # noqa: SLF001
        assert screen.usage_summed_ahead(screen.leaf) is None
