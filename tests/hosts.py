"""Provides the hosts fixture tree (Pi, oh-my-pi, OpenClaw) and OpenClaw databases for tests.

``tests/fixtures/hosts/home`` was written by Pi's own SessionManager (``generate.mjs``). The
OpenClaw database is built here, in a temporary folder, with the columns of OpenClaw's
``transcript_events`` and ``session_windows`` tables (``src/state/openclaw-agent-schema.sql``),
filled with the genuine Pi lines of ``openclaw_sqlite.jsonl``.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

HOSTS = Path(__file__).resolve().parent / "fixtures" / "hosts"
SQLITE_LINES = HOSTS / "openclaw_sqlite.jsonl"

# The two tables piview reads, with OpenClaw's columns, keys and strictness.
SCHEMA = """
CREATE TABLE session_windows (
  session_id TEXT NOT NULL PRIMARY KEY,
  session_key TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  display_name TEXT
) STRICT;
CREATE TABLE transcript_events (
  session_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  event_json TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (session_id, seq),
  FOREIGN KEY (session_id) REFERENCES "session_windows"(session_id) ON DELETE CASCADE
) STRICT;
"""

T_MS = 1780304400000
"""2026-06-01 09:00 UTC, in milliseconds: when the database's events were written."""


def sqlite_lines() -> list[str]:
    """The genuine Pi lines the database holds (its first session)."""
    return [ln for ln in SQLITE_LINES.read_text().splitlines() if ln.strip()]


def build_db(
    path: Path, sessions: dict[str, list[str]], names: dict[str, str] | None = None
) -> Path:
    """An OpenClaw agent database at ``path`` holding ``sessions`` (id → lines)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(path)
    with con:
        con.executescript(SCHEMA)
        for sid, lines in sessions.items():
            con.execute(
                "INSERT INTO session_windows VALUES (?, ?, ?, ?, ?)",
                (sid, f"agent:ops:{sid[:8]}", T_MS, T_MS, (names or {}).get(sid)),
            )
            con.executemany(
                "INSERT INTO transcript_events VALUES (?, ?, ?, ?)",
                [(sid, k + 1, ln, T_MS + 1000 * k) for k, ln in enumerate(lines)],
            )
    con.close()
    return path


def append_events(path: Path, sid: str, lines: list[str]) -> None:
    """Append events to a session of the database, as OpenClaw does (a higher seq)."""
    con = sqlite3.connect(path)
    with con:
        (top,) = con.execute(
            "SELECT coalesce(max(seq), 0) FROM transcript_events WHERE session_id = ?", (sid,)
        ).fetchone()
        con.executemany(
            "INSERT INTO transcript_events VALUES (?, ?, ?, ?)",
            [(sid, top + 1 + k, ln, T_MS + 60000 + k) for k, ln in enumerate(lines)],
        )
    con.close()


def sqlite_session_id() -> str:
    """The id of the database's session (its header's id)."""
    import json

    return str(json.loads(sqlite_lines()[0])["id"])


def make_home(tmp: Path, *, t0: float = 1780304400.0) -> Path:
    """A copy of the fixture home with an OpenClaw database added and fixed modification
    times (one hour apart, in a fixed order), for the picker's tests and snapshots."""
    home = tmp / "home"
    shutil.copytree(HOSTS / "home", home)
    db = home / ".openclaw" / "agents" / "ops" / "agent" / "openclaw-agent.sqlite"
    build_db(db, {sqlite_session_id(): sqlite_lines()}, {sqlite_session_id(): "Nightly backup"})
    files = sorted(p for p in home.rglob("*") if p.is_file())
    for k, p in enumerate(files):
        os.utime(p, (t0 + 3600 * k, t0 + 3600 * k))
    return home
