"""Provides :class:`FileIndex`: a session file's lines read into skeletons, positions and bad lines.

The file is read in chunks from where the last read stopped; a last line without a newline is
kept pending (Pi may be writing it). The caller passes a read-only descriptor."""

from __future__ import annotations

import os
from array import array
from bisect import bisect_left
from collections.abc import Iterable
from dataclasses import dataclass, field
from operator import attrgetter, sub

import msgspec

from piview.model.decode import (
    BadLineError,
    SkEntry,
    decode_skeleton,
    finish_skeleton,
    sk_decoder,
)
from piview.model.fill import load as load_fill
from piview.model.openclaw import SIDE_KEY
from piview.model.store import NodeStore
from piview.model.types import SessionHeader, TitleSlot

_CHUNK = 1024 * 1024
"""Bytes read and decoded at once: while a block's bytes and skeletons are still in the CPU's
cache, blocks of this size cost less CPU than larger ones."""
_TYPE_OF = attrgetter("type")
BOM = b"\xef\xbb\xbf"
"""The UTF-8 byte order mark, skipped before the first line."""
_WS = b" \t\r"
_SLOT_PEEK = 4096
"""Bytes read to find a title slot (oh-my-pi writes 256)."""
_slot_decoder = msgspec.json.Decoder(TitleSlot)
_fill = load_fill()


def read_slot(head: bytes) -> tuple[TitleSlot, int] | None:
    """The title slot that ``head`` (the first bytes of a file) starts with, and the bytes of
    its line with the newline; ``None`` when line 1 is not a complete title slot."""
    start = 3 if head.startswith(BOM) else 0
    nl = head.find(b"\n", start)
    if nl < 0 or b'"title"' not in head[start:nl]:
        return None
    line = head[start:nl].strip()
    try:
        slot = _slot_decoder.decode(line)
    except msgspec.ValidationError:
        # A slot with odd values is still the slot (tolerant): keep what has the right type.
        try:
            obj = msgspec.json.decode(line)
        except msgspec.DecodeError:
            return None
        if not isinstance(obj, dict) or obj.get("type") != "title":
            return None

        def text(key: str) -> str | None:
            value = obj.get(key)
            return value if isinstance(value, str) else None

        slot = TitleSlot(title=text("title"), source=text("source"), updated_at=text("updatedAt"))
    except msgspec.DecodeError:
        return None
    return slot, nl + 1


@dataclass(frozen=True, slots=True)
class BadLine:
    """A line that was skipped: its 1-based number and a short reason."""

    line: int
    reason: str
    torn: bool = False
    """The last line of the file, without a newline: Pi may still be writing it."""


