"""Pilot tests of the debugging views: inspector, tools view, context view, follow, picker, export.

Every test runs the real app headless (``app.run_test``) and drives it with keys, as a user
would; content is checked on the screens' own renderables, rendered to plain text.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from rich.console import Console, RenderableType
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import DataTable, Static

from piview.app import PiviewApp, make_app
from piview.catalog.discovery import cache_dir
from piview.cli import main
from piview.model import Session, load_session
from piview.model.tools import tool_rows, tool_stats
from piview.render.format import fmt_cost_short
from piview.render.items import item_text
from piview.screens.context_view import ContextScreen, context_renderable
from piview.screens.entry_json import EntryJsonScreen
from piview.screens.inspector import ToolInspector, inspector_renderable
from piview.screens.picker import PickerScreen
from piview.screens.session import SessionScreen
from piview.screens.tools_view import ToolsScreen
from piview.widgets.pager import PagerScroll
from piview.widgets.transcript import Transcript
from tests.conftest import fixture

SIZE = (120, 40)
POLL_TIMEOUT = 5.0


# --------------------------------------------------------------------------- helpers


def text_of(renderable: RenderableType, width: int = 100) -> str:
    """``renderable`` rendered as plain text at a fixed width."""
    console = Console(width=width, file=io.StringIO(), record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


def screen_text(app: App[object]) -> str:
    """What the terminal shows right now, as plain text (as ``export_screenshot`` sees it)."""
    width, height = app.size
    console = Console(
        width=width,
        height=height,
        file=io.StringIO(),
        force_terminal=True,
        record=True,
        legacy_windows=False,
        safe_box=False,
    )
    console.print(app.screen._compositor.render_update(full=True))  # noqa: SLF001
    return console.export_text()


def table_rows(text: str) -> list[list[str]]:
    """The cells of a rendered Rich table (``│`` separated), wrapped cells joined."""
    rows: list[list[str]] = []
    for line in text.splitlines():
        if "│" not in line:
            continue
        cells = [c.strip() for c in line.split("│")]
        if cells[0]:
            rows.append(cells)
        elif rows:
            rows[-1] = [
                " ".join(x for x in pair if x) for pair in zip(rows[-1], cells, strict=False)
            ]
    return rows


def notes(app: App[object]) -> list[str]:
    """Messages of the notifications raised so far (and not yet expired)."""
    return [n.message for n in app._notifications]  # noqa: SLF001


def transcript(app: App[object]) -> Transcript:
    return app.screen.query_one(Transcript)


def item_index(t: Transcript, entry: int, part: int = -1, kind: str | None = None) -> int:
    """Index of the transcript item drawing ``(entry, part)``."""
    for k, it in enumerate(t.items):
        if it.entry == entry and (part < 0 or it.part == part) and kind in (None, it.kind):
            return k
    raise AssertionError(f"no item for entry {entry} part {part}")


async def focus(pilot: Pilot[None], t: Transcript, k: int) -> None:
    t.focus_item(k)
    await pilot.pause()


async def wait_until(pilot: Pilot[None], cond: Callable[[], bool], what: str) -> None:
    """Let the app run until ``cond()`` holds (the follow timer polls every 0.5 s)."""
    deadline = time.monotonic() + POLL_TIMEOUT
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for: {what}")
        await pilot.pause(0.1)


def open_app(name: str) -> PiviewApp:
    return make_app(load_session(fixture(name)))


# --------------------------------------------------------------------------- inspector


async def test_inspector_shows_the_call_the_result_and_its_details() -> None:
    app = open_app("edit_tools.jsonl")
    async with app.run_test(size=SIZE) as pilot:
        s = app.session
        assert s is not None
        call = s.find("df03a0ba")  # edit, old argument shape; result f532e43d
        assert call is not None
        t = transcript(app)
        await focus(pilot, t, item_index(t, call, 1, "tool"))
        await pilot.press("i")
        screen = app.screen
        assert isinstance(screen, ToolInspector)
        assert (screen.entry, screen.part) == (call, 1)
        shown = text_of(screen.query_one(Static).content)
        assert shown == text_of(inspector_renderable(s, call, 1, width=100))
        for expected in (
            "edit",
            "toolu_01zeEqJRYTdsIdq1NcyuXi2P",
            "df03a0ba (line 12)",
            "f532e43d (line 13)",
            "100ms",  # 09:00:22.410 → 09:00:22.510
            '"path": "src/tinyhttp/config.py"',
            '"oldText": "    timeout: float = 5.0\\n"',
            '"newText": "    timeout: float = 30.0\\n"',
            "ok (isError: false)",
            "toolName: edit",
            "Successfully replaced text in src/tinyhttp/config.py.",
            '"firstChangedLine": 10',
            '"diff": "    ...\\n  6 @dataclass',
        ):
            assert expected in shown, expected
        assert "\narguments\n" in shown and "\nresult\n" in shown and "\ndetails\n" in shown
        await pilot.press("escape")
        assert isinstance(app.screen, SessionScreen)
        assert t.cursor == item_index(t, call, 1, "tool")


async def test_inspector_scrolls_like_a_pager(write_session: Callable[..., Path]) -> None:
    out = "\n".join(f"line {n} " + "x" * 60 for n in range(3000))  # ~200 KB, as big results are
    lines = [
        {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-05-14T09:00:00.000Z"},
        _message("u1", None, {"role": "user", "content": "go"}),
        _message(
            "a1",
            "u1",
            {
                "role": "assistant",
                "content": [{"type": "toolCall", "id": "c1", "name": "bash", "arguments": {}}],
                "stopReason": "toolUse",
            },
        ),
        _message(
            "r1",
            "a1",
            {
                "role": "toolResult",
                "toolCallId": "c1",
                "toolName": "bash",
                "content": [{"type": "text", "text": out}],
                "isError": False,
            },
        ),
    ]
    app = make_app(load_session(write_session([json.dumps(x) for x in lines])))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("i")
        await pilot.pause()
        assert isinstance(app.screen, ToolInspector)
        box = app.screen.query_one(PagerScroll)
        page = box.scrollable_content_region.height - 1
        await pilot.press("j", "j", "j")
        assert box.scroll_y == 3
        await pilot.press("k")
        assert box.scroll_y == 2
        await pilot.press("space")
        assert box.scroll_y == 2 + page
        await pilot.press("b")
        assert box.scroll_y == 2
        await pilot.press("G")  # at once, and all the way, on a 200 KB result
        await pilot.pause()
        assert box.max_scroll_y > 2500 and box.scroll_y == box.max_scroll_y
        await pilot.press("g")
        assert box.scroll_y == 0
        await pilot.press("end")
        await pilot.pause()
        assert box.scroll_y == box.max_scroll_y
        await pilot.press("home")
        assert box.scroll_y == 0


async def test_inspector_on_an_error_result() -> None:
    app = open_app("edit_tools.jsonl")
    async with app.run_test(size=SIZE) as pilot:
        s = app.session
        assert s is not None
        t = transcript(app)
        errors = [k for k, it in enumerate(t.items) if it.kind == "tool" and it.error]
        assert len(errors) == 1
        await focus(pilot, t, errors[0])
        await pilot.press("i")
        assert isinstance(app.screen, ToolInspector)
        shown = text_of(app.screen.query_one(Static).content)
        assert "error (isError: true)" in shown
        assert "toolu_017eriKQCwDp7eCX93aTJUnt" in shown
        assert '"command": "pytest -q --color=yes"' in shown and '"timeout": 120' in shown
        assert "6.2s" in shown  # 09:00:13.210 → 09:00:19.410
        assert "Command exited with code 1" in shown
        assert "\x1b" not in shown  # the ANSI colours of the output are not passed through
        assert "\ndetails\n{}" in shown
        # i closes it too
        await pilot.press("i")
        assert isinstance(app.screen, SessionScreen)


async def test_inspect_on_any_other_block_shows_its_raw_json_and_line() -> None:
    app = open_app("edit_tools.jsonl")
    async with app.run_test(size=SIZE) as pilot:
        s = app.session
        assert s is not None
        t = transcript(app)
        user = next(k for k, it in enumerate(t.items) if it.kind == "user")
        await focus(pilot, t, user)
        await pilot.press("i")
        await pilot.pause()
        assert isinstance(app.screen, EntryJsonScreen)
        entry = t.items[user].entry
        text = screen_text(app)
        assert f"entry {s.ids[entry]}" in text and f"line {s.line_of(entry)}" in text
        assert '"type": "message"' in text and '"role": "user"' in text
        await pilot.press("escape")
        assert isinstance(app.screen, SessionScreen)


async def test_inspector_on_an_orphan_result_and_an_unanswered_call() -> None:
    app = open_app("tool_pairing.jsonl")
    async with app.run_test(size=SIZE) as pilot:
        s = app.session
        assert s is not None
        t = transcript(app)
        orphan = s.find("e2f5b940")
        assert orphan is not None
        await focus(pilot, t, item_index(t, orphan, kind="orphan_result"))
        await pilot.press("i")
        screen = app.screen
        assert isinstance(screen, ToolInspector) and screen.part == -1
        shown = text_of(screen.query_one(Static).content)
        assert "result without a call" in shown
        assert "e2f5b940 (line 13)" in shown and "toolName: ls" in shown
        assert "pyproject.toml" in shown
        assert "arguments" not in shown and "latency" not in shown
        await pilot.press("escape")

        aborted = s.find("fbbe8450")  # the aborted assistant's read call, never answered
        assert aborted is not None
        await focus(pilot, t, item_index(t, aborted, 1, "tool"))
        await pilot.press("i")
        assert isinstance(app.screen, ToolInspector)
        shown = text_of(app.screen.query_one(Static).content)
        assert "no result" in shown
        assert "toolu_013fR9C75L3oxGCYQALN6MHW" in shown and '"path": "pyproject.toml"' in shown
        assert "\nresult\n" not in shown and "result entry" not in shown


# --------------------------------------------------------------------------- tools view


def _table(app: App[object]) -> DataTable[object]:
    return app.screen.query_one(DataTable)


def _totals(app: App[object]) -> str:
    return text_of(app.screen.query_one("#totals", Static).content, width=200)


async def test_tools_view_lists_every_call_of_the_branch_with_totals() -> None:
    app = open_app("edit_tools.jsonl")
    async with app.run_test(size=SIZE) as pilot:
        s = app.session
        assert s is not None
        t = transcript(app)
        await pilot.press("T")
        screen = app.screen
        assert isinstance(screen, ToolsScreen)
        expected = tool_rows(s, t.path)
        assert len(expected) == 11
        table = _table(app)
        assert table.row_count == 11
        assert [(r.entry, r.part) for r in screen._shown] == [  # noqa: SLF001
            (r.entry, r.part) for r in expected
        ]
        cells = [table.get_row_at(n) for n in range(table.row_count)]
        assert [str(c[1]) for c in cells] == [r.name for r in expected]
        assert [str(c[3]) for c in cells] == [r.status for r in expected]
        assert [str(c[6]) for c in cells] == [s.ids[r.entry][:8] for r in expected]
        totals = _totals(app)
        assert "11 of 11 calls · status: all" in totals
        stats = tool_stats(expected)
        assert [st.name for st in stats[:6]] == ["edit", "bash", "find", "grep", "ls", "read"]
        for st in stats[:6]:  # the six most used get a line each
            line = next(ln for ln in totals.splitlines() if ln.startswith(f"{st.name} "))
            calls = "call" if st.count == 1 else "calls"
            errors = "error" if st.errors == 1 else "errors"
            assert f"{st.count} {calls}" in line and f"{st.errors} {errors}" in line
        assert "bash                2 calls    1 error   median    6.1s  max    6.2s" in totals
        assert "… 2 more: todo 1, write 1" in totals  # the rest are named, not dropped
        # s s: errors only
        await pilot.press("s", "s")
        assert screen.status == "error" and table.row_count == 1
        row = table.get_row_at(0)
        assert str(row[1]) == "bash" and str(row[3]) == "error" and str(row[6]) == "b54b9c34"
        assert "1 of 11 calls · status: error" in _totals(app)
        await pilot.press("escape")
        assert isinstance(app.screen, SessionScreen)


async def test_tools_view_status_filter_cycles_and_jumps_to_an_orphan() -> None:
    app = open_app("tool_pairing.jsonl")
    async with app.run_test(size=SIZE) as pilot:
        s = app.session
        assert s is not None
        t = transcript(app)
        rows = tool_rows(s, t.path)
        await pilot.press("g", "T")
        screen = app.screen
        assert isinstance(screen, ToolsScreen)
        table = _table(app)
        assert table.row_count == len(rows) == 8
        seen = {"all": [s.ids[r.entry] for r in screen._shown]}  # noqa: SLF001
        for status in ("ok", "error", "no_result", "orphan_result"):
            await pilot.press("s")
            assert screen.status == status
            shown = screen._shown  # noqa: SLF001
            assert table.row_count == len(shown)
            assert all(r.status == status for r in shown)
            assert f"status: {status}" in _totals(app)
            seen[status] = [s.ids[r.entry] for r in shown]
        assert seen["error"] == ["20a388d5"]  # the read of setup.cfg (ENOENT)
        assert seen["no_result"] == ["fbbe8450"]
        assert seen["orphan_result"] == ["e2f5b940", "eb2da719"]
        assert len(seen["ok"]) == 4 and len(seen["all"]) == 8
        # enter on the second orphan: the transcript focuses that result
        await pilot.press("down", "enter")
        await pilot.pause()
        item = t.current_item
        assert item is not None and item.kind == "orphan_result"
        assert s.ids[item.entry] == "eb2da719"


async def test_tools_view_name_filter_and_enter_jumps_to_the_call() -> None:
    app = open_app("edit_tools.jsonl")
    async with app.run_test(size=SIZE) as pilot:
        s = app.session
        assert s is not None
        t = transcript(app)
        await pilot.press("g")
        await pilot.press("T", "slash", "e", "d", "i", "t")
        screen = app.screen
        assert isinstance(screen, ToolsScreen)
        table = _table(app)
        assert table.row_count == 3
        assert all(r.name == "edit" for r in screen._shown)  # noqa: SLF001
        assert "3 of 11 calls · status: all · name: edit" in _totals(app)
        # enter in the filter gives the table the focus; down, enter picks the 2nd edit
        await pilot.press("enter")
        assert table.has_focus
        await pilot.press("down", "enter")
        await pilot.pause()
        assert isinstance(app.screen, SessionScreen)
        item = t.current_item
        assert item is not None and item.kind == "tool"
        assert (s.ids[item.entry], item.part) == ("458b64ba", 1)


async def test_tools_view_opens_on_the_list_and_sorts_keeping_numbers() -> None:
    app = open_app("edit_tools.jsonl")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("T")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ToolsScreen)
        table = _table(app)
        assert table.has_focus  # the list, not the filter: down moves at once
        await pilot.press("down")
        assert table.cursor_row == 1
        numbers = {(r.entry, r.part): n for n, r in enumerate(screen.rows, 1)}
        await pilot.press("S")  # by latency, slowest first
        assert screen.sort == "latency"
        shown = screen._shown  # noqa: SLF001
        lat = [r.latency_ms for r in shown if r.latency_ms is not None]
        assert lat == sorted(lat, reverse=True)
        # Each row keeps its number on the branch, whatever the order or the filter.
        cells = [table.get_row_at(n) for n in range(table.row_count)]
        assert [int(str(c[0])) for c in cells] == [numbers[(r.entry, r.part)] for r in shown]
        await pilot.press("S")
        out = [r.output_chars for r in screen._shown if r.output_chars is not None]  # noqa: SLF001
        assert out == sorted(out, reverse=True)
        await pilot.press("S", "S", "S")
        assert screen.sort == "call order"
        await pilot.press("slash")
        assert app.focused is screen.query_one("#filter")
        await pilot.press("b", "a", "s", "h", "enter")
        cells = [table.get_row_at(n) for n in range(table.row_count)]
        kept = [numbers[(r.entry, r.part)] for r in screen._shown]  # noqa: SLF001
        assert [int(str(c[0])) for c in cells] == kept and kept != list(range(1, len(kept) + 1))


async def test_tools_view_fits_80x24() -> None:
    app = open_app("edit_tools.jsonl")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("T")
        await pilot.pause()
        text = screen_text(app)
        assert "status" in text and "latency" in text and "chars out" in text
        # Totals fold into one line on a short screen: the calls keep the room.
        assert len(_totals(app).splitlines()) == 1
        assert _table(app).row_count == 11
        lines = text.splitlines()
        assert sum(1 for ln in lines if " ok " in ln or " error " in ln) >= 8


async def test_text_from_the_file_is_not_markup(write_session: Callable[..., Path]) -> None:
    """A regex ``[a-z]+`` or a stray ``[/x]`` in the file is shown as text, not Rich markup
    (a str cell in a DataTable or a Rich Table is parsed as markup: ``[/x]`` raised)."""
    call = {
        "type": "toolCall",
        "id": "call[/1]",
        "name": "grep",
        "arguments": {"pattern": "[a-z]+ [/x] [bold]"},
    }
    result = {
        "role": "toolResult",
        "toolCallId": "call[/1]",
        "toolName": "grep",
        "content": [{"type": "text", "text": "[/y] none"}],
        "isError": False,
    }
    lines = [
        {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-05-14T09:00:00.000Z"},
        _message("u1", None, {"role": "user", "content": "go [/z]"}),
        _message("a1", "u1", {"role": "assistant", "content": [call], "stopReason": "toolUse"}),
        _message("r1", "a1", result),
        _message(
            "c1", "r1", {"role": "custom", "customType": "ctx", "content": "x", "display": False}
        ),
        _message("a2", "c1", {"role": "assistant", "content": "done", "stopReason": "stop"}),
    ]
    path = write_session([json.dumps(x) for x in lines])
    app = make_app(load_session(path))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("T")
        await pilot.pause()
        assert isinstance(app.screen, ToolsScreen)
        assert "[a-z]+ [/x] [bold]" in screen_text(app)
        await pilot.press("enter")  # back at the call
        await pilot.press("i")
        await pilot.pause()
        assert isinstance(app.screen, ToolInspector)
        shown = screen_text(app)
        assert "call[/1]" in shown and "[/y] none" in shown
        await pilot.press("escape", "G", "c")
        await pilot.pause()
        assert isinstance(app.screen, ContextScreen)
        shown = screen_text(app)
        assert "go [/z]" in shown and "[/y] none" in shown
        rows = table_rows(text_of(app.screen.query_one(Static).content, width=160))
        assert [r[2] for r in rows] == [
            "user",
            "assistant",
            "toolResult grep",
            "[ctx] (hidden in the chat, seen by the model)",
            "assistant",
        ]


# --------------------------------------------------------------------------- context view


async def test_context_view_after_a_compaction() -> None:
    app = open_app("compaction_context.jsonl")
    async with app.run_test(size=SIZE) as pilot:
        s = app.session
        assert s is not None
        assert transcript(app).current_entry == s.find("9c13f634")
        await pilot.press("c")
        screen = app.screen
        assert isinstance(screen, ContextScreen) and screen.at == s.find("9c13f634")
        shown = text_of(screen.query_one(Static).content, width=160)
        assert shown == text_of(context_renderable(s, screen.at), width=160)
        rows = table_rows(shown)
        assert [r[1] for r in rows] == [
            "21ba7ae8",  # the compaction summary comes first
            "a48beb08",
            "bf654918",
            "e5d65714",
            "1e1027f6",
            "9271b4ee",
            "42edac69",
            "33c3c314",
            "bff6876f",
            "1aeffff3",
            "425a941a",
            "9c13f634",
        ]
        assert rows[0][2] == "compaction summary"
        for gone in ("076202fd", "c799af7a", "9c9cec60", "3c95d570", "c6697096", "3f97680b"):
            assert gone not in shown  # compacted away
        assert "b927cc6b" not in shown  # the superseded compaction
        assert "8e8bfea8" not in shown and "git diff --stat" not in shown  # !! bash
        assert "7450fa30" not in shown  # the empty branch summary
        assert rows[4][2] == "[git-context] (hidden in the chat, seen by the model)"
        assert rows[1][2] == "bash (as user text)"
        assert "compaction 21ba7ae8 replaced" in shown
        assert "model anthropic/claude-sonnet-4-5" in shown and "thinking medium" in shown
        await pilot.press("escape")
        assert isinstance(app.screen, SessionScreen)


async def test_context_view_shows_the_system_prompt_and_tools() -> None:
    app = open_app("system_prompt.jsonl")
    async with app.run_test(size=SIZE) as pilot:
        s = app.session
        assert s is not None
        t = transcript(app)
        first = s.find("21f834e6")
        assert first is not None
        await focus(pilot, t, item_index(t, first))
        await pilot.press("c")
        assert isinstance(app.screen, ContextScreen)
        shown = text_of(app.screen.query_one(Static).content, width=200)
        assert "system prompt" in shown
        assert "You are an expert coding assistant operating inside pi" in shown
        for section in ("identity", "guidelines", "project"):
            assert f"§ {section}: " in shown
        assert "tools: read, bash, edit, write" in shown
        await pilot.press("c")  # c closes it
        assert isinstance(app.screen, SessionScreen)
        await pilot.press("G", "c")
        shown = text_of(app.screen.query_one(Static).content, width=200)
        assert "You are a terse reviewer." in shown
        assert "§ identity: You review diffs." in shown
        assert "§ project" not in shown and "§ guidelines" not in shown
        assert "tools: read, ls" in shown


# --------------------------------------------------------------------------- follow


def _message(eid: str, parent: str | None, message: dict[str, object]) -> dict[str, object]:
    return {
        "type": "message",
        "id": eid,
        "parentId": parent,
        "timestamp": "2026-05-14T09:05:00.000Z",
        "message": {"timestamp": 1778749500000, **message},
    }


def _user_line(eid: str, parent: str, text: str) -> bytes:
    msg = _message(eid, parent, {"role": "user", "content": [{"type": "text", "text": text}]})
    return json.dumps(msg).encode() + b"\n"


def _append(path: Path, data: bytes) -> None:
    with open(path, "ab") as f:
        f.write(data)


@pytest.fixture
def live(tmp_path: Path) -> Path:
    """A copy of linear.jsonl that the tests append to (leaf a9d93650)."""
    copy = tmp_path / "live.jsonl"
    shutil.copyfile(fixture("linear.jsonl"), copy)
    return copy


def _has(s: Session, eid: str) -> Callable[[], bool]:
    return lambda: s.find(eid) is not None


async def test_follow_shows_an_appended_entry_and_stays_at_the_end(live: Path) -> None:
    app = make_app(load_session(live), follow=True)
    async with app.run_test(size=SIZE) as pilot:
        s = app.session
        assert s is not None
        t = transcript(app)
        assert t.following_end
        _append(live, _user_line("f0000001", "a9d93650", "follow-me-alpha"))
        await wait_until(pilot, _has(s, "f0000001"), "the appended entry")
        await pilot.pause()
        new = s.find("f0000001")
        assert t.path[-1] == new and t.items[-1].entry == new
        assert "follow-me-alpha" in item_text(s, t.items[-1])
        assert t.cursor == len(t.items) - 1 and t.following_end
        assert t.scroll_y == pytest.approx(t.max_scroll_y, abs=1)
        assert "follow-me-alpha" in screen_text(app)
        assert not any("new entr" in m for m in notes(app))


async def test_follow_waits_for_a_line_written_in_two_halves(live: Path) -> None:
    app = make_app(load_session(live), follow=True)
    async with app.run_test(size=SIZE) as pilot:
        s = app.session
        assert s is not None
        t = transcript(app)
        before = (len(s), len(t.items))
        line = _user_line("f0000002", "a9d93650", "written-in-two-halves")
        _append(live, line[:40])
        await pilot.pause(1.2)  # two polls see the torn line
        assert (len(s), len(t.items)) == before and s.find("f0000002") is None
        _append(live, line[40:])
        await wait_until(pilot, _has(s, "f0000002"), "the completed entry")
        await pilot.pause(0.6)  # one more poll: nothing new, nothing doubled
        new = s.find("f0000002")
        assert len(s) == before[0] + 1
        assert [it.entry for it in t.items].count(new) == 1
        assert len(t.items) == before[1] + 1
        assert not s.bad_lines
        assert not any("damaged" in m.lower() for m in notes(app))


async def test_follow_when_scrolled_up_notifies_and_G_jumps(live: Path) -> None:
    app = make_app(load_session(live), follow=True)
    async with app.run_test(size=SIZE) as pilot:
        s = app.session
        assert s is not None
        t = transcript(app)
        await pilot.press("g")
        assert t.cursor == 0 and not t.following_end
        _append(live, _user_line("f0000003", "a9d93650", "while-you-were-reading"))
        await wait_until(pilot, lambda: any("new entr" in m for m in notes(app)), "a notice")
        assert any("1 new entry below (G to jump)" in m for m in notes(app))
        new = s.find("f0000003")
        assert t.items[-1].entry == new and t.cursor == 0  # the view did not move
        await pilot.press("G")
        await pilot.pause()
        assert t.cursor == len(t.items) - 1 and t.current_entry == new
        assert t.following_end


async def test_follow_moves_to_a_new_branch(live: Path) -> None:
    app = make_app(load_session(live), follow=True)
    async with app.run_test(size=SIZE) as pilot:
        s = app.session
        assert s is not None
        t = transcript(app)
        old_leaf = s.find("a9d93650")
        # Pi re-edited the second user message: the new entry hangs off 5bd21b6a.
        _append(live, _user_line("f0000004", "5bd21b6a", "re-edited question"))
        await wait_until(pilot, _has(s, "f0000004"), "the new branch")
        await pilot.pause()
        new = s.find("f0000004")
        assert s.tree.leaf == new
        assert t.path == s.tree.path(new) and old_leaf not in t.path
        assert isinstance(app.screen, SessionScreen) and app.screen.leaf == new
        assert any("Pi moved to another branch" in m for m in notes(app))


async def test_follow_reloads_a_truncated_file(live: Path) -> None:
    app = make_app(load_session(live), follow=True)
    async with app.run_test(size=SIZE) as pilot:
        first = app.screen
        lines = live.read_bytes().splitlines(keepends=True)
        # Same file, cut after the first user message, plus a new reply: smaller than before.
        live.write_bytes(b"".join(lines[:2]) + _user_line("f0000005", "ec89b7a6", "rewritten"))
        await wait_until(pilot, lambda: app.screen is not first, "the reload")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SessionScreen)
        s = screen.session
        assert len(s) == 2 and s.find("a9d93650") is None and s.find("f0000005") is not None
        assert screen.query_one(Transcript).path == s.tree.path(s.find("f0000005"))
        assert any("reloaded" in m for m in notes(app))
        assert "rewritten" in screen_text(app)


async def test_follow_reloads_a_replaced_file(live: Path) -> None:
    app = make_app(load_session(live), follow=True)
    async with app.run_test(size=SIZE) as pilot:
        first = app.screen
        other = live.with_name("other.jsonl")
        shutil.copyfile(fixture("tree_branches.jsonl"), other)
        os.replace(other, live)  # a new file (new inode), larger than the old one
        await wait_until(pilot, lambda: app.screen is not first, "the reload")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SessionScreen)
        assert screen.session.find("4e28d74f") is not None
        assert screen.follow
        assert any("reloaded" in m for m in notes(app))
        # and it keeps following the new file
        _append(live, _user_line("f0000006", "4e28d74f", "after-the-reload"))
        await wait_until(pilot, _has(screen.session, "f0000006"), "an entry after the reload")


# --------------------------------------------------------------------------- picker


T0 = 1_778_000_000.0  # 2026-05-05 16:53:20 UTC


def _copy_as(src: Path, dest: Path, cwd: str, mtime: float) -> None:
    """Copy a fixture, give its header another cwd, and set its modification time."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    data = src.read_bytes().replace(b'"cwd":"/home/dev/src/tinyhttp"', f'"cwd":"{cwd}"'.encode(), 1)
    dest.write_bytes(data)
    os.utime(dest, (mtime, mtime))


