"""Provides what every layer needs of the file system at piview's edges (issue #26): what a
path is (a device or directory is refused, a FIFO is copied whole first) and atomic writes.
"""

from __future__ import annotations

import contextlib
import os
import select
import stat
import tempfile
import time
from collections.abc import Callable
from pathlib import Path


class InputKindError(OSError):
    """The path is not a file piview can read as a session (a device, a socket, a folder);
    ``str()`` is one line for the user."""


class FileChangedError(OSError):
    """The session file shrank or was replaced while piview read it; ``str()`` is one line."""


_KINDS = (
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
)


def input_kind(mode: int) -> str | None:
    """None for a regular file (``st_mode`` of :func:`os.stat`), else what it is in words
    (``"a character device"``, ``"a FIFO"``, …, else ``"not a regular file"``)."""
    if stat.S_ISREG(mode):
        return None
    for test, words in _KINDS:
        if test(mode):
            return words
    return "not a regular file"


def is_fifo(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a FIFO (a named pipe); False when it cannot be stat'ed."""
    try:
        return stat.S_ISFIFO(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def check_input(path: str | os.PathLike[str]) -> None:
    """Refuse a path that is not a regular file nor a FIFO, before it is opened (opening a
    device may block or read forever): raises :class:`InputKindError`."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return  # the open that follows says why (no such file, permission denied)
    kind = input_kind(mode)
    if kind is not None and kind != "a FIFO":
        raise InputKindError(f"{path}: is {kind}, not a session file")


def open_readonly(path: str | os.PathLike[str]) -> int:
    """A read-only descriptor of the session file ``path`` (a FIFO blocks until a writer).

    Raises:
        InputKindError, OSError: ``path`` is refused, or cannot be opened.
    """
    check_input(path)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise OSError(f"no such file: {path}") from None
    except IsADirectoryError:
        raise InputKindError(f"{path}: is a directory, not a session file") from None
    except PermissionError:
        raise OSError(f"permission denied: {path}") from None
    except OSError as exc:
        raise OSError(f"cannot open {path}: {exc.strerror or exc}") from None
    kind = input_kind(os.fstat(fd).st_mode)
    if kind is not None and kind != "a FIFO":  # replaced between the stat and the open
        os.close(fd)
        raise InputKindError(f"{path}: is {kind}, not a session file")
    return fd


FIFO_TICK = 0.1
"""Seconds between two looks at a FIFO (and at whether to stop) while it has nothing."""


def copy_fifo(
    path: str | os.PathLike[str],
    dest: str | os.PathLike[str],
    *,
    stop: Callable[[], bool],
    progress: Callable[[int], object] | None = None,
    tick: float = FIFO_TICK,
) -> bool:
    """Copy the FIFO ``path`` into the file ``dest`` until its writer closes it (True), or until
    ``stop()`` (False, checked every ``tick`` seconds); never blocks in ``open()`` or ``read()``.

    Raises:
        InputKindError, OSError: ``path`` is not a FIFO, or cannot be read or copied."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise OSError(f"no such file: {path}") from None
    except PermissionError:
        raise OSError(f"permission denied: {path}") from None
    try:
        if not stat.S_ISFIFO(os.fstat(fd).st_mode):
            raise InputKindError(f"{path}: is not a FIFO")
        poller = select.poll()
        poller.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
        got = 0
        with open(dest, "wb") as out:
            while not stop():
                if not poller.poll(int(tick * 1000)):
                    continue
                try:
                    chunk = os.read(fd, 1 << 20)
                except BlockingIOError:
                    continue
                if chunk:
                    out.write(chunk)
                    got += len(chunk)
                    if progress is not None:
                        progress(got)
                elif got:
                    return True  # the writer closed the stream
                else:
                    # A hang-up with nothing sent stays reported: look again in a tick.
                    time.sleep(tick)
        return False
    finally:
        os.close(fd)


def atomic_write(path: str | os.PathLike[str], data: bytes | str) -> Path:
    """Write ``data`` (text as UTF-8) to ``path`` whole or not at all: to a temporary file
    beside it, then renamed over it. Raises OSError; an earlier file is then left as it was."""
    target = Path(path)
    raw = data.encode("utf-8", errors="replace") if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(dir=target.parent or ".", prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(raw)
            f.flush()
            os.fsync(f.fileno())
        with contextlib.suppress(OSError):  # as a plain write would make it: umask applies
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return target
