"""Provides :class:`Session`: a session file loaded read-only into an index and a tree.

Loading reads the file in chunks (never the whole file at once), finds each line, and decodes
its skeleton (:mod:`piview.model.decode`). Full entries are decoded only when asked for, by
reading the line back from the file at its byte offset, and kept in a small LRU cache. The file
is opened read-only and never written, renamed, locked or truncated.
"""

from __future__ import annotations

import gc
import os
import threading
from array import array
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from operator import attrgetter, sub
from pathlib import Path
from typing import Any

import msgspec

from piview.model.decode import (
    BadLineError,
    SkEntry,
    decode_entry,
    decode_json,
    decode_skeleton,
    finish_skeleton,
    sk_decoder,
)
from piview.model.index_cache import CACHE_MIN_BYTES, IndexCache
from piview.model.labels import resolve_labels, session_name
from piview.model.pairing import Pairing, pair_tool_calls
from piview.model.store import F_NO_ID, ROLE_NAMES, NodeStore
from piview.model.tree import Tree, build_tree, build_tree_resolved
from piview.model.types import CompactionEntry, Entry, SessionHeader, UnknownEntry

__all__ = ["BadLine", "Session", "SessionOpenError", "load_session", "load_tail"]

_CHUNK = 8 * 1024 * 1024
_TYPE_OF = attrgetter("type")
_BOM = b"\xef\xbb\xbf"
_WS = b" \t\r"


class SessionOpenError(OSError):
    """The file could not be opened or read; ``str()`` is one clear line for the user."""


@dataclass(frozen=True, slots=True)
class BadLine:
    """A line that was skipped: its 1-based number and a short reason."""

    line: int
    reason: str
    torn: bool = False
    """The last line of the file, without a newline: Pi may still be writing it."""


@dataclass(slots=True)
class _Index:
    """Byte positions and decoded skeletons of every entry, in file order."""

    nodes: NodeStore = field(default_factory=NodeStore)
    lines: array[int] = field(default_factory=lambda: array("q"))
    offsets: array[int] = field(default_factory=lambda: array("q"))
    lengths: array[int] = field(default_factory=lambda: array("q"))


