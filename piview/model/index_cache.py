"""Provides the on-disk cache of a session's index, so that reopening a big file is quick.

Used when the file has the same size and modification time, extended when it only grew; the
:class:`~piview.model.index_extras.Extras` are used only when it has not grown."""

from __future__ import annotations

import contextlib
import os
import zlib
from array import array
from collections.abc import Callable
from pathlib import Path
from typing import Any, get_type_hints

import msgspec

from piview.model.decode import SkBlock
from piview.model.fileindex import BadLine, FileIndex
from piview.model.index_extras import Extras
from piview.model.store_lazy import DEFERRED, Frame, defer, frame_count
from piview.model.store_state import StoreState, column, store_from_columns, store_state
from piview.model.types import SessionHeader

_FORMAT = 10
_MAGIC = b"PVIDX\x00\x00\x0a"
_PROBE = 4096
_LEN = 8
_CRC = 4
"""Each frame is its length, the CRC-32 of its bytes, then the bytes (damage is found before
any of it is used)."""


class _Header(msgspec.Struct, array_like=True):
    """The first frame: what the cached index was made from, checked before the rest."""

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
    slot_bytes: int = 0
    """oh-my-pi's title slot (its bytes; the title itself is read again from the file)."""


_ARRAYS = ("lines", "offsets", "lengths")
"""The file index's own arrays, one frame each after the header."""
_FIELDS = StoreState.__struct_fields__
"""Then one frame per field of the node store, and a last one of extras (or nil)."""


def _default_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "piview" / "index"


def _probe(fd: int, size: int) -> str:
    start = max(0, size - _PROBE)
    import hashlib  # here: OpenSSL takes a few ms to load, and the viewer starts without it

    return hashlib.blake2b(os.pread(fd, size - start, start), digest_size=16).hexdigest()