@dataclass(slots=True)
class FileIndex:
    """Byte positions and decoded skeletons of every entry, in file order, with the header,
    the bad lines and where the reading stopped (what the index cache saves and restores)."""

    nodes: NodeStore = field(default_factory=NodeStore)
    lines: array[int] = field(default_factory=lambda: array("q"))
    offsets: array[int] = field(default_factory=lambda: array("q"))
    lengths: array[int] = field(default_factory=lambda: array("q"))
    header: SessionHeader | None = None
    header_line: int | None = None
    bad_lines: list[BadLine] = field(default_factory=list)
    size: int = 0
    """Bytes of the file that were read (up to the end of the last complete line)."""
    line_no: int = 0
    """Number of the last complete line read."""
    seen: int = 0
    """Bytes of the file the last read saw, its unterminated last line included."""
    tail: BadLine | None = None
    """The unterminated last line, when it did not decode (dropped and read again)."""
    tail_entry: bool = False
    """The last entry is an unterminated last line (dropped and read again)."""
    prior: int = 0
    """Entries before this index's first one (a :meth:`piece` reads on after them)."""
    title_slot: TitleSlot | None = None
    """oh-my-pi's line 1, the current title (neither an entry nor a bad line)."""
    slot_bytes: int = 0
    """Bytes of the title slot's line, newline included (0: the file has none)."""
    side_at: array[int] | None = None
    """Where OpenClaw's side-note key (:data:`~piview.model.openclaw.SIDE_KEY`) is in the
    lines read, when asked for; None: not looked for (the file is searched again for it)."""

    def read_title_slot(self, fd: int) -> bool:
        """Read the title slot again (oh-my-pi rewrites it in place); True when it changed.
        Only a file whose line 1 was a slot when first read has one."""
        found = read_slot(os.pread(fd, self.slot_bytes or _SLOT_PEEK, 0))
        if found is None or (self.slot_bytes and found[1] != self.slot_bytes):
            return False  # torn mid-rewrite, or not a slot: keep what was read
        if self.size == 0 and self.line_no == 0:
            self.slot_bytes = found[1]
            self.size = self.seen = found[1]
            self.line_no = 1
        elif not self.slot_bytes:
            return False
        changed = found[0] != self.title_slot
        self.title_slot = found[0]
        return changed

    @property
    def version(self) -> int:
        """The header's version; 1 when absent (as Pi reads it)."""
        v = self.header.version if self.header is not None else None
        return v if isinstance(v, int) else 1

    def consume(self, fd: int, *, final: bool, end: int | None = None) -> int:
        """Index the complete lines after :attr:`size`; return how many entries were added.

        With ``final`` a pending last line is decoded too (it is read again next time either
        way); ``end`` stops the reading at that byte.
        """
        # The pending last line of the previous call is read again, now maybe complete.
        self._drop_pending()
        before = len(self.nodes)
        if self.size == 0 and self.line_no == 0:
            self.read_title_slot(fd)  # oh-my-pi's line 1: the title, not an entry
        base = self.size
        line_no = self.line_no
        # One buffer for every block, read from just after the last complete line (the partial
        # line is read again with the next block): a new buffer per block faults every page.
        want = _CHUNK
        buf = bytearray()
        while True:
            n = want if end is None else min(want, end - base)
            if n > len(buf):
                buf = bytearray(n)
            got = _read_into(fd, buf, n, base) if n > 0 else 0
            last = buf.rfind(b"\n", 0, got)
            if last >= 0:
                line_no = self._take_block(buf, last + 1, base, line_no)
                if self.side_at is not None:
                    _find_all(self.side_at, buf, last + 1, base)
            if got < n or end is not None and base + got >= end:
                carry = bytes(buf[last + 1 : got])  # the end of the file (or of what was asked)
                base += last + 1
                break
            base += last + 1
            # A line longer than the block: read it again with more.
            want = _CHUNK if last >= 0 else 2 * want
        self.size = base
        self.line_no = line_no
        self.seen = base + len(carry)
        if carry and final:
            if self.side_at is not None:
                _find_all(self.side_at, carry, len(carry), base)  # dropped with the line
            start = 3 if base == 0 and carry.startswith(BOM) else 0
            view = memoryview(carry)
            count = len(self.nodes)
            self.tail = self._take(view, start, len(carry), base, line_no + 1, torn=True)
            # A complete but unterminated object is an entry; re-read when the file grows.
            self.tail_entry = len(self.nodes) > count
            view.release()
        return len(self.nodes) - before

    def snapshot(self) -> FileIndex:
        """A copy of this index as it is now, for the index cache to write in a worker while
        polls add to this one (linear, at C speed)."""
        return FileIndex(
            nodes=self.nodes.snapshot(),
            lines=self.lines[:],
            offsets=self.offsets[:],
            lengths=self.lengths[:],
            header=self.header,
            header_line=self.header_line,
            bad_lines=list(self.bad_lines),
            size=self.size,
            line_no=self.line_no,
            seen=self.seen,
            tail=self.tail,
            tail_entry=self.tail_entry,
            prior=self.prior,
        )

    def piece(self) -> FileIndex:
        """An empty index reading on from where this one stopped (its pending line again), for
        a poll's worker to read into and :meth:`absorb` to add."""
        return FileIndex(
            nodes=_Pending(),
            header=self.header,
            header_line=self.header_line,
            size=self.size,
            line_no=self.line_no,
            seen=self.size,
            prior=len(self.nodes) - (1 if self.tail_entry else 0),
        )

    def piece_entries(self) -> list[SkEntry]:
        """The skeletons a :meth:`piece` read, in file order (a new list)."""
        pending = self.nodes
        assert isinstance(pending, _Pending)
        return list(pending.entries)

    def absorb(self, piece: FileIndex) -> int:
        """Add what :meth:`piece` read (it must be this index's latest piece); return how many
        entries were added. Linear in the piece only."""
        self._drop_pending()  # the piece read that line again
        before = len(self.nodes)
        pending = piece.nodes
        assert isinstance(pending, _Pending)
        self.nodes.extend(pending.entries)
        self.lines.extend(piece.lines)
        self.offsets.extend(piece.offsets)
        self.lengths.extend(piece.lengths)
        self.bad_lines.extend(piece.bad_lines)
        if self.header is None and piece.header is not None:
            self.header = piece.header
            self.header_line = piece.header_line
        if piece.slot_bytes and not self.slot_bytes:  # a file that was empty got its slot
            self.slot_bytes = piece.slot_bytes
            self.title_slot = piece.title_slot
        self.size = piece.size
        self.line_no = piece.line_no
        self.seen = piece.seen
        self.tail = piece.tail
        self.tail_entry = piece.tail_entry
        self.side_at = None  # a poll's piece looks for side notes itself
        return len(self.nodes) - before

    def _take_block(self, buf: bytes | bytearray, end: int, base: int, line_no: int) -> int:
        """Index the complete lines in ``buf[:end]``; return the last line number.

        One ``decode_lines`` call for the whole block; a block with a line that is not a
        clean, well-typed object is read again line by line, tolerantly.
        """
        start = 3 if base == 0 and buf.startswith(BOM) else 0
        if start >= end:
            return line_no
        # Line ends by find (no copy of each line, unlike split); blank lines make the counts
        # differ below and the slow pass runs; spaces or a CR around a line only widen it.
        count: int
        padded: bool
        if _fill is not None:
            count, offsets, lengths, padded = _fill.line_spans(buf, start, end, base)
        else:
            ends = _line_ends(buf, start, end)
            count = len(ends)
        try:
            with memoryview(buf) as view:
                values = sk_decoder.decode_lines(view[start:end])
        except (msgspec.ValidationError, msgspec.DecodeError, RecursionError):
            values = None
        if values is not None and len(values) == count:
            # A header line, an old file's roles and a line with spaces or a CR around it take
            # the slow pass, so what a line becomes does not depend on where its block starts.
            if "session" not in map(_TYPE_OF, values) and not self._legacy_hint():
                if _fill is None:
                    starts = array("q", [start])
                    starts.extend(map((1).__add__, ends[:-1]))
                    padded = _padded(buf, starts, ends)
                if not padded:
                    self.nodes.extend(values)
                    self.lines.extend(range(line_no + 1, line_no + 1 + count))
                    if _fill is None:
                        self.lengths.extend(map(sub, ends, starts))
                        self.offsets.extend(map(base.__add__, starts))
                    else:
                        self.lengths.frombytes(lengths)
                        self.offsets.frombytes(offsets)
                    return line_no + count
            return self._take_lines(buf, start, end, base, line_no, values)
        return self._take_lines(buf, start, end, base, line_no)

    def _take_lines(
        self,
        buf: bytes | bytearray,
        start: int,
        end: int,
        base: int,
        line_no: int,
        decoded: list[SkEntry] | None = None,
    ) -> int:
        """:meth:`_take_block` for a block that needs each line looked at (``decoded``: its
        lines, already decoded, when there is no blank line)."""
        spans: list[tuple[int, int, int]] = []
        pos = start
        n = line_no
        find = buf.find
        append = spans.append
        while pos < end:
            nl = find(b"\n", pos, end)
            n += 1
            s, e = pos, nl
            # Pi writes no padding; trim (CRLF, indentation) only when a line has some.
            if s < e and (buf[s] <= 32 or buf[e - 1] <= 32):
                while s < e and buf[s] in _WS:
                    s += 1
                while e > s and buf[e - 1] in _WS:
                    e -= 1
            if s < e:
                append((n, s, e))
            pos = nl + 1
        values = decoded
        if values is None:
            try:
                values = sk_decoder.decode_lines(buf[start:end]) if spans else []
            except (msgspec.ValidationError, msgspec.DecodeError, RecursionError):
                values = None
        if values is None or len(values) != len(spans):
            view = memoryview(buf)
            for ln, s, e in spans:
                self._take(view, s, e, base, ln)
            view.release()
            return n
        legacy = self._legacy_hint()
        batch: list[SkEntry] = []
        for (ln, s, e), sk in zip(spans, values, strict=True):
            if sk.type == "session" or legacy:
                value = finish_skeleton(sk, bytes(buf[s:e]), legacy=legacy)
                if isinstance(value, SessionHeader):
                    self.nodes.extend(batch)
                    batch = []
                    self._take_header(value, ln)
                    legacy = self._legacy_hint()
                    continue
                sk = value
            batch.append(sk)
            self.lines.append(ln)
            self.offsets.append(base + s)
            self.lengths.append(e - s)
        self.nodes.extend(batch)
        return n

    def _take_header(self, header: SessionHeader, line_no: int) -> None:
        if self.header is None and not self.nodes and not self.prior:
            self.header = header
            self.header_line = line_no
        else:
            self.bad_lines.append(BadLine(line_no, "extra session header (ignored)"))

    def _drop_pending(self) -> None:
        """Forget the pending last line (a torn bad line, or an entry read before its line
        was complete): it is read again."""
        if self.side_at is not None and (self.tail is not None or self.tail_entry):
            del self.side_at[bisect_left(self.side_at, self.size) :]
        if self.tail is not None:
            self.bad_lines.remove(self.tail)
            self.tail = None
        if self.tail_entry:
            self._drop_last_entry()
            self.tail_entry = False

    def _drop_last_entry(self) -> None:
        self.nodes.truncate(len(self.nodes) - 1)
        self.lines.pop()
        self.offsets.pop()
        self.lengths.pop()

    def _take(
        self,
        view: memoryview,
        start: int,
        end: int,
        base: int,
        line_no: int,
        *,
        torn: bool = False,
    ) -> BadLine | None:
        # Trim ASCII whitespace (CRLF, blank lines) without copying the line.
        while start < end and view[start] in b" \t\r":
            start += 1
        while end > start and view[end - 1] in b" \t\r":
            end -= 1
        if start == end:
            return None
        data = view[start:end]
        try:
            value = decode_skeleton(data, legacy=self._legacy_hint())
        except BadLineError as exc:
            reason = str(exc)
            if torn:
                reason = f"incomplete last line ({reason})"
            bad = BadLine(line_no, reason, torn=torn)
            self.bad_lines.append(bad)
            return bad
        except RecursionError:
            bad = BadLine(line_no, "JSON nested too deeply", torn=torn)
            self.bad_lines.append(bad)
            return bad
        if isinstance(value, SessionHeader):
            self._take_header(value, line_no)
            return None
        self.nodes.append(value)
        self.lines.append(line_no)
        self.offsets.append(base + start)
        self.lengths.append(end - start)
        return None

    def _legacy_hint(self) -> bool:
        return self.version < 3 if self.header is not None else False


