"""Pilot tests of a big file's whole load in its worker: what the worker does before the swap."""

from __future__ import annotations

import gc

from piview.app import make_app
from piview.model import Session, load_session
from piview.widgets.transcript import Transcript

SIZE = (120, 40)


def _demo_copy(tmp_path):
    from piview.catalog.demo import demo_path

    src = demo_path().read_bytes()
    path = tmp_path / "big.jsonl"
    path.write_bytes(src)
    return path, len(src)


async def _swap(app, pilot) -> None:
    for _ in range(200):
        await pilot.pause(0.05)
        shown = app.screen.query(Transcript)
        if not app.screen.session.partial and shown and shown.first().path:
            return
    raise AssertionError("the whole file was never swapped in")


async def test_the_worker_freezes_the_whole_index_before_pairing_it(tmp_path, monkeypatch) -> None:
    """The cyclic GC rescanned the freshly loaded index on every collection the pairing and
    the blocks caused (a third of their time at 1 GB): it is frozen first."""
    import piview.model.session as session_mod
    from piview.model.session_tail import load_tail

    path, size = _demo_copy(tmp_path)
    tail = load_tail(path, max_bytes=size // 4)
    seen: dict[str, int] = {}

    def loader():
        full = load_session(path)
        seen["loaded"] = gc.get_freeze_count()
        seen["nodes"] = id(full.nodes)
        return full

    real = session_mod.pair_tool_calls

    def pair(nodes, tree):
        if id(nodes) == seen.get("nodes"):  # the whole file's, not the tail's
            seen["pairing"] = gc.get_freeze_count()
        return real(nodes, tree)

    monkeypatch.setattr(session_mod, "pair_tool_calls", pair)
    app = make_app(tail, full_loader=loader)
    async with app.run_test(size=SIZE) as pilot:
        await _swap(app, pilot)
    assert seen["pairing"] > seen["loaded"]


async def test_the_worker_hands_freed_memory_back_after_pairing_and_blocks(
    tmp_path, monkeypatch
) -> None:
    """At 1 GB the peak RSS was the sum of what each step left in the C heap: the worker
    hands the freed pages back after the pairing and after the blocks."""
    import piview.model.session as session_mod
    import piview.render.items as items_mod
    import piview.screens.session_follow as follow_mod
    from piview.model.session_tail import load_tail

    path, size = _demo_copy(tmp_path)
    tail = load_tail(path, max_bytes=size // 4)
    steps: list[str] = []
    monkeypatch.setattr(follow_mod, "release_free_memory", lambda: steps.append("release"))
    real_pair, real_build = session_mod.pair_tool_calls, items_mod.build_items

    def pair(nodes, tree):
        steps.append("pairing")
        return real_pair(nodes, tree)

    def build(*args, **kwargs):
        steps.append("blocks")
        return real_build(*args, **kwargs)

    monkeypatch.setattr(session_mod, "pair_tool_calls", pair)
    monkeypatch.setattr(follow_mod, "build_items", build)

    def full() -> Session:
        steps.clear()  # the tail's own pairing and blocks, before the full load starts
        return load_session(path)

    app = make_app(tail, full_loader=full)
    async with app.run_test(size=SIZE) as pilot:
        await _swap(app, pilot)
    assert steps[:4] == ["pairing", "release", "blocks", "release"]


async def test_the_whole_load_starts_once_the_first_screen_is_drawn(tmp_path, monkeypatch) -> None:
    """The whole load waited a fixed 0.3 s after the screen mounted (a tenth of a 1 GB load);
    it starts once the first screen is drawn: after the tail's transcript has its size and
    its lines, and without a timer."""
    from piview.model.session_tail import load_tail
    from piview.screens.session import SessionScreen

    path, size = _demo_copy(tmp_path)
    tail = load_tail(path, max_bytes=size // 4)
    timers: list[float] = []
    real_timer = SessionScreen.set_timer

    def set_timer(self, delay, callback=None, **kwargs):
        if getattr(callback, "__name__", "") == "_load_full":
            timers.append(delay)
        return real_timer(self, delay, callback, **kwargs)

    monkeypatch.setattr(SessionScreen, "set_timer", set_timer)
    seen: dict[str, object] = {}

    def loader() -> Session:
        screen = app.screen
        shown = screen.query(Transcript)
        seen["drawn"] = bool(shown) and shown.first().size.height > 0 and bool(shown.first().path)
        seen["tail"] = screen.session is tail
        return load_session(path)

    app = make_app(tail, full_loader=loader)
    async with app.run_test(size=SIZE) as pilot:
        await _swap(app, pilot)
    assert timers == []
    assert seen == {"drawn": True, "tail": True}


async def test_the_worker_builds_the_blocks_from_the_path_as_an_array(
    tmp_path, monkeypatch
) -> None:
    """A list of a 1 GB session's branch held an int object per entry (14 MB) at the load's
    peak: the worker builds the blocks from the tree's path array, and the screen shows
    those blocks, equal to the ones of the list."""
    from array import array

    import piview.screens.session_follow as follow_mod
    from piview.model.session_tail import load_tail
    from piview.render.items import build_items

    path, size = _demo_copy(tmp_path)
    tail = load_tail(path, max_bytes=size // 4)
    seen: list[type] = []
    real_build = follow_mod.build_items

    def build(session, branch, **kwargs):
        seen.append(type(branch))
        return real_build(session, branch, **kwargs)

    monkeypatch.setattr(follow_mod, "build_items", build)
    app = make_app(tail, full_loader=lambda: load_session(path))
    async with app.run_test(size=SIZE) as pilot:
        await _swap(app, pilot)
        transcript = app.screen.query_one(Transcript)
        session = app.screen.session
        assert transcript.items == build_items(session, session.tree.path(session.tree.leaf))
    assert seen == [array]


async def test_the_branch_panel_marks_the_active_path_without_a_list_of_it(tmp_path) -> None:
    """The branch panel's active path was a second list of the branch (14 MB of ints at 1 GB,
    on top of the transcript's, when the whole session is swapped in): it reads the tree's
    path array instead, and unfolds the same entries."""
    from piview.catalog.demo import demo_path
    from piview.model.tree import Tree
    from piview.widgets.branch_panel import BranchPanel

    session = load_session(demo_path())
    app = make_app(session)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("b")
        await pilot.pause()
        panel = app.screen.query_one(BranchPanel)
        leaves = session.tree.leaves()
        other = next(leaf for leaf in leaves if leaf != session.tree.leaf)
        on_path = session.tree.path(other)
        panel._folds.closed.update(on_path[1:-1])  # folded entries on the path: reopened
        asked: list[int] = []
        real_path = Tree.path

        def path(self, i):
            asked.append(i)
            return real_path(self, i)

        rebuilt: list[object] = []
        real_rebuild = panel._rebuild
        panel._rebuild = lambda keep=None: rebuilt.append(keep)  # flattening is not looked at
        Tree.path = path  # type: ignore[method-assign]
        try:
            panel.set_active(other)
        finally:
            Tree.path = real_path  # type: ignore[method-assign]
            panel._rebuild = real_rebuild
        assert asked == []
        assert len(rebuilt) == 1
        assert panel._folds.closed.isdisjoint(on_path)
