"""Pilot tests of following a session file, on real Pi files (../shared/corpus, skipped where
it is absent): what Pi appends shows at once and the view stays at the end for every kind of
entry and block height; the header and the status line stay current; ``p`` pauses and resumes;
appends while scrolled up, torn lines, new branches, truncation and an atomic replace.
"""

from __future__ import annotations

import base64
import io
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from textual.pilot import Pilot

import piview.screens.session_follow as session_follow
from piview.app import PiviewApp, make_app
from piview.model import Session, load_session
from piview.screens.session import SessionScreen
from piview.widgets.transcript import Transcript
from tests.app.test_debugging import notes, screen_text, wait_until
from tests.conftest import CORPUS

TOOLS = CORPUS / "pi-0.73" / "tools.jsonl"
BRANCHES = CORPUS / "pi-0.73" / "branches.jsonl"
TOOLS_LEAF = "014c28df"
"""The last entry of tools.jsonl (the leaf it opens on)."""

pytestmark = [
    pytest.mark.corpus,
    pytest.mark.skipif(not TOOLS.is_file(), reason="../shared/corpus is absent"),
]

SIZES = [(80, 24), (200, 60)]
T0 = "2026-05-11T08:10:00.000Z"
MS0 = 1778487000000


# --------------------------------------------------------------------------- helpers


@pytest.fixture
def live(tmp_path: Path) -> Path:
    """A writable copy of the corpus's tools.jsonl, which the tests append to as Pi would."""
    path = tmp_path / "tools.jsonl"
    shutil.copyfile(TOOLS, path)
    path.chmod(0o644)
    return path


def line(obj: dict[str, Any]) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode() + b"\n"


def append(path: Path, data: bytes) -> None:
    with open(path, "ab") as f:  # the test plays Pi: the only writer
        f.write(data)


def message(eid: str, parent: str, msg: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "message",
        "id": eid,
        "parentId": parent,
        "timestamp": T0,
        "message": {"timestamp": MS0, **msg},
    }


def user(eid: str, parent: str, text: str) -> dict[str, Any]:
    return message(eid, parent, {"role": "user", "content": [{"type": "text", "text": text}]})


USAGE = {
    "input": 10,
    "output": 5,
    "cacheRead": 0,
    "cacheWrite": 0,
    "totalTokens": 15,
    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
}


def assistant(
    eid: str, parent: str, content: list[dict[str, Any]], model: str = "faux-sonnet"
) -> dict[str, Any]:
    provider = "faux" if model.startswith("faux") else "anthropic"
    return message(
        eid,
        parent,
        {
            "role": "assistant",
            "content": content,
            "api": "faux",
            "provider": provider,
            "model": model,
            "usage": USAGE,
            "stopReason": "toolUse" if any(b["type"] == "toolCall" for b in content) else "stop",
        },
    )


def tool_result(eid: str, parent: str, call: str, content: list[dict[str, Any]]) -> dict[str, Any]:
    return message(
        eid,
        parent,
        {
            "role": "toolResult",
            "toolCallId": call,
            "toolName": "bash",
            "content": content,
            "isError": False,
        },
    )


def png(width: int, height: int) -> str:
    buf = io.BytesIO()
    Image.new("RGB", (width, height), (30, 120, 200)).save(buf, format="PNG")
    return base64.b64encode(buf.getvalue()).decode()


def transcript(app: PiviewApp) -> Transcript:
    return app.screen.query_one(Transcript)


def title(app: PiviewApp) -> str:
    return str(app.screen.query_one("#title").render())


def status(app: PiviewApp) -> str:
    return str(app.screen.query_one("#status").render())


def _shows(app: PiviewApp, eid: str) -> Callable[[], bool]:
    """The transcript's branch ends at entry ``eid``."""

    def check() -> bool:
        t = transcript(app)
        s = t.session
        i = s.find(eid)
        return i is not None and bool(t.path) and t.path[-1] == i

    return check


async def settle(pilot: Pilot[None]) -> None:
    """Let the refreshes and the callbacks after them run."""
    for _ in range(3):
        await pilot.pause()


