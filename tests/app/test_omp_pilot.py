"""Pilot tests of an oh-my-pi session (issue #14): the title slot rewritten in place while
following shows as a new title (never as damage), appends still arrive, a whole-file rewrite
reloads; ``H`` shows the quiet custom entries as dividers; ``q`` quits at once."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from piview.app import make_app
from piview.model import load_session
from piview.screens.session import SessionScreen
from piview.widgets.transcript import Transcript
from tests.app.test_debugging import notes, screen_text, wait_until
from tests.conftest import fixture

SOURCE = fixture("omp") / "agent"
SLOT = 256


def _copy(tmp_path: Path) -> Path:
    agent = tmp_path / "agent"
    shutil.copytree(SOURCE, agent)
    path = next((agent / "sessions").glob("*/*.jsonl"))
    path.chmod(0o644)
    return path


def _slot(title: str) -> bytes:
    line = json.dumps(
        {"type": "title", "v": 1, "title": title, "source": "user", "updatedAt": "x", "pad": ""},
        separators=(",", ":"),
    )
    return (line[:-2] + " " * (SLOT - 1 - len(line.encode())) + '"}\n').encode()


def _title(app) -> str:
    return str(app.screen.query_one("#title").render())


async def _settle(pilot) -> None:
    for _ in range(3):
        await pilot.pause()


async def test_slot_rewrite_while_following_is_a_new_title(tmp_path: Path) -> None:
    path = _copy(tmp_path)
    app = make_app(load_session(path), follow=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await _settle(pilot)
        assert _title(app).startswith("Fix the logo colours")
        fd = os.open(path, os.O_WRONLY)
        try:
            os.pwrite(fd, _slot("Renamed live"), 0)
        finally:
            os.close(fd)
        st = os.stat(path)
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
        await wait_until(pilot, lambda: _title(app).startswith("Renamed live"), "the new title")
        assert not any("damaged" in m.lower() for m in notes(app))
        assert app.screen.session.bad_lines == []
        with open(path, "ab") as f:
            f.write(
                b'{"type":"message","id":"ffff0001","parentId":"a001aaa9","timestamp":'
                b'"2026-12-01T10:00:00.000Z","message":{"role":"developer",'
                b'"content":"PLAN MODE ENDED"}}\n'
            )
        await wait_until(pilot, lambda: "PLAN MODE ENDED" in screen_text(app), "the append")


async def test_whole_file_rewrite_reloads(tmp_path: Path) -> None:
    path = _copy(tmp_path)
    app = make_app(load_session(path), follow=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await _settle(pilot)
        first = app.screen
        tmp = path.with_suffix(".tmp")
        tmp.write_bytes(_slot("After a migration") + path.read_bytes()[SLOT:])
        os.replace(tmp, path)  # oh-my-pi's temp file plus rename
        await wait_until(pilot, lambda: app.screen is not first, "the reload")
        await _settle(pilot)
        assert isinstance(app.screen, SessionScreen)
        assert _title(app).startswith("After a migration")


async def test_hidden_key_shows_quiet_custom_entries_as_dividers(tmp_path: Path) -> None:
    path = _copy(tmp_path)
    app = make_app(load_session(path))
    async with app.run_test(size=(200, 60)) as pilot:
        await _settle(pilot)
        t = app.screen.query_one(Transcript)
        assert "session exit" not in screen_text(app)
        await pilot.press("H")
        await _settle(pilot)
        assert [it.kind for it in t.items if it.hidden].count("omp_divider") == 2
        assert "session exit: quit" in screen_text(app)
        await pilot.press("q")
        await _settle(pilot)
    assert app.return_code in (0, None)
