"""``t`` and ``o`` on a branch of thousands of blocks: the work per toggle, and the view after.

A toggle sets the expanded state of every thinking block (or tool output) of the branch; their
heights become guesses again. These tests hold it to the per-block way (``enter`` on each):
the same heights, offsets and states, the same view after ``G``, pages and a search; and to
the cost: no Python work per block of the branch (only for the blocks on screen), and a
toggle on a big branch costs about what it costs on a small one.
"""

from __future__ import annotations

import json
import statistics
import time
from pathlib import Path

import pytest
from textual.geometry import Region

from piview.app import make_app
from piview.model import load_session
from piview.render.item import ItemList
from piview.render.items import build_items
from piview.render.layout import BlockLayout
from piview.widgets.transcript import Transcript

SIZE = (100, 30)


def write_turns(path: Path, turns: int) -> Path:
    """A session of ``turns`` small turns: user, assistant (thinking, a tool call), the
    tool's result, an answer; some tool results are errors, some answers long."""
    lines = [
        {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00Z",
         "cwd": "/x"},
    ]  # fmt: skip
    parent = None

    def add(entry_id: str, message: dict[str, object]) -> None:
        nonlocal parent
        lines.append(
            {"type": "message", "id": entry_id, "parentId": parent,
             "timestamp": "2026-01-01T00:00:00Z", "message": message}
        )  # fmt: skip
        parent = entry_id

    for i in range(turns):
        add(f"u{i}", {"role": "user", "content": [{"type": "text", "text": f"step {i}"}]})
        add(
            f"a{i}",
            {"role": "assistant", "stopReason": "toolUse", "content": [
                {"type": "thinking", "thinking": f"think {i} " * (1 + i % 40)},
                {"type": "toolCall", "id": f"c{i}", "name": "bash",
                 "arguments": {"command": f"echo {i}"}},
            ]},
        )  # fmt: skip
        output = "\n".join(f"out {i} {k}" for k in range(i % 30))
        add(
            f"r{i}",
            {"role": "toolResult", "toolCallId": f"c{i}", "toolName": "bash",
             "isError": i % 17 == 0, "content": [{"type": "text", "text": output}]},
        )  # fmt: skip
        add(
            f"b{i}",
            {"role": "assistant", "stopReason": "stop",
             "content": [{"type": "text", "text": f"done {i} error" + " word" * (i % 200)}]},
        )  # fmt: skip
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_turns(tmp_path_factory.mktemp("toggle") / "big.jsonl", 3000)


def per_block(lay: BlockLayout, items: ItemList, kind: str, width: int) -> None:
    """``t``/``o`` as ``enter`` on each block of ``kind`` (the reference): each block's
    state set and its height guessed, one block at a time, then the sums made again."""
    where = [k for k, it in enumerate(items) if it.kind == kind and it.collapsible]
    expand = not all(lay.is_expanded(items[k]) for k in where)
    for k in where:
        it = items[k]
        lay.expanded[(it.entry, it.part)] = expand
        lay.exact[k] = 0
        lay.heights[k] = lay.estimate(it, width)
    lay.recompute()


def same(a: BlockLayout, b: BlockLayout) -> None:
    assert a.heights == b.heights
    assert a.exact == b.exact
    assert a.offsets == b.offsets
    assert a.expanded == b.expanded


def test_a_toggle_sets_what_enter_on_each_block_sets(big: Path) -> None:
    session = load_session(big)
    items = build_items(session, session.tree.path(session.tree.leaf))
    assert isinstance(items, ItemList) and len(items) > 10_000
    fast, ref = BlockLayout(session), BlockLayout(session)
    for lay in (fast, ref):
        lay.reset(items, 100)
        for k in range(0, len(items), 7):  # some blocks measured: their heights exact
            lay.measured(k, 3 + k % 5)
        lay.recompute()
    # One block opened by hand first: the toggle opens the rest, then closes them all.
    first_tool = items.positions("tool", collapsible=True)[3]
    for lay in (fast, ref):
        lay.set_expanded(items, [first_tool], True, 100)
    for kind, width in [("thinking", 100), ("tool", 100), ("tool", 100), ("thinking", 60)]:
        assert fast.kind_expanded(items, kind) == ref.all_expanded(
            items, [k for k, it in enumerate(items) if it.kind == kind and it.collapsible]
        )
        fast.set_kind_expanded(items, kind, not fast.kind_expanded(items, kind), width)
        per_block(ref, items, kind, width)
        same(fast, ref)
        # Another width and a reset keep the states the user set.
        for lay in (fast, ref):
            lay.reset(items, width)
        same(fast, ref)


