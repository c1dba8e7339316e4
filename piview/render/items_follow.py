"""Provides :func:`extend_items`: the items of a branch that grew at its end (Pi appended to
the leaf shown), from the items it had, in time linear in the new entries."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from piview.model.store import F_ERROR
from piview.render.item import Item, ItemList
from piview.render.items import build_items

if TYPE_CHECKING:
    from piview.model.session import Session

__all__ = ["calls_answered", "extend_items", "grew_without_compaction"]


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
    """Whether ``new`` is ``old`` (its first ``same`` items) and more, none of them a
    compaction: then the same blocks are compacted away (no look at the compactions)."""
    return (
        same == len(old)
        and isinstance(new, ItemList)
        and "compaction" not in {it.kind for it in new[same:]}
    )


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
