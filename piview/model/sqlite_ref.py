"""Provides :func:`parse_sqlite_ref`: whether a path names a session inside an OpenClaw
database (``DB.sqlite#ID``), without importing what reads one (:mod:`piview.model.source`),
which a plain file never needs."""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

__all__ = ["SQLITE_SUFFIXES", "SqliteRef", "parse_sqlite_ref"]

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
