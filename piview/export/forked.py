"""Provides :class:`ForkedPart`: the last part of ``piview print`` drawn by a forked child.

Drawing a long branch is CPU work in one interpreter; a child forked once the session is
loaded (it shares the loaded index, copy on write) draws the second half while the parent
draws and writes the first. The child's text goes to an unlinked temporary file in frames
(length, items done, text), so the parent, once its half is written, copies whole frames to
the output as they come: the output streams in order. When the child stops early (killed, an
error) the parent knows how many items it completed and draws the rest itself.
"""

from __future__ import annotations

import contextlib
import os
import signal
import struct
import tempfile
import time
from collections.abc import Callable
from typing import IO

from piview.model import forking

_HEAD = struct.Struct("<QQ")  # bytes of text, items completed so far
_POLL = 0.005  # seconds between looks at the file while the child is still drawing

Sink = Callable[[str, int], None]
"""Where drawn text goes: ``sink(text, items_done)``."""


def busy_cpus() -> float:
    """CPUs other processes keep busy now: on Linux the tasks running (``/proc/loadavg``,
    less this one, the fewest of three looks), elsewhere the load average of the last minute."""
    try:
        samples = []
        for k in range(3):  # the fewest of a few looks: a task that runs on shows in all
            if k:
                time.sleep(0.002)
            with open("/proc/loadavg", encoding="ascii") as f:
                samples.append(int(f.read().split()[3].split("/")[0]))
        return max(0, min(samples) - 1)
    except (OSError, IndexError, ValueError):
        pass
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return 0.0


def can_fork() -> bool:
    """True where a second process can draw: a fork is safe (:func:`forking.can_fork`), more
    than one CPU is usable and one is idle (on a busy machine two processes only compete for
    one core)."""
    if not forking.can_fork():
        return False
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return cpus > 1 and busy_cpus() <= cpus - 2


class ForkedPart:
    """A child process running ``work(sink)``; the parent reads back what it wrote.

    Use as a context manager: leaving it (normally, on an error, on a closed pipe) ends the
    child if it is still running and removes its file.
    """

    def __init__(self, work: Callable[[Sink], None]) -> None:
        self._file: IO[bytes] = tempfile.TemporaryFile(prefix="piview-print-")  # noqa: SIM115
        self._fd = self._file.fileno()
        self._offset = 0
        self.done = 0
        """Items whose text has been read back."""
        self.status: int | None = None
        pid = forking.fork()
        if pid is None:  # no fork (another thread runs): as a child that did nothing
            self.status, self._pid = 1, 0
            return
        if pid == 0:  # the child: draw, then leave without running the parent's exit code
            code = 1
            try:
                work(self._write)
                code = 0
            except BaseException:  # noqa: BLE001, S110 - the parent draws what is missing
                pass
            finally:
                os._exit(code)
        self._pid = pid

    def _write(self, text: str, items: int) -> None:
        data = memoryview(
            _HEAD.pack(len(text.encode("utf-8", "surrogateescape")), items)
            + text.encode("utf-8", "surrogateescape")
        )
        while data:
            data = data[os.write(self._fd, data) :]

    def _frame(self) -> str | None:
        """The next whole frame's text (``None`` when it is not all written yet)."""
        head = os.pread(self._fd, _HEAD.size, self._offset)
        if len(head) < _HEAD.size:
            return None
        size, items = _HEAD.unpack(head)
        data = os.pread(self._fd, size, self._offset + _HEAD.size)
        if len(data) < size:
            return None
        self._offset += _HEAD.size + size
        self.done = items
        return data.decode("utf-8", "surrogateescape")

    def copy(self, write: Callable[[str], None]) -> bool:
        """Pass the child's text to ``write`` frame by frame until it has ended; True when it
        finished its work (else :attr:`done` says how many items it completed)."""
        while True:
            text = self._frame()
            if text is not None:
                write(text)
                continue
            if self.status is None:
                pid, status = os.waitpid(self._pid, os.WNOHANG)
                if pid == 0:
                    time.sleep(_POLL)
                    continue
                self.status = os.waitstatus_to_exitcode(status)
                continue  # read what it wrote before it ended
            return self.status == 0

    def __enter__(self) -> ForkedPart:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.status is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self._pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self._pid, 0)
            self.status = -signal.SIGKILL
        self._file.close()
