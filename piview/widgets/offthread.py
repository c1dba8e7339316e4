"""Provides :func:`compute_off_thread`: heavy work in a thread, its result back on the UI thread."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import TypeVar

from textual.dom import DOMNode

__all__ = ["compute_off_thread"]

T = TypeVar("T")


def compute_off_thread(
    node: DOMNode,
    compute: Callable[[], T],
    done: Callable[[T | None], None],
    *,
    group: str,
    description: str,
) -> None:
    """Run ``compute`` in a thread worker of ``node``, then call ``done`` with its result on
    the UI thread, or with None if it raised (the worker logs the error).

    ``done`` is called on failure too, so that whatever said "building…" can stop saying it.
    """

    def work() -> None:
        result: T | None = None
        try:
            result = compute()
        finally:
            with contextlib.suppress(RuntimeError):  # the app closed meanwhile
                node.app.call_from_thread(done, result)

    node.run_worker(work, thread=True, group=group, description=description, exit_on_error=False)
