"""Provides what the processes of a search-index build share: :func:`exit_with_parent` and
:func:`real_stderr` (a module of its own so that fts and fts_build need not import each other).
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO


def exit_with_parent(parent: int) -> None:
    """In a child process: end when ``parent`` ends (the viewer quits with ``os._exit``, and
    a pool worker would never see its queue close)."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.2)
        os._exit(0)

    threading.Thread(target=watch, daemon=True, name="exit-with-parent").start()


@contextmanager
def real_stderr(null: IO[str]) -> Iterator[None]:
    """``sys.stderr`` is ``null`` meanwhile unless it has a file descriptor (multiprocessing
    hands it to its helper process: "bad value(s) in fds_to_keep")."""
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
