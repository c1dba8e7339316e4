"""Provides tool-call pairing: each tool result with the call it answers.

A ``toolResult`` pairs with the nearest *ancestor* assistant message holding a ``toolCall`` with
the same id: ids repeat across turns and branches, so a global lookup is wrong.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeVar, overload

from piview.model.decode import SkEntry
from piview.model.store import F_ERROR, ROLE_NAMES, NodeStore, as_store
from piview.model.tree import Tree

CallRef = tuple[int, int]
"""A tool call: (entry index of the assistant message, index of the block in its content)."""
_T = TypeVar("_T")


class ResultCalls(Mapping[int, CallRef]):
    """Tool result entry index → the call it answers, in two arrays over every entry (a dict
    of tuples costs several objects per result)."""

    __slots__ = ("_entry", "_part", "_count")

    def __init__(self, n: int) -> None:
        self._entry = array("i", [-1]) * n
        self._part = array("i", [0]) * n
        self._count = 0

    @property
    def call_entries(self) -> array[int]:
        """Per entry, the entry of the call it answers, or -1 (read at C speed)."""
        return self._entry

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
        first = self.call_results._first  # noqa: SLF001 - its slots are the calls'
        return [_ref(c) for c, f in zip(self.call_codes, first, strict=True) if f < 0]

    @property
    def paired_count(self) -> int:
        """How many results found their call (``len(paired)``, without the list)."""
        return len(self.result_call)

    @property
    def unanswered_count(self) -> int:
        """How many calls no result answers (``len(unanswered)``, counted at C speed)."""
        return self.call_results._first.count(-1)  # noqa: SLF001


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


def pair_tool_calls(nodes: Sequence[SkEntry], tree: Tree) -> Pairing:
    """Pair every tool result of the file with its call: the nearest proper ancestor
    holding a call with the result's id; linear for any id pattern (a short walk up, then one
    depth-first pass for the results still open).
    """
    store = as_store(nodes)
    parents = tree.parents
    codes = array("q")
    call_ids: list[str] = []
    # The shared block lists known to hold no call (those are shared by many entries); the
    # others are looked through where they are, without a list of their calls kept per
    # entry (a tuple per call raised the peak of a big load).
    no_calls: set[int] = set()
    content_at = store.content_at
    patterns = store.patterns
    add_code, add_id = codes.append, call_ids.append
    for i in store.of_role("assistant"):
        at = content_at[i]
        if at in no_calls:
            continue
        blocks = patterns[at] if at >= 0 else store.blocks(i)
        before = len(call_ids)
        for k, b in enumerate(blocks):
            if b.type == "toolCall":
                add_code((i << _SHIFT) | k)
                add_id(b.id or "")
        if at >= 0 and len(call_ids) == before:
            no_calls.add(at)
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
    # A short walk up settles almost every result (its call is usually the parent); the rest
    # wait for one depth-first pass over the whole tree, never a walk per candidate (#11).
    n = len(parents)
    has_call = bytearray(n)
    for code in codes:
        has_call[code >> _SHIFT] = 1
    # Call id → the slot of its only call, so that a step up is one comparison with the entry
    # holding it; -1 for an id that several calls have (each step looks through the calls).
    # The tree's ints as the slots where it has them: no new int object per call.
    ints: Sequence[int] | None = tree.int_pool()
    if ints is None or len(ints) < len(call_ids):
        ints = range(len(call_ids))
    slot_of = dict(zip(call_ids, ints, strict=False))  # ints may be longer: one per call
    if len(slot_of) < len(call_ids):
        for cid, seen in Counter(call_ids).items():
            if seen > 1:
                slot_of[cid] = -1
    best_of = array("q", [-1]) * len(results)
    deferred: dict[int, str] = {}
    result_at, result_ids = store.result_at, store.result_ids
    for k, r in enumerate(results):
        ra = result_at[r]
        call_id = result_ids[ra] if ra >= 0 else store.tool_call_id(r)
        only = slot_of.get(call_id) if call_id is not None else None
        if only is None or call_id is None:
            continue  # no call has that id (or the result names none): an orphan
        j = parents[r]
        if only >= 0:
            holder = codes[only] >> _SHIFT
            for _ in range(_WALK):
                if j == holder:
                    best_of[k] = only
                    break
                if j < 0:
                    break
                j = parents[j]
            else:
                deferred[k] = call_id
            continue
        for _ in range(_WALK):
            if j < 0:
                break
            if has_call[j]:
                slot = _call_in(codes, call_ids, j, call_id)
                if slot >= 0:
                    best_of[k] = slot
                    break
            j = parents[j]
        else:
            deferred[k] = call_id
    if deferred:
        _pair_deferred(deferred, results, codes, call_ids, has_call, tree, best_of)
    res_entry, res_part = out.result_call._entry, out.result_call._part  # noqa: SLF001
    first, more = out.call_results._first, out.call_results._more  # noqa: SLF001
    answered = 0
    for k, r in enumerate(results):
        best = best_of[k]
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


_WALK = 32
"""Steps a result walks up before it waits for the depth-first pass."""


def _call_in(codes: array[int], call_ids: list[str], entry: int, call_id: str) -> int:
    """The slot of the first call with ``call_id`` in ``entry``'s blocks, or -1."""
    k = bisect_left(codes, entry << _SHIFT)
    end = len(codes)
    while k < end and codes[k] >> _SHIFT == entry:
        if call_ids[k] == call_id:
            return k
        k += 1
    return -1


