"""Provides :func:`grow_rows`: the branch panel's rows once Pi appended a chain of entries
under an entry of the active path (to its leaf, or a new branch after ``/tree``), from the rows
it had, without flattening the whole tree again.

Only the fork's segment is laid out again (the fork's row and what hangs under it, as
:func:`~piview.model.treeview.refold` does for a fold); the visible tree is carried over: the
new entries join it, the fork's children and the old branch's branch points are put back in
tree order (the active child first), the subtree sizes of the fork's ancestors grow, and the
preorder positions after the fork's subtree move on. The result equals
:func:`~piview.model.treeview.flatten` of the grown session; the shapes it does not handle
(side notes, archives, labels among the new entries, hidden entries where the order of the
visible children would have to be worked out again, user folds) give None, and the caller
flattens as before.
"""

from __future__ import annotations

from array import array
from typing import TYPE_CHECKING

from piview.model.treefilter import FilterMode, visibility
from piview.model.treeview import Folds, Row, TreeRows, _emit, _Walk, _Work

if TYPE_CHECKING:
    from piview.model.session import Session

__all__ = ["grow_rows"]


def grow_rows(
    old: TreeRows, session: Session, leaf: int, first_new: int, mode: FilterMode, folds: Folds
) -> TreeRows | None:
    """The rows :func:`~piview.model.treeview.flatten` gives for ``session`` (``leaf``
    active, ``mode``, ``folds``) when ``old`` are its rows before the entries from
    ``first_new`` on were appended, with the same ``mode`` and ``folds``: linear in the new
    entries, the fork's subtree and the rows after it (and a pass at C speed over the
    preorder positions); None when this is not a shape handled here (then flatten)."""
    walk = old.walk
    tree = session.tree
    store = session.nodes
    n0, n = first_new, len(tree)
    if (
        walk is None
        or old.mode != mode
        or folds.opened
        or folds.closed
        or not 0 < n0 < n
        or len(walk.pre) != n0
        or leaf != n - 1
        or old.leaf is None
        or tree.side
        or walk.vside
    ):
        return None
    parents = tree.parents
    fork = parents[n0]
    if any(parents[j] != j - 1 for j in range(n0 + 1, n)):
        return None  # not one chain
    pre0, on_path0 = walk.pre, walk.on_path
    if not 0 <= fork < n0 or not on_path0[fork] or pre0[fork] < 0 or fork not in old.row_of:
        return None
    new_nodes = [store[i] for i in range(n0, n)]
    if any(sk.type in ("label", "archive") for sk in new_nodes):
        return None
    if next(store.of_type("archive"), None) is not None:
        return None
    shown = visibility(new_nodes, mode, {})
    shown[-1] = 1  # the active leaf is always shown
    # The old leaf was shown because it was the leaf: it stays only if the filter keeps it.
    old_leaf = old.leaf
    if not visibility([store[old_leaf]], mode, {0: ""} if old_leaf in walk.labels else {})[0]:
        return None
    return _grow(old, walk, session, n0, fork, shown, folds)


def _tree_order(session: Session, x: int, pre: array[int]) -> list[int] | None:
    """The children of ``x`` that were there before (those ``pre`` covers), in tree order,
    when each is visible; else None (hidden children would hand their own children up in
    an order to be worked out again)."""
    kids = [c for c in session.tree.children[x] if c < len(pre)]
    if any(pre[c] < 0 for c in kids):
        return None
    return kids


def _state(row: Row, walk: _Walk, i: int) -> _Work:
    """The state :func:`~piview.model.treeview.flatten` had when it laid out ``i`` (drawn as
    ``row``): what its parent's count of visible children and ``row`` tell."""
    multi = walk.multi
    parent = walk.vparent[i]
    if parent < 0:
        roots = walk.vchildren[-1]
        return (i, 1 if multi else 0, multi, multi, i == roots[-1], None, multi, False)
    indent = row.indent + 1 if multi else row.indent  # the row shows one level less
    siblings = walk.vchildren[parent]
    if len(siblings) > 1:
        return (i, indent, True, True, i == siblings[-1], row.gutters, False, False)
    return (i, indent, False, False, True, row.gutters, False, False)


def _grow(
    old: TreeRows,
    walk: _Walk,
    session: Session,
    n0: int,
    fork: int,
    shown: bytearray,
    folds: Folds,
) -> TreeRows | None:
    tree = session.tree
    n = len(tree)
    parents = tree.parents
    pre0, size0, on_path0, vchildren0 = walk.pre, walk.size, walk.on_path, walk.vchildren
    # The old branch below the fork leaves the active path.
    old_branch: list[int] = []
    x = old.leaf
    assert x is not None
    while x != fork:
        if x < 0:
            return None  # the fork was not on the old active path
        old_branch.append(x)
        x = parents[x]
    vchildren = dict(vchildren0)  # lists replaced, never changed in place
    for x in old_branch:
        kids = vchildren0.get(x)
        if kids is not None and len(kids) > 1:
            order = _tree_order(session, x, pre0)
            if order is None:
                return None
            vchildren[x] = order
    grown = [n0 + j for j, on in enumerate(shown) if on]
    before = vchildren0.get(fork, [])
    if len(before) > 1:
        # The old branch's child is no longer first: all in tree order after the new one.
        order = _tree_order(session, fork, pre0)
        if order is None:
            return None
        before = order
    vchildren[fork] = [grown[0], *before]
    for a, b in zip(grown, grown[1:], strict=False):
        vchildren[a] = [b]
    on_path = bytearray(on_path0)
    for x in old_branch:
        on_path[x] = 0
    on_path.extend(b"\x01" * (n - n0))
    vparent = list(walk.vparent)
    vparent.extend([-1] * (n - n0))
    anc = fork
    for g in grown:
        vparent[g] = anc
        anc = g
    k = len(grown)
    size = array("q", size0)
    size.extend([1] * (n - n0))
    for j, g in enumerate(grown):
        size[g] = k - j
    a = fork
    while a >= 0:
        size[a] += k
        a = vparent[a]
    # Preorder: after the fork's subtree everything moves on by k; the subtree is walked again
    # (its order changed: the new branch first, the old one in tree order).
    lo, hi = pre0[fork], pre0[fork] + size0[fork]
    pre = array("q", (p + k if p >= hi else p for p in pre0))
    pre.extend([-1] * (n - n0))
    at = lo
    stack = [fork]
    while stack:
        i = stack.pop()
        pre[i] = at
        at += 1
        kids = vchildren.get(i)
        if kids:
            stack.extend(reversed(kids))
    labels = walk.labels
    labelled = sorted((pre[e], e) for e in labels if 0 <= e < n and pre[e] >= 0)
    new_walk = _Walk(
        vchildren, vparent, size, pre, on_path, n - 1, walk.multi, labels, labelled, walk.vside
    )
    rows = old.rows
    index = old.row_of[fork]
    end = index + 1
    while end < len(rows) and lo <= pre0[rows[end].entry] < hi:
        end += 1
    sub: list[Row] = []
    _emit(new_walk, folds, [_state(rows[index], new_walk, fork)], sub)
    out = [*rows[:index], *sub, *rows[end:]]
    row_of = dict(old.row_of)
    for r in rows[index:end]:
        del row_of[r.entry]
    for j in range(index, len(out)):
        row_of[out[j].entry] = j
    return TreeRows(
        rows=out,
        mode=old.mode,
        leaf=n - 1,
        shown=old.shown + k,
        row_of=row_of,
        vparent=vparent,
        parents=parents,
        walk=new_walk,
    )
