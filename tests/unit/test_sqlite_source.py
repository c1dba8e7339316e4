"""OpenClaw SQLite transcripts: ``DB#ID`` read like a session file, read-only, followed."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest

from piview.cli import main
from piview.model import SessionOpenError, load_session
from piview.model.source import list_sqlite_sessions, parse_sqlite_ref
from tests.conftest import FIXTURES, corpus_files
from tests.hosts import (
    SQLITE_LINES,
    T_MS,
    append_events,
    build_db,
    sqlite_lines,
    sqlite_session_id,
)


@pytest.fixture
def db(tmp_path: Path) -> Path:
    sid = sqlite_session_id()
    other = [ln.replace(sid, "feedface-0000") for ln in sqlite_lines()[:3]]
    return build_db(
        tmp_path / "openclaw-agent.sqlite",
        {sid: sqlite_lines(), "feedface-0000": other},
        {sid: "Nightly backup"},
    )


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_parse_ref() -> None:
    ref = parse_sqlite_ref("/x/openclaw-agent.sqlite#01ab")
    assert ref is not None and ref.db == Path("/x/openclaw-agent.sqlite")
    assert ref.session_id == "01ab"
    assert parse_sqlite_ref("/x/s.jsonl") is None
    assert parse_sqlite_ref("/x/notes#1.jsonl") is None
    assert parse_sqlite_ref("/x/a.sqlite#") is None


def test_same_session_as_the_jsonl_lines(db: Path) -> None:
    sid = sqlite_session_id()
    s = load_session(f"{db}#{sid[:8]}")  # a prefix is enough
    f = load_session(SQLITE_LINES)
    assert str(s.path) == f"{db}#{sid}"
    assert s.header == f.header
    assert s.ids == f.ids and list(s.tree.parents) == list(f.tree.parents)
    assert s.tree.leaf == f.tree.leaf and not s.bad_lines
    assert s.entry(s.tree.leaf) == f.entry(f.tree.leaf)
    s.close()
    assert s.entry(1) == f.entry(1)  # reopened on demand
    assert s.index_cache is None and not s.save_index()  # rebuilt from the database: no cache


def test_unknown_and_ambiguous_ids(db: Path) -> None:
    with pytest.raises(SessionOpenError, match="no session 'zzz'"):
        load_session(f"{db}#zzz")
    build_db(db.with_name("two.sqlite"), {"ab1": sqlite_lines(), "ab2": sqlite_lines()})
    with pytest.raises(SessionOpenError, match="ambiguous"):
        load_session(f"{db.with_name('two.sqlite')}#ab")
    with pytest.raises(SessionOpenError, match="no such database"):
        load_session(f"{db.with_name('none.sqlite')}#ab")


def test_read_only_and_no_lock_held(db: Path) -> None:
    before = _digest(db)
    s = load_session(f"{db}#{sqlite_session_id()}")
    s.entry(2)
    assert s.poll() == "none"
    # While piview has the session open, OpenClaw can still take its write lock at once.
    writer = sqlite3.connect(db, timeout=0)
    writer.execute("BEGIN IMMEDIATE")
    writer.rollback()
    writer.close()
    s.close()
    assert _digest(db) == before
    assert sorted(p.name for p in db.parent.iterdir()) == ["openclaw-agent.sqlite"]


def test_follow_new_rows_and_replaced(db: Path) -> None:
    sid = sqlite_session_id()
    s = load_session(f"{db}#{sid}")
    n = len(s)
    extra = json.loads(sqlite_lines()[-1])
    extra.update(id="f0110w01", parentId=s.ids[s.tree.leaf])
    append_events(db, sid, [json.dumps(extra)])
    assert s.poll() == "appended"
    assert len(s) == n + 1 and s.ids[s.tree.leaf] == "f0110w01"
    assert s.poll() == "none"
    con = sqlite3.connect(db)
    with con:  # an earlier row gone, the last one kept: the session was rewritten
        con.execute("DELETE FROM transcript_events WHERE session_id = ? AND seq = 2", (sid,))
    con.close()
    assert s.poll() == "replaced"
    t = load_session(f"{db}#{sid}")
    assert t.poll() == "none" and len(t) == n  # the row gone and the one appended
    con = sqlite3.connect(db)
    with con:
        con.execute("DELETE FROM transcript_events WHERE session_id = ? AND seq > 2", (sid,))
    con.close()
    assert t.poll() == "replaced"


def test_listing(db: Path) -> None:
    infos = {i.ref.session_id: i for i in list_sqlite_sessions(db)}
    sid = sqlite_session_id()
    assert set(infos) == {sid, "feedface-0000"}
    assert infos[sid].events == len(sqlite_lines()) and infos[sid].name == "Nightly backup"
    assert infos[sid].size == sum(len(ln.encode()) + 1 for ln in sqlite_lines())
    assert infos[sid].updated > 1.7e9  # seconds, from OpenClaw's milliseconds


@pytest.mark.parametrize(
    "argv",
    [
        ["info", "--json"],
        ["tools", "--json"],
        ["context", "--json"],
        ["print"],
    ],
)
def test_commands_accept_db_refs(
    db: Path, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    ref = f"{db}#{sqlite_session_id()[:8]}"
    assert main([argv[0], ref, *argv[1:]]) == 0
    out = capsys.readouterr().out
    assert main([argv[0], str(SQLITE_LINES), *argv[1:]]) == 0
    assert out == capsys.readouterr().out.replace(str(SQLITE_LINES), ref)


def test_export_db_ref(db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "x.md"
    before = _digest(db)
    assert main(["export", f"{db}#{sqlite_session_id()[:8]}", "-o", str(out)]) == 0
    assert "the backup finished at 03:12" in out.read_text()
    assert _digest(db) == before
    # Never over the database itself.
    assert main(["export", f"{db}#{sqlite_session_id()[:8]}", "-o", str(db)]) == 2
    assert _digest(db) == before


@pytest.mark.parametrize(
    "path",
    [
        *[pytest.param(p, id=p.name) for p in sorted(FIXTURES.glob("*.jsonl"))],
        *[pytest.param(p, id=f"corpus/{p.parent.name}/{p.name}") for p in corpus_files()],
    ],
)
@pytest.mark.parametrize("command", ["info", "tools", "context"])
def test_a_file_put_in_a_database_reads_the_same(
    path: Path, command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every fixture and corpus file, its lines put in a database as OpenClaw does: the same
    ``--json`` answers as the same lines in a file (bad lines, versions, trees, pairing, usage
    and context alike). One event is one line: blank lines are not events, and every event
    ends, so the file compared holds the events one per line."""
    events = [
        ln.removesuffix("\r")
        for ln in path.read_bytes().decode("utf-8", "replace").split("\n")
        if ln.strip()
    ]
    db = build_db(tmp_path / "a.sqlite", {"s1": events})
    same = tmp_path / "same.jsonl"
    same.write_bytes("".join(ev + "\n" for ev in events).encode())
    assert main([command, str(same), "--json"]) == 0
    want = json.loads(capsys.readouterr().out)
    assert main([command, f"{db}#s1", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    if isinstance(want, dict):
        want.pop("file", None)
        got.pop("file", None)
    assert got == want


def test_name_and_time_of_a_db_session(
    db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    sid = sqlite_session_id()
    s = load_session(f"{db}#{sid[:8]}")
    assert s.stem == f"openclaw-agent-{sid}"  # two sessions of one database: two names
    assert s.modified() == pytest.approx((T_MS + 1000 * (len(sqlite_lines()) - 1)) / 1000)
    assert load_session(SQLITE_LINES).stem == "openclaw_sqlite"
    monkeypatch.chdir(tmp_path)
    assert main(["export", f"{db}#{sid[:8]}"]) == 0
    assert capsys.readouterr().out.strip() == str(tmp_path / f"openclaw-agent-{sid}.html")
