"""Provides the usage figures of the session tree: what each subtree and each branch cost,
in two linear passes over the packed children, without recursion.
"""

from __future__ import annotations

import math
import sys
import threading
from array import array
from bisect import bisect_left
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING, Literal

import msgspec

from piview.model.store import ROLE_NAMES, TS_LEN, NodeStore
from piview.model.store_ts import GAP_MS
from piview.model.tree import Tree, parse_iso_ms
from piview.model.types import NUMBER_LIMIT, Usage
from piview.model.usage import UsageTotals, _with_usage

if TYPE_CHECKING:
    from piview.model.session import Session

Figure = Literal["cost", "tokens", "turns", "duration"]
"""Which figure the branch panel shows."""
FIGURES: tuple[Figure, ...] = ("cost", "tokens", "turns", "duration")

_INF = math.inf
_SUMMARY_TYPES = ("compaction", "branch_summary")


def next_figure(current: Figure, step: int = 1) -> Figure:
    """The figure after (or before, ``step`` -1) ``current``, wrapping around."""
    return FIGURES[(FIGURES.index(current) + step) % len(FIGURES)]


@dataclass(frozen=True, slots=True)
class Figures:
    """Usage summed over a set of entries."""

    cost: float = 0.0
    """Dollars."""
    tokens: float = 0.0
    """input + output + cache read + cache write."""
    turns: int = 0
    """Assistant messages."""
    first_ms: float = _INF
    """Earliest valid timestamp (ms since the epoch); ``inf`` when none."""
    last_ms: float = -_INF
    """Latest valid timestamp; ``-inf`` when none."""

    @property
    def duration_ms(self) -> float:
        """Wall time from the earliest to the latest timestamp (0 without two)."""
        return self.last_ms - self.first_ms if self.last_ms > self.first_ms else 0.0

    def value(self, figure: Figure) -> float:
        """The value of ``figure`` (the duration in milliseconds)."""
        if figure == "cost":
            return self.cost
        if figure == "tokens":
            return self.tokens
        if figure == "turns":
            return float(self.turns)
        return self.duration_ms

    def __sub__(self, other: Figures) -> Figures:
        """Additive figures minus ``other``'s; the time span is this one's."""
        return Figures(
            self.cost - other.cost,
            self.tokens - other.tokens,
            self.turns - other.turns,
            self.first_ms,
            self.last_ms,
        )


@dataclass(frozen=True, slots=True)
class LeafPart:
    """A leaf's own part of the tree: from its fork point (excluded) down to it."""

    leaf: int
    fork: int
    """The nearest ancestor with two or more children, ``-1`` when there is none (the part
    then starts at the root)."""
    start: int
    """The first entry of the part (the fork's child on the way to the leaf, or the root)."""
    part: Figures
    """Figures of the part."""
    path: Figures
    """Figures from the root down to the leaf."""


_Columns = tuple["array[float]", "array[float]", "array[int]", "array[float]", "array[float]"]
"""Cost, tokens, turns, first and last timestamp, one value per entry."""


