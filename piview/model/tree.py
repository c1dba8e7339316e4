"""Provides the session tree: parents, ordered children, roots, leaves and paths.

A ``parentId`` resolves to the nearest preceding entry with that id, else the first later one,
else the entry is a root; cycles are broken; siblings are ordered by timestamp, then file order.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, insort
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from itertools import accumulate, compress, islice
from operator import eq
from typing import Any, NamedTuple, Protocol, overload


class Timestamps(Protocol):
    """The entries' timestamps as the tree reads them: by entry index, only to order siblings
    (a list, or a view that reads each one on demand)."""

    def __getitem__(self, i: int, /) -> object: ...


def parse_iso_ms(value: object) -> float | None:
    """Milliseconds since the epoch of an ISO-8601 timestamp, or ``None`` when invalid."""
    if not isinstance(value, str) or not value:
        return None
    try:
        dt = datetime.fromisoformat(value)
    except ValueError:
        return None
    if dt.tzinfo is None:
        return None if dt.year < 1 else _naive_ms(dt)
    try:
        return dt.timestamp() * 1000.0
    except (OverflowError, OSError, ValueError):
        return None


def _naive_ms(dt: datetime) -> float | None:
    try:
        return (dt - datetime(1970, 1, 1)).total_seconds() * 1000.0
    except OverflowError:
        return None


@dataclass(slots=True)
class Tree:
    """The entry tree of one file. Indices are entry indices in file order."""

    parents: array[int]
    """Parent index of each entry, ``-1`` for a root."""
    children: Children
    """Children of each entry, oldest first (timestamp, then file order)."""
    roots: list[int]
    """Entries whose parent is null, missing from the file, themselves, or cut from a cycle."""
    id_index: dict[str, int]
    """Id to entry index; with duplicate ids the last entry in the file wins (as in Pi)."""
    orphans: list[int] = field(default_factory=list)
    """Entries whose ``parentId`` names no entry in the file."""
    self_parents: list[int] = field(default_factory=list)
    """Entries whose ``parentId`` is their own id."""
    cycles: list[int] = field(default_factory=list)
    """Entries made roots to break a parent cycle."""
    duplicate_ids: dict[str, list[int]] = field(default_factory=dict)
    """Ids used by more than one entry, with every entry using them."""
    _leaves: list[int] | None = None
    _last_path: tuple[int, array[int]] | None = None
    active: int | None = None
    """The active leaf when the file says which it is (OpenClaw's ``leaf`` entries, side
    notes after it); None: the last entry is."""
    side: frozenset[int] = frozenset()
    """OpenClaw's side notes (``appendMode: "side"``): children of the entry they annotate
    that are never leaves and make no branch point (OpenClaw never makes one the leaf)."""
    _ints: tuple[int, list[int] | None] | None = field(default=None, compare=False, repr=False)

    def __len__(self) -> int:
        return len(self.parents)

    @property
    def leaf(self) -> int | None:
        """The current leaf: the last entry in file order (as Pi decides it), unless the file
        names another (:attr:`active`)."""
        if self.active is not None and 0 <= self.active < len(self.parents):
            return self.active
        return len(self.parents) - 1 if self.parents else None

    def leaves(self) -> list[int]:
        """Entries with no children but side notes, side notes left out, in file order
        (computed once: a tree never changes)."""
        if self._leaves is None:
            start = self.children.start
            n = len(self.parents)
            if not self.side:
                # No children: the same start as the next entry's (compared at C speed).
                childless = map(eq, islice(start, 0, n), islice(start, 1, n + 1))
                self._leaves = list(compress(range(n), childless))
            else:
                kids = self.branching_children()
                side = self.side
                self._leaves = [i for i in range(n) if not kids[i] and i not in side]
        return list(self._leaves)

    def branching_children(self) -> array[int]:
        """How many children of each entry are not side notes (a new array; linear)."""
        start = self.children.start
        kids = array("q", (start[i + 1] - start[i] for i in range(len(self.parents))))
        parents = self.parents
        for s in self.side:
            p = parents[s]
            if p >= 0:
                kids[p] -= 1
        return kids

    def leaf_count(self) -> int:
        """How many leaves the tree has."""
        if self._leaves is None:
            self.leaves()
        return len(self._leaves or ())

    def branch_points(self) -> list[int]:
        """Entries with two or more children that are not side notes, in file order."""
        if self.side:
            kids = self.branching_children()
            return [i for i in range(len(self.parents)) if kids[i] > 1]
        start = self.children.start
        return [i for i in range(len(self.parents)) if start[i + 1] - start[i] > 1]

    def path(self, i: int) -> list[int]:
        """Entries from the root down to ``i``, inclusive (a new list)."""
        last = self._last_path
        if last is not None and last[0] == i:
            # The screen and the branch panel ask for the same path (made of the pool's ints).
            ints = self.int_pool()
            path = last[1]
            return list(map(ints.__getitem__, path)) if ints is not None else path.tolist()
        out: list[int] = []
        parents = self.parents
        while i >= 0:
            out.append(i)
            i = parents[i]
        out.reverse()
        if len(out) > 1000:
            path = array("q", out)
            self._last_path = (out[-1], path)
            ints = self.int_pool()
            if ints is not None:
                return list(map(ints.__getitem__, path))  # and the new ints are freed
        return out

    def path_array(self, i: int) -> array[int]:
        """:meth:`path` as an array (no int object per entry), shared with the tree's cache of
        the last long path: do not change it."""
        last = self._last_path
        if last is not None and last[0] == i:
            return last[1]
        out = array("q")
        add = out.append
        parents = self.parents
        while i >= 0:
            add(i)
            i = parents[i]
        out.reverse()
        if len(out) > 1000:
            self._last_path = (out[-1], out)
            self.int_pool()  # here (a worker's call, for a big file), not on the next path
        return out

    def int_pool(self) -> list[int] | None:
        """The int objects 0 … n-1 that the map of ids holds (``pool[k] == k``), so that lists
        of indices hold no int of their own; None when the ids are repeated or missing."""
        n = len(self.parents)
        found = self._ints
        if found is None or found[0] != n:
            ints: list[int] | None = None
            try:  # the slot itself: a tree from the index cache makes its map on first use
                id_index = _ID_INDEX.__get__(self, Tree)
            except AttributeError:
                id_index = None
            if id_index is not None and len(id_index) == n:
                ints = list(id_index.values())
                if array("q", ints) != array("q", range(n)):
                    ints = None
            found = self._ints = (n, ints)
        return found[1]

    def depth(self, i: int) -> int:
        """Number of ancestors of ``i``."""
        d = 0
        parents = self.parents
        i = parents[i]
        while i >= 0:
            d += 1
            i = parents[i]
        return d

    def newest_leaf(self, i: int) -> int:
        """The leaf reached from ``i`` by always following the newest child (Pi's export rule)."""
        start, items = self.children.start, self.children.items
        while start[i + 1] > start[i]:
            i = items[start[i + 1] - 1]
        return i

    def is_ancestor(self, a: int, b: int) -> bool:
        """True when ``a`` is ``b`` or one of its ancestors."""
        parents = self.parents
        while b >= 0:
            if b == a:
                return True
            b = parents[b]
        return False

    def _grown(
        self, parents: array[int], children: Children, ids: Sequence[str], side: frozenset[int]
    ) -> Tree:
        """This tree's faults and roots with new ``parents``/``children`` and ``ids`` added
        after its last entry (the new entries are neither roots nor faults)."""
        n = len(self.parents)
        id_index = dict(self.id_index)
        id_index.update(zip(ids, range(n, n + len(ids)), strict=True))
        old = self._ints  # carried over (not made again on the UI thread for the next path)
        pool = old[1] if old is not None and old[0] == n else None
        ints = None if pool is None else (len(parents), [*pool, *range(n, len(parents))])
        return Tree(
            parents=parents,
            children=children,
            roots=self.roots,
            id_index=id_index,
            orphans=self.orphans,
            self_parents=self.self_parents,
            cycles=self.cycles,
            duplicate_ids=self.duplicate_ids,
            side=side,
            _ints=ints,
        )

    def with_chain(self, ids: Sequence[str], side: frozenset[int] = frozenset()) -> Tree:
        """A new tree: this one and, after its last entry, a chain of one new entry per id
        of ``ids`` (Pi appending to its leaf); ``side``: the new side notes. This one is
        left as it was.
        """
        n, k = len(self.parents), len(ids)
        if not n:
            raise ValueError("a chain needs an entry to hang from")
        parents = array("q", self.parents)
        parents.extend(range(n - 1, n + k - 1))
        start = array("q", self.children.start)
        items = array("q", self.children.items)
        end = len(items)
        items.extend(range(n, n + k))
        start[n] = end + 1
        start.extend(range(end + 2, end + k + 1))
        start.append(end + k)
        tree = self._grown(
            parents, Children(start, items), ids, self.side | side if side else self.side
        )
        leaves = self._leaves
        if side or self.side and n - 1 in self.side:
            pass  # a side note's parent may become a leaf: computed again when asked
        elif leaves is not None and k and leaves and leaves[-1] == n - 1:
            tree._leaves = [*leaves[:-1], n + k - 1]
        last = self._last_path
        if last is not None and k and last[0] == n - 1:
            path = array("q", last[1])
            path.extend(range(n, n + k))
            tree._last_path = (n + k - 1, path)
        return tree

    def with_entries(
        self,
        parents: Sequence[int],
        ids: Sequence[str],
        sort_key: Callable[[int], float],
        side: frozenset[int] = frozenset(),
    ) -> Tree:
        """A new tree: this one and one new entry per id of ``ids``, the ``j``-th under
        ``parents[j]`` (Pi appending anywhere, after ``/tree`` too), placed among siblings by
        ``sort_key``; ``side``: the new side notes. This one is left as it was.
        """
        n, k = len(self.parents), len(ids)
        if len(parents) != k:
            raise ValueError("one parent per new entry")
        if any(not 0 <= p < n + j for j, p in enumerate(parents)):
            raise ValueError("a new entry hangs from an earlier entry")
        new_parents = array("q", self.parents)
        new_parents.extend(parents)
        under_old: dict[int, list[int]] = {}
        under_new: dict[int, list[int]] = {}
        for j, p in enumerate(parents):
            (under_old if p < n else under_new).setdefault(p, []).append(n + j)

        def key(i: int) -> tuple[float, int]:
            return (sort_key(i), i)

        old_start, old_items = self.children.start, self.children.items
        items = array("q", old_items)
        forks = sorted(under_old)
        for p in reversed(forks):  # from the end: the positions before stay put
            a, b = old_start[p], old_start[p + 1]
            kids = old_items[a:b].tolist()
            for c in under_old[p]:
                insort(kids, c, key=key)
            items[a:b] = array("q", kids)
        start = old_start[: forks[0] + 1] if forks else array("q", old_start)
        shift = 0
        for at, p in enumerate(forks):
            # The entries after p start later by the children added up to p.
            shift += len(under_old[p])
            end = forks[at + 1] + 1 if at + 1 < len(forks) else n + 1
            start.extend(map(shift.__add__, old_start[p + 1 : end]))
        for i in range(n, n + k):
            grown = under_new.get(i)
            if grown:
                grown.sort(key=key)
                items.extend(grown)
            start.append(len(items))
        all_side = self.side | side if side else self.side
        tree = self._grown(new_parents, Children(start, items), ids, all_side)
        leaves = self._leaves
        if leaves is not None and not all_side:
            # Parents that had no children are leaves no more; new childless entries are.
            kept = list(leaves)
            for p in sorted(under_old, reverse=True):
                if old_start[p] == old_start[p + 1]:
                    at = bisect_left(kept, p)
                    if at < len(kept) and kept[at] == p:
                        del kept[at]
            kept.extend(i for i in range(n, n + k) if i not in under_new)
            tree._leaves = kept
        tree._last_path = self._path_through(new_parents, n)
        return tree

    def _path_through(self, parents: array[int], n: int) -> tuple[int, array[int]] | None:
        """The cached path carried to a tree of ``parents`` with entries from ``n`` on added
        (extended when the new entries hang from it; paths of old entries never change)."""
        last = self._last_path
        if last is None or len(parents) == n:
            return last
        chain: list[int] = []
        i = len(parents) - 1
        while i >= n:
            chain.append(i)
            i = parents[i]
        cached = last[1]
        if i == last[0]:
            at = len(cached) - 1
        else:
            try:
                at = cached.index(i)  # the fork on the cached path (at C speed), or not
            except ValueError:
                return last
        path = cached[: at + 1]
        path.extend(reversed(chain))
        return (path[-1], path)

    def subtree(self, i: int) -> list[int]:
        """``i`` and all its descendants, depth first in child order."""
        out: list[int] = []
        stack = [i]
        children = self.children
        while stack:
            j = stack.pop()
            out.append(j)
            stack.extend(reversed(children[j]))
        return out


_ID_INDEX: Any = Tree.__dict__["id_index"]
"""The tree's own slot for its map of ids (read without making a cached tree's map)."""


def build_tree(
    ids: Sequence[str], parent_refs: Sequence[str | None], timestamps: Timestamps
) -> Tree:
    """Build the tree of a file's entries from their ``ids``, ``parent_refs`` (``None`` for
    a root) and ISO ``timestamps``."""
    n = len(ids)
    hint = array("q", [-1]) * n
    forward: dict[int, str] = {}
    last: dict[str, int] = {}
    for i in range(n):
        ref = parent_refs[i]
        if ref is not None:
            p = last.get(ref)
            if p is None:
                forward[i] = ref
            else:
                hint[i] = p
        last[ids[i]] = i
    return build_tree_resolved(ids, hint, forward, timestamps)


def build_tree_resolved(
    ids: Sequence[str],
    preceding: Sequence[int],
    forward: dict[int, str],
    timestamps: Timestamps,
    id_index: dict[str, int] | None = None,
) -> Tree:
    """Build the tree from parents already resolved: ``preceding`` the nearest preceding
    entry with the id, or -1; ``forward`` the ``parentId`` of each entry naming no preceding
    one; ``id_index`` the store's map of ids, when the caller has it.
    """
    n = len(ids)
    parents = array("q", preceding)
    if id_index is None:
        id_index = dict(zip(ids, range(n), strict=True))  # the last one wins
    duplicates: dict[str, list[int]] = {}
    if len(id_index) != n:
        seen: dict[str, int] = {}
        for i, own in enumerate(ids):
            prev = seen.get(own)
            if prev is not None:
                duplicates.setdefault(own, [prev]).append(i)
            seen[own] = i
    self_parents: list[int] = []
    pending: list[int] = []
    for i, ref in forward.items():
        if ref == ids[i]:
            self_parents.append(i)
        else:
            pending.append(i)
    self_parents.sort()
    pending.sort()
    orphans: list[int] = []
    if pending:
        first_index = {own: i for i, own in reversed(list(enumerate(ids)))}
        for i in pending:
            p = first_index.get(forward[i])
            if p is None or p == i:
                orphans.append(i)
            else:
                parents[i] = p
    cycles = _break_cycles(parents) if pending else []
    children, roots = _children(parents, timestamps)
    return Tree(
        parents=parents,
        children=children,
        roots=roots,
        id_index=id_index,
        orphans=orphans,
        self_parents=self_parents,
        cycles=cycles,
        duplicate_ids=duplicates,
    )


def _children(parents: array[int], timestamps: Timestamps) -> tuple[Children, list[int]]:
    """Children of every entry, packed, and the roots; siblings ordered oldest first."""
    n = len(parents)
    # Children per entry, counted in an array (a Counter would hold a key per entry).
    counts = array("q", [0]) * (n + 1)
    for p in parents:
        counts[p + 1] += 1
    nroots = counts[0]
    # Entries grouped by parent in file order (roots first): a counting sort into an array,
    # not lists of n ints at the very peak of the load.
    order = array("q", bytes(8 * n))
    slot = array("q", accumulate(counts, initial=0))
    for i, p in enumerate(parents):
        k = slot[p + 1]
        order[k] = i
        slot[p + 1] = k + 1
    del slot
    del counts[0]
    roots = order[:nroots].tolist()
    items = order[nroots:]
    del order
    start = array("q", accumulate(counts, initial=0))
    # Children were grouped in file order; only siblings need the timestamp sort.
    keys: dict[int, float] = {}
    ms_of = getattr(timestamps, "ms", None) or (lambda j: parse_iso_ms(timestamps[j]))

    def key(j: int) -> tuple[float, int]:
        k = keys.get(j)
        if k is None:
            ms = ms_of(j)
            k = keys[j] = float("inf") if ms is None else ms
        return (k, j)

    for p in compress(range(n), map((1).__lt__, counts)):
        a, b = start[p], start[p + 1]
        items[a:b] = array("q", sorted(items[a:b], key=key))
    if len(roots) > 1:
        roots.sort(key=key)
    return Children(start, items), roots


class Children(Sequence[list[int]]):
    """The children of every entry, packed in two arrays (not a list object per entry):
    those of ``i`` are ``items[start[i] : start[i + 1]]``. ``children[i]`` is a new list."""

    __slots__ = ("items", "start")

    def __init__(self, start: array[int], items: array[int]) -> None:
        self.start = start
        self.items = items

    def __len__(self) -> int:
        return len(self.start) - 1

    @overload
    def __getitem__(self, i: int) -> list[int]: ...
    @overload
    def __getitem__(self, i: slice) -> list[list[int]]: ...
    def __getitem__(self, i: int | slice) -> list[int] | list[list[int]]:
        """The children of entry ``i``, oldest first."""
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        return self.items[self.start[i] : self.start[i + 1]].tolist()

    def size(self, i: int) -> int:
        """How many children entry ``i`` has."""
        return self.start[i + 1] - self.start[i]


def _break_cycles(parents: array[int]) -> list[int]:
    """Cut every parent cycle at its first forward reference; return the entries cut loose."""
    n = len(parents)
    state = bytearray(n)  # 0 unseen, 1 on the current walk, 2 done
    cut: list[int] = []
    for start in range(n):
        if state[start]:
            continue
        walk: list[int] = []
        i = start
        while i >= 0 and state[i] == 0:
            state[i] = 1
            walk.append(i)
            i = parents[i]
        if i >= 0 and state[i] == 1:
            ring = walk[walk.index(i) :]
            forward = [j for j in ring if parents[j] > j]
            victim = min(forward) if forward else min(ring)
            parents[victim] = -1
            cut.append(victim)
        for j in walk:
            state[j] = 2
    return sorted(cut)


class Built(NamedTuple):
    """The ids and tree of a session's entries (``Session.build``). A NamedTuple, not a
    frozen dataclass: made at import before the first screen, a tenth of the time."""

    ids: list[str]
    tree: Tree
    legacy: bool
