"""Provides :func:`update_in_process`: the search index brought up to date in a process of its
own, and what the processes of a build share.

The picker runs its build this way: SQLite's writer and the decoding of every line would
otherwise take the interpreter lock from the UI thread for seconds at a time (typing lags,
quitting waits). The builder process (and its pool of readers, see
:meth:`piview.catalog.fts.SearchIndex.update`) ends when the process that started it ends.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from multiprocessing import get_context
from multiprocessing.connection import Connection
from pathlib import Path
from typing import IO, Any

__all__ = ["exit_with_parent", "real_stderr", "update_in_process"]


def exit_with_parent(parent: int) -> None:
    """In a child process: end when ``parent`` ends. The viewer quits at once
    (``os._exit``), and a pool worker waiting for its next file would never see its queue
    close (each worker holds both ends)."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.2)
        os._exit(0)

    threading.Thread(target=watch, daemon=True, name="exit-with-parent").start()


@contextmanager
def real_stderr(null: IO[str]) -> Iterator[None]:
    """``sys.stderr`` is ``null`` meanwhile, unless it has a file descriptor: Textual's has
    none, and multiprocessing hands stderr's to its helper process ("bad value(s) in
    fds_to_keep")."""
    try:
        ok = sys.stderr is not None and sys.stderr.fileno() >= 0
    except (AttributeError, OSError, ValueError):
        ok = False
    if ok:
        yield
        return
    saved, sys.stderr = sys.stderr, null
    try:
        yield
    finally:
        sys.stderr = saved


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
    """:meth:`SearchIndex.update` in a spawned process; ``progress`` gets
    ``(files done, files, bytes done, bytes)``. Returns None when done, else why not
    (cancelled: the process is ended; what it indexed so far is kept)."""
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
