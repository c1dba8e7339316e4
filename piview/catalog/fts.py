"""Provides :class:`SearchIndex`: every session's text in SQLite with an FTS5 table.

The database is in WAL mode so that searches read while an update writes. An update skips
unchanged files, indexes only the new lines of a file that grew and re-indexes any other
change. The FTS5 table is contentless (snippets are read back from the file)."""

from __future__ import annotations

import contextlib
import os
import re
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path

from piview.catalog.discovery import cache_dir
from piview.catalog.fts_db import (
    APPLICATION_ID,
    BUSY_TIMEOUT,
    IndexRefusedError,
    check_damage,
    check_ours,
    error_kind,
    swap_in_new,
)
from piview.catalog.fts_extract import Extract, extract_file, line_texts, signature
from piview.catalog.fts_proc import exit_with_parent, real_stderr
from piview.catalog.fts_query import FtsQuery, parse_fts_query, snippet

__all__ = ["Hit", "IndexRefusedError", "Progress", "SearchIndex", "index_path"]

_VERSION = 1
"""Of the schema; a database of another version is built again."""

_POOL_MIN_BYTES = 32 * 1024 * 1024
"""Below this much to read, the files are read in this process (a pool costs its start)."""

# SQLite 3.43 can delete rows from a contentless table; before it, a dropped file's rows
# stay in the FTS table, unreachable (their entries row is gone), until a rebuild.
_CAN_DELETE = sqlite3.sqlite_version_info >= (3, 43, 0)
_DEAD_SHARE = 0.3
"""When unreachable rows are this share of the table, the next update rebuilds it."""


def index_path() -> Path:
    """``$PIVIEW_SEARCH_DB``, else ``search.db`` in the user cache directory."""
    env = os.environ.get("PIVIEW_SEARCH_DB")
    return Path(env).expanduser() if env else cache_dir() / "search.db"


@dataclass(frozen=True, slots=True)
class Hit:
    """One entry that matches a search."""

    session_path: str
    session_id: str | None
    entry_id: str | None
    role: str
    timestamp: str | None
    snippet: str
    """One line of the entry's text around the first match."""
    spans: tuple[tuple[int, int], ...]
    """Where the matched words are in :attr:`snippet`."""
    rank: float
    """bm25: lower is better."""
    column: str
    """``text`` or ``tools``: where the snippet comes from."""
    offset: int = -1
    """The entry's byte offset in its file (an entry of a v1 file has no id)."""


@dataclass(slots=True)
class Progress:
    """How far an update is (passed to its callback)."""

    files_done: int
    files_total: int
    bytes_done: int
    bytes_total: int


@dataclass(slots=True)
class _File:
    id: int
    path: str
    size: int
    mtime: float
    ino: int
    indexed: int
    sig: int


_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value);
CREATE TABLE IF NOT EXISTS files(
    id INTEGER PRIMARY KEY, path TEXT UNIQUE NOT NULL, size INTEGER, mtime REAL,
    ino INTEGER, indexed INTEGER, sig INTEGER, session_id TEXT, cwd TEXT, name TEXT);
CREATE TABLE IF NOT EXISTS entries(
    id INTEGER PRIMARY KEY, file INTEGER NOT NULL, entry_id TEXT, role TEXT, ts TEXT,
    off INTEGER, len INTEGER);
