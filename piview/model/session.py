"""Provides :class:`Session`: a session file loaded read-only into an index and a tree.

Full entries are decoded only when asked for, from the line at its byte offset, and kept in a
small LRU cache. The file is never written, renamed, locked or truncated.
"""

from __future__ import annotations

import gc
import os
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

# What a first screen's tail (session_tail.py) needs; the rest is imported where it is used.
from piview.model.decode import BadLineError, decode_entry, decode_json
from piview.model.fileindex import BadLine, FileIndex
from piview.model.fsio import FileChangedError, open_readonly
from piview.model.idmap import take_id_map
from piview.model.labels import resolve_labels, session_name
from piview.model.openclaw import active_leaf, side_notes, side_notes_at
from piview.model.pairing import Pairing, pair_tool_calls
from piview.model.source import SqliteSession, SqliteSourceError, parse_sqlite_ref
from piview.model.store import F_NO_ID, ROLE_NAMES, NodeStore
from piview.model.store_ts import StoreTimestamps
from piview.model.stream import StreamKind, StreamSource, sniff_file
from piview.model.tree import Built, Tree, build_tree, build_tree_resolved
from piview.model.types import CompactionEntry, Entry, SessionHeader, UnknownEntry

if TYPE_CHECKING:
    from piview.model.index_cache import IndexCache

CACHE_MIN_BYTES = 16 * 1024 * 1024
"""Files smaller than this load faster from scratch than from the index cache."""


def tree_ids(tree: Tree) -> Mapping[str, int]:
    """``tree.id_index``, or for a tree reopened from the index cache
    :func:`~piview.model.index_extras.ids_of` (imported only then)."""
    if type(tree) is Tree:
        return tree.id_index
    from piview.model.index_extras import ids_of

    return ids_of(tree)


class SessionOpenError(OSError):
    """The file could not be opened or read; ``str()`` is one clear line for the user."""


