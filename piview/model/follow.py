"""Provides following a session file in steps, the heavy ones off the UI thread.

:func:`look` (a worker) reads what Pi appended and, for plain appends, extends the tree,
pairing and labels; :func:`absorb` (the UI thread) installs them, or returns False and
:func:`rebuild` (a worker) recomputes the whole file for :func:`install`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, Protocol

from piview.model.decode import SkEntry
from piview.model.fileindex import FileIndex
from piview.model.labels import extend_labels, resolve_labels
from piview.model.openclaw import side_notes
from piview.model.pairing import Pairing, extend_pairing, pair_tool_calls
from piview.model.store import NodeStore
from piview.model.store_ts import StoreTimestamps
from piview.model.tree import Built, Tree, parse_iso_ms

__all__ = ["EXTEND_MAX", "Built", "Found", "Update", "absorb", "install", "look", "rebuild"]

EXTEND_MAX = 20_000
"""Appends of more entries than this (a long pause) rebuild the tree instead of extending it."""


class Session(Protocol):
    """What these steps use of :class:`piview.model.session.Session` (which imports them)."""

    index: FileIndex
    ids: list[str]
    tree: Tree

    def __len__(self) -> int: ...
    @property
    def nodes(self) -> NodeStore: ...
    @property
    def legacy_ids(self) -> bool: ...
    @property
    def version(self) -> int: ...
    @property
    def cached_pairing(self) -> Pairing | None: ...
    @property
    def cached_labels(self) -> dict[int, str] | None: ...
    def stat_change(self) -> Literal["none", "grown", "replaced"]: ...
    def file_descriptor(self) -> int: ...
    def pread(self, n: int, offset: int) -> bytes: ...
    def forget(self, i: int) -> None: ...
    def build(self) -> Built: ...
    def install(
        self,
        built: Built,
        *,
        pairing: Pairing | None = None,
        labels: dict[int, str] | None = None,
    ) -> None: ...


@dataclass(frozen=True, slots=True)
class Update:
    """The ids and tree of a session's entries, with their pairing and labels when known."""

    built: Built
    pairing: Pairing | None
    labels: dict[int, str] | None


@dataclass(frozen=True, slots=True)
class Found:
    """What :func:`look` found in the file."""

    change: Literal["none", "grown", "replaced"]
    """``grown``: there is a :attr:`piece` to :func:`absorb` (new entries, or only a torn
    line); ``replaced``: truncated, or another file at the path (load it again)."""
    piece: FileIndex | None = None
    added: int = 0
    """Entries in the piece."""
    header_arrived: bool = False
    """The piece holds the header of a file that had none."""
    extension: Update | None = None
    """The session extended by the piece (each new entry under an earlier one), else None."""
    plain: bool = False
    """The extension is a plain append: each new entry the child of the one before it, the
    first under the last entry (the branch shown grows at its end)."""
    base: int = 0
    """How many entries the session had when looked at (the piece reads on after them)."""

    @property
    def shows_more(self) -> bool:
        """Whether the session changes in a way the user sees (entries or a header)."""
        return self.added > 0 or self.header_arrived


def look(session: Session) -> Found:
    """Read what was appended to the file (safe in a worker: the session is only read)."""
    change = session.stat_change()
    if change != "grown":
        return Found(change)
    index = session.index
    session.nodes.prepare()  # here, not in absorb on the UI thread
    piece = index.piece()
    piece.consume(session.file_descriptor(), final=False)
    added = len(piece.nodes)
    header_arrived = index.header is None and piece.header is not None
    extension, plain = None, False
    if added and not header_arrived and not index.tail_entry:
        extended = _extend(session, piece.piece_entries(), piece)
        if extended is not None:
            extension, plain = extended
    return Found(
        "grown",
        piece=piece,
        added=added,
        header_arrived=header_arrived,
        extension=extension,
        plain=plain,
        base=len(session),
    )


