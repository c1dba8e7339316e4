"""Provides :func:`grow_rows`: the branch panel's rows once Pi appended a chain of entries
under an entry of the active path, without flattening the tree again."""

from __future__ import annotations

from array import array
from typing import TYPE_CHECKING

from piview.model.treefilter import FilterMode, visibility
from piview.model.treeview import Folds, Row, TreeRows, _emit, _Walk, _Work

if TYPE_CHECKING:
    from piview.model.session import Session


def grow_rows(
    old: TreeRows, session: Session, leaf: int, first_new: int, mode: FilterMode, folds: Folds
) -> TreeRows | None:
    """The rows :func:`~piview.model.treeview.flatten` gives for ``session`` when ``old`` were
    its rows before ``first_new``, grown in place; None for a shape not handled here."""
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
    if not 0 <= fork < n0 or not on_path0[fork]:
        return None
    # The new branch hangs, in the visible tree, from the fork or its nearest visible ancestor.
    top = fork
    while top >= 0 and pre0[top] < 0:
        top = parents[top]
    if top < 0 or top not in old.row_of:
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
    return _grow(old, walk, session, n0, fork, top, shown, folds)


def _visible_below(
    session: Session, x: int, pre: array[int], first: frozenset[int] = frozenset()
) -> list[int]:
    """The visible entries that hang from ``x`` in the visible tree (hidden children passed
    up), in flatten's order (a child in ``first`` first), among those ``pre`` covers."""
    n0 = len(pre)
    children = session.tree.children

    def kids(y: int) -> list[int]:
        out = [c for c in children[y] if c < n0]
        for j, c in enumerate(out):
            if c in first:
                return [c, *out[:j], *out[j + 1 :]]
        return out

    found: list[int] = []
    stack = kids(x)[::-1]
    while stack:
        c = stack.pop()
        if pre[c] >= 0:
            found.append(c)
        else:
            stack.extend(reversed(kids(c)))
    return found


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
    top: int,
    shown: bytearray,
    folds: Folds,
) -> TreeRows:
    """Grow ``old`` in place (its lists and arrays become the new rows' own): the new chain
    hangs from ``fork``, which is ``top`` or hidden under it (``top`` visible)."""
    tree = session.tree
    n = len(tree)
    parents = tree.parents
    pre, size, on_path, vchildren = walk.pre, walk.size, walk.on_path, walk.vchildren
    rows, row_of, vparent = old.rows, old.row_of, walk.vparent
    # The old branch below the fork leaves the active path: its branch points list their
    # visible children in tree order now; ``top`` lists the new branch first, then the rest
    # in flatten's order (the hidden entries from it down to the fork stay on the path).
    old_branch: list[int] = []
    x = old.leaf
    assert x is not None
    while x != fork and x >= 0:  # the fork is on the old active path: an ancestor
        old_branch.append(x)
        x = parents[x]
    reordered = {
        x: _visible_below(session, x, pre) for x in old_branch if len(vchildren.get(x, ())) > 1
    }
    hidden_path: list[int] = []
    x = fork
    while x != top:
        hidden_path.append(x)
        x = parents[x]
    reordered[top] = _visible_below(session, top, pre, frozenset(hidden_path))
    grown = [n0 + j for j, on in enumerate(shown) if on]
    k = len(grown)
    lo, hi = pre[top], pre[top] + size[top]
    index = row_of[top]
    end = index + 1
    while end < len(rows) and lo <= pre[rows[end].entry] < hi:
        end += 1
    # The preorder positions after the fork's subtree move on by k: those of the rows after
    # its rows, and of what the folded ones among them hide.
    for r in rows[end:]:
        pre[r.entry] += k
        if r.folded:
            stack = list(vchildren.get(r.entry, ()))
            while stack:
                e = stack.pop()
                pre[e] += k
                stack.extend(vchildren.get(e, ()))
    vchildren.update(reordered)
    vchildren[top] = [grown[0], *reordered[top]]
    for a, b in zip(grown, grown[1:], strict=False):
        vchildren[a] = [b]
    for x in old_branch:
        on_path[x] = 0
    on_path.extend(b"\x01" * (n - n0))
    vparent.extend([-1] * (n - n0))
    anc = top
    for g in grown:
        vparent[g] = anc
        anc = g
    size.extend([1] * (n - n0))
    for j, g in enumerate(grown):
        size[g] = k - j
    a = top
    while a >= 0:  # the visible ancestors' subtrees grow (a walk up the active path)
        size[a] += k
        a = vparent[a]
    # Top's subtree in its new order: the new branch first, the old one in tree order.
    pre.extend([-1] * (n - n0))
    at = lo
    stack = [top]
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
    sub: list[Row] = []
    _emit(new_walk, folds, [_state(rows[index], new_walk, top)], sub)
    for r in rows[index:end]:
        del row_of[r.entry]
    rows[index:end] = sub
    for j in range(index, len(rows)):
        row_of[rows[j].entry] = j
    return TreeRows(
        rows=rows,
        mode=old.mode,
        leaf=n - 1,
        shown=old.shown + k,
        row_of=row_of,
        vparent=vparent,
        parents=parents,
        walk=new_walk,
    )
