"""Provides the usage figures of the session tree: what each subtree and each branch cost.

:func:`subtree_sums` computes, once per tree, for every entry the cost, tokens, assistant
turns and first and last timestamp of its subtree (itself and every descendant), and for
every leaf the same figures from its root down to it and from its fork point (its nearest
ancestor with two or more children) down to it. Two linear passes over the packed children,
no walk per row and no recursion: a depth-first pass down (it carries the figures of the path
in locals, so a chain of 1,000,000 entries costs no stack and a fan of 1,000,000 leaves one
frame), then a pass up in reverse of its order. Everything is kept in arrays.

What counts: every usage record, as money was spent on it: assistant messages, the nested
usage a tool result reports and the usage a compaction or branch summary records. Turns count
assistant messages. A duration is the wall time from the earliest to the latest timestamp
(timestamps may be equal or run backwards; invalid ones are left out).
"""

from __future__ import annotations

import math
from array import array
from bisect import bisect_left
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Literal

from piview.model.store import ROLE_NAMES, TS_LEN, NodeStore
from piview.model.tree import Tree, parse_iso_ms
from piview.model.types import Usage, number
from piview.model.usage import UsageTotals, _with_usage

if TYPE_CHECKING:
    from piview.model.session import Session

__all__ = [
    "FIGURES",
    "Figure",
    "Figures",
    "LeafPart",
    "SubtreeSums",
    "compute_sums",
    "next_figure",
    "subtree_sums",
]

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


class SubtreeSums:
    """The figures of every subtree and leaf of one tree (see the module docstring)."""

    __slots__ = (
        "tree",
        "store",
        "_cost",
        "_tokens",
        "_turns",
        "_first",
        "_last",
        "leaves",
        "_leaf_arrays",
        "summaries",
    )

    def __init__(
        self,
        store: NodeStore,
        tree: Tree,
        subtree: tuple[array[float], array[float], array[int], array[float], array[float]],
        leaves: list[int],
        leaf_arrays: tuple[array[float], ...],
        leaf_links: tuple[array[int], array[int]],
        summaries: UsageTotals,
    ) -> None:
        self.store = store
        self.tree = tree
        """The tree summed (a newer tree needs new sums)."""
        self._cost, self._tokens, self._turns, self._first, self._last = subtree
        self.leaves = leaves
        """Every leaf, in file order."""
        self._leaf_arrays = (leaf_arrays, leaf_links)
        self.summaries = summaries
        """Usage recorded by compaction and branch summary entries."""

    def subtree(self, i: int) -> Figures:
        """Figures of entry ``i`` and all its descendants."""
        return Figures(
            self._cost[i], self._tokens[i], self._turns[i], self._first[i], self._last[i]
        )

    def total(self) -> Figures:
        """Figures of the whole file."""
        return _merge([self.subtree(r) for r in self.tree.roots])

    def _slot(self, leaf: int) -> int | None:
        k = bisect_left(self.leaves, leaf)
        return k if k < len(self.leaves) and self.leaves[k] == leaf else None

    def leaf_part(self, leaf: int) -> LeafPart | None:
        """The figures of ``leaf``'s branch (``None`` when ``leaf`` is not a leaf)."""
        k = self._slot(leaf)
        if k is None:
            return None
        (pc, pt, pn, pf, pl, sc, st, sn, sf, sl), (forks, starts) = self._leaf_arrays
        return LeafPart(
            leaf,
            forks[k],
            starts[k],
            Figures(sc[k], st[k], int(sn[k]), sf[k], sl[k]),
            Figures(pc[k], pt[k], int(pn[k]), pf[k], pl[k]),
        )

    def path(self, i: int) -> Figures:
        """Figures from the root down to ``i`` (stored for a leaf, summed along the path
        for an inner entry)."""
        part = self.leaf_part(i)
        if part is not None:
            return part.path
        cost = tokens = 0.0
        turns = 0
        first, last = _INF, -_INF
        for j in self.tree.path(i):
            c, t, turn = _own_one(self.store, j)
            cost, tokens, turns = cost + c, tokens + t, turns + turn
            ms = parse_iso_ms(self.store.timestamp(j))
            if ms is not None:
                first, last = min(first, ms), max(last, ms)
        return Figures(cost, tokens, turns, first, last)

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


def subtree_sums(session: Session) -> SubtreeSums:
    """The sums of ``session``'s current tree, computed once (kept with the session's other
    derived data, which a reload or an append clears)."""
    key = ("subtree-sums",)
    sums = session.derived.get(key)
    if not isinstance(sums, SubtreeSums) or sums.tree is not session.tree:
        sums = compute_sums(session.nodes, session.tree)
        session.derived[key] = sums
    return sums


