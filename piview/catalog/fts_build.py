"""Provides :func:`update_in_process`: the search index brought up to date in a process of its
own, so that SQLite and the decoding do not take the interpreter lock from the UI thread.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from multiprocessing import get_context
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from piview.catalog.fts_proc import exit_with_parent, real_stderr

__all__ = ["exit_with_parent", "real_stderr", "update_in_process"]


def _build_main(
    db: str, paths: list[str], roots: list[str], workers: int, conn: Connection, parent: int
) -> None:
    """The builder process: update the index, report progress and the end on ``conn``."""
    exit_with_parent(parent)
    try:
        os.nice(10)  # background work: the UI (and its pool readers, who inherit it) first
    except OSError:
        pass
    from piview.catalog.fts import Progress
    from piview.catalog.fts_safe import updated_index

    def progress(p: Progress) -> None:
        conn.send(("progress", (p.files_done, p.files_total, p.bytes_done, p.bytes_total)))

    try:
        # A damaged index is built again, a busy one left to the other piview (issue #26).
        index, _notes = updated_index(
            paths, roots=roots, path=db, progress=progress, workers=workers, background=True
        )
        index.close()
    except Exception as exc:  # noqa: BLE001 - reported to the parent, which says so
        conn.send(("error", f"{type(exc).__name__}: {exc}"))
        return
    conn.send(("done", None))


def update_in_process(
    db: Path | str,
    paths: Iterable[Path | str],
    *,
    roots: Iterable[Path | str],
    progress: Callable[[tuple[int, int, int, int]], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
    workers: int = 2,
) -> str | None:
    """:meth:`SearchIndex.update` in a spawned process, ``progress`` getting ``(files done,
    files, bytes done, bytes)``; None when done, else why not (what it indexed is kept)."""
    ctx = get_context("spawn")
    reader, writer = ctx.Pipe(duplex=False)
    args: tuple[Any, ...] = (
        str(db),
        [str(p) for p in paths],
        [str(r) for r in roots],
        workers,
        writer,
        os.getpid(),
    )
    with open(os.devnull, "w") as null, real_stderr(null):
        proc = ctx.Process(target=_build_main, args=args, name="piview-index", daemon=False)
        proc.start()
    writer.close()
    try:
        while True:
            if cancelled is not None and cancelled():
                proc.terminate()
                return "cancelled"
            if not reader.poll(0.1):
                if not proc.is_alive() and not reader.poll(0):
                    return f"the indexer ended ({proc.exitcode})"
                continue
            try:
                kind, value = reader.recv()
            except EOFError:
                return f"the indexer ended ({proc.exitcode})"
            if kind == "progress" and progress is not None:
                progress(value)
            elif kind == "done":
                return None
            elif kind == "error":
                return str(value)
    finally:
        reader.close()
        proc.join(timeout=1.0)
