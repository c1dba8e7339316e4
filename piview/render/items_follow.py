"""Provides :func:`extend_items`: the items of a branch that grew at its end (Pi appended to
the leaf shown), from the items it had, in time linear in the new entries."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from piview.model.store import F_ERROR
from piview.render.item import ItemList
from piview.render.items import build_items

if TYPE_CHECKING:
    from piview.model.session import Session

__all__ = ["extend_items"]


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