class Session:
    """One session file: header, entries (as skeletons, full on demand), bad lines and tree.

    Entries are addressed by their index in file order (``0 .. len(session) - 1``); ids are not
    unique in every file, indices are. ``ids[i]`` is the id of entry ``i`` after migration
    (``L<line>`` for version 1 files, which have none).
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.header: SessionHeader | None = None
        self.header_line: int | None = None
        self.bad_lines: list[BadLine] = []
        self.index = _Index()
        self.ids: list[str] = []
        self.tree: Tree = build_tree([], [], [])
        self.size = 0
        """Bytes of the file that were read (up to the end of the last complete line)."""
        self.repairs: dict[int, list[str]] = {}
        """Per entry index: fields dropped or wrapped while decoding it fully."""
        self._fd: int | None = None
        self._cache: OrderedDict[int, Entry] = OrderedDict()
        self._lock = threading.RLock()
        self._cache_size = 256
        self._pairing: Pairing | None = None
        self._labels: dict[int, str] | None = None
        self.derived: dict[object, Any] = {}
        """What other modules compute from the entries and keep per session (the branch
        panel's filters): emptied whenever entries are added or the tree is rebuilt."""
        self._line_no = 0
        self._tail: BadLine | None = None
        self._tail_entry = False
        self._seen = 0
        self._identity: tuple[int, int] = (0, 0)

    # ----------------------------------------------------------------- basic facts

    def __len__(self) -> int:
        return len(self.index.nodes)

    @property
    def nodes(self) -> NodeStore:
        """Skeletons of every entry, in file order (columns; ``nodes[i]`` builds one)."""
        return self.index.nodes

    @property
    def version(self) -> int:
        """The header's version; 1 when absent (as Pi reads it)."""
        v = self.header.version if self.header is not None else None
        return v if isinstance(v, int) else 1

    @property
    def legacy_ids(self) -> bool:
        """True when the entries had no ids and were given synthetic ones (version 1)."""
        return self._legacy_ids

    @property
    def pairing(self) -> Pairing:
        """Tool calls and results of the whole file, paired (computed once)."""
        if self._pairing is None:
            self._pairing = pair_tool_calls(self.nodes, self.tree)
        return self._pairing

    @property
    def labels(self) -> dict[int, str]:
        """Label of each labelled entry (computed once)."""
        if self._labels is None:
            self._labels = resolve_labels(self.nodes, self.tree, self.ids)
        return self._labels

    @property
    def name(self) -> str | None:
        """The session name from the latest ``session_info`` entry."""
        return session_name(self.nodes)

    def line_of(self, i: int) -> int:
        """The 1-based line number of entry ``i``."""
        return self.index.lines[i]

    def find(self, ref: str) -> int | None:
        """Resolve an id, or a unique id prefix, to an entry index (the last one in the file)."""
        exact = self.tree.id_index.get(ref)
        if exact is not None:
            return exact
        hits = {self.tree.id_index[k] for k in self.tree.id_index if k.startswith(ref)}
        return hits.pop() if len(hits) == 1 else None

    def find_all(self, prefix: str) -> list[str]:
        """Every id starting with ``prefix``."""
        return sorted(k for k in self.tree.id_index if k.startswith(prefix))

    # ----------------------------------------------------------------- full entries

    def line_length(self, i: int) -> int:
        """Bytes of entry ``i``'s line (without its newline)."""
        return self.index.lengths[i]

    def read_line(self, i: int) -> bytes:
        """The raw bytes of entry ``i``'s line (no newline)."""
        off, n = self.index.offsets[i], self.index.lengths[i]
        fd = self._ensure_fd()
        data = os.pread(fd, n, off)
        return data

    def raw(self, i: int) -> Any:
        """Entry ``i`` as plain JSON values, exactly as written: unknown fields included.

        ``None`` if the line changed on disk since it was indexed and no longer decodes.
        """
        try:
            return decode_json(self.read_line(i))
        except (BadLineError, RecursionError):
            return None

    def entry(self, i: int) -> Entry:
        """Entry ``i`` fully decoded and migrated (ids, roles), from a small LRU cache."""
        with self._lock:  # the search worker decodes entries too
            hit = self._cache.get(i)
            if hit is not None:
                self._cache.move_to_end(i)
                return hit
        try:
            value, notes = decode_entry(self.read_line(i), legacy=self.version < 3)
        except (BadLineError, RecursionError) as exc:
            # The line decoded when indexed; it can only fail now if the file was rewritten.
            value, notes = UnknownEntry(raw=None), [f"cannot decode: {exc}"]
        if notes:
            self.repairs[i] = notes
        entry: Entry = value
        entry.id = self.ids[i]
        p = self.tree.parents[i]
        entry.parent_id = self.ids[p] if p >= 0 else None
        if isinstance(entry, CompactionEntry):
            entry.first_kept_entry_id = self.nodes[i].first_kept_entry_id
        with self._lock:
            self._cache[i] = entry
            if len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return entry

    def _ensure_fd(self) -> int:
        with self._lock:
            if self._fd is None:
                self._fd = _open_readonly(self.path)
            return self._fd

    def close(self) -> None:
        """Close the file descriptor (reopened on demand)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001 - nothing useful to do at interpreter exit
            pass

    # ----------------------------------------------------------------- loading

    _legacy_ids = False

    def _load(self, cache: IndexCache | None = None) -> None:
        fd = _open_readonly(self.path)
        self._fd = fd
        st = os.fstat(fd)
        self._identity = (st.st_dev, st.st_ino)
        use_cache = cache is not None and st.st_size >= CACHE_MIN_BYTES
        was_enabled = gc.isenabled()
        gc.disable()  # many small objects: collections during the load only cost time
        try:
            restored = use_cache and cache.restore(self, fd)  # type: ignore[union-attr]
            added = self._consume(fd, final=True)
            self._finish()
        finally:
            if was_enabled:
                gc.enable()
        self.index_cache = cache if use_cache else None
        self.index_from_cache = bool(restored)
        self._index_dirty = use_cache and (not restored or added > 0)

    index_cache: IndexCache | None = None
    """Where this session's index is cached (None: not cached, e.g. a small file)."""
    partial = False
    """True for :func:`load_tail`: only the end of the file is indexed."""
    index_from_cache = False
    """True when the index came (at least in part) from the cache."""
    _index_dirty = False

    def save_index(self) -> bool:
        """Write the index to the cache when it changed since it was read; True when written.

        Safe to call from a worker thread: it only reads the index.
        """
        if self.index_cache is None or not self._index_dirty:
            return False
        fd = self._ensure_fd()
        self.index_cache.store(self, fd)
        self._index_dirty = False
        return True

    def _consume(self, fd: int, *, final: bool) -> int:
        """Index the complete lines after :attr:`size`; return how many entries were added.

        A last line without a newline is kept pending (Pi may be writing it right now): with
        ``final`` it is still decoded, as an entry if it parses, else as a torn bad line; it is
        read again on the next call either way.
        """
        before = len(self.index.nodes)
        # The pending last line of the previous call is read again, now maybe complete.
        if self._tail is not None:
            self.bad_lines.remove(self._tail)
            self._tail = None
        if self._tail_entry:
            self._drop_last_entry()
            self._tail_entry = False
            before -= 1
        base = self.size
        line_no = self._line_no
        carry = b""
        while True:
            chunk = os.pread(fd, _CHUNK, base + len(carry))
            if not chunk:
                break
            buf = carry + chunk if carry else chunk
            last = buf.rfind(b"\n")
            if last < 0:
                carry = buf
                continue
            line_no = self._take_block(buf, last + 1, base, line_no)
            carry = buf[last + 1 :]
            base += last + 1
        self.size = base
        self._line_no = line_no
        self._seen = base + len(carry)
        if carry and final:
            start = 3 if base == 0 and carry.startswith(_BOM) else 0
            view = memoryview(carry)
            count = len(self.index.nodes)
            self._tail = self._take(view, start, len(carry), base, line_no + 1, torn=True)
            # A complete but unterminated object is an entry; re-read when the file grows.
            self._tail_entry = len(self.index.nodes) > count
            view.release()
        return len(self.index.nodes) - before

    def _take_block(self, buf: bytes, end: int, base: int, line_no: int) -> int:
        """Index the complete lines in ``buf[:end]``; return the last line number.

        Fast path: one ``decode_lines`` call for the whole block, and line positions from a
        ``find`` per line. A block with blank lines or a header line takes a slower pass; when
        any line is not a clean, well-typed object, the block is read again line by line,
        tolerantly.
        """
        start = 3 if base == 0 and buf.startswith(_BOM) else 0
        if start >= end:
            return line_no
        # Line ends by find (no copy of each line, unlike split); blank lines make the counts
        # differ below and the slow pass runs; spaces or a CR around a line only widen it.
        ends = array("q")
        add = ends.append
        find = buf.find
        pos = start
        while (nl := find(b"\n", pos, end)) >= 0:
            add(nl)
            pos = nl + 1
        try:
            with memoryview(buf) as view:
                values = sk_decoder.decode_lines(view[start:end])
        except (msgspec.ValidationError, msgspec.DecodeError, RecursionError):
            values = None
        if values is not None and len(values) == len(ends):
            if "session" not in map(_TYPE_OF, values):  # a header line needs the slow pass
                idx = self.index
                count = len(ends)
                idx.nodes.extend(values)
                idx.lines.extend(range(line_no + 1, line_no + 1 + count))
                starts = array("q", [start])
                starts.extend(map((1).__add__, ends[:-1]))
                idx.lengths.extend(map(sub, ends, starts))
                idx.offsets.extend(map(base.__add__, starts))
                return line_no + count
            return self._take_lines(buf, start, end, base, line_no, values)
        return self._take_lines(buf, start, end, base, line_no)

    def _take_lines(
        self,
        buf: bytes,
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
        idx = self.index
        legacy = self._legacy_hint()
        batch: list[SkEntry] = []
        for (ln, s, e), sk in zip(spans, values, strict=True):
            if sk.type == "session" or legacy:
                value = finish_skeleton(sk, buf[s:e], legacy=legacy)
                if isinstance(value, SessionHeader):
                    idx.nodes.extend(batch)
                    batch = []
                    self._take_header(value, ln)
                    legacy = self._legacy_hint()
                    continue
                sk = value
            batch.append(sk)
            idx.lines.append(ln)
            idx.offsets.append(base + s)
            idx.lengths.append(e - s)
        idx.nodes.extend(batch)
        return n

    def _take_header(self, header: SessionHeader, line_no: int) -> None:
        if self.header is None and not self.index.nodes:
            self.header = header
            self.header_line = line_no
        else:
            self.bad_lines.append(BadLine(line_no, "extra session header (ignored)"))

    def _drop_last_entry(self) -> None:
        idx = self.index
        idx.nodes.truncate(len(idx.nodes) - 1)
        idx.lines.pop()
        idx.offsets.pop()
        idx.lengths.pop()

    def poll(self) -> str:
        """Look for changes on disk: ``"none"``, ``"appended"`` (the new complete lines were
        indexed and the tree rebuilt) or ``"replaced"`` (truncated or a different file: the
        caller should load it again). Never writes."""
        try:
            st = os.stat(self.path)
        except OSError:
            return "none"
        if (st.st_dev, st.st_ino) != self._identity or st.st_size < self.size:
            return "replaced"
        if st.st_size == self._seen:
            return "none"
        had_tail_entry = self._tail_entry
        added = self._consume(self._ensure_fd(), final=False)
        if added or had_tail_entry:
            self._finish()
        return "appended" if added > 0 else "none"

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
        idx = self.index
        idx.nodes.append(value)
        idx.lines.append(line_no)
        idx.offsets.append(base + start)
        idx.lengths.append(end - start)
        return None

    def _legacy_hint(self) -> bool:
        return self.version < 3 if self.header is not None else False

    def _finish(self) -> None:
        store = self.nodes
        n = len(store)
        if (
            self.header is None
            and n
            and all(store.flags[i] & F_NO_ID for i in range(min(n, 50)))
            or self.header is not None
            and self.version < 2
        ):
            self._legacy_ids = True
        if self.header is None or self.version < 3:
            custom = ROLE_NAMES.index("custom")
            for i, node in store.whole.items():
                if node.message is not None and node.message.role == "hookMessage":
                    node.message.role = "custom"
                    store.roles[i] = custom
        lines = self.index.lines
        store.rebase({})  # the full map of ids goes before the tree builds its own
        if self._legacy_ids:
            # As Pi's migrateV1ToV2, with deterministic ids: a linear chain in file order.
            ids = [f"L{line}" for line in lines]
            preceding: Sequence[int] = range(-1, n - 1)
            forward: dict[int, str] = {}
            for i in store.whole_indices():
                node = store.whole[i]
                k = node.first_kept_entry_index
                if node.type == "compaction" and isinstance(k, int) and 1 <= k <= n:
                    # The index counts the header as entry 0 of the parsed lines.
                    node.first_kept_entry_id = ids[k - 1]
        else:
            ids = list(store.ids)
            for i in store.missing_ids:
                ids[i] = f"L{lines[i]}"
            preceding = store.parent_at
            forward = store.forward_refs
            if store.missing_ids:
                # A parentId may name an entry by its made-up id: resolve all of them by name.
                refs = [store.parent_ref(i) for i in range(n)]
                self.ids = ids
                self.tree = build_tree(ids, refs, _Timestamps(store))
                store.rebase(self.tree.id_index)
                self._pairing = None
                self._labels = None
                self.derived.clear()
                return
        self.ids = ids
        self.tree = build_tree_resolved(ids, preceding, forward, _Timestamps(store))
        store.rebase(self.tree.id_index)
        self._pairing = None
        self._labels = None
        self.derived.clear()


class _Timestamps:
    """The entries' timestamps as a sequence, read from the store only when sorting."""

    __slots__ = ("_store",)

    def __init__(self, store: NodeStore) -> None:
        self._store = store

    def __getitem__(self, i: int) -> str | None:
        return self._store.timestamp(i)

    def __len__(self) -> int:
        return len(self._store)


def _open_readonly(path: Path) -> int:
    flags = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise SessionOpenError(f"no such file: {path}") from None
    except IsADirectoryError:
        raise SessionOpenError(f"is a directory, not a session file: {path}") from None
    except PermissionError:
        raise SessionOpenError(f"permission denied: {path}") from None
    except OSError as exc:
        raise SessionOpenError(f"cannot open {path}: {exc.strerror or exc}") from None
    try:
        import stat

        if stat.S_ISDIR(os.fstat(fd).st_mode):
            raise SessionOpenError(f"is a directory, not a session file: {path}")
    except SessionOpenError:
        os.close(fd)
        raise
    return fd


def load_tail(path: str | os.PathLike[str], max_bytes: int = 1024 * 1024) -> Session:
    """Load only the last ``max_bytes`` of a big file, for a first screen while the rest loads.

    The result has :attr:`Session.partial` set: entries whose parents lie before the window
    are roots, line numbers count from the window, and totals cover the window only. The
    header is still read from the first line.

    Raises:
        SessionOpenError: the file does not exist or cannot be read.
    """
    session = Session(Path(path))
    fd = _open_readonly(session.path)
    session._fd = fd
    try:
        st = os.fstat(fd)
        session._identity = (st.st_dev, st.st_ino)
        head = os.pread(fd, 64 * 1024, 0)
        nl = head.find(b"\n")
        if nl > 0:
            try:
                value = decode_skeleton(head[:nl].removeprefix(_BOM).strip())
            except (BadLineError, RecursionError):
                value = None
            if isinstance(value, SessionHeader):
                session.header = value
                session.header_line = 1
        start = max(0, st.st_size - max_bytes)
        if start > 0:
            window = os.pread(fd, min(max_bytes, 1024 * 1024), start)
            cut = window.find(b"\n")
            start = start + cut + 1 if cut >= 0 else st.st_size
            session.partial = True
        session.size = start
        was_enabled = gc.isenabled()
        gc.disable()
        try:
            session._consume(fd, final=True)
            session._finish()
        finally:
            if was_enabled:
                gc.enable()
    except OSError as exc:
        raise SessionOpenError(f"cannot read {path}: {exc.strerror or exc}") from None
    return session


def load_session(path: str | os.PathLike[str], *, index_cache: IndexCache | None = None) -> Session:
    """Load a session file read-only.

    Bad lines are recorded in :attr:`Session.bad_lines` and skipped; they never stop the load.

    Args:
        path: the session file.
        index_cache: reuse (and later :meth:`Session.save_index`) the index of big files.

    Raises:
        SessionOpenError: the file does not exist or cannot be read.
    """
    session = Session(Path(path))
    try:
        session._load(index_cache)
    except SessionOpenError:
        raise
    except OSError as exc:
        raise SessionOpenError(f"cannot read {path}: {exc.strerror or exc}") from None
    return session