class IndexCache:
    """Index files in ``directory`` (default ``$XDG_CACHE_HOME/piview/index``): checksummed
    msgpack frames, written and read one at a time (no second copy of a big index)."""

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory or _default_dir()
        self._encoder = msgspec.msgpack.Encoder()
        self._header = msgspec.msgpack.Decoder(_Header)
        self._bytes = msgspec.msgpack.Decoder(bytes)
        hints = get_type_hints(StoreState)
        self._fields = {name: msgspec.msgpack.Decoder(hints[name]) for name in _FIELDS}
        self._strict_patterns = msgspec.msgpack.Decoder(list[list[SkBlock]])
        self._extras = msgspec.msgpack.Decoder(Extras | None)

    def _file_for(self, path: Path) -> Path:
        import hashlib

        key = hashlib.blake2b(str(path.resolve()).encode(), digest_size=16).hexdigest()
        return self.directory / f"{key}.index"

    def restore_with_extras(self, path: Path, fd: int) -> tuple[FileIndex, Extras | None] | None:
        """The cached index of ``path`` (open as ``fd``) when it matches the file, and the extras
        of the cached entries (None when absent or undecodable); else None."""
        try:
            with open(self._file_for(path), "rb") as f:
                return self._restore(fd, f.fileno())
        except (OSError, ValueError, msgspec.DecodeError, msgspec.ValidationError):
            return None
        except (TypeError, KeyError, IndexError, OverflowError, MemoryError):
            # A frame that checks but does not fit (written by a piview of another build):
            # a cache, read again from the session file.
            return None

    def _restore(self, fd: int, cache_fd: int) -> tuple[FileIndex, Extras | None] | None:
        if os.pread(cache_fd, len(_MAGIC), 0) != _MAGIC:
            return None
        pos = len(_MAGIC)
        total = os.fstat(cache_fd).st_size

        def raw() -> bytes:
            nonlocal pos
            prefix = os.pread(cache_fd, _LEN + _CRC, pos)
            n = int.from_bytes(prefix[:_LEN], "little")
            if len(prefix) != _LEN + _CRC or pos + _LEN + _CRC + n > total:
                raise ValueError("truncated cache file")
            data = os.pread(cache_fd, n, pos + _LEN + _CRC)
            if len(data) != n:
                raise ValueError("truncated cache file")
            if zlib.crc32(data) != int.from_bytes(prefix[_LEN:], "little"):
                raise ValueError("damaged cache file")
            pos += _LEN + _CRC + n
            return data

        def frame(decoder: msgspec.msgpack.Decoder[Any]) -> Any:
            # One frame in memory at a time: the peak stays at the largest frame.
            return decoder.decode(raw())

        head: _Header = frame(self._header)
        st = os.fstat(fd)
        if head.format != _FORMAT or head.size > st.st_size:
            return None
        if head.size == st.st_size and head.mtime_ns != st.st_mtime_ns:
            return None  # rewritten in place with the same size
        if _probe(fd, head.size) != head.probe:
            return None
        lines, offsets, lengths = (array("q", frame(self._bytes)) for _ in _ARRAYS)
        # Each frame is converted as it is read: its raw form is freed before the next one
        # (but the deferred columns', kept until the store first reads them).
        columns: dict[str, Any] = {}
        for name in _FIELDS:
            if name in DEFERRED:
                # Decoded on first read (piview info never reads them): kept as bytes.
                data = raw()
                columns[name] = Frame(data, frame_count(data), self._decoder_of(name))
            else:
                columns[name] = column(name, frame(self._fields[name]))
        nodes = defer(store_from_columns(columns))
        del columns
        n = len(nodes)
        if len(lines) != n or len(offsets) != n or len(lengths) != n:
            raise ValueError("inconsistent cached index")
        extras: Extras | None = None
        with contextlib.suppress(ValueError, msgspec.DecodeError, msgspec.ValidationError):
            extras = frame(self._extras)  # damaged: the index is still good, they are computed
        if extras is not None and extras.entries != n:
            extras = None
        index = FileIndex(
            nodes=nodes,
            lines=lines,
            offsets=offsets,
            lengths=lengths,
            header=head.header,
            header_line=head.header_line,
            bad_lines=[BadLine(k, r) for k, r in head.bad_lines],
            size=head.size,
            line_no=head.line_no,
            slot_bytes=head.slot_bytes,
        )
        return index, extras

    def _decoder_of(self, name: str) -> Callable[[bytes], Any]:
        """How a deferred column's frame becomes the column."""
        loose = self._fields[name]
        if name != "patterns":
            return lambda data: column(name, loose.decode(data))
        strict = self._strict_patterns

        def patterns(data: bytes) -> Any:
            # As SkBlocks when every value is in their literal sets; else loosely.
            try:
                value = strict.decode(data)
            except msgspec.ValidationError:
                value = loose.decode(data)
            return column(name, value)

        return patterns

    def store(self, index: FileIndex, path: Path, fd: int, extras: Extras | None = None) -> None:
        """Write ``index``, of the session file ``path`` open as ``fd`` (up to its last complete
        line), and the ``extras`` computed from exactly its entries. Errors are ignored."""
        st = os.fstat(fd)
        if index.tail_entry:  # an unterminated last entry is not cached
            return  # rare (Pi is writing the last line): the next run caches it
        head = _Header(
            format=_FORMAT,
            path=str(path),
            size=index.size,
            mtime_ns=st.st_mtime_ns,
            probe=_probe(fd, index.size),
            line_no=index.line_no,
            header=index.header,
            header_line=index.header_line,
            bad_lines=[(b.line, b.reason) for b in index.bad_lines if not b.torn],
            slot_bytes=index.slot_bytes,
        )
        state = store_state(index.nodes)
        frames = [
            head,
            *(memoryview(getattr(index, name)).cast("B") for name in _ARRAYS),
            *(getattr(state, name) for name in _FIELDS),
            extras if extras is not None and extras.entries == len(index.nodes) else None,
        ]
        target = self._file_for(path)
        tmp = target.with_suffix(f".{os.getpid()}.tmp")
        buf = bytearray()
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            with open(tmp, "wb") as f:
                f.write(_MAGIC)
                for value in frames:
                    self._encoder.encode_into(value, buf)
                    f.write(len(buf).to_bytes(_LEN, "little"))
                    f.write(zlib.crc32(buf).to_bytes(_CRC, "little"))
                    f.write(buf)
            os.replace(tmp, target)
        except (OSError, OverflowError, TypeError, ValueError):
            # OverflowError: an entry kept whole with an integer msgpack cannot hold (a usage
            # of 2**64 tokens, hand-edited): that file is not cached, and loads as it is.
            with contextlib.suppress(OSError):
                tmp.unlink()
