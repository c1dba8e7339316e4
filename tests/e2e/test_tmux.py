"""End to end: the real ``piview`` command in tmux, driven by keys, read from the screen.

Open, navigate, expand, search, switch branch, follow a file another process appends to, and
quit with the terminal restored (no alternate screen, cursor shown, mouse reporting off).
"""

from __future__ import annotations

import json
import re
import shutil
import time
from pathlib import Path

import pytest

from piview.catalog.demo import demo_path
from piview.model import load_session
from piview.model.types import TextContent, ThinkingContent
from piview.render.items import build_items
from piview.screens.session import session_title
from tests.e2e.conftest import Tmux, flat, status_line

pytestmark = pytest.mark.e2e


def _demo_copy(folder: Path) -> Path:
    path = folder / "demo.jsonl"
    shutil.copyfile(demo_path(), path)
    return path


def _open(tmux: Tmux, *args: str) -> str:
    """Start piview and wait for its first screen (the title and a status line)."""
    tmux.start(*args)
    title = session_title(load_session(demo_path()))[:40]
    tmux.wait_for(title, timeout=20)
    return tmux.wait_for(r"block \d+/\d+", regex=True)


def _block(screen: str) -> tuple[int, int]:
    m = re.search(r"block (\d+)/(\d+)", status_line(screen))
    assert m, screen
    return int(m.group(1)), int(m.group(2))


def _quit(tmux: Tmux) -> str:
    tmux.send("q")
    return tmux.wait_for("EXIT=", timeout=10)


def test_open_navigate_and_quit_restores_the_terminal(tmux: Tmux) -> None:
    """The first screen shows the title and the last block; g, j and G move the cursor as
    the status line says; q exits with status 0 and leaves the terminal as it found it."""
    screen = _open(tmux, "--demo")
    n, total = _block(screen)
    assert n == total > 10
    assert tmux.flags()["size"] == "120x40"
    tmux.wait_for("ready-to-commit")  # a block is drawn (the demo's last label)
    tmux.send("g")
    tmux.wait_until(lambda s: _block(s) == (1, total), what="block 1 after g")
    tmux.send("j")
    tmux.wait_until(lambda s: _block(s) == (2, total), what="block 2 after j")
    tmux.send("j", "j", "k")
    tmux.wait_until(lambda s: _block(s) == (3, total), what="block 3 after j j k")
    tmux.send("G")
    tmux.wait_until(lambda s: _block(s) == (total, total), what="last block after G")
    assert tmux.flags()["alternate_on"] == "1"
    screen = _quit(tmux)
    assert "EXIT=0" in screen, screen
    assert "block " not in screen and "Expand" not in screen, screen
    flags = tmux.flags()
    assert flags["alternate_on"] == "0", flags  # back on the normal screen
    assert flags["cursor_flag"] == "1", flags  # cursor shown again
    assert flags["mouse_any_flag"] == "0", flags  # mouse reporting off


def _first_thinking_words() -> str:
    """Words of the first thinking block on the demo's branch that its one-line preview does
    not show."""
    s = load_session(demo_path())
    for item in build_items(s, s.tree.path(s.tree.leaf)):
        if item.kind == "thinking" and item.collapsible:
            block = s.entry(item.entry).message.content[item.part]  # type: ignore[union-attr]
            assert isinstance(block, ThinkingContent)
            words = block.thinking.split()
            assert len(words) > 24
            return " ".join(words[-6:])
    raise AssertionError("the demo has no thinking block")


def _read_call_line() -> tuple[int, str]:
    """(1-based block number, a line past the collapsed preview) of the first ``read`` call
    on the demo's branch whose output is long enough to be cut."""
    s = load_session(demo_path())
    items = build_items(s, s.tree.path(s.tree.leaf))
    pairing = s.pairing
    for k, item in enumerate(items):
        if item.kind != "tool":
            continue
        call = s.entry(item.entry).message.content[item.part]  # type: ignore[union-attr]
        if getattr(call, "name", None) != "read":
            continue
        for r in pairing.call_results.get((item.entry, item.part), []):
            content = s.entry(r).message.content  # type: ignore[union-attr]
            text = "\n".join(b.text for b in content if isinstance(b, TextContent))
            lines = [line.strip() for line in text.split("\n")]
            late = [x for x in lines[12:] if len(x) > 12 and x not in lines[:12]]
            if late:
                return k + 1, late[0]
    raise AssertionError("the demo has no long read result")