def absorb(session: Session, found: Found) -> bool:
    """Add ``found``'s piece to the session (on the UI thread; linear in the piece). False
    when the tree must be rebuilt (:func:`rebuild`, then :func:`install`)."""
    assert found.piece is not None
    index = session.index
    if len(session) != found.base:
        raise ValueError("the session changed since the file was looked at")
    dropped = index.tail_entry
    if dropped:
        session.forget(len(session) - 1)  # the pending last line is read again
    index.absorb(found.piece)
    if found.extension is not None:
        install(session, found.extension)
        return True
    return not (found.added or found.header_arrived or dropped)


def rebuild(session: Session) -> Update:
    """The ids, tree, pairing and labels of every entry indexed (safe in a worker). The
    tree's leaves and the path to its leaf are computed here too (the tree keeps them)."""
    built = session.build()
    leaf = built.tree.leaf
    if leaf is not None:
        built.tree.path(leaf)
    built.tree.leaf_count()
    pairing = pair_tool_calls(session.nodes, built.tree)
    labels = resolve_labels(session.nodes, built.tree, built.ids)
    return Update(built, pairing, labels)


def install(session: Session, update: Update) -> None:
    """Make ``update`` what the session shows (assignments only)."""
    session.install(update.built, pairing=update.pairing, labels=update.labels)


def _extend(
    session: Session, entries: list[SkEntry], piece: FileIndex
) -> tuple[Update, bool] | None:
    """The session extended by ``entries`` when each hangs from an entry before it, and
    whether it is a plain append; else None."""
    if len(entries) > EXTEND_MAX or session.legacy_ids or session.version < 3:
        return None
    store, tree = session.nodes, session.tree
    n = len(tree)
    if not n or n != len(store) or store.missing_ids:
        return None
    id_index = tree.id_index
    orphan_refs = {store.forward_refs.get(i) for i in tree.orphans}
    ids: list[str] = []
    parents: list[int] = []
    fresh: dict[str, int] = {}
    chain = True  # each new entry the child of the one before, the first under the last
    prev = session.ids[n - 1]
    for j, sk in enumerate(entries):
        own, ref = sk.id, sk.parent_id
        # An id seen before (a repeated id, the missing parent of an orphan) changes how other
        # entries resolve; a new root or orphan reorders the roots: rebuild.
        if not own or own in id_index or own in fresh or own in orphan_refs or ref is None:
            return None
        p = fresh.get(ref)
        if p is None:
            p = id_index.get(ref)  # every entry so far precedes: the last with the id is nearest
            if p is None:
                return None
        chain = chain and ref == prev
        ids.append(own)
        parents.append(p)
        fresh[own] = n + j
        prev = own
    if chain and tree.children.size(n - 1):
        chain = False  # the last entry had children already (an OpenClaw leaf moved away)
    if _labels_wait_for(session, set(fresh)):
        return None
    # OpenClaw's side notes among the new lines (their offsets are the file's).
    found = frozenset(n + j for j in side_notes(session.pread, piece.offsets, piece.lengths))
    if chain:
        new_tree = tree.with_chain(ids, found)
    else:
        new_tree = tree.with_entries(parents, ids, _sort_key(store, entries, n), found)
    built = Built([*session.ids, *ids], new_tree, legacy=False)
    old_pairing = session.cached_pairing
    pairing = (
        extend_pairing(old_pairing, store, new_tree, entries) if old_pairing is not None else None
    )
    old_labels = session.cached_labels
    labels = None
    if old_labels is not None:
        labels = extend_labels(old_labels, enumerate(entries, n), new_tree, built.ids)
    return Update(built, pairing, labels), chain


def _sort_key(store: NodeStore, entries: list[SkEntry], n: int) -> Callable[[int], float]:
    """An entry's timestamp in ms, ``inf`` when invalid (how the tree orders siblings): from
    the store for its entries, from ``entries`` for those after them."""

    stamps = StoreTimestamps(store)

    def key(i: int) -> float:
        ms = stamps.ms(i) if i < n else parse_iso_ms(entries[i - n].timestamp)
        return float("inf") if ms is None else ms

    return key


def _labels_wait_for(session: Session, ids: set[str]) -> bool:
    """Whether a label names one of ``ids`` while no entry had it: resolving it would now
    find the new entry."""
    store = session.nodes
    id_index = session.tree.id_index
    for i in store.of_type("label"):
        target = store[i].target_id
        if isinstance(target, str) and target in ids and target not in id_index:
            return True
    return False
