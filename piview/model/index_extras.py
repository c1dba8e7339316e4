"""Provides what the index cache keeps beside the index (tree, side notes, pairing, usage sums),
valid only for exactly the entries cached (:class:`Extras` names how many).
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import fields
from typing import Any, Protocol

import msgspec

from piview.model.fileindex import FileIndex
from piview.model.pairing import CallResults, Pairing, ResultCalls
from piview.model.store import NodeStore
from piview.model.tree import Built, Children, Tree
from piview.model.usage import SUMS_KEY, UsageTotals, info_sums

__all__ = [
    "SUMS_KEY",
    "Extras",
    "PairingState",
    "TreeState",
    "adopt",
    "capture",
    "extras_of",
    "ids_of",
    "pairing_from",
    "sums_from",
    "tree_from",
]

_SUMS = ("path", "all", "tools", "summaries")
"""The sums kept; a cache of other sums (an older piview's) is not adopted."""
_SHIFT = 20
"""A call's code is ``entry << _SHIFT | block`` (:mod:`piview.model.pairing`)."""
_TOTALS = tuple(f.name for f in fields(UsageTotals))


class TreeState(msgspec.Struct, array_like=True):
    """A :class:`~piview.model.tree.Tree`, its ids and side notes, as the cache keeps them
    (arrays as views of the frame)."""

    parents: memoryview
    start: memoryview
    items: memoryview
    roots: list[int]
    orphans: list[int]
    self_parents: list[int]
    cycles: list[int]
    duplicate_ids: dict[str, list[int]]
    side: list[int]
    legacy: bool
    ids: list[str] | None
    """The session's ids when they are not the store's (version 1, entries without an id)."""
    leaves: memoryview | None = None
    """The leaves, when they were asked for (``piview info`` lists them)."""
    path_leaf: int = -1
    path: memoryview | None = None
    """The last long path asked for (the current branch's) and its leaf."""


class PairingState(msgspec.Struct, array_like=True):
    """A :class:`~piview.model.pairing.Pairing`'s arrays, as the cache keeps them."""

    call_codes: memoryview
    results: memoryview
    result_entry: memoryview
    result_part: memoryview
    answered: int
    first: memoryview
    more: dict[int, list[int]]
    errors: list[int]


class Extras(msgspec.Struct, array_like=True):
    """What a session computed from its first ``entries`` entries."""

    entries: int
    tree: TreeState
    pairing: PairingState | None = None
    sums: dict[int, dict[str, list[int | float]]] = {}
    """Leaf → the usage sums of ``piview info`` for its branch (see :data:`SUMS_KEY`)."""


def _raw(values: array[int]) -> memoryview:
    # A view, not a copy: the cache encodes it as bytes.
    return memoryview(values).cast("B")


def extras_of(
    tree: Tree,
    ids: Sequence[str],
    store_ids: Sequence[str],
    legacy: bool,
    pairing: Pairing | None,
    sums: dict[int, dict[str, UsageTotals]],
) -> Extras:
    """The extras of a session whose tree, ids, pairing and sums all cover the same entries
    (the caller checks this)."""
    children = tree.children
    state = TreeState(
        parents=_raw(tree.parents),
        start=_raw(children.start),
        items=_raw(children.items),
        roots=list(tree.roots),
        orphans=tree.orphans,
        self_parents=tree.self_parents,
        cycles=tree.cycles,
        duplicate_ids=tree.duplicate_ids,
        side=sorted(tree.side),
        legacy=legacy,
        ids=None if ids == store_ids else list(ids),
    )
    leaves = tree._leaves  # noqa: SLF001 - what the tree computed once, kept as it is
    if leaves is not None:
        state.leaves = _raw(array("q", leaves))
    last = tree._last_path  # noqa: SLF001
    if last is not None:
        state.path_leaf, state.path = last[0], _raw(last[1])
    paired = None
    if pairing is not None:
        rc, cr = pairing.result_call, pairing.call_results
        paired = PairingState(
            call_codes=_raw(pairing.call_codes),
            results=_raw(pairing.results),
            result_entry=_raw(rc._entry),  # noqa: SLF001 - its own columns, kept as they are
            result_part=_raw(rc._part),  # noqa: SLF001
            answered=rc._count,  # noqa: SLF001
            first=_raw(cr._first),  # noqa: SLF001
            more=cr._more,  # noqa: SLF001
            errors=pairing.errors,
        )
    return Extras(
        entries=len(tree),
        tree=state,
        pairing=paired,
        sums={
            leaf: {k: [getattr(t[k], f) for f in _TOTALS] for k in _SUMS}
            for leaf, t in sums.items()
        },
    )


def _array(code: str, data: memoryview, n: int | None = None) -> array[int]:
    out = array(code)
    out.frombytes(data)
    if n is not None and len(out) != n:
        raise ValueError("inconsistent cached extras")
    return out


def _below(values: array[int], end: int) -> bool:
    """Every value below ``end`` (an index out of range would raise later; one below zero
    stops a walk up or is taken from the end, and does not)."""
    return not values or max(values) < end


_ID_INDEX: Any = Tree.__dict__["id_index"]
"""The tree's own slot for its map of ids (a member descriptor of the dataclass)."""


class _ReopenedTree(Tree):
    """A tree adopted from the index cache, whose map of ids is made on first use: it is
    a dict of every id, and ``piview info`` never reads it."""

    __slots__ = ("_ids",)

    def __init__(self, ids: list[str], **fields: Any) -> None:
        self._ids = ids
        super().__init__(id_index=None, **fields)  # type: ignore[arg-type]

    @property
    def id_index(self) -> dict[str, int]:
        """Id to entry index (the last entry with an id wins), made on first use."""
        try:
            found: dict[str, int] = _ID_INDEX.__get__(self, Tree)
        except AttributeError:
            # One C call, so another thread never sees half of it; two threads may both
            # make it, and each gets an equal map.
            found = dict(zip(self._ids, range(len(self._ids)), strict=True))
            _ID_INDEX.__set__(self, found)
        return found

    @id_index.setter
    def id_index(self, value: dict[str, int] | None) -> None:
        if value is not None:
            _ID_INDEX.__set__(self, value)


class _TreeIds(Mapping[str, int]):
    """A reopened tree's map of ids, made only when someone looks an id up in it (the
    store resolves the parents of appended entries through it)."""

    __slots__ = ("_tree",)

    def __init__(self, tree: Tree) -> None:
        self._tree = tree

    def __getitem__(self, key: str) -> int:
        return self._tree.id_index[key]

    def get(self, key: str, default: Any = None) -> Any:  # noqa: D102 - Mapping.get, faster
        return self._tree.id_index.get(key, default)

    def __contains__(self, key: object) -> bool:
        return key in self._tree.id_index

    def __iter__(self) -> Iterator[str]:
        return iter(self._tree.id_index)

    def __len__(self) -> int:
        return len(self._tree.id_index)


def ids_of(tree: Tree) -> Mapping[str, int]:
    """``tree.id_index``, or for a tree reopened from the cache whose map is not made yet, a
    view that makes it on the first look-up."""
    if isinstance(tree, _ReopenedTree):
        try:
            return _ID_INDEX.__get__(tree, Tree)  # type: ignore[no-any-return]
        except AttributeError:
            return _TreeIds(tree)
    return tree.id_index


def tree_from(extras: Extras, store_ids: list[str]) -> tuple[list[str], Tree, bool]:
    """The ids, tree and legacy flag kept in ``extras`` (raises ``ValueError`` when they do
    not fit ``store_ids``, the ids of the entries restored)."""
    st = extras.tree
    n = extras.entries
    if len(store_ids) != n:
        raise ValueError("inconsistent cached extras")
    ids = st.ids if st.ids is not None else list(store_ids)
    parents = _array("q", st.parents, n)
    start = _array("q", st.start, n + 1)
    items = _array("q", st.items)
    if (
        len(ids) != n
        or len(items) + len(st.roots) != n
        or (n and start[n] != len(items))
        or not _below(parents, n)
        or not _below(items, n)
    ):
        raise ValueError("inconsistent cached extras")
    tree = _ReopenedTree(
        ids,
        parents=parents,
        children=Children(start, items),
        roots=st.roots,
        orphans=st.orphans,
        self_parents=st.self_parents,
        cycles=st.cycles,
        duplicate_ids=st.duplicate_ids,
        side=frozenset(st.side),
    )
    if st.leaves is not None:
        leaves = _array("q", st.leaves)
        if not _below(leaves, n):
            raise ValueError("inconsistent cached extras")
        tree._leaves = leaves.tolist()  # noqa: SLF001
    if st.path is not None and 0 <= st.path_leaf < n:
        path = _array("q", st.path)
        if not path or path[-1] != st.path_leaf or not _below(path, n):
            raise ValueError("inconsistent cached extras")
        tree._last_path = (st.path_leaf, path)  # noqa: SLF001
    return ids, tree, st.legacy


def pairing_from(extras: Extras) -> Pairing | None:
    """The pairing kept in ``extras``, if one was."""
    st = extras.pairing
    if st is None:
        return None
    n = extras.entries
    codes = _array("q", st.call_codes)
    result_call = ResultCalls(0)
    result_call._entry = _array("i", st.result_entry, n)  # noqa: SLF001
    result_call._part = _array("i", st.result_part, n)  # noqa: SLF001
    result_call._count = st.answered  # noqa: SLF001
    call_results = CallResults(codes)
    call_results._first = _array("i", st.first, len(codes))  # noqa: SLF001
    call_results._more = st.more  # noqa: SLF001
    results = _array("q", st.results)
    if (
        not _below(codes, n << _SHIFT)
        or not _below(results, n)
        or not _below(result_call._entry, n)  # noqa: SLF001
        or not _below(call_results._first, n)  # noqa: SLF001
    ):
        raise ValueError("inconsistent cached extras")
    return Pairing(
        call_codes=codes,
        results=results,
        result_call=result_call,
        call_results=call_results,
        errors=st.errors,
    )


def sums_from(extras: Extras) -> dict[int, dict[str, UsageTotals]]:
    """The usage sums kept in ``extras``, by leaf."""
    out: dict[int, dict[str, UsageTotals]] = {}
    for leaf, by in extras.sums.items():
        if set(by) != set(_SUMS) or any(len(v) != len(_TOTALS) for v in by.values()):
            raise ValueError("inconsistent cached extras")
        out[leaf] = {k: UsageTotals(*by[k]) for k in _SUMS}  # type: ignore[arg-type]
    return out


class Session(Protocol):
    """What these functions use of :class:`piview.model.session.Session` (which imports
    this module)."""

    ids: list[str]
    tree: Tree
    derived: dict[object, Any]

    @property
    def nodes(self) -> NodeStore: ...
    @property
    def legacy_ids(self) -> bool: ...
    @property
    def pairing(self) -> Pairing: ...
    @property
    def cached_pairing(self) -> Pairing | None: ...
    def install(self, built: Built, *, pairing: Pairing | None = None) -> None: ...


def adopt(session: Session, extras: Extras) -> bool:
    """Install in ``session`` (just restored, no entry added) the tree, pairing and sums kept
    in ``extras``; False when they do not fit its entries (then nothing was changed)."""
    try:
        ids, tree, legacy = tree_from(extras, session.nodes.ids)
        pairing = pairing_from(extras)
        sums = sums_from(extras)
    except ValueError:
        return False
    session.nodes.rebase({})  # as a build does: the tree's map of ids replaces the store's
    session.install(Built(ids, tree, legacy), pairing=pairing)
    for leaf, by in sums.items():
        session.derived[(SUMS_KEY, leaf)] = by
    return True


def capture(session: Session, index: FileIndex, *, complete: bool) -> Extras | None:
    """What the index cache keeps beside ``index`` (the tree, and pairing and sums, computed
    now with ``complete``); None when the tree does not cover exactly ``index``'s entries."""
    tree = session.tree
    n = len(index.nodes)
    if not n or len(tree) != n or len(session.ids) != n:
        return None
    pairing = session.pairing if complete else session.cached_pairing
    if pairing is not None and len(pairing.result_call._entry) != n:  # noqa: SLF001
        pairing = None
    leaf = tree.leaf
    if complete and leaf is not None:
        tree.leaves()  # what piview info asks for: kept with the tree
        info_sums(session, leaf, tree.path(leaf))
    sums = {
        key[1]: value
        for key, value in session.derived.items()
        if isinstance(key, tuple) and len(key) == 2 and key[0] == SUMS_KEY
    }
    return extras_of(tree, session.ids, index.nodes.ids, session.legacy_ids, pairing, sums)
