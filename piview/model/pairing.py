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
from operator import ge
from typing import TypeVar, overload

from piview.model.decode import SkEntry
from piview.model.store import F_ERROR, as_store
from piview.model.tree import Tree

__all__ = ["CallRef", "CallResults", "Pairing", "ResultCalls", "pair_tool_calls", "tool_calls_of"]

CallRef = tuple[int, int]
"""A tool call: (entry index of the assistant message, index of the block in its content)."""
_T = TypeVar("_T")


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

    @overload
    def get(self, result: int) -> CallRef | None: ...
    @overload
    def get(self, result: int, default: CallRef | _T) -> CallRef | _T: ...
    def get(self, result: int, default: object = None) -> object:  # noqa: D102 - Mapping.get, faster
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
        code = _code(ref)
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

    @overload
    def get(self, ref: CallRef) -> list[int] | None: ...
    @overload
    def get(self, ref: CallRef, default: list[int] | _T) -> list[int] | _T: ...
    def get(self, ref: CallRef, default: object = None) -> object:  # noqa: D102 - Mapping.get, faster
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


_SHIFT = 20
_MASK = (1 << _SHIFT) - 1


def _code(ref: CallRef) -> int:
    return (ref[0] << _SHIFT) | ref[1]


def _ref(code: int) -> CallRef:
    return (code >> _SHIFT, code & _MASK)


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
    for a real result, so the whole pass is linear in practice. A 1 GB session has 200,000
    calls: the loops below touch only arrays, and each block list is looked at once.
    """
    store = as_store(nodes)
    parents = tree.parents
    codes = array("q")
    call_ids: list[str] = []
    # Tool calls per shared block list (those without calls are shared by many entries).
    calls_in: dict[int, list[tuple[int, str]]] = {}
    content_at = store.content_at
    patterns = store.patterns
    for i in store.of_role("assistant"):
        at = content_at[i]
        found = calls_in.get(at) if at >= 0 else None
        if found is None:
            blocks = patterns[at] if at >= 0 else store.blocks(i)
            found = [(k, b.id or "") for k, b in enumerate(blocks) if b.type == "toolCall"]
            if at >= 0:
                calls_in[at] = found
        for k, cid in found:
            codes.append((i << _SHIFT) | k)
            call_ids.append(cid)
    results = array("q", store.of_role("toolResult"))
    flags = store.flags
    errors = [r for r in results if flags[r] & F_ERROR]
    out = Pairing(
        call_codes=codes,
        results=results,
        result_call=ResultCalls(len(store)),
        call_results=CallResults(codes),
        errors=errors,
    )
    if not codes or not results:
        return out
    # Call slots by id: one slot per id, lists only for ids used by several calls.
    slot_of: dict[str, int] = dict(zip(call_ids, range(len(call_ids)), strict=True))
    shared: dict[str, list[int]] = {}
    if len(slot_of) != len(call_ids):
        for slot, cid in enumerate(call_ids):
            if slot_of[cid] != slot or cid in shared:
                shared.setdefault(cid, [slot_of[cid]])
                if slot != slot_of[cid]:
                    shared[cid].append(slot)
        for slots in shared.values():
            slots.sort()
    # When every parent precedes its child (any file Pi wrote), an ancestor check walks up
    # only while the index is above the candidate; else it needs every entry's depth.
    monotonic = not any(map(ge, parents, range(len(parents))))
    depth = array("i") if monotonic else _depths(parents)
    res_entry, res_part = out.result_call._entry, out.result_call._part  # noqa: SLF001
    first, more = out.call_results._first, out.call_results._more  # noqa: SLF001
    answered = 0
    result_at, result_ids = store.result_at, store.result_ids
    for r in results:
        ra = result_at[r]
        call_id = result_ids[ra] if ra >= 0 else store.tool_call_id(r)
        if call_id is None:
            continue
        if not shared:
            slot = slot_of.get(call_id, -1)
            if slot < 0:
                continue
            a = codes[slot] >> _SHIFT
            j = parents[r]
            if j != a:  # usually the direct parent: else walk up
                if monotonic:
                    while j > a:
                        j = parents[j]
                else:
                    da, dr = depth[a], depth[r]
                    j = r
                    for _ in range(dr - da):
                        j = parents[j]
                if j != a:
                    continue
            best = slot
        else:
            if monotonic and not depth:
                depth = _depths(parents)
            best = _nearest(r, call_id, shared, slot_of, codes, depth, parents)
            if best < 0:
                continue
        code = codes[best]
        res_entry[r] = code >> _SHIFT
        res_part[r] = code & _MASK
        answered += 1
        if first[best] < 0:
            first[best] = r
        else:
            more.setdefault(best, []).append(r)
    out.result_call._count = answered  # noqa: SLF001
    return out


def _nearest(
    r: int,
    cid: str,
    shared: dict[str, list[int]],
    slot_of: dict[str, int],
    codes: array[int],
    depth: array[int],
    parents: Sequence[int],
) -> int:
    """The slot of the call with id ``cid`` that is the nearest ancestor of ``r``, or -1."""
    many = shared.get(cid)
    candidates = many if many is not None else (slot_of.get(cid),)
    dr = depth[r]
    best = -1
    best_depth = -1
    for slot in candidates:
        if slot is None:
            continue
        a = codes[slot] >> _SHIFT
        da = depth[a]
        if da >= dr or da <= best_depth:
            continue
        j = r
        for _ in range(dr - da):
            j = parents[j]
        if j == a:
            best, best_depth = slot, da
    return best