class SubtreeSums:
    """The figures of every subtree and leaf of one tree (see the module docstring)."""

    __slots__ = ("tree", "_sub", "_path", "leaves", "_forks", "_starts", "_span", "summaries")

    def __init__(
        self,
        tree: Tree,
        subtree: _Columns,
        path: _Columns,
        leaves: list[int],
        leaf_links: tuple[array[int], array[int], array[float], array[float]],
        summaries: UsageTotals,
    ) -> None:
        self.tree = tree
        """The tree summed (a newer tree needs new sums)."""
        self._sub = subtree
        self._path = path
        self.leaves = leaves
        """Every leaf, in file order."""
        self._forks, self._starts, *span = leaf_links
        self._span = span
        self.summaries = summaries
        """Usage recorded by compaction and branch summary entries."""

    def subtree(self, i: int) -> Figures:
        """Figures of entry ``i`` and all its descendants."""
        c, t, n, f, last = self._sub
        return Figures(c[i], t[i], n[i], f[i], last[i])

    def path(self, i: int) -> Figures:
        """Figures of the entries from the root down to ``i``, inclusive."""
        c, t, n, f, last = self._path
        return Figures(c[i], t[i], n[i], f[i], last[i])

    def through(self, i: int) -> Figures:
        """Figures of the branch through ``i``: the path down to it and all under it (for a
        leaf, its path)."""
        sub = self.subtree(i)
        p = self.tree.parents[i]
        if p < 0:
            return sub
        up = self.path(p)
        return Figures(
            up.cost + sub.cost,
            up.tokens + sub.tokens,
            up.turns + sub.turns,
            min(up.first_ms, sub.first_ms),
            max(up.last_ms, sub.last_ms),
        )

    def total(self) -> Figures:
        """Figures of the whole file."""
        return _merge([self.subtree(r) for r in self.tree.roots])

    def leaf_part(self, leaf: int) -> LeafPart | None:
        """The figures of ``leaf``'s branch (``None`` when ``leaf`` is not a leaf)."""
        k = bisect_left(self.leaves, leaf)
        if k >= len(self.leaves) or self.leaves[k] != leaf:
            return None
        fork = self._forks[k]
        path = self.path(leaf)
        above = self.path(fork) if fork >= 0 else Figures()
        part = replace(path - above, first_ms=self._span[0][k], last_ms=self._span[1][k])
        return LeafPart(leaf, fork, self._starts[k], part, path)

    def parts(self) -> list[LeafPart]:
        """Every leaf's part, the most expensive first (then most tokens, then file order)."""
        out = [p for p in map(self.leaf_part, self.leaves) if p is not None]
        out.sort(key=lambda p: (-p.part.cost, -p.part.tokens, p.leaf))
        return out


def _merge(parts: list[Figures]) -> Figures:
    return Figures(
        sum(p.cost for p in parts),
        sum(p.tokens for p in parts),
        sum(p.turns for p in parts),
        min((p.first_ms for p in parts), default=_INF),
        max((p.last_ms for p in parts), default=-_INF),
    )


_KEY = ("subtree-sums",)


def cached_sums(session: Session) -> SubtreeSums | None:
    """The sums of ``session``'s current tree if they are computed already, else ``None``."""
    sums = session.derived.get(_KEY)
    return sums if isinstance(sums, SubtreeSums) and sums.tree is session.tree else None


_computing = threading.Lock()


def subtree_sums(session: Session) -> SubtreeSums:
    """The sums of ``session``'s current tree, computed once and kept in its derived data;
    thread-safe (a second asker waits for the first one's sums)."""
    sums = cached_sums(session)
    if sums is not None:
        return sums
    with _computing:
        sums = cached_sums(session)
        if sums is None:
            sums = compute_sums(session.nodes, session.tree)
            session.derived[_KEY] = sums
    return sums


class _Cost(msgspec.Struct, array_like=True, gc=False):
    """The parts of a cost the sums read (a light twin of :class:`~piview.model.types.Cost`)."""

    input: int | float = 0
    output: int | float = 0
    cache_read: int | float = 0
    cache_write: int | float = 0
    total: int | float | None = None


class _Usage(msgspec.Struct, array_like=True, gc=False):
    """The parts of a usage the sums read, in a row's order (:mod:`piview.model.usage_row`),
    untracked by the cyclic GC."""

    input: int | float = 0
    output: int | float = 0
    cache_read: int | float = 0
    cache_write: int | float = 0
    total_tokens: int | float | None = None
    cost: _Cost | None = None


_usages_decoder = msgspec.msgpack.Decoder(list[_Usage])
_LIMIT = NUMBER_LIMIT