def _pair_deferred(
    deferred: dict[int, str],
    results: array[int],
    codes: array[int],
    call_ids: list[str],
    has_call: bytearray,
    tree: Tree,
    best_of: array[int],
) -> None:
    """Pair the results in ``deferred`` (position in ``results`` → call id) in one depth-first
    pass: per call id, a stack of the calls open on the current path (linear in the tree)."""
    wanted = set(deferred.values())
    waiting = {results[k]: k for k in deferred}
    open_calls: dict[str, list[int]] = {cid: [] for cid in wanted}
    start, items = tree.children.start, tree.children.items
    stack: list[int] = list(tree.roots)
    while stack:
        i = stack.pop()
        if i < 0:  # leaving ~i: close the calls it opened
            for cid in _opened(codes, call_ids, ~i, wanted):
                open_calls[cid].pop()
            continue
        k = waiting.get(i)
        if k is not None:
            on = open_calls[deferred[k]]
            if on:
                best_of[k] = on[-1]
        if has_call[i]:
            opened = _opened(codes, call_ids, i, wanted)
            if opened:
                for cid, slot in opened.items():
                    open_calls[cid].append(slot)
                stack.append(~i)
        a, b = start[i], start[i + 1]
        if b > a:
            stack.extend(items[a:b])


def _opened(codes: array[int], call_ids: list[str], entry: int, wanted: set[str]) -> dict[str, int]:
    """Call id → slot of its first call in ``entry``, for the ids in ``wanted``."""
    out: dict[str, int] = {}
    k = bisect_left(codes, entry << _SHIFT)
    end = len(codes)
    while k < end and codes[k] >> _SHIFT == entry:
        cid = call_ids[k]
        if cid in wanted and cid not in out:
            out[cid] = k
        k += 1
    return out


_ASSISTANT = ROLE_NAMES.index("assistant")


def extend_pairing(
    old: Pairing, store: NodeStore, tree: Tree, entries: Sequence[SkEntry]
) -> Pairing:
    """``old`` (the pairing of ``store``'s entries) with ``entries`` added, as ``tree``
    places them: what :func:`pair_tool_calls` gives for the whole file; ``old`` is unchanged."""
    n = len(store)
    codes = array("q", old.call_codes)
    new_calls: dict[int, list[tuple[int, str]]] = {}
    results = array("q", old.results)
    errors = list(old.errors)
    waiting: list[tuple[int, str | None]] = []
    for j, sk in enumerate(entries):
        m = sk.message
        if m is None:
            continue
        i = n + j
        if m.role == "assistant" and isinstance(m.content, list):
            found = [(k, b.id or "") for k, b in enumerate(m.content) if b.type == "toolCall"]
            if found:
                new_calls[i] = found
                codes.extend((i << _SHIFT) | k for k, _cid in found)
        elif m.role == "toolResult":
            results.append(i)
            if m.is_error:
                errors.append(i)
            waiting.append((i, m.tool_call_id))
    result_call = ResultCalls(0)
    result_call._entry = array("i", old.result_call._entry)  # noqa: SLF001
    result_call._entry.extend([-1] * (len(tree) - n))  # noqa: SLF001
    result_call._part = array("i", old.result_call._part)  # noqa: SLF001
    result_call._part.extend([0] * (len(tree) - n))  # noqa: SLF001
    result_call._count = old.result_call._count  # noqa: SLF001
    call_results = CallResults(array("q"))
    call_results._codes = codes  # noqa: SLF001
    call_results._first = array("i", old.call_results._first)  # noqa: SLF001
    call_results._first.extend([-1] * (len(codes) - len(old.call_codes)))  # noqa: SLF001
    call_results._more = dict(old.call_results._more)  # noqa: SLF001 - lists copied on change
    out = Pairing(
        call_codes=codes,
        results=results,
        result_call=result_call,
        call_results=call_results,
        errors=errors,
    )
    parents, roles = tree.parents, store.roles
    for r, call_id in waiting:
        if call_id is None:
            continue
        j = parents[r]
        while j >= 0:
            if j >= n:
                calls = new_calls.get(j, ())
            elif roles[j] == _ASSISTANT:
                blocks = store.blocks(j)
                calls = [(k, b.id or "") for k, b in enumerate(blocks) if b.type == "toolCall"]
            else:
                calls = ()
            slot = next((k for k, cid in calls if cid == call_id), -1)
            if slot >= 0:
                ref = (j, slot)
                result_call.set(r, ref)
                k = call_results._slot(ref)  # noqa: SLF001
                if call_results._first[k] < 0:  # noqa: SLF001
                    call_results._first[k] = r  # noqa: SLF001
                else:
                    more = call_results._more  # noqa: SLF001
                    more[k] = [*more.get(k, ()), r]
                break
            j = parents[j]
    return out