CREATE INDEX IF NOT EXISTS entries_file ON entries(file);
"""


class SearchIndex:
    """The search index at ``path`` (default :func:`index_path`), opened or created; with
    ``memory``, in memory only; ``background``: no one waits for the open.

    Raises:
        IndexRefusedError: ``path`` is not a piview index (nothing is changed).
        OSError, sqlite3.Error: its folder cannot be made, or it cannot be opened.
    """

    def __init__(
        self,
        path: Path | str | None = None,
        *,
        readonly: bool = False,
        memory: bool = False,
        background: bool = False,
    ) -> None:
        self.path = Path(path) if path is not None else index_path()
        self.readonly = readonly
        self.rebuilt = False
        """The index was damaged and is new (made again by the next update)."""
        self.bytes_read = 0
        """Bytes of session files read by this object's updates (for the benchmark)."""
        if memory or (readonly and not self.path.exists()):
            self.db = sqlite3.connect(":memory:", check_same_thread=False)
            self._create()
            return
        check_ours(self.path)
        if readonly:
            uri = f"{self.path.resolve().as_uri()}?mode=ro"
            self.db = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT, check_same_thread=False)
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._open()
            check_damage(self.db, self.path, background=background)
        except sqlite3.DatabaseError as exc:
            if error_kind(exc) != "damaged":
                with contextlib.suppress(AttributeError, sqlite3.Error):
                    self.db.close()
                raise
            self.db.close()
            self.rebuild()

    def rebuild(self) -> None:
        """Swap the (damaged) file for a new empty index, made beside it and renamed."""
        with contextlib.suppress(sqlite3.Error):
            self.db.close()
        swap_in_new(self.path)
        self.rebuilt = True
        self._open()

    def _open(self) -> None:
        self.db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT, check_same_thread=False)
        mode = self.db.execute("PRAGMA journal_mode").fetchone()[0]
        if str(mode).lower() != "wal":  # changing it takes a lock: only when needed
            self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("PRAGMA cache_size=-65536")  # 64 MB: FTS5 inserts read back pages
        version = self._version()
        if version not in (None, _VERSION):
            self._drop()
        if version != _VERSION or not self._has_docs():
            self._create()
        if self.db.execute("PRAGMA application_id").fetchone()[0] != APPLICATION_ID:
            self.db.execute(f"PRAGMA application_id={APPLICATION_ID}")  # an index from before
            self.db.commit()

    def _has_docs(self) -> bool:
        row = self.db.execute("SELECT 1 FROM sqlite_master WHERE name='docs'").fetchone()
        return row is not None

    # ------------------------------------------------------------------ schema

    def _version(self) -> int | None:
        try:
            row = self.db.execute("SELECT value FROM meta WHERE key='version'").fetchone()
        except sqlite3.OperationalError:
            return None
        return int(row[0]) if row else None

    def _create(self) -> None:
        db = self.db
        db.executescript(_SCHEMA)
        options = ", contentless_delete=1" if _CAN_DELETE else ""
        db.execute(
            "CREATE VIRTUAL TABLE IF NOT EXISTS docs USING fts5(text, tools, content=''"
            f"{options}, tokenize='unicode61 remove_diacritics 2')"
        )
        db.execute("INSERT OR REPLACE INTO meta VALUES('version', ?)", (_VERSION,))
        db.commit()

    def _drop(self) -> None:
        for table in ("docs", "entries", "files", "meta"):
            self.db.execute(f"DROP TABLE IF EXISTS {table}")
        self.db.commit()

    def close(self) -> None:
        """Close the database."""
        self.db.close()

    def replace_if_damaged(self, exc: BaseException) -> bool:
        """After ``exc`` from a query of this index (opened, so ours): when it says the index
        is damaged, put a new empty one in its place, to be built again; whether it did."""
        if not isinstance(exc, sqlite3.DatabaseError) or error_kind(exc) != "damaged":
            return False
        self.close()
        swap_in_new(self.path)
        return True

    # ------------------------------------------------------------------ update

    def files(self) -> dict[str, _File]:
        """What the index knows of each file, by path."""
        rows = self.db.execute("SELECT id, path, size, mtime, ino, indexed, sig FROM files")
        return {r[1]: _File(*r) for r in rows}

    def update(
        self,
        paths: Iterable[Path | str],
        *,
        progress: Callable[[Progress], None] | None = None,
        cancelled: Callable[[], bool] | None = None,
        workers: int = 2,
        roots: Iterable[Path | str] | None = None,
    ) -> Progress:
        """Bring the index up to date with ``paths``, the session files in ``roots``; a file
        indexed in one of ``roots`` (any, without ``roots``) but not listed, or gone, is
        dropped. ``cancelled`` is asked between files. Returns the last progress.
        """
        self._maybe_rebuild()
        known = self.files()
        wanted: dict[str, os.stat_result] = {}
        for p in paths:
            try:
                wanted[str(p)] = os.stat(p)
            except OSError:
                continue
        by_ino: dict[int, list[_File]] = {}
        for path, f in known.items():
            if path not in wanted:
                by_ino.setdefault(f.ino, []).append(f)
        jobs: list[tuple[str, int, int | None]] = []  # (path, start, file id to reuse)
        for path, st in wanted.items():
            old = known.get(path)
            if old is None:
                moved = self._renamed(path, st, by_ino)
                if moved is not None:
                    known.pop(moved.path, None)
                    moved.path = path
                    old = moved
                    if st.st_size == old.size and st.st_mtime == old.mtime:
                        continue
            if old is not None and st.st_size == old.size and st.st_mtime == old.mtime:
                continue
            if old is not None and self._appended(path, st, old):
                jobs.append((path, old.indexed, old.id))
            else:
                if old is not None:
                    self._drop_file(old.id)
                jobs.append((path, 0, None))
        prefixes = None if roots is None else tuple(_prefix(r) for r in roots)
        gone = [
            f
            for path, f in known.items()
            if path not in wanted
            and (prefixes is None or path.startswith(prefixes) or not os.path.exists(path))
        ]
        for f in gone:
            self._drop_file(f.id)
        self.db.commit()
        # Oldest first: row ids then follow time, and the newest matches are the last rows
        # (what a search limited to the newest candidates ranks).
        jobs.sort(key=lambda job: wanted[job[0]].st_mtime)
        total = sum(wanted[p].st_size - start for p, start, _ in jobs)
        state = Progress(0, len(jobs), 0, total)
        if progress is not None:
            progress(state)
        for (path, _start, fid), found in self._extracts(jobs, total, workers):
            if cancelled is not None and cancelled():
                break
            if found is not None:
                self._write(path, wanted[path], fid, found)
                self.bytes_read += found.bytes_read
                state.bytes_done += found.end - found.start
            state.files_done += 1
            if progress is not None:
                progress(state)
        if jobs or gone:
            # Fold the write-ahead log back into the database: it would double its size.
            self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return state

    def _renamed(
        self, path: str, st: os.stat_result, by_ino: dict[int, list[_File]]
    ) -> _File | None:
        """The row of a file that was renamed to ``path`` (same inode, same indexed bytes)."""
        candidates = by_ino.get(st.st_ino, [])
        for f in candidates:
            if not self._appended(path, st, f):
                continue
            candidates.remove(f)
            self.db.execute("UPDATE files SET path=? WHERE id=?", (path, f.id))
            return f
        return None

    def _appended(self, path: str, st: os.stat_result, old: _File) -> bool:
        """The file only grew since it was indexed: its indexed bytes end as they did."""
        if st.st_size < old.indexed or old.indexed == 0 or st.st_ino != old.ino:
            return False
        try:
            fd = os.open(path, os.O_RDONLY)
            try:
                return signature(fd, old.indexed) == old.sig
            finally:
                os.close(fd)
        except OSError:
            return False

    def _extracts(
        self, jobs: list[tuple[str, int, int | None]], total: int, workers: int
    ) -> Iterator[tuple[tuple[str, int, int | None], Extract | None]]:
        """Each job with its extract, read in a process pool when there is much to read."""
        if workers < 2 or total < _POOL_MIN_BYTES or len(jobs) < 2:
            for job in jobs:
                yield job, _safe_extract(job[0], job[1])
            return
        # Spawned, not forked: the caller may be a threaded Textual app. Its sys.stderr has
        # no file descriptor, which multiprocessing hands to its helper process: give it
        # /dev/null meanwhile.
        with open(os.devnull, "w") as null, real_stderr(null):
            pool: Executor = ProcessPoolExecutor(
                workers,
                mp_context=get_context("spawn"),
                initializer=exit_with_parent,
                initargs=(os.getpid(),),
            )
            futures = [pool.submit(_safe_extract, path, start) for path, start, _ in jobs]
        try:
            for job, fut in zip(jobs, futures, strict=True):
                yield job, fut.result()
        finally:
            pool.shutdown(wait=False, cancel_futures=True)

    def _write(self, path: str, st: os.stat_result, fid: int | None, found: Extract) -> None:
        db = self.db
        sig = found.sig
        # One write transaction from the look at the file's row on: another piview building
        # the same index at once has either written this file (then it is skipped) or not
        # (then its rows are replaced whole): never orphaned entries, never doubled text.
        if db.in_transaction:
            db.commit()
        db.execute("BEGIN IMMEDIATE")
        with db:
            row = db.execute(
                "SELECT id, size, mtime, indexed FROM files WHERE path=?", (path,)
            ).fetchone()
            if row is not None and (row[1], row[2]) == (st.st_size, st.st_mtime):
                return  # indexed meanwhile by another piview
            if fid is not None and (row is None or row[0] != fid or row[3] != found.start):
                return  # changed meanwhile by another piview: the next update sees to it
            if fid is None and row is not None:
                self._drop_file(int(row[0]))
            file = (st.st_size, st.st_mtime, st.st_ino, found.end, sig)
            values = (*file, found.session_id, found.cwd, found.name)
            if fid is None:
                cur = db.execute(
                    "INSERT INTO files(path, size, mtime, ino, indexed, sig,"
                    " session_id, cwd, name) VALUES(?,?,?,?,?,?,?,?,?)",
                    (path, *values),
                )
                fid = int(cur.lastrowid or 0)
            else:
                db.execute(
                    "UPDATE files SET size=?, mtime=?, ino=?, indexed=?, sig=?,"
                    " session_id=coalesce(?, session_id), cwd=coalesce(?, cwd),"
                    " name=coalesce(?, name) WHERE id=?",
                    (*values, fid),
                )
            # Row ids are never reused: a dropped file's rows may still be in the FTS table.
            row = db.execute("SELECT value FROM meta WHERE key='next'").fetchone()
            first = int(row[0]) if row else 1
            docs = found.docs
            db.execute("INSERT OR REPLACE INTO meta VALUES('next', ?)", (first + len(docs),))
            db.executemany(
                "INSERT INTO entries(id, file, entry_id, role, ts, off, len) VALUES(?,?,?,?,?,?,?)",
                (
                    (first + k, fid, d.entry_id, d.role, d.timestamp, d.offset, d.length)
                    for k, d in enumerate(docs)
                ),
            )
            db.executemany(
                "INSERT INTO docs(rowid, text, tools) VALUES(?,?,?)",
                ((first + k, d.text, d.tools) for k, d in enumerate(docs)),
            )

    def _drop_file(self, fid: int) -> None:
        db = self.db
        if _CAN_DELETE:
            db.execute(
                "DELETE FROM docs WHERE rowid IN (SELECT id FROM entries WHERE file=?)", (fid,)
            )
        else:
            n = db.execute("SELECT count(*) FROM entries WHERE file=?", (fid,)).fetchone()[0]
            db.execute("UPDATE meta SET value=value+? WHERE key='dead'", (n,))
            db.execute("INSERT OR IGNORE INTO meta VALUES('dead', ?)", (n,))
        db.execute("DELETE FROM entries WHERE file=?", (fid,))
        db.execute("DELETE FROM files WHERE id=?", (fid,))

    def _maybe_rebuild(self) -> None:
        """Start again when unreachable rows fill too much of the FTS table."""
        row = self.db.execute("SELECT value FROM meta WHERE key='dead'").fetchone()
        dead = int(row[0]) if row else 0
        if not dead:
            return
        live = self.db.execute("SELECT count(*) FROM entries").fetchone()[0]
        if dead > _DEAD_SHARE * (dead + live):
            self._drop()
            self._create()

    # ------------------------------------------------------------------ search

    def search(
        self,
        query: str | FtsQuery,
        *,
        tools: bool = False,
        since: str | None = None,
        limit: int = 20,
        per_session: int | None = None,
        snippets: bool = True,
        candidates: int | None = None,
        under: Path | str | None = None,
    ) -> list[Hit]:
        """The entries matching ``query`` (FTS5 syntax), best first (bm25), from ``since`` on,
        at most ``per_session`` a session, ``under`` a folder; ``candidates`` ranks only the
        newest that many matches (quick first results for a common word).
        """
        q = query if isinstance(query, FtsQuery) else parse_fts_query(query, tools=tools)
        if q.blank or limit <= 0:
            return []
        try:
            rows = self._rows(q.match, since, limit, per_session, candidates, under)
        except sqlite3.OperationalError:
            try:
                rows = self._rows(q.fallback, since, limit, per_session, candidates, under)
            except sqlite3.OperationalError:
                return []
        pattern = q.pattern()
        out: list[Hit] = []
        for path, sid, entry_id, role, ts, off, length, rank in rows:
            text, column = self._snippet_text(path, off, length, pattern) if snippets else ("", "")
            line, spans = snippet(text, pattern) if snippets else ("", [])
            out.append(Hit(path, sid, entry_id, role, ts, line, tuple(spans), rank, column, off))
        return out

    def _rows(
        self,
        match: str,
        since: str | None,
        limit: int,
        per_session: int | None,
        candidates: int | None = None,
        under: Path | str | None = None,
    ) -> list[tuple[str, str | None, str | None, str, str | None, int, int, float]]:
        where = " AND e.ts >= ?" if since else ""
        if under is not None:
            where += " AND substr(f.path, 1, ?) = ?"
        args: list[object] = [match]
        inner = "SELECT rowid, bm25(docs) AS r FROM docs WHERE docs MATCH ?"
        if candidates is not None:
            inner += " ORDER BY rowid DESC LIMIT ?"
            args.append(candidates)
        if since:
            args.append(since)
        if under is not None:
            prefix = _prefix(under)
            args += [len(prefix), prefix]
        sql = (
            "SELECT f.path, f.session_id, e.entry_id, e.role, e.ts, e.off, e.len, d.r"
            f" FROM ({inner}) AS d"
            " JOIN entries e ON e.id = d.rowid JOIN files f ON f.id = e.file"
            f" WHERE 1{where}"
        )
        if per_session is not None:
            sql = (
                "SELECT path, session_id, entry_id, role, ts, off, len, r FROM ("
                "SELECT *, row_number() OVER (PARTITION BY path ORDER BY r) AS k FROM ("
                f"{sql.replace('SELECT f.path', 'SELECT f.path AS path', 1)})) WHERE k <= ?"
            )
            args.append(per_session)
        sql += " ORDER BY r LIMIT ?"
        args.append(limit)
        return self.db.execute(sql, args).fetchall()

    @staticmethod
    def _snippet_text(
        path: str, off: int, length: int, pattern: re.Pattern[str] | None
    ) -> tuple[str, str]:
        """The entry's text read back from its file, from the column where ``pattern``
        matches: ``(text, column)``."""
        try:
            fd = os.open(path, os.O_RDONLY)
            try:
                line = os.pread(fd, length, off)
            finally:
                os.close(fd)
        except OSError:
            return "", ""
        found = line_texts(line)
        if found is None:
            return "", ""
        text, tool_text = found[3], found[4]
        if tool_text and (not text or (pattern is not None and not pattern.search(text))):
            return tool_text, "tools"
        return text, "text"

    def stats(self) -> dict[str, int]:
        """How many files and entries the index holds."""
        files = self.db.execute("SELECT count(*) FROM files").fetchone()[0]
        entries = self.db.execute("SELECT count(*) FROM entries").fetchone()[0]
        return {"files": int(files), "entries": int(entries)}


def _prefix(root: Path | str) -> str:
    """``root`` as the start of the paths of the files in it."""
    return str(root).rstrip(os.sep) + os.sep


def _safe_extract(path: str, start: int) -> Extract | None:
    """:func:`extract_file`, None when the file cannot be read (gone meanwhile)."""
    try:
        return extract_file(path, start)
    except OSError:
        return None
