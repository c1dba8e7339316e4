"""End to end: the real ``piview`` command following a real Pi file (a copy of the corpus's
``tools.jsonl``) that the test appends to as Pi would, at 80×24 and 200×60.

Appends at the end show without a key; appends while scrolled up leave the view still; a line
written in two halves, a new branch (also with the branch panel open), a truncation and an
atomic replace; ``p`` pauses; the header follows the file; ``q`` quits at once while a big
file is still loading.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CORPUS
from tests.e2e.conftest import Tmux, flat, status_line

TOOLS = CORPUS / "pi-0.73" / "tools.jsonl"
LEAF = "014c28df"
"""The last entry of tools.jsonl."""

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.corpus,
    pytest.mark.skipif(not TOOLS.is_file(), reason="../shared/corpus is absent"),
]

SIZES = [(80, 24), (200, 60)]
T0 = "2026-05-11T08:10:00.000Z"


@pytest.fixture
def live(tmp_path: Path) -> Path:
    path = tmp_path / "tools.jsonl"
    shutil.copyfile(TOOLS, path)
    path.chmod(0o644)
    return path


def _line(obj: dict[str, Any]) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode() + b"\n"


def _append(path: Path, data: bytes) -> None:
    with path.open("ab") as f:  # the test plays Pi: the only writer
        f.write(data)
        f.flush()


def _msg(eid: str, parent: str, message: dict[str, Any]) -> bytes:
    return _line(
        {
            "type": "message",
            "id": eid,
            "parentId": parent,
            "timestamp": T0,
            "message": {"timestamp": 1778487000000, **message},
        }
    )


def _user(eid: str, parent: str, text: str) -> bytes:
    return _msg(eid, parent, {"role": "user", "content": [{"type": "text", "text": text}]})


def _assistant(eid: str, parent: str, content: list[dict[str, Any]]) -> bytes:
    usage = {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2}
    return _msg(
        eid,
        parent,
        {
            "role": "assistant",
            "content": content,
            "api": "faux",
            "provider": "faux",
            "model": "faux-sonnet",
            "usage": usage,
            "stopReason": "stop",
        },
    )


def _block(screen: str) -> tuple[int, int]:
    m = re.search(r"block (\d+)/(\d+)", status_line(screen))
    assert m, screen
    return int(m.group(1)), int(m.group(2))


def _open(tmux: Tmux, path: Path, size: tuple[int, int] = (80, 24)) -> tuple[int, int]:
    tmux.start(str(path), size=size)
    screen = tmux.wait_for(r"block \d+/\d+", timeout=20, regex=True)
    return _block(screen)


def _transcript(screen: str) -> list[str]:
    """The screen's lines between the header and the status line."""
    lines = screen.splitlines()
    end = next(k for k, x in enumerate(lines) if re.search(r"\bblock \d+/\d+", x))
    return lines[1:end]