def assert_at_end(app: PiviewApp, what: str) -> None:
    """The view sticks to the end: the last block is focused and in view, drawn with its true
    height, and every height the transcript calls exact is the drawn one."""
    t = transcript(app)
    lay = t._layout  # noqa: SLF001
    assert t.following_end, f"{what}: the view stopped following the end"
    assert t.cursor == len(t.items) - 1, f"{what}: cursor {t.cursor} of {len(t.items)}"
    assert t.scroll_y == t.max_scroll_y, f"{what}: scroll {t.scroll_y} of {t.max_scroll_y}"
    assert lay.total == t.virtual_size.height, what
    height = t.scrollable_content_region.height
    top = round(t.scroll_y)
    first, last = lay.block_at(top), lay.block_at(top + height - 1)
    assert last == len(t.items) - 1, f"{what}: the last block is not in view"
    for k in range(first, last + 1):
        assert lay.exact[k], f"{what}: block {k} in view has a guessed height"
    for k in range(len(t.items)):
        if lay.exact[k]:
            drawn = len(t._strips(k))  # noqa: SLF001
            assert lay.heights[k] == drawn, (
                f"{what}: block {k} is {drawn} lines, not {lay.heights[k]}"
            )


def kinds(parent: str) -> list[tuple[str, list[dict[str, Any]], str | None]]:
    """One append per kind of entry, chained from ``parent``: ``(name, entries, text that
    must be on screen after it)``."""
    long_text = "\n".join(f"line {n} of a long answer" for n in range(1, 80)) + "\nLONG-END"
    calls = [
        {"type": "toolCall", "id": f"call-par-{n}", "name": "bash", "arguments": {"command": "ls"}}
        for n in range(12)
    ]
    out = "\n".join(f"output line {n}" for n in range(300))
    steps: list[tuple[str, list[dict[str, Any]], str | None]] = [
        ("user", [user("e0000001", parent, "FOLLOW-USER question")], "FOLLOW-USER question"),
        (
            "long assistant text",
            [assistant("e0000002", "e0000001", [{"type": "text", "text": long_text}])],
            "LONG-END",
        ),
        (
            "thinking and a tool call",
            [
                assistant(
                    "e0000003",
                    "e0000002",
                    [
                        {"type": "thinking", "thinking": "I will run it.\n" * 30},
                        {
                            "type": "toolCall",
                            "id": "call-one",
                            "name": "bash",
                            "arguments": {"command": "seq 300"},
                        },
                    ],
                )
            ],
            None,
        ),
        (
            "a long tool result",
            [tool_result("e0000004", "e0000003", "call-one", [{"type": "text", "text": out}])],
            None,
        ),
        (
            "an image result",
            [
                assistant(
                    "e0000005",
                    "e0000004",
                    [
                        {
                            "type": "toolCall",
                            "id": "call-img",
                            "name": "read",
                            "arguments": {"path": "shot.png"},
                        }
                    ],
                ),
                tool_result(
                    "e0000006",
                    "e0000005",
                    "call-img",
                    [
                        {"type": "text", "text": "Read image file [image/png]"},
                        {"type": "image", "data": png(320, 240), "mimeType": "image/png"},
                    ],
                ),
            ],
            None,
        ),
        ("twelve parallel calls", [assistant("e0000007", "e0000006", calls)], None),
    ]
    prev = "e0000007"
    for n in range(12):  # their results, one append each: the first call is far behind
        eid = f"e00001{n:02d}"
        steps.append(
            (
                f"result {n} of 12",
                [
                    tool_result(
                        eid,
                        prev,
                        f"call-par-{n}",
                        [{"type": "text", "text": out if n % 3 == 0 else f"done {n}"}],
                    )
                ],
                None,
            )
        )
        prev = eid
    steps += [
        (
            "bash execution",
            [
                message(
                    "e0000008",
                    prev,
                    {
                        "role": "bashExecution",
                        "command": "make FOLLOW-BASH",
                        "output": out,
                        "exitCode": 2,
                        "cancelled": False,
                        "truncated": False,
                    },
                )
            ],
            "make FOLLOW-BASH",
        ),
        (
            "custom message",
            [
                {
                    "type": "custom_message",
                    "customType": "ext",
                    "content": "FOLLOW-CUSTOM injected",
                    "display": True,
                    "id": "e0000009",
                    "parentId": "e0000008",
                    "timestamp": T0,
                }
            ],
            "FOLLOW-CUSTOM injected",
        ),
        (
            "hidden extension state",
            [
                {
                    "type": "custom",
                    "customType": "ext",
                    "data": {"n": 1},
                    "id": "e000000a",
                    "parentId": "e0000009",
                    "timestamp": T0,
                }
            ],
            None,
        ),
        (
            "label",
            [
                {
                    "type": "label",
                    "id": "e000000b",
                    "parentId": "e000000a",
                    "timestamp": T0,
                    "targetId": "e0000001",
                    "label": "checkpoint",
                }
            ],
            None,
        ),
        (
            "compaction",
            [
                {
                    "type": "compaction",
                    "id": "e000000c",
                    "parentId": "e000000b",
                    "timestamp": T0,
                    "summary": "## Goal\nFOLLOW-COMPACTED\n" * 5,
                    "firstKeptEntryId": "e0000008",
                    "tokensBefore": 50000,
                }
            ],
            None,
        ),
        (
            "branch summary",
            [
                {
                    "type": "branch_summary",
                    "id": "e000000d",
                    "parentId": "e000000c",
                    "timestamp": T0,
                    "fromId": "e000000c",
                    "summary": "FOLLOW-BRANCH-SUMMARY",
                }
            ],
            None,
        ),
        (
            "thinking level",
            [
                {
                    "type": "thinking_level_change",
                    "id": "e000000e",
                    "parentId": "e000000d",
                    "timestamp": T0,
                    "thinkingLevel": "high",
                }
            ],
            None,
        ),
        (
            "unknown entry type",
            [{"type": "frobnicate", "id": "e000000f", "parentId": "e000000e", "timestamp": T0}],
            None,
        ),
        (
            "user at the end",
            [user("e0000010", "e000000f", "FOLLOW-LAST words")],
            "FOLLOW-LAST words",
        ),
    ]
    return steps