def _line_ends(buf: bytes | bytearray, start: int, end: int) -> array[int]:
    """Where the newlines of ``buf[start:end]`` are (:mod:`piview.model.fill` does it all
    at once)."""
    ends = array("q")
    add = ends.append
    find = buf.find
    pos = start
    while (nl := find(b"\n", pos, end)) >= 0:
        add(nl)
        pos = nl + 1
    return ends


def _find_all(out: array[int], buf: bytes | bytearray, end: int, base: int) -> None:
    """Add where :data:`SIDE_KEY` is in ``buf[:end]`` (as file positions, ``buf`` read at
    ``base``) to ``out`` (C speed; a side note is rare)."""
    if _fill is not None:  # memmem: three times bytes.find's speed on this needle
        out.frombytes(_fill.find_all(buf, SIDE_KEY, end, base))
        return
    find = buf.find
    hit = find(SIDE_KEY, 0, end)
    while hit >= 0:
        out.append(base + hit)
        hit = find(SIDE_KEY, hit + 1, end)


def _read_into(fd: int, buf: bytearray, n: int, offset: int) -> int:
    """Read up to ``n`` bytes at ``offset`` into the start of ``buf`` (short only at the end
    of the file); how many were read."""
    total = 0
    with memoryview(buf) as view:
        while total < n:
            with view[total:n] as part:
                got = os.preadv(fd, [part], offset + total)
            if got <= 0:
                break
            total += got
    return total


def _padded(buf: bytes | bytearray, starts: array[int], ends: array[int]) -> bool:
    """Whether a line of ``buf`` (none empty) starts or ends with a space, tab or CR."""
    at = buf.__getitem__
    edges = bytes(map(at, starts)) + bytes(map(at, map((-1).__add__, ends)))
    return len(edges.translate(None, _WS)) != len(edges)


class _Pending(NodeStore):
    """The skeletons a :meth:`FileIndex.piece` read, kept as they are (the index's own store
    takes them in :meth:`FileIndex.absorb`)."""

    __slots__ = ("entries",)

    def __init__(self) -> None:
        super().__init__()
        self.entries: list[SkEntry] = []

    def extend(self, sks: Iterable[SkEntry]) -> None:
        """Keep the skeletons of the next entries."""
        self.entries.extend(sks)

    def truncate(self, n: int) -> None:
        """Drop every entry from index ``n`` on."""
        del self.entries[n:]

    def __len__(self) -> int:
        return len(self.entries)
