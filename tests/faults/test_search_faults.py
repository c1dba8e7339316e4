"""Faults of the search index and the catalog's caches (issue #26): nothing deleted that piview
did not make, a damaged or busy or unwritable index never a traceback nor a wrong answer.

Everything is in ``tmp_path``: the sessions are copies of the fixtures, the index and caches
are made there; a full disk is a child process with a file-size limit.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from piview import cli
from piview.catalog import fts as fts_module
from piview.catalog.fts import SearchIndex
from piview.catalog.fts_db import APPLICATION_ID
from piview.catalog.fts_query import MAX_PREFIXES, parse_fts_query
from tests.conftest import ROOT, fixture
from tests.faults.test_faults import _one_line

pytestmark = pytest.mark.faults

QUERY = "hello"
FILES = ("linear.jsonl", "branch_edits.jsonl", "crlf_bom.jsonl", "roles_all.jsonl")


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("PIVIEW_SEARCH_DB", raising=False)
    monkeypatch.delenv("PIVIEW_DEBUG", raising=False)


@pytest.fixture
def sessions(tmp_path: Path) -> Path:
    root = tmp_path / "sessions"
    folder = root / "--p--"
    folder.mkdir(parents=True)
    for name in FILES:
        shutil.copyfile(fixture(name), folder / name)
    return root


def _db(tmp_path: Path) -> Path:
    return tmp_path / "cache" / "piview" / "search.db"


def _search(
    sessions: Path, capsys: pytest.CaptureFixture[str], query: str = QUERY
) -> tuple[int, list[dict[str, object]], str]:
    status = cli.main(["search", query, "--sessions", str(sessions), "--json"])
    out, err = capsys.readouterr()
    return status, (json.loads(out) if out.strip() else []), err


def _clean_answer(
    sessions: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], query: str = QUERY
) -> list[dict[str, object]]:
    """The answer with a clean index (made and then removed)."""
    status, hits, err = _search(sessions, capsys, query)
    assert status == 0 and hits and err == "", err
    for p in _db(tmp_path).parent.glob("search.db*"):
        p.unlink()
    return hits


def _damaged_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The index's first query raises SQLite's damage error (damage no open check found)."""
    rows = fts_module.SearchIndex._rows  # noqa: SLF001
    calls: list[int] = []

    def damaged_once(self: SearchIndex, *a: object, **k: object) -> object:
        calls.append(1)
        if len(calls) == 1:
            raise sqlite3.DatabaseError("database disk image is malformed")
        return rows(self, *a, **k)  # type: ignore[arg-type]

    monkeypatch.setattr(fts_module.SearchIndex, "_rows", damaged_once)


def _app_id(path: Path) -> int:
    return int.from_bytes(path.read_bytes()[68:72], "big")


# ---------------------------------------------------------------- never someone else's file


def _foreign_sqlite(path: Path) -> None:
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE notes(t TEXT)")
    db.execute("INSERT INTO notes VALUES('mine')")
    db.commit()
    db.close()


