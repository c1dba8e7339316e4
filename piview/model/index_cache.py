"""Provides the on-disk cache of a session's index, so reopening a big file is near-instant.

The index (skeletons, line numbers, byte offsets, bad lines) is written as msgpack under the
user cache directory, never beside the session file. A cached index is used when the file has
the same size and modification time; when the file has only grown (Pi appended to it) and the
bytes just before the cached end are unchanged, the cached index is extended with the new lines
instead of being rebuilt.
"""

from __future__ import annotations

import hashlib
import os
from array import array
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from piview.model.store import NodeStore, StoreState
from piview.model.types import SessionHeader

if TYPE_CHECKING:
    from piview.model.session import Session

__all__ = ["CACHE_MIN_BYTES", "IndexCache"]

CACHE_MIN_BYTES = 16 * 1024 * 1024
"""Files smaller than this load faster from scratch than from a cache."""

_FORMAT = 3
_PROBE = 4096


class _Cached(msgspec.Struct, array_like=True):
    format: int
    path: str
    size: int
    mtime_ns: int
    probe: str
    """Hash of the last bytes before ``size``: tells an append from a rewrite."""
    line_no: int
    header: SessionHeader | None
    header_line: int | None
    bad_lines: list[tuple[int, str]]
    nodes: StoreState
    lines: bytes
    offsets: bytes
    lengths: bytes


def _default_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "piview" / "index"


def _probe(fd: int, size: int) -> str:
    start = max(0, size - _PROBE)
    return hashlib.blake2b(os.pread(fd, size - start, start), digest_size=16).hexdigest()


class IndexCache:
    """Index files in ``directory`` (default ``$XDG_CACHE_HOME/piview/index``)."""

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory or _default_dir()
        self._decoder = msgspec.msgpack.Decoder(_Cached)
        self._encoder = msgspec.msgpack.Encoder()

    def _file_for(self, path: Path) -> Path:
        key = hashlib.blake2b(str(path.resolve()).encode(), digest_size=16).hexdigest()
        return self.directory / f"{key}.msgpack"

    def restore(self, session: Session, fd: int) -> bool:
        """Fill ``session`` from the cache when it matches the file; True when it did.

        The session is left at the cached end: the caller reads whatever follows.
        """
        st = os.fstat(fd)
        try:
            data = self._file_for(session.path).read_bytes()
            cached = self._decoder.decode(data)
        except (OSError, msgspec.DecodeError, msgspec.ValidationError):
            return False
        if cached.format != _FORMAT or cached.size > st.st_size:
            return False
        if cached.size == st.st_size and cached.mtime_ns != st.st_mtime_ns:
            return False  # rewritten in place with the same size
        if _probe(fd, cached.size) != cached.probe:
            return False
        idx = session.index
        try:
            idx.nodes = NodeStore.from_state(cached.nodes)
        except ValueError:
            return False
        idx.lines = array("q", cached.lines)
        idx.offsets = array("q", cached.offsets)
        idx.lengths = array("q", cached.lengths)
        if len(idx.lines) != len(idx.nodes) or len(idx.offsets) != len(idx.nodes):
            session.index = type(session.index)()
            return False
        from piview.model.session import BadLine

        session.header = cached.header
        session.header_line = cached.header_line
        session.bad_lines = [BadLine(n, r) for n, r in cached.bad_lines]
        session.size = cached.size
        session._line_no = cached.line_no  # noqa: SLF001 - the session's own loader state
        return True

    def store(self, session: Session, fd: int) -> None:
        """Write the index of ``session`` (up to its last complete line). Errors are ignored."""
        st = os.fstat(fd)
        idx = session.index
        if session._tail_entry:  # noqa: SLF001 - an unterminated last entry is not cached
            return  # rare (Pi is writing the last line): the next run caches it
        cached = _Cached(
            format=_FORMAT,
            path=str(session.path),
            size=session.size,
            mtime_ns=st.st_mtime_ns,
            probe=_probe(fd, session.size),
            line_no=session._line_no,  # noqa: SLF001
            header=session.header,
            header_line=session.header_line,
            bad_lines=[(b.line, b.reason) for b in session.bad_lines if not b.torn],
            nodes=idx.nodes.state(),
            lines=idx.lines.tobytes(),
            offsets=idx.offsets.tobytes(),
            lengths=idx.lengths.tobytes(),
        )
        target = self._file_for(session.path)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = target.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_bytes(self._encoder.encode(cached))
            os.replace(tmp, target)
        except OSError:
            pass