def build_sessions(root: Path) -> dict[str, Path]:
    """Three sessions in two projects; alpha holds the newest, beta the middle one."""
    files = {
        "linear": root / "--home-dev-src-alpha--" / "2026-05-14T09-00_linear.jsonl",
        "tools": root / "--home-dev-src-beta--" / "2026-05-15T09-00_tools.jsonl",
        "tree": root / "--home-dev-src-alpha--" / "2026-05-14T18-00_tree.jsonl",
    }
    _copy_as(fixture("linear.jsonl"), files["linear"], "/home/dev/src/alpha", T0 + 3 * 3600)
    _copy_as(fixture("edit_tools.jsonl"), files["tools"], "/home/dev/src/beta", T0 + 2 * 3600)
    _copy_as(fixture("tree_branches.jsonl"), files["tree"], "/home/dev/src/alpha", T0 + 3600)
    return files


@pytest.fixture
def sessions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, dict[str, Path]]:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = tmp_path / "sessions"
    return root, build_sessions(root)


async def test_picker_lists_groups_filters_and_opens(
    sessions: tuple[Path, dict[str, Path]],
) -> None:
    root, files = sessions
    app = make_app(sessions_root=root)
    async with app.run_test(size=SIZE) as pilot:
        picker = app.screen
        assert isinstance(picker, PickerScreen)
        table = picker.query_one(DataTable)
        # grouped by project (newest project first), newest first inside a project
        order = [str(files[k]) for k in ("linear", "tree", "tools")]
        assert picker._shown == order  # noqa: SLF001
        assert table.row_count == 3
        assert [str(table.get_row_at(n)[0]) for n in range(3)] == ["alpha", "", "beta"]
        titles = [str(table.get_row_at(n)[1]) for n in range(3)]
        assert titles[0].startswith("What does `parse_request_line` return")
        assert titles[1] == "fetch_json retries"  # the session name, from the file's tail
        # type to filter
        await pilot.press(*"retries")
        assert picker._shown == [str(files["tree"])]  # noqa: SLF001
        await pilot.press("escape")  # clears the filter
        assert table.row_count == 3
        await pilot.press(*"beta")
        # One session by name; the text search (once typing pauses, which on a loaded machine
        # may be between two keys) adds its hits below it, so count the name matches.
        assert picker._shown == [str(files["tools"])]  # noqa: SLF001
        assert table.cursor_row == 0
        await pilot.press("enter")
        await pilot.pause()
        viewer = app.screen
        assert isinstance(viewer, SessionScreen) and viewer.from_picker
        assert viewer.session.path == files["tools"]
        assert viewer.query_one(Transcript).path[-1] == viewer.session.find("bae0c221")
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is picker
        assert viewer.session._fd is None  # noqa: SLF001 - closed on the way back
        # arrows in the filter move the table's cursor; enter opens that row
        await pilot.press("escape", "down", "enter")
        await pilot.pause()
        assert isinstance(app.screen, SessionScreen)
        assert app.screen.session.path == files["tree"]