@pytest.mark.parametrize("kind", ["session", "text", "sqlite"])
def test_a_file_piview_did_not_make_is_refused_unchanged(
    kind: str,
    sessions: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    target = tmp_path / "other" / ("notes.db" if kind == "sqlite" else "some.jsonl")
    target.parent.mkdir()
    if kind == "session":
        shutil.copyfile(fixture("linear.jsonl"), target)
    elif kind == "text":
        target.write_text('{"a": 1}\n')
    else:
        _foreign_sqlite(target)
    before = target.read_bytes()
    monkeypatch.setenv("PIVIEW_SEARCH_DB", str(target))
    status, hits, err = _search(sessions, capsys)
    assert status == 2 and hits == []
    assert _one_line(err) == f"piview: search index: {target} is not a piview index"
    assert target.read_bytes() == before
    assert sorted(p.name for p in target.parent.iterdir()) == [target.name]  # no -wal, -shm


def test_a_folder_named_as_the_index_is_one_line(
    sessions: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder = tmp_path / "a-folder"
    folder.mkdir()
    monkeypatch.setenv("PIVIEW_SEARCH_DB", str(folder))
    status, _hits, err = _search(sessions, capsys)
    assert status == 2
    assert "is a folder" in _one_line(err)
    assert list(folder.iterdir()) == []


def test_piviews_index_is_marked_and_an_older_one_is_kept(
    sessions: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    clean = _clean_answer(sessions, tmp_path, capsys)
    status, hits, _ = _search(sessions, capsys)
    assert status == 0 and hits == clean
    db = _db(tmp_path)
    assert _app_id(db) == APPLICATION_ID
    # An index from before the mark, named by PIVIEW_SEARCH_DB: its tables make it ours.
    older = tmp_path / "older.db"
    shutil.copyfile(db, older)
    con = sqlite3.connect(older)
    con.execute("PRAGMA application_id=0")
    con.commit()
    con.close()
    SearchIndex(older).close()
    assert _app_id(older) == APPLICATION_ID


# ---------------------------------------------------------------- damaged


def _damage_pages(db: Path) -> None:
    """Every page after the first overwritten with a pattern: the tables are gone."""
    data = bytearray(db.read_bytes())
    for k in range(4096, len(data), 4096):
        data[k + 8 : k + 40] = b"\xa5" * 32
    db.write_bytes(bytes(data))


def _damage_fts_blobs(db: Path) -> None:
    """The FTS5 segments' bytes spoilt (the pages stay sound: quick_check passes, and the
    index answered ``[]`` while hits exist)."""
    con = sqlite3.connect(db)
    con.execute(
        "UPDATE docs_data SET block = randomblob(length(block)) WHERE id > 10 AND length(block) > 8"
    )
    con.commit()
    assert con.execute("PRAGMA quick_check").fetchone()[0] == "ok"
    con.close()


@pytest.mark.parametrize("damage", [_damage_pages, _damage_fts_blobs])
def test_a_damaged_index_is_built_again_in_a_new_file(
    damage: object, sessions: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    clean = _clean_answer(sessions, tmp_path, capsys)
    assert _search(sessions, capsys)[0] == 0
    db = _db(tmp_path)
    SearchIndex(db).close()  # the log folded back, so the damage is in the file
    inode = db.stat().st_ino
    damage(db)  # type: ignore[operator]
    status, hits, err = _search(sessions, capsys)
    assert status == 0 and hits == clean
    assert _one_line(err) == "piview: the search index was damaged: built again"
    assert db.stat().st_ino != inode  # a new file, renamed over the damaged one
    assert _app_id(db) == APPLICATION_ID
    assert not list(db.parent.glob(".search.db*"))  # no temporary file left
    status, hits, err = _search(sessions, capsys)
    assert (status, hits, err) == (0, clean, "")  # one notice, then a sound index


def test_damage_found_by_the_query_builds_it_again(
    sessions: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    clean = _clean_answer(sessions, tmp_path, capsys)
    _damaged_once(monkeypatch)
    status, hits, err = _search(sessions, capsys)
    assert status == 0 and hits == clean
    assert _one_line(err) == "piview: the search index was damaged: built again"


# ---------------------------------------------------------------- unusable caches


def test_a_cache_path_that_is_a_file_is_done_without(
    sessions: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    clean = _clean_answer(sessions, tmp_path, capsys)
    in_the_way = tmp_path / "cache-file"
    in_the_way.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(in_the_way))
    status, hits, err = _search(sessions, capsys)
    assert status == 0 and hits == clean
    assert _one_line(err).endswith(": searching without it")
    assert in_the_way.read_text() == ""


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a read-only folder")
def test_a_read_only_cache_folder_is_done_without(
    sessions: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    clean = _clean_answer(sessions, tmp_path, capsys)
    folder = _db(tmp_path).parent
    folder.chmod(0o555)
    try:
        status, hits, err = _search(sessions, capsys)
    finally:
        folder.chmod(0o755)
    assert status == 0 and hits == clean
    assert _one_line(err).endswith(": searching without it")


def test_an_index_that_cannot_be_opened_is_done_without(
    sessions: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """What a read-only folder gives SQLite (also as root, who can write there)."""
    clean = _clean_answer(sessions, tmp_path, capsys)
    connect = sqlite3.connect

    def cannot_open(path: object, *a: object, **k: object) -> sqlite3.Connection:
        if str(path) != ":memory:":
            raise sqlite3.OperationalError("unable to open database file")
        return connect(path, *a, **k)  # type: ignore[arg-type]

    monkeypatch.setattr(fts_module.sqlite3, "connect", cannot_open)
    status, hits, err = _search(sessions, capsys)
    assert status == 0 and hits == clean
    assert _one_line(err) == (
        "piview: search index: unable to open database file: searching without it"
    )


_FULL_DISK = """
import resource, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG)
resource.setrlimit(resource.RLIMIT_FSIZE, (20000, 20000))
from piview import cli
sys.exit(cli.main(sys.argv[1:]))
"""


def test_a_full_cache_disk_is_one_line_and_leaves_no_log(
    sessions: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    clean = _clean_answer(sessions, tmp_path, capsys)
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run(
        [sys.executable, "-c", _FULL_DISK, "search", QUERY, "--sessions", str(sessions), "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == clean
    assert _one_line(done.stderr).endswith(": searching without it")
    assert not [p.name for p in _db(tmp_path).parent.glob("search.db*")]  # nothing half made


# ---------------------------------------------------------------- contention


@pytest.fixture
def locked(tmp_path: Path, sessions: Path) -> Iterator[None]:
    """Another process's write lock on the index (a connection of its own, in a thread)."""
    SearchIndex(_db(tmp_path)).update([p for p in (sessions / "--p--").iterdir()], roots=[sessions])
    ready, release = threading.Event(), threading.Event()

    def hold() -> None:
        con = sqlite3.connect(_db(tmp_path), isolation_level=None, check_same_thread=False)
        con.execute("BEGIN EXCLUSIVE")
        con.execute("INSERT OR REPLACE INTO meta VALUES('held', 1)")
        ready.set()
        release.wait(60)
        con.execute("ROLLBACK")
        con.close()

    thread = threading.Thread(target=hold, daemon=True)
    thread.start()
    ready.wait(10)
    yield
    release.set()
    thread.join(10)


def test_a_locked_index_is_searched_as_it_stands_with_a_note(
    sessions: Path, tmp_path: Path, locked: None, capsys: pytest.CaptureFixture[str]
) -> None:
    changed = sessions / "--p--" / "linear.jsonl"
    os.utime(changed, (1, 1))  # something to update: the update needs the lock
    status, hits, err = _search(sessions, capsys)
    assert status == 0 and hits
    assert _one_line(err) == (
        "piview: another piview is updating the search index: searching it as it stands"
    )


def test_two_cold_builds_at_once_leave_one_clean_index(
    sessions: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = _db(tmp_path)
    files = sorted((sessions / "--p--").iterdir())
    solo = SearchIndex(tmp_path / "solo.db")
    solo.update(files)
    expected = solo.stats()
    solo.close()

    first, second = SearchIndex(db), SearchIndex(db)
    extract = fts_module._safe_extract  # noqa: SLF001
    raced: list[bool] = []

    def racing(path: str, start: int) -> object:
        if not raced:  # while the first build reads its first file, the second runs whole
            raced.append(True)
            second.update(files)
        return extract(path, start)

    monkeypatch.setattr(fts_module, "_safe_extract", racing)
    first.update(files)
    second.close()
    assert first.stats() == expected
    orphans = first.db.execute(
        "SELECT count(*) FROM entries WHERE file NOT IN (SELECT id FROM files)"
    ).fetchone()[0]
    assert orphans == 0
    # Every FTS row is an entry's: the text indexed once (row ids are never reused).
    next_id = first.db.execute("SELECT value FROM meta WHERE key='next'").fetchone()[0]
    assert next_id - 1 == expected["entries"]
    first.close()


# ---------------------------------------------------------------- queries


def test_thousands_of_prefixes_are_refused_at_once(
    sessions: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _hits, err = _search(sessions, capsys, " ".join(["c*"] * 300))
    assert status == 2
    assert _one_line(err) == (
        f"piview: search: the query has 300 prefix terms (at most {MAX_PREFIXES})"
    )
    status, _hits, err = _search(sessions, capsys, " ".join(["c*"] * 3333))
    assert status == 2 and "characters long" in _one_line(err)
    assert parse_fts_query(" ".join(["c*"] * 3333), prefix_last=True).blank


@pytest.mark.parametrize("query", ["NOT", "AND", "OR", "AND OR"])
def test_operators_alone_are_searched_as_words(
    query: str, sessions: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lower = _search(sessions, capsys, query.lower())
    assert _search(sessions, capsys, query) == lower
    if query in ("NOT", "AND"):  # the fixtures have no "or"
        assert lower[0] == 0 and lower[1]


def test_the_pickers_reader_and_builder_leave_a_file_not_ours_alone(
    sessions: Path, tmp_path: Path
) -> None:
    from piview.catalog.fts_build import update_in_process
    from piview.catalog.fts_db import IndexRefusedError

    target = tmp_path / "some.jsonl"
    shutil.copyfile(fixture("linear.jsonl"), target)
    before = target.read_bytes()
    with pytest.raises(IndexRefusedError):
        SearchIndex(target, readonly=True)
    files = sorted((sessions / "--p--").iterdir())
    why = update_in_process(target, files, roots=[sessions], workers=1)
    assert why is not None and "not a piview index" in why
    assert target.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("some")) == ["some.jsonl"]


async def test_damage_found_by_a_picker_query_swaps_in_a_new_index(
    sessions: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import asyncio

    from piview.app import make_app

    db = _db(tmp_path)
    app = make_app(sessions_root=sessions)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        picker = app.screen
        assert db.is_file()
        inode = db.stat().st_ino
        _damaged_once(monkeypatch)
        await pilot.press(*QUERY)
        for _ in range(100):  # the debounce, the query, the new file's build, the query again
            await asyncio.sleep(0.05)
            await app.workers.wait_for_complete()
            if picker.hits:  # type: ignore[attr-defined]
                break
        assert db.stat().st_ino != inode  # a new file renamed over the damaged one
        assert _app_id(db) == APPLICATION_ID
        assert picker.hits  # type: ignore[attr-defined]