def _usage_figures(usage: Usage | _Usage) -> tuple[float, float]:
    """Cost and tokens of one usage, each number read as :func:`~piview.model.types.number`
    does, inline (NaN fails every comparison, so it reads as 0 too)."""
    lim = _LIMIT
    tokens = 0.0
    for v in (usage.input, usage.output, usage.cache_read, usage.cache_write):
        if v.__class__ is not bool and -lim <= v <= lim:
            tokens += v
    c = usage.cost
    if c is None:
        return 0.0, tokens
    if c.total is not None:
        t = c.total
        return (float(t) if t.__class__ is not bool and -lim <= t <= lim else 0.0), tokens
    cost = 0.0
    for v in (c.input, c.output, c.cache_read, c.cache_write):
        if v.__class__ is not bool and -lim <= v <= lim:
            cost += v
    return cost, tokens


def _all_usages(store: NodeStore) -> list[_Usage]:
    """Every usage row of the store, decoded in one call (the rows are msgpack values end to
    end: an array header in front makes them one array)."""
    rows = len(store.usage_end)
    if not rows:
        return []
    end = store.usage_end[-1]
    with memoryview(store.usage_blob) as view:
        data = b"\xdd" + rows.to_bytes(4, "big") + view[:end].tobytes()
    return _usages_decoder.decode(data)


def _own_usage(
    store: NodeStore, n: int
) -> tuple[array[float], array[float], bytearray, UsageTotals]:
    """Each entry's own cost, tokens and turn (1 for an assistant message), and the usage
    of the summaries."""
    cost = array("d", [0.0]) * n
    tokens = array("d", [0.0]) * n
    roles = store.roles
    assistant, tool_result = ROLE_NAMES.index("assistant"), ROLE_NAMES.index("toolResult")
    turns = bytearray(map(assistant.__eq__, roles[:n]))
    usages = _all_usages(store)
    at = store.usage_at
    for i in _with_usage(store):
        if i >= n:
            break
        role = roles[i]
        if role != assistant and role != tool_result:
            name = store.role(i)
            if name not in ("assistant", "toolResult"):
                continue
            turns[i] = name == "assistant"
        r = at[i]
        usage: Usage | _Usage | None = usages[r] if r >= 0 else store.message_usage(i)
        if usage is not None:
            cost[i], tokens[i] = _usage_figures(usage)
    summaries = UsageTotals()
    for i in store.whole_indices():
        if i >= n:
            break
        sk = store.whole[i]
        if sk.type in _SUMMARY_TYPES and sk.usage is not None:
            summaries.add(sk.usage)
            c, t = _usage_figures(sk.usage)
            cost[i] += c
            tokens[i] += t
    return cost, tokens, turns, summaries


def _own_times(store: NodeStore, n: int) -> tuple[array[float], array[float]]:
    """Each entry's timestamp in ms, twice: ``inf`` where invalid (for minima) and
    ``-inf`` (for maxima)."""
    parse = datetime.fromisoformat
    packed = array("q")
    packed.frombytes(store.ts[: n * TS_LEN])
    if sys.byteorder != "little":
        packed.byteswap()
    other = store.ts_other
    gap = GAP_MS
    ms: list[float] = []
    append = ms.append
    for k in range(n):
        p = packed[k]
        if p != gap:
            # Pi's toISOString(), packed (model/store_ts.py): what parse(s).timestamp() * 1000.0
            # gives (microseconds / 10**6, correctly rounded, is the same quotient).
            append(p / 1000 * 1000.0)
            continue
        s = other.get(k)
        if isinstance(s, str) and s[-1:] == "Z" and len(s) == 24 and s.isascii():
            try:  # as when such strings were kept in the column (aware: no local time)
                append(parse(s).timestamp() * 1000.0)
                continue
            except (ValueError, OverflowError, OSError):
                pass
        v = parse_iso_ms(s)
        append(_INF if v is None else v)
    first = array("d", ms)
    last = array("d", [-_INF if v == _INF else v for v in ms])
    return first, last