def _usage_figures(usage: Usage) -> tuple[float, float]:
    tokens = (
        number(usage.input)
        + number(usage.output)
        + number(usage.cache_read)
        + number(usage.cache_write)
    )
    return (usage.cost.total_cost() if usage.cost is not None else 0.0), tokens


def _own_one(store: NodeStore, i: int) -> tuple[float, float, int]:
    """The own cost, tokens and turn of entry ``i`` (as :func:`_own_usage` counts them)."""
    role = store.role(i)
    turn = 1 if role == "assistant" else 0
    usage: Usage | None = None
    if role in ("assistant", "toolResult"):
        usage = store.message_usage(i)
    else:
        sk = store.whole.get(i)
        if sk is not None and sk.type in _SUMMARY_TYPES:
            usage = sk.usage
    if usage is None:
        return 0.0, 0.0, turn
    cost, tokens = _usage_figures(usage)
    return cost, tokens, turn


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
    for i in _with_usage(store):
        if i >= n:
            break
        role = roles[i]
        if role != assistant and role != tool_result:
            name = store.role(i)
            if name not in ("assistant", "toolResult"):
                continue
            turns[i] = name == "assistant"
        usage = store.message_usage(i)
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
    raw = bytes(store.ts[: n * TS_LEN]).decode("latin-1")
    ms: list[float] = []
    append = ms.append
    for k in range(n):
        s = raw[k * TS_LEN : (k + 1) * TS_LEN]
        if s[0] == "\0":
            v = parse_iso_ms(store.ts_other.get(k))
            append(_INF if v is None else v)
            continue
        try:
            append(parse(s).timestamp() * 1000.0)
        except (ValueError, OverflowError, OSError):
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
    leaf_arrays = tuple(array("d", [0.0]) * nl for _ in range(10))
    pc, pt, pn, pf, pl, sc, st, sn, sf, sl = leaf_arrays
    forks = array("q", [-1]) * nl
    starts = array("q", [-1]) * nl
    slot = 0  # leaves are met in tree order, not file order: find each one's slot
    order = array("q")
    push = order.append

    # 1. Down: the figures of the path so far live in locals; a fork pushes one frame that
    # hands its children out one at a time (a fan of a million costs one frame).
    root_state = (0.0, 0.0, 0, _INF, -_INF, -1, -1, 0.0, 0.0, 0, _INF, -_INF)
    frames: list[tuple[array[int] | list[int], list[int], tuple[float | int, ...]]] = [
        (tree.roots, [0, len(tree.roots)], root_state)
    ]
    while frames:
        seq, span, state = frames[-1]
        if span[0] >= span[1]:
            frames.pop()
            continue
        i = seq[span[0]]
        span[0] += 1
        cost, tokens, turns, first, last, fork, seg_start = (
            float(state[0]),
            float(state[1]),
            int(state[2]),
            float(state[3]),
            float(state[4]),
            int(state[5]),
            int(state[6]),
        )
        f_cost, f_tokens, f_turns, s_first, s_last = (
            float(state[7]),
            float(state[8]),
            int(state[9]),
            float(state[10]),
            float(state[11]),
        )
        if seg_start < 0:
            seg_start = i
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
            a, b = start[i], start[i + 1]
            if b - a == 1:
                i = items[a]
                continue
            break
        if a == b:
            k = slot if slot < nl and leaves[slot] == i else bisect_left(leaves, i)
            slot = k + 1
            pc[k], pt[k], pn[k], pf[k], pl[k] = cost, tokens, turns, first, last
            sc[k], st[k], sn[k] = cost - f_cost, tokens - f_tokens, turns - f_turns
            sf[k], sl[k] = s_first, s_last
            forks[k], starts[k] = fork, seg_start
        else:
            child_state = (
                cost,
                tokens,
                turns,
                first,
                last,
                i,
                -1,
                cost,
                tokens,
                turns,
                _INF,
                -_INF,
            )
            frames.append((items, [a, b], child_state))

    # 2. Up: in reverse of the down pass's order every child comes before its parent.
    sub_cost = array("d", own_cost)
    sub_tokens = array("d", own_tokens)
    sub_turns = array("q", iter(own_turns))  # from the bytes' values, not their memory
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
        store,
        tree,
        (sub_cost, sub_tokens, sub_turns, sub_first, sub_last),
        leaves,
        leaf_arrays,
        (forks, starts),
        summaries,
    )
