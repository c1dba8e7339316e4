"""Provides :class:`BlockLayout`: where each block of a transcript sits, counted in lines.

The bookkeeping of :class:`piview.widgets.transcript.Transcript`, kept free of Textual (and of
Rich): a height per block (a guess until the block is rendered), the prefix sums of those
heights (the line each block starts on), which heights are exact, and which blocks the user
expanded or collapsed. Also the look-ups over a branch's items that the transcript needs: the
block that draws an entry, the next block that matches.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from itertools import accumulate, repeat
from typing import TYPE_CHECKING

from piview.render.items import Item, ItemKind, ItemList

if TYPE_CHECKING:
    from piview.model import Session

GUTTER = 2
"""Columns left of every block, for the cursor mark."""
MAX_ESTIMATE = 30
"""The most lines a block is guessed to take before it is rendered."""


_KEEP_STATES = 20_000
"""Guesses are kept only while the user set at most this many blocks' states (a copy of
them is kept with the guesses)."""


def text_width(width: int) -> int:
    """The width blocks are rendered at in a view ``width`` columns wide."""
    return max(20, width - GUTTER)


Guesses = tuple[Sequence[int], int, dict[tuple[int, int], bool], "array[int]"]
"""Heights guessed ahead: ``(line lengths, width, blocks' states, guesses)``, as
:meth:`BlockLayout.keep_guesses` takes them after the items."""


def first_guesses(
    items: ItemList, lengths: Sequence[int], width: int, expanded: dict[tuple[int, int], bool]
) -> array[int]:
    """The guessed height of every block of ``items`` in a view ``width`` wide, shown as
    ``expanded`` says (the blocks the user opened or closed) or as built (safe in a worker
    given its own copy of ``expanded``)."""
    if expanded:  # blocks the user opened or closed (thousands after t or o)
        return items.estimates_shown(expanded, lengths, text_width(width), MAX_ESTIMATE)
    return items.estimates(lengths, text_width(width), MAX_ESTIMATE)


class BlockLayout:
    """The heights and first lines of a branch's blocks, and which heights are exact.

    The owner keeps it in step with its items: after every change of items (another path,
    filter or width) it calls :meth:`reset` or :meth:`keep_prefix`.
    """

    __slots__ = ("session", "expanded", "heights", "offsets", "exact", "_groups", "_guessed")

    def __init__(self, session: Session) -> None:
        self.session = session
        self.expanded: dict[tuple[int, int], bool] = {}
        """Blocks the user expanded or collapsed: ``(entry, part)`` → expanded."""
        # Arrays, not lists: a big session has hundreds of thousands of blocks (a list holds
        # an int object per block, an array 4 bytes).
        self.heights = array("i")
        """Lines per block: rendered (see :attr:`exact`) or guessed."""
        self.offsets = array("q", [0])
        """``offsets[k]``: the line block ``k`` starts on; ``offsets[-1]``: all lines."""
        self.exact: bytearray = bytearray()
        """1 where the height is the rendered block's, 0 where it is a guess."""
        self._groups: dict[str, _Group] = {}
        """The collapsible blocks of each kind ``t`` and ``o`` toggle, for the items last
        toggled (an :class:`ItemList` never changes once built)."""
        self._guessed: list[tuple[ItemList, object, int, dict[tuple[int, int], bool], array[int]]]
        self._guessed = []
        """The first guesses of the last few ``(items, line lengths, width, expanded)``
        reset (``H`` again, a panel closed again), with a copy of :attr:`expanded`."""

    @property
    def total(self) -> int:
        """Lines of all blocks."""
        return self.offsets[-1]

    def is_expanded(self, item: Item) -> bool:
        """Whether ``item`` is shown expanded: as the user set it, else as it was built."""
        return self.expanded.get((item.entry, item.part), item.expanded)

    def estimate(self, item: Item, width: int) -> int:
        """A guess at ``item``'s height in a view ``width`` columns wide, from its line's size."""
        if item.collapsible and not self.is_expanded(item):
            return 2
        n = self.session.line_length(item.entry) if item.entry >= 0 else 0
        return max(2, min(MAX_ESTIMATE, 2 + n // (text_width(width) * 2)))

    def reset(self, items: Sequence[Item], width: int) -> None:
        """Guess the height of every block of ``items``; none is exact."""
        if isinstance(items, ItemList):
            lengths = self.session.index.lengths
            self.heights = array("i", self._first_guesses(items, lengths, width))
        else:
            self.heights = array("i", (self.estimate(it, width) for it in items))
        self.exact = bytearray(len(items))
        self.recompute()

    def _first_guesses(self, items: ItemList, lengths: Sequence[int], width: int) -> array[int]:
        """The first guesses of ``items`` at ``width``, shown as the user set them, kept for
        the last few (the caller copies them: its heights change as blocks are measured)."""
        expanded = self.expanded
        for got in self._guessed:
            # (the states compared at C speed: a copy, as anyone may change the dict)
            if got[0] is items and got[1] is lengths and got[2] == width and got[3] == expanded:
                return got[4]
        guesses = first_guesses(items, lengths, width, expanded)
        self.keep_guesses(items, lengths, width, expanded, guesses)
        return guesses

    def keep_guesses(
        self,
        items: ItemList,
        lengths: Sequence[int],
        width: int,
        expanded: dict[tuple[int, int], bool],
        guesses: array[int],
    ) -> None:
        """Keep ``guesses``, the :func:`first_guesses` of ``items`` at ``width`` with the
        blocks' states ``expanded`` (made ahead, in a worker: a reset of those items at that
        width while the states are still those guesses nothing)."""
        if len(expanded) <= _KEEP_STATES:
            self._guessed = [(items, lengths, width, dict(expanded), guesses), *self._guessed[:2]]

    def keep_prefix(self, items: Sequence[Item], fresh_from: int, width: int) -> None:
        """Keep what is known of the first ``fresh_from`` blocks; guess the rest of ``items``."""
        self.heights = self.heights[:fresh_from] + array(
            "i", [self.estimate(it, width) for it in items[fresh_from:]]
        )
        self.exact = self.exact[:fresh_from] + bytearray(len(items) - fresh_from)
        self.recompute(fresh_from)

    def guess_again(self, items: Sequence[Item], where: Iterable[int], width: int) -> None:
        """Forget the heights of the blocks at positions ``where`` (what they draw changed):
        guess them again, as not exact."""
        for k in where:
            self.exact[k] = 0
            self.heights[k] = self.estimate(items[k], width)
        self.recompute()

    def recompute(self, start: int = 0) -> None:
        """Sum the heights again into :attr:`offsets` (those of the first ``start`` blocks
        are kept: a branch that grew at its end sums only its new blocks)."""
        offsets = self.offsets
        if 0 < start < len(offsets) and start <= len(self.heights):
            # In place: the arrays are this layout's own (a copy of 500,000 sums costs more).
            del offsets[start + 1 :]
            offsets.extend(accumulate(self.heights[start:], initial=offsets[start]))
            del offsets[start + 1]  # the initial value, repeated
            return
        self.offsets = array("q", accumulate(self.heights, initial=0))

    def block_at(self, y: int) -> int:
        """The block on line ``y`` (the first or last block for a line out of range)."""
        return max(0, min(len(self.heights) - 1, bisect_right(self.offsets, y) - 1))

    def measured(self, index: int, lines: int) -> bool:
        """Block ``index`` renders to ``lines`` lines: its height is exact now. True when the
        height changed (then :meth:`recompute` is due)."""
        self.exact[index] = 1
        if lines != self.heights[index]:
            self.heights[index] = lines
            return True
        return False

    def kind_positions(self, items: Sequence[Item], kind: ItemKind) -> Sequence[int]:
        """Positions of the collapsible blocks of ``kind`` (what ``t`` or ``o`` toggles)."""
        if isinstance(items, ItemList):
            return self._group(items, kind).where
        return [k for k, it in enumerate(items) if it.kind == kind and it.collapsible]

    def kind_expanded(self, items: Sequence[Item], kind: ItemKind) -> bool:
        """Whether every collapsible block of ``kind`` is shown expanded."""
        if isinstance(items, ItemList):
            group = self._group(items, kind)
            return all(map(self.expanded.get, group.keys, group.built))
        return self.all_expanded(items, self.kind_positions(items, kind))

    def set_kind_expanded(
        self, items: Sequence[Item], kind: ItemKind, expanded: bool, width: int
    ) -> None:
        """Expand or collapse every collapsible block of ``kind``; their heights are
        guesses again (as :meth:`set_expanded`, from what the last toggle kept)."""
        if not isinstance(items, ItemList):
            self.set_expanded(items, self.kind_positions(items, kind), expanded, width)
            return
        group = self._group(items, kind)
        where = group.where
        if not where:
            return
        guesses = group.guesses.get((expanded, width))
        if guesses is None:
            lengths = self.session.index.lengths
            guesses = items.estimates_at(where, expanded, lengths, text_width(width), MAX_ESTIMATE)
            if len(group.guesses) >= 4:  # widths seen before: a resize or two
                group.guesses.clear()
            group.guesses[(expanded, width)] = guesses
        self.expanded.update(zip(group.keys, repeat(expanded)))
        deque(map(self.heights.__setitem__, where, guesses), maxlen=0)
        deque(map(self.exact.__setitem__, where, repeat(0)), maxlen=0)
        self.recompute(where[0])

    def _group(self, items: ItemList, kind: ItemKind) -> _Group:
        group = self._groups.get(kind)
        if group is None or group.items is not items:
            group = self._groups[kind] = _Group(items, kind)
        return group

    def all_expanded(self, items: Sequence[Item], where: Sequence[int]) -> bool:
        """Whether every block at positions ``where`` is shown expanded."""
        if isinstance(items, ItemList):  # thousands of blocks (``t``, ``o``): at C speed
            shown = map(self.expanded.get, items.keys_at(where), items.built_expanded_at(where))
            return all(shown)
        return all(self.is_expanded(items[k]) for k in where)

    def set_expanded(
        self, items: Sequence[Item], where: Iterable[int], expanded: bool, width: int
    ) -> None:
        """Expand or collapse the blocks at positions ``where``: their heights are guesses
        again."""
        where = list(where)
        if not where:
            return
        if isinstance(items, ItemList):
            # ``t`` and ``o`` set thousands of blocks: the same guesses as :meth:`estimate`,
            # made and stored by C functions (no Python code runs per block).
            self.expanded.update(zip(items.keys_at(where), repeat(expanded)))
            lengths = self.session.index.lengths
            guesses = items.estimates_at(where, expanded, lengths, text_width(width), MAX_ESTIMATE)
            deque(map(self.heights.__setitem__, where, guesses), maxlen=0)
            deque(map(self.exact.__setitem__, where, repeat(0)), maxlen=0)
        else:
            for k in where:
                it = items[k]
                self.expanded[(it.entry, it.part)] = expanded
                self.exact[k] = 0
                self.heights[k] = self.estimate(it, width)
        # The sums before the first block changed stay as they are.
        self.recompute(min(where))


class _Group:
    """The collapsible blocks of one kind in one item list: their positions, keys, how they
    were built, and their guessed heights by ``(expanded, width)`` (a toggle of thousands of
    blocks then stores what it computed once)."""

    __slots__ = ("items", "where", "keys", "built", "guesses")

    def __init__(self, items: ItemList, kind: ItemKind) -> None:
        self.items = items
        self.where = items.positions(kind, collapsible=True)
        self.keys = items.keys_at(self.where)
        self.built = items.built_expanded_at(self.where)
        self.guesses: dict[tuple[bool, int], array[int]] = {}


def index_of_entry(session: Session, items: Sequence[Item], entry: int) -> int | None:
    """Index of the first item of ``entry`` (or of the item that draws it, for results)."""
    if isinstance(items, ItemList):
        found = items.first_of(entry)
        if found is not None:
            return found
    else:
        for k, item in enumerate(items):
            if item.entry == entry:
                return k
    ref = session.pairing.result_call.get(entry)
    if ref is not None:
        for k, item in enumerate(items):
            if item.kind == "tool" and (item.entry, item.part) == ref:
                return k
    return None


def nearest_index(items: Sequence[Item], path: Sequence[int], entry: int) -> int:
    """The last item drawn for an entry at or before ``entry`` on ``path``."""
    position = {e: j for j, e in enumerate(path)}
    limit = position.get(entry, 0)
    best = 0
    for k, item in enumerate(items):
        if position.get(item.entry, 0) <= limit:
            best = k
    return best


def find_item(
    items: Sequence[Item], start: int, step: int, pred: Callable[[Item], bool]
) -> int | None:
    """The first index after ``start``, going by ``step``, whose item satisfies ``pred``."""
    k = start + step
    while 0 <= k < len(items):
        if pred(items[k]):
            return k
        k += step
    return None


def step_cyclic(spots: Sequence[int], current: int, step: int) -> tuple[int, bool]:
    """The next (``step`` > 0) or previous position of the sorted ``spots`` after
    ``current``, wrapping around, and whether it wrapped. ``spots`` must not be empty."""
    if step > 0:
        k = bisect_right(spots, current)
        return (spots[k], False) if k < len(spots) else (spots[0], True)
    k = bisect_left(spots, current) - 1
    return (spots[k], False) if k >= 0 else (spots[-1], True)
