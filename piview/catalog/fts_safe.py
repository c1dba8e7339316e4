"""Provides :func:`updated_index` and :func:`search_updated`: the search index brought up to
date and searched whatever the disk and other processes do (issue #26).

The index is a cache: locked by another piview, it is searched as it stands; damaged, it is
rebuilt once; unwritable or on a full disk, the sessions are indexed in memory for this run.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from piview.catalog.fts import Hit, Progress, SearchIndex, index_path
from piview.catalog.fts_db import discard, error_kind
from piview.catalog.fts_query import FtsQuery

BUSY_NOTE = "another piview is updating the search index: searching it as it stands"
DAMAGED_NOTE = "the search index was damaged: built again"


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        where = f"{exc.filename}: " if exc.filename else ""
        return f"{where}{exc.strerror.lower()}"
    return str(exc) or type(exc).__name__


def updated_index(
    paths: Iterable[Path | str],
    *,
    roots: Iterable[Path | str],
    path: Path | str | None = None,
    progress: Callable[[Progress], None] | None = None,
    workers: int = 2,
    background: bool = False,
) -> tuple[SearchIndex, list[str]]:
    """The index at ``path`` (default :func:`~piview.catalog.fts.index_path`) brought up to
    date with ``paths``, and at most one note for the user.

    Raises:
        IndexRefusedError: ``path`` is not a piview index.
    """
    files, folders = list(paths), list(roots)

    def in_memory(why: str) -> tuple[SearchIndex, list[str]]:
        index = SearchIndex(memory=True)
        index.update(files, progress=progress, roots=folders, workers=workers)
        return index, [f"search index: {why}: searching without it"]

    try:
        index = SearchIndex(path, background=background)
    except sqlite3.Error as exc:
        kind = error_kind(exc)
        if kind == "busy":
            # Opening had to write (a new index, or one from before): read it as it stands.
            with contextlib.suppress(sqlite3.Error):
                return SearchIndex(path, readonly=True), [BUSY_NOTE]
        if kind in ("full", "io"):
            discard(Path(path) if path is not None else index_path())  # ours: checked
        return in_memory(_reason(exc))
    except OSError as exc:  # its folder cannot be made (a file in the way, read-only)
        return in_memory(_reason(exc))
    notes = [DAMAGED_NOTE] if index.rebuilt else []
    for attempt in range(2):
        try:
            index.update(files, progress=progress, roots=folders, workers=workers)
            return index, notes
        except sqlite3.DatabaseError as exc:
            with contextlib.suppress(sqlite3.Error):
                index.db.rollback()
            kind = error_kind(exc)
            if kind == "busy":
                return index, [BUSY_NOTE]
            if kind == "damaged" and attempt == 0:
                index.rebuild()
                notes = [DAMAGED_NOTE]
                continue
            index.close()
            if kind in ("full", "io"):
                discard(index.path)  # ours, half written: its space back
            return in_memory(_reason(exc))
    raise AssertionError("unreachable")  # pragma: no cover


def search_updated(
    paths: Iterable[Path | str],
    query: str | FtsQuery,
    *,
    roots: Iterable[Path | str],
    path: Path | str | None = None,
    progress: Callable[[Progress], None] | None = None,
    **options: Any,
) -> tuple[list[Hit], list[str]]:
    """:func:`updated_index`, then :meth:`SearchIndex.search` of ``query`` (rebuilt once if the
    query finds damage); the hits and at most one note."""
    files, folders = list(paths), list(roots)
    index, notes = updated_index(files, roots=folders, path=path, progress=progress)
    try:
        try:
            return index.search(query, **options), notes
        except sqlite3.DatabaseError as exc:
            if error_kind(exc) != "damaged" or index.readonly or index.rebuilt:
                raise
        index.rebuild()
        index.update(files, progress=progress, roots=folders)
        return index.search(query, **options), [DAMAGED_NOTE]
    finally:
        index.close()