def _quit(tmux: Tmux) -> str:
    tmux.send("q")
    return tmux.wait_for("EXIT=", timeout=10)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_appends_at_the_end_show_without_a_key(
    tmux: Tmux, live: Path, size: tuple[int, int]
) -> None:
    """Each append shows at once, its end on the last line of the view: a user message (the
    issue's case), a long answer, a tool call with a long result, a last user message."""
    _n, total = _open(tmux, live, size)
    steps: list[tuple[bytes, str]] = [
        (_user("e0000001", LEAF, "FOLLOW-ONE appended"), "FOLLOW-ONE appended"),
        (
            _assistant(
                "e0000002",
                "e0000001",
                [
                    {
                        "type": "text",
                        "text": "\n".join(f"answer line {k}" for k in range(70)) + "\nLONG-END",
                    }
                ],
            ),
            "LONG-END",
        ),
        (
            _assistant(
                "e0000003",
                "e0000002",
                [{"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "ls"}}],
            )
            + _msg(
                "e0000004",
                "e0000003",
                {
                    "role": "toolResult",
                    "toolCallId": "c1",
                    "toolName": "bash",
                    "content": [{"type": "text", "text": "\n".join(f"f{k}" for k in range(400))}],
                    "isError": False,
                },
            ),
            "$ ls",
        ),
        (_user("e0000005", "e0000004", "FOLLOW-LAST words"), "FOLLOW-LAST words"),
    ]
    seen = total
    for data, marker in steps:
        _append(live, data)
        screen = tmux.wait_until(
            lambda s, m=marker, n=seen: m in s and _block(s)[0] == _block(s)[1] > n,
            what=f"{marker!r} in view and the new last block focused",
        )
        seen = _block(screen)[1]
        # The view's bottom is the newest block's end: nothing of it is left below.
        body = [x for x in _transcript(screen) if x.strip(" ▁▂▃▄▅▆▇█▌")]
        assert marker in " ".join(body[-3:]) or marker == "$ ls", screen
        if marker == "$ ls":
            assert "f399" in body[-1], screen
    screen = _quit(tmux)
    assert "EXIT=0" in screen


def test_append_while_scrolled_up_keeps_the_view_still(tmux: Tmux, live: Path) -> None:
    _n, total = _open(tmux, live)
    tmux.send("g")
    tmux.send("j")
    screen = tmux.wait_until(lambda s: _block(s) == (2, total), what="block 2")
    time.sleep(0.3)
    before = _transcript(tmux.screen())
    _append(live, _user("e0000001", LEAF, "WHILE-READING appended"))
    screen = tmux.wait_until(lambda s: _block(s) == (2, total + 1), what="one more block")
    time.sleep(0.5)  # two more polls: still nothing moves
    screen = tmux.screen()
    assert "1 new entry below" in flat(screen), screen
    strip = re.compile(r"[▁▂▃▄▅▆▇█]")  # the scrollbar's thumb moves, the text does not
    after = _transcript(screen)
    rows = min(len(before), len(after)) - 4  # the notice covers the last rows on the right
    assert [strip.sub("", x)[:38] for x in after[:rows]] == [
        strip.sub("", x)[:38] for x in before[:rows]
    ]
    tmux.send("G")
    tmux.wait_until(
        lambda s: "WHILE-READING appended" in s and _block(s) == (total + 1, total + 1),
        what="the new block after G",
    )


def test_torn_line_new_branch_truncation_and_atomic_replace(tmux: Tmux, live: Path) -> None:
    """One viewer through what Pi does to a file: a line in two halves, /tree to an early
    entry, a file cut short and rewritten, a file replaced by a rename."""
    _n, total = _open(tmux, live, (200, 60))
    data = _user("e0000001", LEAF, "HALVES joined")
    _append(live, data[:45])
    time.sleep(1.0)  # four polls see the torn line
    screen = tmux.screen()
    assert "HALVES" not in screen and "amaged" not in screen, screen
    _append(live, data[45:])
    tmux.wait_until(
        lambda s: "HALVES joined" in s and _block(s) == (total + 1, total + 1),
        what="the joined line",
    )
    early = json.loads(live.read_bytes().splitlines()[4])["id"]
    _append(live, _user("e0000002", early, "FORKED from an early entry"))
    screen = tmux.wait_until(
        lambda s: "FORKED from an early entry" in s and "2 leaves" in status_line(s),
        what="the new branch",
    )
    assert "branch to e0000002" in status_line(screen), screen
    lines = live.read_bytes().splitlines(keepends=True)
    cut = json.loads(lines[9])["id"]
    live.write_bytes(b"".join(lines[:10]) + _user("e0000003", cut, "AFTER the cut"))
    screen = tmux.wait_until(
        lambda s: "AFTER the cut" in s and "branch to e0000003" in status_line(s),
        what="the truncated file, reloaded",
    )
    assert _block(screen)[0] == _block(screen)[1]
    new = live.with_name("tools.jsonl.tmp")
    new.write_bytes(TOOLS.read_bytes() + _user("e0000004", LEAF, "REPLACED by a rename"))
    os.replace(new, live)
    tmux.wait_until(
        lambda s: "REPLACED by a rename" in s and "branch to e0000004" in status_line(s),
        what="the replaced file, reloaded",
    )
    _append(live, _user("e0000005", "e0000004", "STILL followed"))
    tmux.wait_until(
        lambda s: "STILL followed" in s and _block(s)[0] == _block(s)[1],
        what="an append after the replace",
    )
    tmux.wait_until(lambda s: "following" in status_line(s), what="following (once notices go)")
    assert "EXIT=0" in _quit(tmux)


def _panel_rows(screen: str) -> int:
    """``n`` of the branch panel's footer ``(i/n) [filter]`` (0 while it is building)."""
    m = re.search(r"\((\d+)/(\d+)\) \[", screen)
    return 0 if m is None or "building the tree" in screen else int(m.group(2))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_new_branches_with_the_branch_panel_open(
    tmux: Tmux, live: Path, size: tuple[int, int]
) -> None:
    """With the panel open, a new branch a few entries up (Pi after ``/tree``) shows in the
    transcript and in the panel (one more row, the leaf's); an append to it too."""
    _open(tmux, live, size)
    tmux.send("b")
    screen = tmux.wait_until(lambda s: _panel_rows(s) > 0, what="the panel")
    rows = _panel_rows(screen)
    fork = json.loads(live.read_bytes().splitlines()[-4])["id"]
    _append(live, _user("e0000001", fork, "PANEL-FORK asked"))
    screen = tmux.wait_until(
        lambda s: "PANEL-FORK asked" in s and _panel_rows(s) == rows + 1,
        what="the new branch in the transcript and the panel",
    )
    status = status_line(screen)
    assert "branch to e0000001" in status and "2 leaves" in status, screen
    _append(live, _user("e0000002", "e0000001", "PANEL-NEXT said"))
    screen = tmux.wait_until(
        lambda s: "PANEL-NEXT said" in s and _panel_rows(s) == rows + 2,
        what="the append in the transcript and the panel",
    )
    assert "branch to e0000002" in status_line(screen), screen
    assert re.search(r"\(\d+/\d+\) \[default\]", screen), screen
    lines = screen.splitlines()
    at = next(k for k, x in enumerate(lines) if "◀" in x)  # the leaf's row (its text cut short)
    assert "user:" in lines[at] and "PANEL-FORK" in lines[at - 1], screen
    assert "EXIT=0" in _quit(tmux)


def test_p_pauses_and_the_header_follows_the_file(tmux: Tmux, live: Path) -> None:
    _n, total = _open(tmux, live, (200, 60))
    screen = tmux.wait_for("following, last entry")
    tmux.send("p")
    tmux.wait_until(lambda s: "paused, last entry" in status_line(s), what="paused")
    _append(
        live,
        _line(
            {
                "type": "session_info",
                "id": "e0000001",
                "parentId": LEAF,
                "timestamp": T0,
                "name": "RENAMED while paused",
            }
        )
        + _user("e0000002", "e0000001", "WRITTEN while paused"),
    )
    time.sleep(1.0)
    screen = tmux.screen()
    assert "WRITTEN while paused" not in screen and "RENAMED" not in screen.splitlines()[0]
    tmux.send("p")
    screen = tmux.wait_until(
        lambda s: (
            "WRITTEN while paused" in s and s.splitlines()[0].startswith(" RENAMED while paused")
        ),
        what="the entries and the new name after p",
    )
    assert _block(screen) == (total + 2, total + 2)  # the name's divider and the message
    tmux.wait_until(
        lambda s: "following, last entry just now" in status_line(s), what="following again"
    )


def test_q_quits_at_once_while_a_big_file_loads(tmux: Tmux, tmp_path: Path) -> None:
    """A generated 80 MB session: the viewer shows its tail and loads the rest in a worker
    (seconds: chained copies of one file now load in under a second, their lines share
    everything); q exits with the terminal restored, without waiting for that worker."""
    from benchmarks.gen_session import generate

    path = tmp_path / "big.jsonl"
    generate(str(path), 80 * 1024 * 1024, seed=1)
    tmux.start(str(path))
    # The whole load starts with the first screen and takes about a second here: q goes
    # as soon as the status line says it is loading.
    tmux.wait_for("loading the whole file", timeout=20)
    screen = _quit(tmux)
    assert "EXIT=0" in screen, screen
    flags = tmux.flags()
    assert flags["alternate_on"] == "0" and flags["cursor_flag"] == "1", flags
