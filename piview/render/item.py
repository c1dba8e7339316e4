"""Provides the transcript's unit, :class:`Item` (one block: a message, a thinking block, a
tool call with its result, a divider…), and :class:`ItemList`, a branch's items packed in
arrays. Built by :func:`piview.render.items.build_items`; the role renderers draw one.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import compress, repeat
from operator import and_, floordiv, mul, ne, not_, or_, truth
from typing import overload

from piview.render.kinds import KIND_CODE, KIND_NAMES

ItemKind = str
"""A kind's name: one of :data:`piview.render.kinds.KIND_NAMES`."""


@dataclass(slots=True)
class Item:
    """One block of the transcript: the unit of navigation (j/k), collapsing and caching."""

    kind: ItemKind
    entry: int
    """Entry index in the Session (file order)."""
    part: int = -1
    """Index of the content block in the entry's message content (thinking/tool items)."""
    hidden: bool = False
    """Shown only because "show hidden" is on (custom_message display:false, custom entries)."""
    collapsible: bool = False
    expanded: bool = False
    """Default state when the item is created."""
    error: bool = False
    """Tool error, assistant stopReason error/aborted, bash exit != 0: used by the `e` key."""
    user: bool = False
    """A user message: used by the `[`/`]` keys."""


class ItemList(Sequence[Item]):
    """The items of a branch, packed in arrays (a big session has hundreds of thousands of
    them, and an :class:`Item` object per item would cost far more). ``items[k]`` builds the
    Item; the list is never changed once built, so a worker may read it while the UI builds
    the next one."""

    __slots__ = ("_kinds", "_entries", "_parts", "_flags")

    def __init__(self, items: Iterable[Item] = ()) -> None:
        self._kinds = bytearray()
        self._entries = array("q")
        self._parts = array("i")
        self._flags = bytearray()
        for it in items:
            self._kinds.append(KIND_CODE[it.kind])
            self._entries.append(it.entry)
            self._parts.append(it.part)
            self._flags.append(
                it.hidden | it.collapsible << 1 | it.expanded << 2 | it.error << 3 | it.user << 4
            )

    def columns(self) -> tuple[bytearray, array[int], array[int], bytearray]:
        """The arrays of a list being built, to append to at C speed (``build_items``): the
        kind codes, entries, parts and flag bits (hidden 1, collapsible 2, expanded 4, error 8,
        user 16), one element per item. Never changed once the list is handed out."""
        return self._kinds, self._entries, self._parts, self._flags

    def extended(self, more: Iterable[Item], errors: Iterable[int] = ()) -> ItemList:
        """A new list: these items, the ones at positions ``errors`` now marked as errors, then
        ``more`` (the branch grew; copies of the arrays, at C speed)."""
        out = ItemList(more)
        out._kinds[:0] = self._kinds
        out._entries[:0] = self._entries
        out._parts[:0] = self._parts
        out._flags[:0] = self._flags
        for k in errors:
            out._flags[k] |= 8
        return out

    def __len__(self) -> int:
        return len(self._kinds)

    @overload
    def __getitem__(self, k: int) -> Item: ...
    @overload
    def __getitem__(self, k: slice) -> list[Item]: ...
    def __getitem__(self, k: int | slice) -> Item | list[Item]:
        if isinstance(k, slice):
            return [self[j] for j in range(*k.indices(len(self)))]
        if k < 0:
            k += len(self)
        if not 0 <= k < len(self):
            raise IndexError(k)
        f = self._flags[k]
        return Item(
            KIND_NAMES[self._kinds[k]],
            self._entries[k],
            self._parts[k],
            bool(f & 1),
            bool(f & 2),
            bool(f & 4),
            bool(f & 8),
            bool(f & 16),
        )

    def __iter__(self) -> Iterator[Item]:
        for k in range(len(self._kinds)):
            yield self[k]

    def common_prefix(self, other: ItemList) -> int:
        """How many first items the two lists share (kind, entry and part), compared at C
        speed: the file grew by a few entries, and a big session has hundreds of thousands
        of items."""

        def same(m: int) -> bool:
            return (
                self._entries[:m] == other._entries[:m]
                and self._parts[:m] == other._parts[:m]
                and self._kinds[:m] == other._kinds[:m]
            )

        n = min(len(self), len(other))
        if same(n):
            return n
        lo, hi = 0, n  # same(lo), not same(hi)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if same(mid):
                lo = mid
            else:
                hi = mid
        return lo

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]

    def positions(self, kind: ItemKind, *, collapsible: bool = False) -> list[int]:
        """Positions of the items of ``kind`` (only collapsible ones when asked), at C speed."""
        code = KIND_CODE[kind]
        hits = compress(range(len(self._kinds)), map(code.__eq__, self._kinds))
        if not collapsible:
            return list(hits)
        flags = self._flags
        return [k for k in hits if flags[k] & 2]

    def position_map(self) -> dict[tuple[int, int], int]:
        """``(entry, part)`` → position, for every item (built at C speed)."""
        keys = zip(self._entries, self._parts, strict=True)
        return dict(zip(keys, range(len(self._kinds)), strict=True))

    def first_positions(self) -> dict[int, int]:
        """Entry → position of its first item, for every entry (built at C speed)."""
        n = len(self._entries)
        # Later keys win in a dict: fed backwards, each entry keeps its first position.
        return dict(zip(reversed(self._entries), range(n - 1, -1, -1), strict=True))

    def first_positions_of(self, entries: Iterable[int]) -> list[int]:
        """Positions of the first item of each of ``entries`` that has one, in order: one
        pass at C speed over the items (not one per entry: a branch may hold hundreds of
        labelled entries)."""
        wanted = entries if isinstance(entries, (set, frozenset, dict)) else set(entries)
        mine = self._entries
        first: dict[int, int] = {}
        for k in compress(range(len(mine)), map(wanted.__contains__, mine)):
            first.setdefault(mine[k], k)  # only the items of those entries come here
        return sorted(first.values())

    def first_of(self, entry: int) -> int | None:
        """Position of the first item of ``entry`` (searched at C speed)."""
        try:
            return self._entries.index(entry)
        except ValueError:
            return None

    def entry(self, k: int) -> int:
        """The entry of item ``k`` (without building the item)."""
        return self._entries[k]

    def estimates(self, lengths: Sequence[int], width: int, cap: int) -> array[int]:
        """A first guess at each item's height in lines, before any is rendered: 2 for a
        collapsed one, else 2 + the size of its entry's line (``lengths``, per entry) over
        twice ``width``, at most ``cap``.

        Runs over every item of a branch (hundreds of thousands in a big session), so it is
        built from ``map`` over C functions only: no Python code runs per item.
        """
        # Collapsed (collapsible, not expanded: flags & 6 == 2) items get 0 extra lines.
        open_ = map(ne, map(and_, self._flags, repeat(6)), repeat(2))
        return _estimates(self._entries, open_, lengths, width, cap)

    def estimates_shown(
        self, expanded: dict[tuple[int, int], bool], lengths: Sequence[int], width: int, cap: int
    ) -> array[int]:
        """:meth:`estimates`, each item shown as ``expanded`` says (``(entry, part)`` →
        expanded, what the user set) or else as it was built; at C speed (after ``t`` the
        user has set thousands, and a resize guesses every height again)."""
        flags = self._flags
        built = map(truth, map(and_, flags, repeat(4)))
        shown = map(expanded.get, zip(self._entries, self._parts, strict=True), built)
        fixed = map(not_, map(and_, flags, repeat(2)))  # not collapsible: always open
        return _estimates(self._entries, map(or_, fixed, shown), lengths, width, cap)

    def estimates_at(
        self, where: Sequence[int], expanded: bool, lengths: Sequence[int], width: int, cap: int
    ) -> array[int]:
        """:meth:`estimates` of the items at positions ``where``, each shown ``expanded`` or
        not (a toggle of every thinking block or tool output: thousands of them)."""
        entries = map(self._entries.__getitem__, where)
        if expanded:
            return _estimates(entries, repeat(True), lengths, width, cap)
        # Collapsed, only collapsible items are shorter: open = not collapsible.
        flags = map(self._flags.__getitem__, where)
        return _estimates(entries, map(not_, map(and_, flags, repeat(2))), lengths, width, cap)

    def keys_at(self, where: Sequence[int]) -> list[tuple[int, int]]:
        """``(entry, part)`` of the items at positions ``where`` (at C speed)."""
        entries = map(self._entries.__getitem__, where)
        return list(zip(entries, map(self._parts.__getitem__, where), strict=True))

    def built_expanded_at(self, where: Sequence[int]) -> list[bool]:
        """Whether each item at positions ``where`` was built expanded (at C speed)."""
        return list(map(truth, map(and_, map(self._flags.__getitem__, where), repeat(4))))


def _estimates(
    entries: Iterable[int], open_: Iterable[bool], lengths: Sequence[int], width: int, cap: int
) -> array[int]:
    """2 lines for each item not ``open_``, else 2 + its entry's line size over twice ``width``
    (at most ``cap``): :meth:`ItemList.estimates`, from ``map`` over C functions only."""
    sizes = map(lengths.__getitem__, entries)
    # 2 + min(cap - 2, size // (2 * width)): two C calls per item (a bisect took twice that).
    steps = map(min, map(floordiv, sizes, repeat(2 * width)), repeat(max(0, cap - 2)))
    return array("i", map((2).__add__, map(mul, steps, open_)))