# --------------------------------------------------------------------------- staying at the end


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_each_kind_of_append_keeps_the_newest_block_in_view(
    live: Path, size: tuple[int, int]
) -> None:
    """The issue's case first (a user message appended to the corpus's tools.jsonl), then
    every kind of entry, of every height, one append after the other."""
    app = make_app(load_session(live), follow=True)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        assert_at_end(app, "at the start")
        for name, entries, text in kinds(TOOLS_LEAF):
            append(live, b"".join(line(e) for e in entries))
            last = entries[-1]["id"]
            await wait_until(pilot, _shows(app, last), f"{name}: the appended entry")
            await settle(pilot)
            assert_at_end(app, name)
            if text is not None:
                assert text in screen_text(app), f"{name}: {text!r} not on screen"
            assert not any("new entr" in m for m in notes(app)), name
            assert f"block {len(transcript(app).items)}/{len(transcript(app).items)}" in status(app)


async def test_append_while_scrolled_up_keeps_the_view_still(live: Path) -> None:
    app = make_app(load_session(live), follow=True)
    async with app.run_test(size=(80, 24)) as pilot:
        t = transcript(app)
        await settle(pilot)
        await pilot.press("g", "j", "j")
        await settle(pilot)
        cursor, top = t.cursor, t.scroll_y
        before = screen_text(app).splitlines()[1:-3]  # the transcript's lines
        assert not t.following_end
        append(live, line(user("e0000001", TOOLS_LEAF, "while you were reading")))
        await wait_until(pilot, _shows(app, "e0000001"), "the appended entry")
        await settle(pilot)
        assert (t.cursor, t.scroll_y) == (cursor, top)
        assert screen_text(app).splitlines()[1:-3] == before
        assert any("1 new entry below (G to jump)" in m for m in notes(app))
        await pilot.press("G")
        await settle(pilot)
        assert_at_end(app, "after G")
        assert "while you were reading" in screen_text(app)


