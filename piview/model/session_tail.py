"""Provides :func:`load_tail`: the last megabyte of a big session file, for a first screen
while the whole file loads in a worker."""

from __future__ import annotations

import gc
import os
from array import array
from pathlib import Path

from piview.model.decode import BadLineError, decode_skeleton
from piview.model.fileindex import BOM
from piview.model.session import Session, SessionOpenError, _open_readonly, load_session
from piview.model.source import parse_sqlite_ref
from piview.model.stream import StreamKind, sniff_file
from piview.model.types import SessionHeader


def load_tail(path: str | os.PathLike[str], max_bytes: int = 1024 * 1024) -> Session:
    """Load only the last ``max_bytes`` of a big file, for a first screen while the rest loads
    (:attr:`Session.partial` set). Raises SessionOpenError when it cannot be read."""
    if parse_sqlite_ref(path) is not None:
        return load_session(path)  # a database's session is rebuilt whole, in memory
    session = Session(Path(path))
    fd = _open_readonly(session.path)
    stream = sniff_file(fd)
    if stream is not None:
        size = os.fstat(fd).st_size
        os.close(fd)
        return _stream_tail(Path(path), stream, size, STREAM_TAIL_BYTES)
    session._fd = fd
    index = session.index
    try:
        st = os.fstat(fd)
        session._identity = (st.st_dev, st.st_ino)
        index.read_title_slot(fd)  # oh-my-pi: the header is line 2, after the title
        skip = index.slot_bytes
        head = os.pread(fd, 64 * 1024, skip)
        header_end = skip
        nl = head.find(b"\n")
        if nl > 0:
            try:
                value = decode_skeleton(head[:nl].removeprefix(BOM).strip())
            except (BadLineError, RecursionError):
                value = None
            if isinstance(value, SessionHeader):
                index.header = value
                index.header_line = 2 if skip else 1
                header_end = skip + nl + 1
        start = max(0, st.st_size - max_bytes)
        if start > 0:
            start = _after_newline(fd, start, min(max_bytes, 1024 * 1024), st.st_size)
            session.partial = True
        if start < header_end:  # the whole file fits: read on after the header
            start = header_end
            index.line_no = index.header_line or 0
        index.size = start
        # OpenClaw's side notes found in the blocks as they are read (as a whole load does),
        # not looked for by reading the window again.
        index.side_at = array("q")
        was_enabled = gc.isenabled()
        gc.disable()
        try:
            index.consume(fd, final=True)
            session._finish()
        finally:
            if was_enabled:
                gc.enable()
    except OSError as exc:
        raise SessionOpenError(f"cannot read {path}: {exc.strerror or exc}") from None
    return session


STREAM_TAIL_BYTES = 8 * 1024 * 1024
"""The end of a big event stream folded for its first screen: mostly message_update deltas,
the last megabyte may hold no whole message."""


def _stream_tail(path: Path, kind: StreamKind, size: int, max_bytes: int) -> Session:
    if size <= 2 * max_bytes:
        return load_session(path)
    session = Session(path)
    session.stream = kind
    session.stream_start = size - max_bytes
    try:
        session._load()
    except SessionOpenError:
        raise
    except OSError as exc:
        raise SessionOpenError(f"cannot read {path}: {exc.strerror or exc}") from None
    session.partial = True
    return session


def _after_newline(fd: int, start: int, limit: int, size: int) -> int:
    """Where the first line starting after ``start`` begins (looked for within ``limit``
    bytes, in small reads: a line is rarely long); ``size`` when there is none."""
    pos, want = start, 16 * 1024
    while pos < start + limit:
        data = os.pread(fd, min(want, start + limit - pos), pos)
        if not data:
            break
        cut = data.find(b"\n")
        if cut >= 0:
            return pos + cut + 1
        pos += len(data)
        want *= 4
    return size
