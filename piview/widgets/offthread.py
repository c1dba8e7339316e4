"""Provides :func:`compute_off_thread`: heavy work in a thread, its result back on the UI
thread; and :class:`DaemonExecutor`, the threads every thread worker runs in, which quitting
never waits for.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import ParamSpec, TypeVar

from textual.dom import DOMNode

T = TypeVar("T")
P = ParamSpec("P")


class DaemonExecutor(ThreadPoolExecutor):
    """Runs each task in a new daemon thread; shutting down never waits for them.

    The app makes this its loop's default executor (where Textual runs thread workers, joined
    at exit): ``q`` then returns at once, abandoning the workers still running, which only
    read or write a file by renaming a finished copy into place. A :class:`ThreadPoolExecutor`
    only because asyncio accepts no other kind; none of the pool's own threads is started.
    """

    def __init__(self, name: str = "piview-worker") -> None:
        super().__init__(max_workers=1, thread_name_prefix=name)
        self._name = name
        self._count = 0
        self._lock = threading.Lock()
        self._closed = False

    def submit(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> Future[T]:
        """Start ``fn(*args, **kwargs)`` in a new daemon thread; return its future."""
        future: Future[T] = Future()
        with self._lock:
            if self._closed:
                raise RuntimeError("cannot schedule new work after shutdown")
            self._count += 1
            name = f"{self._name}-{self._count}"

        def run() -> None:
            if not future.set_running_or_notify_cancel():
                return
            try:
                result = fn(*args, **kwargs)
            except BaseException as exc:  # noqa: BLE001 - handed to the future's owner
                future.set_exception(exc)
            else:
                future.set_result(result)

        threading.Thread(target=run, name=name, daemon=True).start()
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Refuse new work; never wait for the threads (they are daemons, left to run out)."""
        with self._lock:
            self._closed = True

    def running(self) -> list[threading.Thread]:
        """The threads of this executor still alive."""
        prefix = f"{self._name}-"
        return [t for t in threading.enumerate() if t.name.startswith(prefix) and t.is_alive()]


def compute_off_thread(
    node: DOMNode,
    compute: Callable[[], T],
    done: Callable[[T | None], None],
    *,
    group: str,
    description: str,
) -> None:
    """Run ``compute`` in a thread worker of ``node``, then call ``done`` with its result on
    the UI thread, or with None if it raised (the worker logs the error)."""

    def work() -> None:
        result: T | None = None
        try:
            result = compute()
        finally:
            with contextlib.suppress(RuntimeError):  # the app closed meanwhile
                node.app.call_from_thread(done, result)

    node.run_worker(work, thread=True, group=group, description=description, exit_on_error=False)