class _Counting:
    """Counts the Items an :class:`ItemList` builds and the guesses one at a time."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.items = 0
        self.guesses = 0
        get, estimate = ItemList.__getitem__, BlockLayout.estimate

        def counted_get(lst, k):  # type: ignore[no-untyped-def]
            self.items += 1
            return get(lst, k)

        def counted_estimate(lay, item, width):  # type: ignore[no-untyped-def]
            self.guesses += 1
            return estimate(lay, item, width)

        monkeypatch.setattr(ItemList, "__getitem__", counted_get)
        monkeypatch.setattr(BlockLayout, "estimate", counted_estimate)


async def test_t_and_o_do_no_python_work_per_block_of_the_branch(
    big: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app(load_session(big))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        t = app.screen.query_one(Transcript)
        assert len(t.items.positions("thinking", collapsible=True)) == 3000
        await pilot.press("g")
        await pilot.pause()
        counting = _Counting(monkeypatch)
        for key in "ttoo":
            await pilot.press(key)
            await pilot.pause()
        # Only the blocks on screen (30 lines, each drawn line asks for its block).
        assert counting.guesses == 0
        assert counting.items < 1500, counting.items


async def _view(app, keys: list[str]) -> list[tuple[object, ...]]:  # type: ignore[no-untyped-def]
    """What the screen shows after each key: the transcript's state and the status line."""
    from textual.widgets import Static

    seen: list[tuple[object, ...]] = []
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        t = app.screen.query_one(Transcript)
        for key in keys:
            if key == "T":  # thinking opened the per-block way (the reference)
                per_block(t._layout, t.items, "thinking", t._width)
                t._update_virtual_size()
                t.refresh()
                t.scroll_to_item(t.cursor)
            elif key.startswith("/"):
                t.search(key[1:])
                for _ in range(200):
                    await pilot.pause(0.02)
                    if not t.searching:
                        break
            else:
                await pilot.press(key)
            await pilot.pause()
            status = str(app.screen.query_one("#status", Static).render())
            seen.append(
                (key, t.cursor, round(t.scroll_y), t.virtual_size.height, t.max_scroll_y,
                 status, app.screen.query_one(Transcript).render_line(0).text)
            )  # fmt: skip
    return seen


async def test_the_view_after_t_is_the_view_after_enter_on_each_block(big: Path) -> None:
    """G, pages, the scrollbar's range, a search and the status line's block N/M: the same
    after ``t`` as after opening each thinking block one at a time."""
    keys = ["g", "pagedown", "pagedown", "j", "G", "k", "pageup", "/error", "n", "n", "N"]
    session = load_session(big)
    fast = await _view(make_app(session), ["g", "pagedown", "t", *keys])
    ref = await _view(make_app(load_session(big)), ["g", "pagedown", "T", *keys])
    assert [row[1:] for row in fast] == [row[1:] for row in ref]
    _key, cursor, top, lines, max_top, status, _line = fast[keys.index("G") + 3]
    blocks = 5 * 3000  # five blocks a turn
    assert cursor + 1 == blocks and top == max_top == lines - SIZE[1] + 3
    assert f"block {blocks}/{blocks}" in status


def test_a_toggle_costs_about_the_same_on_a_big_branch_as_on_a_small_one(
    tmp_path: Path,
) -> None:
    """Press to frame, without the event loop: the toggle and the drawing of the screen, on
    12,000 blocks and on 400 (a ratio of two runs in this process; the frame is the same)."""

    def cost(path: Path) -> float:
        session = load_session(path)
        app = make_app(session)

        async def run() -> float:
            async with app.run_test(size=SIZE) as pilot:
                await pilot.pause()
                t = app.screen.query_one(Transcript)
                region = Region(0, 0, t.size.width, t.size.height)
                times = []
                for _ in range(6):
                    a = time.process_time()
                    t.action_toggle_kind("thinking")
                    t.action_toggle_kind("tool")
                    t.render_lines(region)
                    times.append(time.process_time() - a)
                return statistics.median(times)

        import asyncio

        return asyncio.run(run())

    small = cost(write_turns(tmp_path / "small.jsonl", 100))
    large = cost(write_turns(tmp_path / "large.jsonl", 3000))
    assert large < 3 * small + 0.002, (large, small)
