"""Provides :func:`extend_items`: the items of a branch that grew at its end (Pi appended to
the leaf shown), from the items it had, in time linear in the new entries; and
:func:`branch_items`, those of a new branch from the items of the branch it left."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from piview.model.store import F_ERROR
from piview.render.item import Item, ItemList
from piview.render.items import build_items
from piview.render.kinds import KIND_CODE

if TYPE_CHECKING:
    from piview.model.session import Session


def extend_items(
    session: Session, items: ItemList, entries: Sequence[int], *, show_hidden: bool = False
) -> ItemList:
    """What :func:`~piview.render.items.build_items` gives for a path that ends in
    ``entries`` when ``items`` are those of the path before them (a new list).

    A new result answering a call earlier on the path is drawn in that call's block (a result
    pairs only with an ancestor, so its call is always on the path): it gets no block of its
    own, and when it is an error it marks that call's block as one.
    """
    result_call = session.pairing.result_call
    added = set(entries)
    more = [
        it
        for it in build_items(session, entries, show_hidden=show_hidden)
        if not (it.kind == "orphan_result" and it.entry in result_call)
    ]
    flags = session.nodes.flags
    errors: list[int] = []
    for r in entries:
        ref = result_call.get(r)
        if ref is None or ref[0] in added or not flags[r] & F_ERROR:
            continue
        k = items.first_of(ref[0])
        while k is not None and k < len(items) and items.entry(k) == ref[0]:
            if items[k].part == ref[1]:
                errors.append(k)
                break
            k += 1
    return items.extended(more, errors)


def grew_without_compaction(old: Sequence[Item], new: Sequence[Item], same: int) -> bool:
    """Whether ``new`` is ``old``'s first ``same`` items and more, and neither has a
    compaction after them (the branch grew, or a new branch left it after them): then the
    same blocks are compacted away (no look at the compactions)."""
    if not isinstance(new, ItemList):
        return False
    if same == len(old):
        return "compaction" not in {it.kind for it in new[same:]}
    if not isinstance(old, ItemList):
        return False
    # The kinds of the two rests, at C speed (a new branch may leave a long one behind).
    code = KIND_CODE["compaction"]
    return code not in old._kinds[same:] and code not in new._kinds[same:]  # noqa: SLF001


def calls_answered(session: Session, items: Sequence[Item], entries: Iterable[int]) -> set[int]:
    """Positions in ``items`` of the tool-call blocks that draw the results among
    ``entries`` (their heights change when a result arrives, however far back the call)."""
    result_call = session.pairing.result_call
    refs = [ref for e in entries if (ref := result_call.get(e)) is not None]
    if not refs:
        return set()
    if isinstance(items, ItemList) and len(refs) <= 64:
        # A few results (one poll's worth): find each call's entry at C speed.
        found: set[int] = set()
        for entry, part in refs:
            k = items.first_of(entry)
            while k is not None and k < len(items) and items.entry(k) == entry:
                if items[k].part == part:
                    found.add(k)
                    break
                k += 1
        return found
    if isinstance(items, ItemList):
        where = items.position_map()
    else:
        where = {(it.entry, it.part): k for k, it in enumerate(items)}
    return {where[r] for r in refs if r in where}


def branch_items(
    session: Session,
    items: ItemList,
    old_path: Sequence[int],
    path: Sequence[int],
    first_new: int,
    *,
    show_hidden: bool = False,
) -> ItemList | None:
    """What :func:`~piview.render.items.build_items` gives for ``path`` when ``items`` are
    those of ``old_path`` and ``path`` leaves it for entries from ``first_new`` on (Pi
    appended a new branch under an entry of the branch shown), else None.

    The blocks up to the fork (the deepest entry both paths share) are kept, but for the
    error marks of calls whose error results were on the old branch only; the new branch's
    entries get blocks of their own (:func:`extend_items`). Linear in the new entries, the
    blocks kept and the old branch's rest, at C speed for the last two.
    """
    k = len(path)
    while k and path[k - 1] >= first_new:
        k -= 1
    if not k or k == len(path) or k > len(old_path) or old_path[k - 1] != path[k - 1]:
        return None  # no new entry, or a fork off the branch shown: built as a whole
    fork = path[k - 1]
    gone = set(old_path[k:])
    # The old branch's rest starts at the first block of one of its entries (blocks follow
    # the path): a bisection over the blocks.
    entries = items._entries  # noqa: SLF001 - packed arrays, read at C speed
    kept = bisect_left(range(len(entries)), True, key=lambda j: entries[j] in gone)
    pairing = session.pairing
    result_call, call_results = pairing.result_call, pairing.call_results
    flags = session.nodes.flags
    tree = session.tree
    clear: list[int] = []
    for r in pairing.errors:
        if r not in gone:
            continue
        ref = result_call.get(r)
        if ref is None or ref[0] in gone:
            continue
        # The call stays; it is marked still when another error result of it is kept.
        others = [
            x
            for x in call_results.get(ref, ())
            if x != r and flags[x] & F_ERROR and x not in gone and tree.is_ancestor(x, fork)
        ]
        if others:
            continue
        at = _position(items, ref, kept)
        if at is not None:
            clear.append(at)
    prefix = _prefix(items, kept, clear)
    return extend_items(session, prefix, path[k:], show_hidden=show_hidden)


def _position(items: ItemList, ref: tuple[int, int], end: int) -> int | None:
    """Position of the block of tool call ``ref`` among the first ``end`` items."""
    k = items.first_of(ref[0])
    while k is not None and k < end and items.entry(k) == ref[0]:
        if items[k].part == ref[1]:
            return k
        k += 1
    return None


def _prefix(items: ItemList, end: int, clear: Iterable[int]) -> ItemList:
    """The first ``end`` items, those at positions ``clear`` no longer marked as errors."""
    out = ItemList()
    out._kinds = items._kinds[:end]  # noqa: SLF001 - copies of the packed arrays
    out._entries = items._entries[:end]  # noqa: SLF001
    out._parts = items._parts[:end]  # noqa: SLF001
    out._flags = items._flags[:end]  # noqa: SLF001
    for k in clear:
        out._flags[k] &= ~8  # noqa: SLF001
    return out