def compute_sums(store: NodeStore, tree: Tree) -> SubtreeSums:
    """Compute the :class:`SubtreeSums` of ``tree`` over the entries of ``store``."""
    n = len(tree)
    own_cost, own_tokens, own_turns, summaries = _own_usage(store, n)
    own_first, own_last = _own_times(store, n)
    start, items = tree.children.start, tree.children.items
    leaves = tree.leaves()
    nl = len(leaves)
    # OpenClaw's side notes make no fork and no leaf: count only the other children.
    real = tree.branching_children() if tree.side else None
    side = tree.side
    forks = array("q", [-1]) * nl
    starts = array("q", [-1]) * nl
    seg_firsts = array("d", [0.0]) * nl
    seg_lasts = array("d", [0.0]) * nl
    slot = 0  # leaves are met in tree order, not file order: find each one's slot
    path_cost = array("d", own_cost)
    path_tokens = array("d", own_tokens)
    path_turns = array("q", iter(own_turns))  # from the bytes' values, not their memory
    path_first = array("d", own_first)
    path_last = array("d", own_last)
    order = array("q")
    push = order.append

    # 1. Down: the figures of the path so far live in locals; a fork pushes one frame that
    # hands its children out one at a time (a fan of a million costs one frame).
    root_state = (0.0, 0.0, 0, _INF, -_INF, -1, _INF, -_INF, -1)
    frames: list[tuple[array[int] | list[int], list[int], tuple[float, ...]]] = [
        (tree.roots, [0, len(tree.roots)], root_state)
    ]
    while frames:
        seq, span, state = frames[-1]
        if span[0] >= span[1]:
            frames.pop()
            continue
        i = seq[span[0]]
        span[0] += 1
        cost, tokens, turns_f, first, last, fork_f, s_first, s_last, seg_f = state
        turns, fork, seg_start = int(turns_f), int(fork_f), i if seg_f < 0 else int(seg_f)
        while True:  # down a single-child chain without a frame
            push(i)
            cost += own_cost[i]
            tokens += own_tokens[i]
            turns += own_turns[i]
            v = own_first[i]
            if v < first:
                first = v
            if v < s_first:
                s_first = v
            v = own_last[i]
            if v > last:
                last = v
            if v > s_last:
                s_last = v
            path_cost[i], path_tokens[i], path_turns[i] = cost, tokens, turns
            path_first[i], path_last[i] = first, last
            a, b = start[i], start[i + 1]
            kids = b - a if real is None else real[i]
            if b - a == 1 and kids == 1:
                i = items[a]
                continue
            break
        if kids == 0 and (real is None or i not in side):
            k = slot if slot < nl and leaves[slot] == i else bisect_left(leaves, i)
            slot = k + 1
            forks[k], starts[k], seg_firsts[k], seg_lasts[k] = fork, seg_start, s_first, s_last
        if kids > 1:
            child = (cost, tokens, float(turns), first, last, float(i), _INF, -_INF, -1)
            frames.append((items, [a, b], child))
        elif a < b:  # side notes (and one child): the segment goes on through them
            going = (cost, tokens, float(turns), first, last, float(fork), s_first, s_last)
            frames.append((items, [a, b], (*going, float(seg_start))))

    # 2. Up: in reverse of the down pass's order every child comes before its parent.
    sub_cost = own_cost
    sub_tokens = own_tokens
    sub_turns = array("q", iter(own_turns))
    sub_first, sub_last = own_first, own_last
    parents = tree.parents
    for i in reversed(order):
        p = parents[i]
        if p >= 0:
            sub_cost[p] += sub_cost[i]
            sub_tokens[p] += sub_tokens[i]
            sub_turns[p] += sub_turns[i]
            v = sub_first[i]
            if v < sub_first[p]:
                sub_first[p] = v
            v = sub_last[i]
            if v > sub_last[p]:
                sub_last[p] = v
    return SubtreeSums(
        tree,
        (sub_cost, sub_tokens, sub_turns, sub_first, sub_last),
        (path_cost, path_tokens, path_turns, path_first, path_last),
        leaves,
        (forks, starts, seg_firsts, seg_lasts),
        summaries,
    )
