"""Provides tool-call pairing: each tool result with the call it answers.

A ``toolResult`` pairs with the nearest *ancestor* assistant message holding a ``toolCall`` with
the same id. Ids repeat across turns (and across branches of a fork), so neither a global
lookup nor "first match in the file" (Pi's HTML export) is right. One depth-first walk with a
scoped id map does it in linear time.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from piview.model.decode import SkEntry
from piview.model.store import as_store
from piview.model.tree import Tree

__all__ = ["CallRef", "CallResults", "Pairing", "ResultCalls", "pair_tool_calls", "tool_calls_of"]

CallRef = tuple[int, int]
"""A tool call: (entry index of the assistant message, index of the block in its content)."""


class ResultCalls(Mapping[int, CallRef]):
    """Tool result entry index → the call it answers, in two arrays over every entry (a dict
    of tuples costs ~200 bytes per result)."""

    __slots__ = ("_entry", "_part", "_count")

    def __init__(self, n: int) -> None:
        self._entry = array("i", [-1]) * n
        self._part = array("i", [0]) * n
        self._count = 0

    def set(self, result: int, ref: CallRef) -> None:
        """Record that ``result`` answers ``ref``."""
        if self._entry[result] < 0:
            self._count += 1
        self._entry[result] = ref[0]
        self._part[result] = ref[1]

    def __getitem__(self, result: int) -> CallRef:
        if not 0 <= result < len(self._entry) or self._entry[result] < 0:
            raise KeyError(result)
        return (self._entry[result], self._part[result])

    def get(self, result: int, default: Any = None) -> Any:  # noqa: D102 - Mapping.get, faster
        if 0 <= result < len(self._entry):
            e = self._entry[result]
            if e >= 0:
                return (e, self._part[result])
        return default

    def __contains__(self, result: object) -> bool:
        return (
            isinstance(result, int)
            and 0 <= result < len(self._entry)
            and (self._entry[result] >= 0)
        )

    def __iter__(self) -> Iterator[int]:
        return (i for i, e in enumerate(self._entry) if e >= 0)

    def __len__(self) -> int:
        return self._count


class CallResults(Mapping[CallRef, list[int]]):
    """Call → the results answering it (usually one), over the sorted array of calls."""

    __slots__ = ("_codes", "_first", "_more")

    def __init__(self, codes: array[int]) -> None:
        self._codes = codes
        self._first = array("i", [-1]) * len(codes)
        self._more: dict[int, list[int]] = {}

    def _slot(self, ref: object) -> int:
        if not isinstance(ref, tuple) or len(ref) != 2:
            return -1
        code = _code(ref)  # type: ignore[arg-type]
        k = bisect_left(self._codes, code)
        return k if k < len(self._codes) and self._codes[k] == code else -1

    def add(self, ref: CallRef, result: int) -> None:
        """Record ``result`` as an answer to ``ref`` (a call in the array)."""
        k = self._slot(ref)
        if self._first[k] < 0:
            self._first[k] = result
        else:
            self._more.setdefault(k, []).append(result)

    def __getitem__(self, ref: CallRef) -> list[int]:
        k = self._slot(ref)
        if k < 0 or self._first[k] < 0:
            raise KeyError(ref)
        return [self._first[k], *self._more.get(k, ())]

    def get(self, ref: CallRef, default: Any = None) -> Any:  # noqa: D102 - Mapping.get, faster
        k = self._slot(ref)
        if k < 0 or self._first[k] < 0:
            return default
        return [self._first[k], *self._more.get(k, ())]

    def __contains__(self, ref: object) -> bool:
        k = self._slot(ref)
        return k >= 0 and self._first[k] >= 0

    def __iter__(self) -> Iterator[CallRef]:
        return (_ref(c) for c, f in zip(self._codes, self._first, strict=True) if f >= 0)

    def __len__(self) -> int:
        return sum(1 for f in self._first if f >= 0)


def _code(ref: CallRef) -> int:
    return (ref[0] << 20) | ref[1]


def _ref(code: int) -> CallRef:
    return (code >> 20, code & 0xFFFFF)


@dataclass(slots=True)
class Pairing:
    """Tool calls and results of a whole file, and how they pair."""

    call_codes: array[int] = field(default_factory=lambda: array("q"))
    """Every tool call, in file order, as ``entry << 20 | block`` (see :attr:`calls`)."""
    results: array[int] = field(default_factory=lambda: array("q"))
    """Every toolResult entry, in file order."""
    result_call: ResultCalls = field(default_factory=lambda: ResultCalls(0))
    """The call each paired result answers."""
    call_results: CallResults = field(default_factory=lambda: CallResults(array("q")))
    """The results of each answered call (usually one)."""
    errors: list[int] = field(default_factory=list)
    """Results with ``isError``."""

    @property
    def calls(self) -> list[CallRef]:
        """Every tool call, in file order: (entry index, block index)."""
        return [_ref(c) for c in self.call_codes]

    @property
    def paired(self) -> list[int]:
        """Results that found their call."""
        return [r for r in self.results if r in self.result_call]

    @property
    def orphan_results(self) -> list[int]:
        """Results with no call among their ancestors."""
        return [r for r in self.results if r not in self.result_call]

    @property
    def unanswered(self) -> list[CallRef]:
        """Calls that no result answers."""
        return [c for c in self.calls if c not in self.call_results]


def tool_calls_of(node: SkEntry) -> list[tuple[int, str, str]]:
    """``(block index, id, name)`` of each tool call in an assistant skeleton."""
    msg = node.message
    if msg is None or msg.role != "assistant" or not isinstance(msg.content, list):
        return []
    out = []
    for k, b in enumerate(msg.content):
        if b.type == "toolCall":
            out.append((k, b.id if isinstance(b.id, str) else "", str(b.name or "")))
    return out


def _depths(parents: Sequence[int]) -> array[int]:
    """Depth of every entry (roots are 0), without recursion."""
    n = len(parents)
    depth = array("i", [-1]) * n
    # Usually every parent precedes its child: one forward pass does it.
    for i, p in enumerate(parents):
        if p >= i:
            break
        depth[i] = depth[p] + 1 if p >= 0 else 0
    else:
        return depth
    depth = array("i", [-1]) * n
    for i in range(n):
        if depth[i] >= 0:
            continue
        walk = []
        j = i
        while j >= 0 and depth[j] < 0:
            walk.append(j)
            j = parents[j]
        d = depth[j] if j >= 0 else -1
        for k in reversed(walk):
            d += 1
            depth[k] = d
    return depth


def pair_tool_calls(nodes: Sequence[SkEntry], tree: Tree) -> Pairing:
    """Pair every tool result of the file with its call.

    Candidates are the calls with the same id anywhere in the file; the nearest one that is an
    ancestor wins. Checking ancestry walks up only the depth difference, which is a few steps
    for a real result, so the whole pass is linear in practice.
    """
    store = as_store(nodes)
    parents = tree.parents
    by_id: dict[str, CallRef | list[CallRef]] = {}
    codes = array("q")
    results = array("q")
    errors: list[int] = []
    result_ids: list[str | None] = []
    for i in store.of_role("assistant"):
        for k, b in enumerate(store.blocks(i)):
            if b.type == "toolCall":
                ref = (i, k)
                codes.append(_code(ref))
                cid = b.id or ""
                seen = by_id.get(cid)
                if seen is None:
                    by_id[cid] = ref
                elif isinstance(seen, list):
                    seen.append(ref)
                else:
                    by_id[cid] = [seen, ref]
    for i in store.of_role("toolResult"):
        results.append(i)
        if store.is_error(i):
            errors.append(i)
        result_ids.append(store.tool_call_id(i))
    out = Pairing(
        call_codes=codes,
        results=results,
        result_call=ResultCalls(len(store)),
        call_results=CallResults(codes),
        errors=errors,
    )
    depth: array[int] | None = None
    for r, cid in zip(results, result_ids, strict=True):
        found = by_id.get(cid) if cid is not None else None
        if found is None:
            continue
        if depth is None:
            depth = _depths(parents)
        dr = depth[r]
        best: CallRef | None = None
        best_depth = -1
        for ref in found if isinstance(found, list) else (found,):
            a = ref[0]
            da = depth[a]
            if da >= dr or da <= best_depth:
                continue
            j = r
            for _ in range(dr - da):
                j = parents[j]
            if j == a:
                best, best_depth = ref, da
        if best is not None:
            out.result_call.set(r, best)
            out.call_results.add(best, r)
    return out