@pytest.mark.parametrize("width", [80, 140, 200])
async def test_picker_columns_fit_the_terminal(
    sessions: tuple[Path, dict[str, Path]], width: int
) -> None:
    root, _files = sessions
    app = make_app(sessions_root=root)
    async with app.run_test(size=(width, 24)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        picker = app.screen
        assert isinstance(picker, PickerScreen)
        text = screen_text(app)
        names = [str(c.label) for c in picker.query_one(DataTable).ordered_columns]
        assert names[:1] != ["session"] or width == 80
        assert "session" in names and "cost" in names and "modified" in names
        if width >= 200:
            assert "started" in names and "size" in names
        # Numbers are never cut: every cost is shown whole.
        for s in picker.summaries.values():
            assert fmt_cost_short(s.cost or 0) in text
        # The preview pane from 140 columns on: the selected session's first prompt.
        preview = picker.query_one("#preview")
        assert preview.display == (width >= 140)
        if width >= 140:
            assert "first prompt" in text and "branches" in text


async def test_picker_escape_clears_then_quits_and_says_when_nothing_matches(
    sessions: tuple[Path, dict[str, Path]], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, _files = sessions
    app = make_app(sessions_root=root)
    quits: list[bool] = []
    monkeypatch.setattr(app, "action_quit", lambda: quits.append(True))
    async with app.run_test(size=SIZE) as pilot:
        picker = app.screen
        assert isinstance(picker, PickerScreen)
        assert "esc Quit" in screen_text(app)  # the way out is in the footer
        await pilot.press(*"zzz")
        await pilot.pause()
        text = screen_text(app)
        assert "No session matches 'zzz' (of 3)" in text and "esc Clear filter" in text
        await pilot.press("escape")
        assert picker.query_one(DataTable).row_count == 3 and not quits
        await pilot.press("escape")
        assert quits == [True]
        await pilot.press(*"abc", "ctrl+c")  # ctrl+c quits even with a filter typed
        assert quits == [True, True]


async def test_picker_sorts_with_ctrl_s(sessions: tuple[Path, dict[str, Path]]) -> None:
    root, files = sessions
    app = make_app(sessions_root=root)
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        picker = app.screen
        assert isinstance(picker, PickerScreen)
        seen = {}
        for _ in range(5):
            await pilot.press("ctrl+s")
            seen[picker.sort] = list(picker._shown)  # noqa: SLF001
        assert picker.sort == "last activity"
        sizes = [picker.summaries[p].size for p in seen["size"]]
        assert sizes == sorted(sizes, reverse=True)
        titles = [picker.summaries[p].title.lower() for p in seen["name"]]
        assert titles == sorted(titles)
        started = [picker.summaries[p].created or "" for p in seen["started"]]
        assert started == sorted(started, reverse=True)


async def test_picker_indexes_in_a_worker_and_caches_the_summaries(
    sessions: tuple[Path, dict[str, Path]], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, files = sessions
    cache_file = cache_dir() / "sessions.json"
    assert not cache_file.exists()
    app = make_app(sessions_root=root)
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        picker = app.screen
        assert isinstance(picker, PickerScreen)
        assert cache_file.exists()
        cached = json.loads(cache_file.read_text())["sessions"]
        assert set(cached) == {str(p) for p in files.values()}
        assert cached[str(files["tree"])]["entries"] == 23
        entries = {p: str(picker.query_one(DataTable).get_cell(p, _col(picker, 2))) for p in cached}
        assert entries == {str(files["linear"]): "4", str(files["tree"]): "23",
                           str(files["tools"]): "23"}  # fmt: skip

        # A second picker reads the cache: complete summaries without indexing anything.
        def no_indexing(path: Path) -> object:
            raise AssertionError(f"indexed {path} again")

        monkeypatch.setattr("piview.screens.picker.summarize_full", no_indexing)
        second = PickerScreen(root)
        await app.push_screen(second)
        await pilot.pause()
        assert all(s.complete for s in second.summaries.values())
        table = second.query_one(DataTable)
        assert [str(table.get_row_at(n)[2]) for n in range(3)] == ["4", "23", "23"]
        await app.workers.wait_for_complete()
        assert app.screen is second


def _col(picker: PickerScreen, n: int) -> object:
    return picker.query_one(DataTable).ordered_columns[n].key


async def test_picker_without_sessions_is_empty(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    (tmp_path / "sessions").mkdir()
    app = make_app(sessions_root=tmp_path / "sessions")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        assert isinstance(app.screen, PickerScreen)
        assert app.screen.query_one(DataTable).row_count == 0


# --------------------------------------------------------------------------- CLI


def test_cli_without_a_sessions_folder_suggests_the_demo(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "none"
    assert main(["--sessions", str(missing)]) == 2
    err = capsys.readouterr().err
    assert str(missing) in err and "piview --demo" in err
    assert "Traceback" not in err


def test_cli_ambiguous_id_prefix_lists_the_matches(
    sessions: tuple[Path, dict[str, Path]],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    root, files = sessions
    monkeypatch.chdir(root.parent)  # no file named like the prefix in the current directory
    assert main(["019e2", "--sessions", str(root)]) == 2
    err = capsys.readouterr().err
    assert "ambiguous (3 sessions)" in err
    for path in files.values():
        assert str(path) in err
    assert main(["0000dead", "--sessions", str(root)]) == 2
    err = capsys.readouterr().err
    assert "no session id starting with it" in err and str(root) in err


def test_cli_unique_id_prefix_opens_that_file(
    sessions: tuple[Path, dict[str, Path]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Resolution only: ``run_app`` is replaced, no TUI starts."""
    root, files = sessions
    monkeypatch.chdir(root.parent)
    opened: list[Path] = []

    def fake_run_app(session: Session | None = None, **kwargs: object) -> int:
        assert session is not None
        opened.append(session.path)
        return 0

    monkeypatch.setattr("piview.app.run_app", fake_run_app)
    assert main(["019e27a5", "--sessions", str(root)]) == 0
    assert opened == [files["tree"]]


# --------------------------------------------------------------------------- export


async def test_x_exports_the_branch_to_the_current_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    app = open_app("linear.jsonl")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("x")
        await app.workers.wait_for_complete()
        await pilot.pause()
        out = tmp_path / "linear-a9d93650.html"
        assert out.is_file()
        html = out.read_text()
        assert html.lstrip().lower().startswith("<!doctype html")
        assert "HTTP/0.9" in html
        assert any(f"Exported the branch to {out}" in m for m in notes(app))
        assert fixture("linear.jsonl").is_file()  # the session file is untouched


async def test_x_exports_off_the_ui_thread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A 50 MB session takes seconds to export: the screen keeps answering meanwhile."""
    import threading

    monkeypatch.chdir(tmp_path)
    release = threading.Event()
    threads: list[threading.Thread] = []

    def slow_export(session: object, leaf: object, *, out: Path, **kwargs: object) -> Path:
        threads.append(threading.current_thread())
        release.wait(5)
        out.write_text("<!DOCTYPE html>")
        return out

    monkeypatch.setattr("piview.export.export_branch", slow_export)
    app = open_app("linear.jsonl")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("x")
        await pilot.pause()
        assert any("Exporting the branch to" in m for m in notes(app))
        assert not release.is_set()
        release.set()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert threads and threads[0] is not threading.main_thread()
        assert any("Exported the branch to" in m for m in notes(app))


async def test_tools_view_of_a_long_branch_collects_its_calls_in_a_worker(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(ToolsScreen, "BIG_BRANCH", 5)
    app = open_app("edit_tools.jsonl")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("T")
        screen = app.screen
        assert isinstance(screen, ToolsScreen)
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert not screen.collecting and len(screen.rows) == 11
        assert _table(app).row_count == 11
        assert "11 of 11 calls" in _totals(app)
