"""Provides session sources other than a plain file: an OpenClaw SQLite transcript.

A session ``PATH#SESSION_ID`` is the ``transcript_events`` rows of ``openclaw-agent.sqlite``,
joined in ``seq`` order into an in-memory file the model reads like a session file. The
database is opened read-only."""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple
from urllib.parse import quote

if TYPE_CHECKING:
    import sqlite3

SQLITE_SUFFIXES = (".sqlite", ".sqlite3", ".db")
"""A path ending so, then ``#`` and an id, names a session inside a database."""


class SqliteRef(NamedTuple):
    """``PATH#SESSION_ID``: a database and a session id (or a prefix of one). A NamedTuple,
    not a frozen dataclass: made at import before the first screen, a tenth of the time."""

    db: Path
    session_id: str

    def __str__(self) -> str:
        return f"{self.db}#{self.session_id}"


def parse_sqlite_ref(path: str | os.PathLike[str]) -> SqliteRef | None:
    """The database and session of ``DB.sqlite#ID``; None for any other path."""
    text = os.fspath(path)
    db, sep, sid = text.rpartition("#")
    if not sep or not sid or "/" in sid or not db.lower().endswith(SQLITE_SUFFIXES):
        return None
    return SqliteRef(Path(db).expanduser(), sid)


_BATCH = 4096
"""Rows read and written to the stream at a time."""


class SqliteSourceError(OSError):
    """The database or the session in it cannot be read; ``str()`` is one line for the user."""


def _connect(db: Path) -> sqlite3.Connection:
    """A read-only connection (``mode=ro``): SQLite refuses any write through it."""
    import sqlite3  # here, as in each function that uses it: a plain file never needs it

    if not db.is_file():
        raise SqliteSourceError(f"no such database: {db}")
    uri = f"file:{quote(str(db.resolve()))}?mode=ro"
    try:
        con = sqlite3.connect(uri, uri=True, check_same_thread=False)
        con.execute("PRAGMA query_only = 1")
    except sqlite3.Error as exc:
        raise SqliteSourceError(f"cannot open database {db}: {exc}") from None
    return con


@dataclass(frozen=True, slots=True)
class SqliteSessionInfo:
    """One session of a database, as the picker lists it (no transcript read)."""

    ref: SqliteRef
    events: int
    size: int
    """Bytes of its stream (each event and its newline)."""
    updated: float
    """Seconds since the epoch of its newest event (``created_at``, in ms or s)."""
    name: str | None = None


def _seconds(value: object) -> float:
    if not isinstance(value, int | float):
        return 0.0
    # OpenClaw stores milliseconds; tolerate seconds.
    return float(value) / 1000.0 if value > 1e11 else float(value)


def list_sqlite_sessions(db: Path) -> list[SqliteSessionInfo]:
    """Every session of ``db`` with its event count, stream size and last activity (none
    without the transcript table); raises :class:`SqliteSourceError` if it cannot be opened."""
    import sqlite3

    con = _connect(db)
    try:
        try:
            rows = con.execute(
                "SELECT session_id, count(*), sum(length(CAST(event_json AS BLOB))) + count(*),"
                " max(created_at) FROM transcript_events GROUP BY session_id"
            ).fetchall()
        except sqlite3.Error:
            return []
        names: dict[str, str] = {}
        try:
            for sid, name in con.execute(
                "SELECT session_id, display_name FROM session_windows"
                " WHERE display_name IS NOT NULL AND display_name != ''"
            ):
                names[str(sid)] = str(name)
        except sqlite3.Error:
            pass  # an older schema: no names
    finally:
        con.close()
    return [
        SqliteSessionInfo(
            SqliteRef(db, str(sid)), int(n), int(size or 0), _seconds(at), names.get(str(sid))
        )
        for sid, n, size, at in rows
    ]


def peek_sqlite_session(
    ref: SqliteRef, head_rows: int = 8, tail_rows: int = 32
) -> tuple[bytes, bytes]:
    """The first and the last events of a session as stream bytes (the tail empty when the
    head holds them all): what a quick summary reads, without the whole transcript."""
    import sqlite3

    con = _connect(ref.db)
    try:
        q = "SELECT event_json FROM transcript_events WHERE session_id = ? ORDER BY seq"
        head = con.execute(f"{q} LIMIT ?", (ref.session_id, head_rows + 1)).fetchall()
        tail = []
        if len(head) > head_rows:
            tail = con.execute(f"{q} DESC LIMIT ?", (ref.session_id, tail_rows)).fetchall()
            tail.reverse()
            head = head[:head_rows]
    except sqlite3.Error as exc:
        raise SqliteSourceError(f"cannot read {ref.db}: {exc}") from None
    finally:
        con.close()

    def stream(found: list[tuple[object]]) -> bytes:
        parts = [
            (e if isinstance(e, bytes) else str(e).encode("utf-8", "replace")).replace(b"\n", b" ")
            for (e,) in found
        ]
        return b"\n".join(parts) + b"\n" if parts else b""

    return stream(head), stream(tail)