def test_expand_thinking_and_a_tool_call(tmux: Tmux) -> None:
    """t expands every thinking block (its full text shows); enter on a tool call shows the
    output lines its collapsed preview leaves out."""
    words = _first_thinking_words()
    block, line = _read_call_line()
    _open(tmux, "--demo")
    tmux.send("g")
    screen = tmux.wait_until(lambda s: _block(s)[0] == 1, what="top")
    assert words not in flat(screen)
    tmux.send("t")
    tmux.wait_until(lambda s: words in flat(s), what=f"thinking words {words!r}")
    tmux.send("t", "g")
    for _ in range(block - 1):
        tmux.send("j")
    screen = tmux.wait_until(lambda s: _block(s)[0] == block, what=f"block {block}")
    assert flat(line) not in flat(screen)
    tmux.send("Enter")
    tmux.wait_until(lambda s: flat(line) in flat(s), what=f"tool output line {line!r}")


def test_search_shows_the_match_count(tmux: Tmux) -> None:
    """/ opens the search field; Enter finds the matches and the status line counts them."""
    _open(tmux, "--demo")
    tmux.send("/")
    tmux.wait_for("search this branch")
    tmux.type("gzip")
    tmux.send("Enter")
    screen = tmux.wait_for(r"/gzip: \d+/\d+", regex=True)
    m = re.search(r"/gzip: (\d+)/(\d+)", status_line(screen))
    assert m and int(m.group(2)) >= 2, screen
    tmux.send("n")
    tmux.wait_until(
        lambda s: (
            re.search(r"/gzip: (\d+)/", status_line(s)) is not None
            and re.search(r"/gzip: (\d+)/", status_line(s)).group(1) != m.group(1)
        ),  # type: ignore[union-attr]
        what="next match",
    )


def test_branch_panel_switches_branch(tmux: Tmux) -> None:
    """b opens the branch panel; G and Enter pick an entry on another branch; the status
    line then shows a different branch, not the latest."""
    screen = _open(tmux, "--demo")
    before = re.search(r"branch to (\S+)", status_line(screen))
    assert before, screen
    assert "(not the latest)" not in status_line(screen)
    tmux.send("b")
    tmux.wait_for("[default]")
    tmux.send("G")
    time.sleep(0.2)
    tmux.send("Enter")
    screen = tmux.wait_for("(not the latest)")
    after = re.search(r"branch to (\S+)", status_line(screen))
    assert after and after.group(1) != before.group(1), status_line(screen)


def _append(path: Path, data: bytes) -> None:
    with path.open("ab") as f:  # the test plays Pi: it is the only writer
        f.write(data)
        f.flush()


def test_follow_shows_what_another_process_appends(tmux: Tmux, tmp_path: Path) -> None:
    """With follow on (the default), lines appended to the file appear as new blocks; a line
    written in two halves appears once complete, and the half line is not an error."""
    path = _demo_copy(tmp_path)
    last = json.loads(path.read_bytes().rstrip(b"\n").rsplit(b"\n", 1)[-1])
    _open(tmux, str(path))
    _n, total = _block(tmux.screen())

    def entry(eid: str, parent: str, text: str) -> bytes:
        obj = {
            "type": "message",
            "id": eid,
            "parentId": parent,
            "timestamp": "2026-05-16T15:00:00.000Z",
            "message": {"role": "user", "content": text, "timestamp": 1778943600000},
        }
        return json.dumps(obj).encode()

    _append(path, entry("f0000001", last["id"], "FOLLOW MARKER ONE") + b"\n")
    tmux.wait_until(lambda s: _block(s)[1] == total + 1, what="one more block")
    tmux.send("G")
    tmux.wait_for("FOLLOW MARKER ONE")
    line = entry("f0000002", "f0000001", "FOLLOW MARKER TWO") + b"\n"
    _append(path, line[:40])
    time.sleep(1.2)  # two polls see the torn line
    screen = tmux.screen()
    assert "FOLLOW MARKER TWO" not in screen
    assert "Damaged" not in screen and "damaged" not in screen, screen
    _append(path, line[40:])
    tmux.wait_until(lambda s: _block(s)[1] == total + 2, what="the second block")
    tmux.send("G")
    tmux.wait_for("FOLLOW MARKER TWO")
    screen = _quit(tmux)
    assert "EXIT=0" in screen
