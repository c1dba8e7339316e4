"""Following an OpenClaw SQLite session in the viewer: new rows (a higher seq) show as they
are written, a rewritten session is read again, OpenClaw's leaf entries move the leaf."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from piview.app import make_app
from piview.model import load_session
from tests.app.test_debugging import notes, screen_text, wait_until
from tests.app.test_follow import (
    _shows,
    assert_at_end,
    line,
    settle,
    status,
    transcript,
    user,
)
from tests.hosts import append_events, build_db, sqlite_lines, sqlite_session_id


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return build_db(tmp_path / "openclaw-agent.sqlite", {sqlite_session_id(): sqlite_lines()})


def _event(obj: dict) -> str:
    return line(obj).decode().rstrip("\n")


async def test_new_rows_show_and_a_rewrite_reloads(db: Path) -> None:
    sid = sqlite_session_id()
    app = make_app(load_session(f"{db}#{sid[:8]}"), follow=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        s = transcript(app).session
        leaf = s.ids[s.tree.leaf]
        append_events(db, sid, [_event(user("e0000001", leaf, "ROW appended by OpenClaw"))])
        await wait_until(pilot, _shows(app, "e0000001"), "the new row")
        await settle(pilot)
        assert_at_end(app, "the new row")
        assert "ROW appended by OpenClaw" in screen_text(app)
        assert "following" in status(app)
        # OpenClaw's leaf entry: the active leaf is its target, not the last row
        first = s.ids[s.tree.path(s.tree.leaf)[1]]
        leaf_entry = {"type": "leaf", "id": "l0000001", "parentId": "e0000001",
                      "timestamp": "2026-06-01T10:00:00.000Z", "targetId": first}  # fmt: skip
        append_events(db, sid, [json.dumps(leaf_entry)])
        await wait_until(pilot, lambda: s.ids[s.tree.leaf] == first, "the leaf entry")
        await settle(pilot)
        assert transcript(app).path[-1] == s.find(first)
        # rows deleted: the session is read again
        con = sqlite3.connect(db)
        with con:
            con.execute("DELETE FROM transcript_events WHERE seq > 3")
        con.close()
        screen = app.screen
        await wait_until(pilot, lambda: app.screen is not screen, "the reload")
        await settle(pilot)
        assert len(transcript(app).session) == 2
        assert any("reloaded" in m for m in notes(app))


async def test_the_database_is_never_asked_on_the_main_thread(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each poll's query for the rows after the last seq runs in the worker: SQLite may take
    its time (a busy or big database) and the keys must still answer."""
    import threading

    from piview.model.source import SqliteSession

    asked: list[bool] = []
    refresh = SqliteSession.refresh

    def where(self: SqliteSession) -> int:
        asked.append(threading.current_thread() is threading.main_thread())
        return refresh(self)

    sid = sqlite_session_id()
    session = load_session(f"{db}#{sid[:8]}")
    monkeypatch.setattr(SqliteSession, "refresh", where)
    app = make_app(session, follow=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        s = transcript(app).session
        leaf = s.ids[s.tree.leaf]
        append_events(db, sid, [_event(user("e0000002", leaf, "ROW asked off the loop"))])
        await wait_until(pilot, _shows(app, "e0000002"), "the new row")
        await settle(pilot)
    assert asked and not any(asked), asked