class SqliteSession:
    """One session's transcript read from a database into an anonymous in-memory file
    (:attr:`fd`, read with ``os.pread``); :meth:`refresh` appends newer events."""

    def __init__(self, ref: SqliteRef) -> None:
        self.db = ref.db
        self.fd: int = -1
        self._con: sqlite3.Connection | None = _connect(ref.db)
        self.session_id = self._resolve(ref.session_id)
        self.ref = SqliteRef(ref.db, self.session_id)
        self.fd = anonymous_file()
        self.size = 0
        self.last_seq: int | None = None
        self.events = 0
        """How many events the stream holds."""
        self.updated = 0.0
        self.refresh()

    def _resolve(self, prefix: str) -> str:
        import sqlite3

        assert self._con is not None
        try:
            rows = self._con.execute(
                "SELECT DISTINCT session_id FROM transcript_events"
                " WHERE substr(session_id, 1, ?) = ? LIMIT 9",
                (len(prefix), prefix),
            ).fetchall()
        except sqlite3.Error as exc:
            self.close()
            raise SqliteSourceError(f"no transcripts in {self.db}: {exc}") from None
        ids = [str(r[0]) for r in rows]
        if prefix in ids:
            return prefix
        if len(ids) == 1:
            return ids[0]
        self.close()
        if not ids:
            raise SqliteSourceError(f"no session {prefix!r} in {self.db}")
        shown = ", ".join(ids[:8])
        raise SqliteSourceError(f"session id {prefix!r} is ambiguous in {self.db}: {shown}")

    def refresh(self) -> int:
        """Append the events after :attr:`last_seq` to the stream; return how many, or -1
        when the session lost events (the caller should read it again from the start)."""
        import sqlite3

        if self._con is None:
            self._con = _connect(self.db)
        after = -(2**63) if self.last_seq is None else self.last_seq
        try:
            top, total = self._con.execute(
                "SELECT max(seq), count(*) FROM transcript_events WHERE session_id = ?",
                (self.session_id,),
            ).fetchone()
            if self.last_seq is not None and (top is None or top < after or total < self.events):
                return -1
            cur = self._con.execute(
                "SELECT seq, event_json, created_at FROM transcript_events"
                " WHERE session_id = ? AND seq > ? ORDER BY seq",
                (self.session_id, after),
            )
            count = 0
            try:
                # In batches straight into the stream: never the whole transcript twice in
                # memory. The cursor is closed at the end: no statement (no lock) stays open.
                while rows := cur.fetchmany(_BATCH):
                    parts = []
                    for _seq, event, _at in rows:
                        text = (
                            event
                            if isinstance(event, bytes)
                            else str(event).encode("utf-8", "replace")
                        )
                        # One event is one line: a raw newline inside would split it.
                        parts.append(text.replace(b"\n", b" "))
                    data = b"\n".join(parts) + b"\n"
                    os.pwrite(self.fd, data, self.size)
                    self.size += len(data)
                    self.last_seq = int(rows[-1][0])
                    self.updated = max(self.updated, _seconds(rows[-1][2]))
                    count += len(rows)
                    self.events += len(rows)
            finally:
                cur.close()
        except sqlite3.Error as exc:
            raise SqliteSourceError(f"cannot read {self.db}: {exc}") from None
        return count

    def close(self) -> None:
        """Close the connection and drop the in-memory stream."""
        if self._con is not None:
            self._con.close()
            self._con = None
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def anonymous_file() -> int:
    """A read-write descriptor on a file with no name: in memory where the system allows."""
    memfd = getattr(os, "memfd_create", None)
    if memfd is not None:
        try:
            fd: int = memfd("piview-source", getattr(os, "MFD_CLOEXEC", 0))
            return fd
        except OSError:
            pass
    with tempfile.TemporaryFile() as f:  # unlinked at once: no name on disk
        return os.dup(f.fileno())