async def test_a_line_written_in_two_halves_shows_once_complete(live: Path) -> None:
    app = make_app(load_session(live), follow=True)
    async with app.run_test(size=(80, 24)) as pilot:
        t = transcript(app)
        s = t.session
        await settle(pilot)
        blocks = len(t.items)
        data = line(user("e0000001", TOOLS_LEAF, "HALVES complete at last"))
        append(live, data[:50])
        await pilot.pause(3 * session_follow.POLL_INTERVAL)
        assert s.find("e0000001") is None and len(t.items) == blocks
        assert not any("damaged" in m.lower() for m in notes(app))
        append(live, data[50:])
        await wait_until(pilot, _shows(app, "e0000001"), "the completed entry")
        await settle(pilot)
        assert len(t.items) == blocks + 1 and not s.bad_lines
        assert_at_end(app, "the completed line")
        assert "HALVES complete at last" in screen_text(app)


async def test_a_new_branch_is_followed(live: Path) -> None:
    app = make_app(load_session(live), follow=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        s = transcript(app).session
        fork = s.ids[s.tree.path(s.tree.leaf)[3]]  # Pi's /tree back to an early entry
        append(live, line(user("e0000001", fork, "FORKED question")))
        await wait_until(pilot, _shows(app, "e0000001"), "the new branch")
        await settle(pilot)
        t = transcript(app)
        assert s.find(TOOLS_LEAF) not in t.path
        assert any("Pi moved to another branch" in m for m in notes(app))
        assert_at_end(app, "the new branch")
        assert "FORKED question" in screen_text(app)
        assert "2 leaves" in status(app)


async def test_truncation_reloads_and_keeps_following(live: Path) -> None:
    app = make_app(load_session(live), follow=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        first = app.screen
        lines = live.read_bytes().splitlines(keepends=True)
        cut = json.loads(lines[9])["id"]
        live.write_bytes(b"".join(lines[:10]) + line(user("e0000001", cut, "AFTER the cut")))
        await wait_until(pilot, lambda: app.screen is not first, "the reload")
        await settle(pilot)
        s = transcript(app).session
        assert len(s) == 10 and s.find(TOOLS_LEAF) is None
        assert any("reloaded" in m for m in notes(app))
        assert_at_end(app, "after the reload")
        assert "AFTER the cut" in screen_text(app)
        append(live, line(user("e0000002", "e0000001", "AND after that")))
        await wait_until(pilot, _shows(app, "e0000002"), "an append after the reload")
        await settle(pilot)
        assert_at_end(app, "an append after the reload")
        assert "AND after that" in screen_text(app)


async def test_an_atomic_replace_reloads_and_keeps_following(live: Path) -> None:
    """Pi rewrites a file by writing a new one and renaming it over the old one."""
    app = make_app(load_session(live), follow=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        first = app.screen
        new = live.with_name("tools.jsonl.tmp")
        new.write_bytes(live.read_bytes() + line(user("e0000001", TOOLS_LEAF, "REPLACED file")))
        os.replace(new, live)
        await wait_until(pilot, lambda: app.screen is not first, "the reload")
        await settle(pilot)
        assert isinstance(app.screen, SessionScreen) and app.screen.follow
        assert any("reloaded" in m for m in notes(app))
        assert_at_end(app, "after the replace")
        assert "REPLACED file" in screen_text(app)
        append(live, line(user("e0000002", "e0000001", "STILL followed")))
        await wait_until(pilot, _shows(app, "e0000002"), "an append after the replace")
        await settle(pilot)
        assert_at_end(app, "an append after the replace")
        assert "STILL followed" in screen_text(app)


# --------------------------------------------------------------------------- the header


async def test_the_header_shows_a_new_name_and_a_new_model(live: Path) -> None:
    app = make_app(load_session(live), follow=True)
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        assert "claude-opus-9" not in title(app)
        append(
            live,
            line(
                {
                    "type": "session_info",
                    "id": "e0000001",
                    "parentId": TOOLS_LEAF,
                    "timestamp": T0,
                    "name": "Renamed while following",
                }
            ),
        )
        await wait_until(pilot, lambda: "Renamed while following" in title(app), "the name")
        append(
            live,
            line(
                {
                    "type": "model_change",
                    "id": "e0000002",
                    "parentId": "e0000001",
                    "timestamp": T0,
                    "provider": "anthropic",
                    "modelId": "claude-opus-9",
                }
            )
            + line(
                assistant(
                    "e0000003", "e0000002", [{"type": "text", "text": "Hi."}], model="claude-opus-9"
                )
            ),
        )
        await wait_until(pilot, lambda: "claude-opus-9" in title(app), "the new model")
        assert "faux-sonnet" in title(app) and "Renamed while following" in title(app)


async def test_an_empty_file_gets_its_header_as_the_session_is_written(tmp_path: Path) -> None:
    """Start on an empty file, then append a whole session (the corpus's branches.jsonl), line
    by line: the header takes the session's first message, cwd and models."""
    path = tmp_path / "new.jsonl"
    path.write_bytes(b"")
    lines = BRANCHES.read_bytes().splitlines(keepends=True)
    whole = load_session(BRANCHES)
    app = make_app(load_session(path), follow=True)
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        assert title(app) == "new.jsonl"
        append(path, lines[0])  # the header line alone
        cwd = whole.header.cwd if whole.header else None
        assert cwd
        await wait_until(pilot, lambda: cwd in title(app), "the header's cwd")
        for chunk in (lines[1:5], lines[5:20], lines[20:]):
            append(path, b"".join(chunk))
            last = json.loads(chunk[-1])["id"]
            await wait_until(
                pilot,
                lambda last=last: transcript(app).session.find(last) is not None,
                "the appended lines",
            )
        await wait_until(pilot, _shows(app, whole.ids[whole.tree.leaf]), "the leaf")
        await settle(pilot)
        expected = make_app(whole)
        async with expected.run_test(size=(200, 60)):
            want = title(expected)
        assert title(app) == want
        assert "new.jsonl" not in title(app)
        assert_at_end(app, "the whole session")


# --------------------------------------------------------------------------- status, pause


async def test_status_line_says_following_and_when_the_last_entry_came(
    live: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = [os.stat(live).st_mtime + 125.0]
    monkeypatch.setattr(session_follow, "_now", lambda: clock[0])
    app = make_app(load_session(live), follow=True)
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        assert "following, last entry 2 min ago" in status(app)
        append(live, line(user("e0000001", TOOLS_LEAF, "now")))
        await wait_until(pilot, _shows(app, "e0000001"), "the append")
        await settle(pilot)
        assert "following, last entry just now" in status(app)
        clock[0] += 42
        await wait_until(pilot, lambda: "last entry 42 s ago" in status(app), "the clock")


async def test_without_follow_the_status_line_says_nothing_of_it(live: Path) -> None:
    app = make_app(load_session(live), follow=False)
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        assert "following" not in status(app) and "paused" not in status(app)


async def test_p_pauses_and_resumes_following(live: Path) -> None:
    app = make_app(load_session(live), follow=True)
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        t = transcript(app)
        s: Session = t.session
        assert "p Pause" in str(app.screen.query_one("KeyBar").render())
        await pilot.press("p")
        assert "paused, last entry" in status(app)
        append(live, line(user("e0000001", TOOLS_LEAF, "written while paused")))
        await pilot.pause(4 * session_follow.POLL_INTERVAL)
        assert s.find("e0000001") is None  # not even read
        await pilot.press("p")
        await wait_until(pilot, _shows(app, "e0000001"), "what came while paused")
        await settle(pilot)
        assert "following, last entry just now" in status(app)
        assert_at_end(app, "after resuming")
        assert "written while paused" in screen_text(app)


async def test_p_starts_following_a_file_opened_without_follow(live: Path) -> None:
    app = make_app(load_session(live), follow=False)
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        append(live, line(user("e0000001", TOOLS_LEAF, "seen once p is pressed")))
        await pilot.pause(3 * session_follow.POLL_INTERVAL)
        assert transcript(app).session.find("e0000001") is None
        await pilot.press("p")
        await wait_until(pilot, _shows(app, "e0000001"), "the entry")
        await settle(pilot)
        assert "following" in status(app)
        assert_at_end(app, "after p")


async def test_pause_survives_a_reload(live: Path) -> None:
    app = make_app(load_session(live), follow=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        first = app.screen
        new = live.with_name("tools.jsonl.tmp")
        new.write_bytes(live.read_bytes() + line(user("e0000001", TOOLS_LEAF, "replaced")))
        os.replace(new, live)
        await wait_until(pilot, lambda: app.screen is not first, "the reload")
        await pilot.press("p")
        second = app.screen
        assert isinstance(second, SessionScreen) and not second.follow
        assert "paused" in status(app)