class Session:
    """One session file: header, entries (as skeletons, full on demand), bad lines and tree.

    Entries are addressed by their index in file order (ids are not unique in every file).
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.sqlite_ref = parse_sqlite_ref(path)
        """For an OpenClaw database's ``DB#ID``: the database and the session in it."""
        self.stream: StreamKind | None = None
        """For Pi's event stream (``--mode json``, RPC, piview's capture): its kind; the
        entries are folded from it (:mod:`piview.model.stream`)."""
        self._source: SqliteSession | StreamSource | None = None
        self.stream_start = 0
        """For :func:`~piview.model.session_tail.load_tail` of a stream: where its fold starts."""
        self.index = FileIndex()
        """The entries' skeletons and line positions, the header and the bad lines."""
        self.ids: list[str] = []
        self.tree: Tree = build_tree([], [], [])
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
        self._identity: tuple[int, int] = (0, 0)
        self.strict = False
        """Commands set it: a file that shrinks or is replaced while read raises
        :class:`FileChangedError` (the viewer follows such a file instead)."""

    # ----------------------------------------------------------------- basic facts

    def __len__(self) -> int:
        # The tree's: during a poll's rebuild the index holds new entries no reader may see.
        return len(self.tree.parents)

    @property
    def nodes(self) -> NodeStore:
        """Skeletons of every entry, in file order (columns; ``nodes[i]`` builds one)."""
        return self.index.nodes

    @property
    def header(self) -> SessionHeader | None:
        """The file's session header, if one came before any entry."""
        return self.index.header

    @property
    def header_line(self) -> int | None:
        """The 1-based line number of the header."""
        return self.index.header_line

    @property
    def bad_lines(self) -> list[BadLine]:
        """The lines that were skipped."""
        return self.index.bad_lines

    @property
    def size(self) -> int:
        """Bytes of the file that were read (up to the end of the last complete line)."""
        return self.index.size

    @property
    def version(self) -> int:
        """The header's version; 1 when absent (as Pi reads it)."""
        return self.index.version

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
    def cached_pairing(self) -> Pairing | None:
        """The pairing if it was computed (None: :attr:`pairing` would compute it now)."""
        return self._pairing

    @property
    def cached_labels(self) -> dict[int, str] | None:
        """The labels if they were resolved (None: :attr:`labels` would resolve them now)."""
        return self._labels

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

    @property
    def title(self) -> str | None:
        """oh-my-pi's title: its title slot, else the header's ``title``, else the latest
        ``title_change`` (``None`` in Pi files)."""
        slot = self.index.title_slot
        header = self.header
        for value in (
            slot.title if slot is not None else None,
            header.title if header is not None else None,
        ):
            if isinstance(value, str) and value.strip():
                return value.strip()
        store = self.nodes
        for i in reversed(list(store.of_type("title_change"))):
            value = store[i].title
            if isinstance(value, str) and value.strip():
                return value.strip()
        return None

    @property
    def stem(self) -> str:
        """A name for files made from this session (exports): the file's name without its
        suffix; for a database's session, the database's and the session id."""
        ref = self.sqlite_ref
        return f"{ref.db.stem}-{ref.session_id}" if ref is not None else self.path.stem

    def modified(self) -> float | None:
        """When the session last changed: the file's modification time, or the time of a
        database session's newest event; None when unknown."""
        if self.sqlite_ref is not None or self.stream is not None:
            return self._source.updated if self._source is not None else None
        try:
            return os.stat(self.path).st_mtime
        except OSError:
            return None

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
        if len(data) < n and self.strict:
            raise FileChangedError(f"{self.path}: the file changed while it was read (it shrank)")
        return data

    def raw(self, i: int) -> Any:
        """Entry ``i`` as plain JSON values, exactly as written: unknown fields included;
        ``None`` if the line changed on disk since it was indexed and no longer decodes."""
        try:
            return decode_json(self.read_line(i))
        except (BadLineError, RecursionError):
            if self.strict:
                raise FileChangedError(f"{self.path}: the file changed while it was read") from None
            return None

    def entry(self, i: int) -> Entry:
        """Entry ``i`` fully decoded and migrated (ids, roles), from a small LRU cache."""
        with self._lock:  # the search worker decodes entries too
            hit = self._cache.get(i)
            if hit is not None:
                self._cache.move_to_end(i)
                return hit
        try:
            line = self.read_line(i)
            value, notes = decode_entry(line, legacy=self.version < 3)
        except (BadLineError, RecursionError) as exc:
            # The line decoded when indexed; it can only fail now if the file was rewritten.
            if self.strict:
                raise FileChangedError(f"{self.path}: the file changed while it was read") from None
            value, notes = UnknownEntry(raw=None), [f"cannot decode: {exc}"]
        if notes:
            self.repairs[i] = notes
        entry: Entry = value
        entry.id = self.ids[i]
        p = self.tree.parents[i]
        entry.parent_id = self.ids[p] if p >= 0 else None
        if isinstance(entry, CompactionEntry):
            entry.first_kept_entry_id = self.nodes[i].first_kept_entry_id
        from piview.model.blobs import resolve_blobs  # oh-my-pi keeps images beside sessions

        resolve_blobs(entry, self.path)
        with self._lock:
            self._cache[i] = entry
            if len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return entry

    def is_side_note(self, i: int) -> bool:
        """True when entry ``i`` is an OpenClaw side note (``appendMode: "side"``), not a new
        branch (found when the tree was built: :attr:`Tree.side`)."""
        return i in self.tree.side

    def pread(self, n: int, offset: int) -> bytes:
        """``n`` bytes of the file at ``offset`` (safe from any thread)."""
        return os.pread(self._ensure_fd(), n, offset)

    def file_descriptor(self) -> int:
        """The file, opened read-only (once; safe from any thread)."""
        return self._ensure_fd()

    def forget(self, i: int) -> None:
        """Drop what is cached of entry ``i`` (its line is read again)."""
        with self._lock:
            self._cache.pop(i, None)
        self.repairs.pop(i, None)

    def _ensure_fd(self) -> int:
        with self._lock:
            if self._fd is None:
                if self.sqlite_ref is not None or self.stream is not None:
                    # The rows (events) are append-only: read again, the same prefix.
                    self._fd = self._open_source().fd
                else:
                    fd = _open_readonly(self.path)
                    st = os.fstat(fd)
                    if self.strict and (st.st_dev, st.st_ino) != self._identity:
                        os.close(fd)
                        raise FileChangedError(f"{self.path}: the file was replaced while read")
                    self._fd = fd
            return self._fd

    def _open_source(self) -> SqliteSession | StreamSource:
        try:
            if self.stream is not None:
                self._source = StreamSource(self.path, self.stream, self.stream_start)
            else:
                assert self.sqlite_ref is not None
                self._source = SqliteSession(self.sqlite_ref)
        except SqliteSourceError as exc:
            raise SessionOpenError(str(exc)) from None
        except OSError as exc:
            raise SessionOpenError(f"cannot read {self.path}: {exc.strerror or exc}") from None
        return self._source

    @property
    def stream_source(self) -> StreamSource | None:
        """The event stream this session is folded from (None for a session file)."""
        source = self._source
        return source if isinstance(source, StreamSource) else None

    def close(self) -> None:
        """Close the file descriptor (reopened on demand)."""
        with self._lock:
            if self._source is not None:
                self._source.close()  # its descriptor is the stream's: closed with it
                self._source = None
            elif self._fd is not None:
                os.close(self._fd)
            self._fd = None

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001 - nothing useful to do at interpreter exit
            pass

    # ----------------------------------------------------------------- loading

    _legacy_ids = False
    _id_map: dict[str, int] | None = None

    def _load(self, cache: IndexCache | None = None) -> None:
        from piview.model.index_extras import adopt
        from piview.model.memory import release_free_memory
        from piview.model.split import SPLIT_MIN_BYTES, read_all

        if self.sqlite_ref is None and self.stream is None:
            fd = _open_readonly(self.path)
            self.stream = sniff_file(fd)  # an event stream: by its content, not its name
            if self.stream is not None:
                os.close(fd)
            else:
                self._fd = fd
                st = os.fstat(fd)
                self._identity = (st.st_dev, st.st_ino)
                if st.st_size < CACHE_MIN_BYTES:
                    cache = None  # a small file loads faster from scratch
        if self.sqlite_ref is not None or self.stream is not None:
            source = self._open_source()
            if isinstance(source, SqliteSession):
                self.path = Path(str(source.ref))  # the full session id, not the prefix given
                self.sqlite_ref = source.ref
            fd = self._fd = source.fd
            cache = None  # rebuilt in memory from the database or the stream: nothing to save
        was_enabled = gc.isenabled()
        gc.disable()  # many small objects: collections during the load only cost time
        try:
            found = cache.restore_with_extras(self.path, fd) if cache is not None else None
            restored, extras = found if found is not None else (None, None)
            if restored is not None:
                self.index = restored
            added = read_all(self.index, fd, fresh=restored is None)
            if restored is not None:
                # The slot is rewritten in place and not cached: read it again.
                self.index.read_title_slot(fd)
            if extras is None or added or not adopt(self, extras):
                self._finish()
        finally:
            if was_enabled:
                gc.enable()
        if self.index.size >= SPLIT_MIN_BYTES:
            release_free_memory()  # what the load freed, before the views are built on it
        self.index_cache = cache
        self.index_from_cache = restored is not None
        self._index_dirty = cache is not None and (restored is None or added > 0)

    index_cache: IndexCache | None = None
    """Where this session's index is cached (None: not cached, e.g. a small file)."""
    partial = False
    """True for :func:`load_tail`: only the end of the file is indexed."""
    index_from_cache = False
    """True when the index came (at least in part) from the cache."""
    _index_dirty = False

    def save_index(self, index: FileIndex | None = None) -> bool:
        """Write the index to the cache when it changed since it was read; True when written.
        A worker passes ``index``, an :meth:`index_snapshot` taken on the polling thread."""
        if self.index_cache is None or not self._index_dirty:
            return False
        from piview.model.index_extras import capture

        fd = self._ensure_fd()
        index = index if index is not None else self.index
        self.index_cache.store(index, self.path, fd, capture(self, index, complete=False))
        self._index_dirty = False
        return True

    @property
    def index_unsaved(self) -> bool:
        """Whether :meth:`save_index` would write the index (it changed since it was read)."""
        return self.index_cache is not None and self._index_dirty

    def index_snapshot(self) -> FileIndex:
        """A copy of the index as it is now (for :meth:`save_index` in a worker)."""
        return self.index.snapshot()

    def poll(self) -> str:
        """Look for changes on disk: ``"none"``, ``"appended"``, ``"title"`` (only oh-my-pi's
        title slot was rewritten) or ``"replaced"`` (the caller should load it again)."""
        from piview.model.follow import absorb, install, look, rebuild

        retitled = self.retitle()
        found = look(self)
        if found.change == "replaced":
            return "replaced"
        if found.change == "grown":
            if not absorb(self, found):
                install(self, rebuild(self))
            if found.shows_more:
                return "appended"
        return "title" if retitled else "none"

    def retitle(self) -> bool:
        """Read oh-my-pi's title slot again (256 bytes; it is rewritten in place, same size,
        so neither the size nor a coarse mtime tells): True when the title changed."""
        if self._source is not None or self.index.slot_bytes <= 0:
            return False
        try:
            return self.index.read_title_slot(self._ensure_fd())
        except OSError:
            return False

    def stat_change(self) -> Literal["none", "grown", "replaced"]:
        """What one ``stat`` says of the file: ``"none"``, ``"grown"`` or ``"replaced"``; an
        OpenClaw database's session first reads its newer rows into the stream."""
        index = self.index
        if self.sqlite_ref is not None or self.stream is not None:
            try:
                self._ensure_fd()
                assert self._source is not None
                if self._source.refresh() < 0:
                    return "replaced"
            except OSError:
                return "none"
            return "none" if self._source.size == index.seen else "grown"
        try:
            st = os.stat(self.path)
        except OSError:
            return "none"
        if (st.st_dev, st.st_ino) != self._identity or st.st_size < index.size:
            return "replaced"
        return "none" if st.st_size == index.seen else "grown"

    def _finish(self) -> None:
        self._id_map = take_id_map(self.nodes)  # the store's map of ids: the tree's (_build)
        self.install(self.build())

    def build(self) -> Built:
        """The ids and the tree of the entries indexed so far, without changing what the
        session shows (a worker may call this); :meth:`install` them."""
        built = self._build()
        # OpenClaw's side notes: the few lines naming appendMode are found in one pass.
        index = self.index
        if index.side_at is not None:  # found as the file was read
            side = side_notes_at(index.side_at, self.pread, index.offsets, index.lengths)
        else:
            side = side_notes(self.pread, index.offsets, index.lengths)
        built.tree.side = frozenset(side)
        return built

    def _build(self) -> Built:
        store, n, id_map, self._id_map = self.nodes, len(self.nodes), self._id_map, None
        legacy = self._legacy_ids
        if (
            self.header is None
            and n
            and all(store.flags[i] & F_NO_ID for i in range(min(n, 50)))
            or self.header is not None
            and self.version < 2
        ):
            legacy = True
        if self.header is None or self.version < 3:
            custom = ROLE_NAMES.index("custom")
            for i, node in store.whole.items():
                if node.message is not None and node.message.role == "hookMessage":
                    node.message.role = "custom"
                    store.roles[i] = custom
        lines = self.index.lines
        if legacy:
            # As Pi's migrateV1ToV2, with deterministic ids: a linear chain in file order.
            ids, id_map = [f"L{line}" for line in lines], None
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
                return Built(ids, build_tree(ids, refs, StoreTimestamps(store)), legacy)
        tree = build_tree_resolved(ids, preceding, forward, StoreTimestamps(store), id_map)
        return Built(ids, tree, legacy)

    def install(
        self,
        built: Built,
        *,
        pairing: Pairing | None = None,
        labels: dict[int, str] | None = None,
    ) -> None:
        """Make ``built`` (and the pairing and labels computed from it, when given) what the
        session shows. Only assignments: cheap on the UI thread."""
        self._legacy_ids = built.legacy
        self.ids = built.ids
        self.tree = built.tree
        self.nodes.rebase(tree_ids(built.tree))  # a reopened tree makes its map on first use
        self._pairing = pairing
        self._labels = labels
        self.derived = {}  # a new dict: a worker may still read the old one
        if len(self):
            # OpenClaw's leaf entries and trailing side notes: only the last lines are read.
            self.tree.active = active_leaf(
                len(self), self.nodes.etype, self.read_line, tree_ids(self.tree)
            )


def _open_readonly(path: Path) -> int:
    try:
        return open_readonly(path)  # a device, a socket, a folder: refused before the open
    except OSError as exc:
        raise SessionOpenError(str(exc)) from None


def load_session(path: str | os.PathLike[str], *, index_cache: IndexCache | None = None) -> Session:
    """Load a session file read-only; bad lines are kept in :attr:`Session.bad_lines`.

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
