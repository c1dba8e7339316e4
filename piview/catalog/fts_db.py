"""Provides what keeps the search index's SQLite file safe (issue #26): whose file it is, what
a SQLite error means, and a damaged index swapped for a new one.

piview never deletes or replaces a file it did not make (:func:`check_ours`): its index
files carry :data:`APPLICATION_ID`, and a damaged one is replaced by a new file renamed over it.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import stat
import time
from pathlib import Path
from typing import Literal

from piview.catalog.discovery import cache_dir

APPLICATION_ID = 0x50695677
"""``PRAGMA application_id`` of piview's search index: "PiVw"."""

BUSY_TIMEOUT = 1.5
"""Seconds SQLite waits for another process's lock before saying it is busy."""

_MAGIC = b"SQLite format 3\x00"
_OUR_TABLES = {"meta", "files", "entries", "docs"}


_CHECK_ALWAYS_BYTES = 2 * 1024 * 1024
"""An index up to this size has FTS5's integrity check at every open for an update."""
_CHECK_AT_ONCE_BYTES = 64 * 1024 * 1024
"""Up to this size a command checks the index itself (daily); above, the picker's builder."""
_CHECK_EVERY = 24 * 3600.0
"""Seconds between FTS5 integrity checks of a bigger index."""


class IndexRefusedError(Exception):
    """The search index's path names something piview did not make; ``str()`` is one line."""


def is_default_path(path: Path) -> bool:
    """Whether ``path`` is the index's place in piview's own cache folder."""
    return os.path.abspath(path) == os.path.abspath(cache_dir() / "search.db")


def check_ours(path: Path) -> None:
    """Nothing to do when ``path`` is absent, empty or a piview index; raises
    :class:`IndexRefusedError` for a folder, a device, or a file of someone else's."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return
    if stat.S_ISDIR(st.st_mode):
        raise IndexRefusedError(f"search index: {path} is a folder, not a piview index")
    if not stat.S_ISREG(st.st_mode):
        raise IndexRefusedError(f"search index: {path} is not a regular file")
    if st.st_size == 0 or _marked(path) or is_default_path(path):
        return
    raise IndexRefusedError(f"search index: {path} is not a piview index")


def _marked(path: Path) -> bool:
    """Whether ``path`` is a SQLite file with our application id, or an index of ours from
    before the id (its tables are ours)."""
    with open(path, "rb") as f:
        head = f.read(100)
    if len(head) < 100 or not head.startswith(_MAGIC):
        return False
    app_id = int.from_bytes(head[68:72], "big")
    if app_id == APPLICATION_ID:
        return True
    if app_id != 0:
        return False
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=BUSY_TIMEOUT)
        try:
            rows = db.execute("SELECT name FROM sqlite_master WHERE type='table'").fetchall()
        finally:
            db.close()
    except sqlite3.Error:
        return False
    return {r[0] for r in rows} >= _OUR_TABLES


def swap_in_new(path: Path) -> None:
    """Replace the index at ``path`` (ours: :func:`check_ours`) by a new empty one renamed over
    it; its write-ahead log goes first (it would be replayed into the new file)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.new")
    tmp.unlink(missing_ok=True)
    try:
        db = sqlite3.connect(tmp)
        try:
            db.execute(f"PRAGMA application_id={APPLICATION_ID}")
            db.execute("CREATE TABLE meta(key TEXT PRIMARY KEY, value)")
            db.commit()
        finally:
            db.close()
        for suffix in ("-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)


def discard(path: Path) -> None:
    """Remove the index at ``path`` and its log (ours: a full disk gets its space back)."""
    for suffix in ("-wal", "-shm", ""):
        with contextlib.suppress(OSError):
            Path(f"{path}{suffix}").unlink(missing_ok=True)


ErrorKind = Literal["busy", "full", "io", "damaged", "unusable"]


def error_kind(exc: sqlite3.Error) -> ErrorKind:
    """What a SQLite error means for the index: ``busy`` (another process holds the lock),
    ``full`` (the disk), ``damaged`` (build it again) or ``unusable`` (run without it)."""
    code = getattr(exc, "sqlite_errorcode", None)
    primary = code & 0xFF if isinstance(code, int) else None
    text = str(exc).lower()
    if primary in (5, 6) or "locked" in text:  # SQLITE_BUSY, SQLITE_LOCKED
        return "busy"
    if primary == 13 or "disk is full" in text:  # SQLITE_FULL
        return "full"
    if primary == 10 or "disk i/o error" in text:  # SQLITE_IOERR
        return "io"
    if primary in (11, 26) or "malformed" in text or "not a database" in text:
        return "damaged"  # SQLITE_CORRUPT, SQLITE_NOTADB
    if (
        primary is None
        and isinstance(exc, sqlite3.DatabaseError)
        and not isinstance(exc, sqlite3.OperationalError)
    ):
        return "damaged"
    return "unusable"


def check_damage(db: sqlite3.Connection, path: Path, *, background: bool = False) -> None:
    """Raise :class:`sqlite3.DatabaseError` on damaged pages at open, not halfway through an
    update (FTS5's own check at every open up to ``_CHECK_ALWAYS_BYTES``, else once a day)."""
    row = db.execute("PRAGMA quick_check(1)").fetchone()
    if row is None or row[0] != "ok":
        raise sqlite3.DatabaseError(f"database disk image is malformed: {row}")
    try:
        size = path.stat().st_size
    except OSError:
        size = 0
    if size > _CHECK_ALWAYS_BYTES:
        if size > _CHECK_AT_ONCE_BYTES and not background:
            return
        row = db.execute("SELECT value FROM meta WHERE key='checked'").fetchone()
        last = row[0] if row is not None and isinstance(row[0], int | float) else 0.0
        if 0 <= time.time() - last < _CHECK_EVERY:
            return
    db.execute("INSERT INTO docs(docs) VALUES('integrity-check')")
    with contextlib.suppress(sqlite3.OperationalError):  # busy: checked again next time
        db.execute("INSERT OR REPLACE INTO meta VALUES('checked', ?)", (time.time(),))
        db.commit()
    if db.in_transaction:
        db.rollback()
