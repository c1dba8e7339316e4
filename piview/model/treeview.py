"""Provides the rows of the branch panel: Pi's ``/tree`` selector (``tree-selector.ts``),
flattened and folded.

A visible entry hangs under its nearest visible ancestor; a branch point indents its
children; the child holding the active leaf comes first; segments off the active path start
folded. Every walk is iterative."""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from piview.model.treefilter import FilterMode, session_visibility

if TYPE_CHECKING:
    from piview.model.session import Session

# --------------------------------------------------------------------------- rows

OPEN_TREE_ENTRIES = 3_000
"""Trees up to this many entries open with every branch unfolded, as Pi's ``/tree`` does."""

INSIDE_LABELS_SHOWN = 3
"""Labels a folded row names (the rest are counted)."""

_AFTER = 1 << 62  # sorts after any entry index at the same preorder position

Gutter = tuple[int, bool, "Gutter | None"]
"""A vertical guide of an ancestor branch: (level, draw ``│``, the enclosing guide)."""


@dataclass(slots=True)
class Row:
    """One line of the branch panel (read-only; not frozen: frozen ones are slower to build)."""

    entry: int
    """Entry index in file order."""
    indent: int
    """Display indentation in levels (three cells each)."""
    connector: str
    """``"├"`` or ``"└"`` when the row starts a branch, else ``""``."""
    gutters: Gutter | None
    """Guides of the enclosing branches (a linked list, shared between rows)."""
    on_path: bool
    """The entry is on the active path (root to the active leaf)."""
    label: str | None
    """The entry's label (bookmark), if any."""
    is_leaf: bool
    """The entry is the active leaf."""
    is_branch_point: bool
    """Two or more visible entries hang directly under this one."""
    foldable: bool
    """The row starts a segment (a root, or a child of a branch point) and has children."""
    folded: bool
    """The row is folded: its descendants are not in the rows."""
    hidden: int = 0
    """How many visible entries the fold hides (0 when not folded)."""
    inside: tuple[str, ...] = ()
    """Labels of the entries a fold hides, the first :data:`INSIDE_LABELS_SHOWN` of them."""
    inside_count: int = 0
    """How many labelled entries the fold hides."""
    side: bool = False
    """The row is an OpenClaw side note, drawn under the entry it annotates."""

    @property
    def expanded(self) -> bool:
        """Foldable and currently unfolded."""
        return self.foldable and not self.folded

    def prefix(self) -> str:
        """The tree art before the row's text: guides, connector (``├─ ``/``└─ ``) and fold
        marker (``⊟`` for a foldable row, ``⊞`` for a folded one)."""
        cells = [" "] * (self.indent * 3)
        connector_level = self.indent - 1 if self.connector else -1
        guides: dict[int, bool] = {}
        g = self.gutters
        while g is not None:
            level, show, g = g
            guides[level] = show  # walking outwards: the outermost guide wins, as in Pi
        for level, show in guides.items():
            if show and level < self.indent:
                cells[level * 3] = "│"
        if connector_level >= 0 and connector_level not in guides:
            base = connector_level * 3
            cells[base] = self.connector
            cells[base + 1] = "⊞" if self.folded else "⊟" if self.foldable else "─"
        text = "".join(cells)
        if self.folded and not self.connector:
            text += "⊞ "
        if self.side:
            text += "· "
        return text


@dataclass(slots=True)
class Folds:
    """Which segments are folded: explicit choices over the default (with ``fold_side``,
    a foldable row off the active path is folded; without it, none, as in Pi's ``/tree``)."""

    opened: set[int] = field(default_factory=set)
    """Entries the user unfolded."""
    closed: set[int] = field(default_factory=set)
    """Entries the user folded."""
    fold_side: bool = True
    """Side branches start folded (big trees); else everything starts unfolded."""

    @classmethod
    def for_tree(cls, entries: int, mode: str = "default") -> Folds:
        """The default for a tree of ``entries``: unfolded up to :data:`OPEN_TREE_ENTRIES`
        (as Pi's ``/tree``), and always with the labeled-only filter."""
        return cls(fold_side=entries > OPEN_TREE_ENTRIES and mode != "labeled-only")

    def copy(self) -> Folds:
        """An independent copy (a worker flattens with it while the user folds on)."""
        return Folds(set(self.opened), set(self.closed), self.fold_side)

    def is_folded(self, entry: int, on_path: bool) -> bool:
        """Whether a foldable ``entry`` is folded."""
        if entry in self.closed:
            return True
        if entry in self.opened:
            return False
        return self.fold_side and not on_path

    def set(self, entry: int, folded: bool) -> None:
        """Fold or unfold ``entry``."""
        if folded:
            self.opened.discard(entry)
            self.closed.add(entry)
        else:
            self.closed.discard(entry)
            self.opened.add(entry)

    def open_path(self, path: Iterable[int]) -> None:
        """Forget explicit folds on ``path`` so that it shows unfolded."""
        self.closed.difference_update(path)  # at C speed: a branch of 400,000 entries


@dataclass(slots=True)
class TreeRows:
    """The flattened rows, with the visible tree they were drawn from."""

    rows: list[Row]
    """The rows, top to bottom."""
    mode: FilterMode
    """The filter mode used."""
    leaf: int | None
    """The active leaf."""
    shown: int
    """Entries passing the filter, folded ones included."""
    row_of: dict[int, int]
    """Row index of each entry that has a row."""
    vparent: list[int]
    """Per entry: nearest visible ancestor (``-1`` none); meaningful for visible entries."""
    parents: array[int]
    """The tree's parents (to find the nearest row of an entry that has none)."""
    walk: _Walk | None = None
    """The visible tree the rows were laid out from (for :func:`refold`)."""

    def __len__(self) -> int:
        return len(self.rows)

    def nearest_row(self, entry: int | None) -> int | None:
        """Row of ``entry``, else of its nearest ancestor that has a row."""
        while entry is not None and entry >= 0:
            r = self.row_of.get(entry)
            if r is not None:
                return r
            entry = self.parents[entry]
        return None

    def segment_start(self, row: int) -> int | None:
        """Row of the foldable segment start enclosing ``row`` (itself excluded)."""
        if not 0 <= row < len(self.rows):
            return None
        entry = self.vparent[self.rows[row].entry]
        while entry >= 0:
            r = self.row_of.get(entry)
            if r is not None and self.rows[r].foldable:
                return r
            entry = self.vparent[entry]
        return None


def _ordered(children: list[int], on_path: bytearray) -> list[int]:
    """``children`` with the one on the active path first."""
    for k, c in enumerate(children):
        if on_path[c]:
            return children if k == 0 else [c, *children[:k], *children[k + 1 :]]
    return children


def flatten(
    session: Session,
    leaf: int | None = None,
    mode: FilterMode = "default",
    folds: Folds | None = None,
) -> TreeRows:
    """Compute the panel rows of ``session`` (``leaf`` active, default the last entry;
    ``folds`` default to folding every segment off the active path)."""
    nodes = session.nodes
    tree = session.tree
    n = len(nodes)
    if leaf is None or not 0 <= leaf < n:
        leaf = tree.leaf
    folds = folds if folds is not None else Folds()
    labels = session.labels
    on_path = bytearray(n)
    if leaf is not None:
        for i in tree.path(leaf):
            on_path[i] = 1
    visible = session_visibility(session, mode)
    if leaf is not None:
        visible[leaf] = 1
    side = tree.side

    # 1. Visible tree: preorder walk, active child first; hidden entries pass their
    # nearest visible ancestor down to their children.
    vparent = [-1] * n
    vchildren: dict[int, list[int]] = {}
    vside: dict[int, list[int]] = {}  # side notes, apart from the children: no fork
    order: list[int] = []
    children = tree.children
    start, packed = children.start, children.items
    stack: list[tuple[int, int]] = [(r, -1) for r in reversed(_ordered(tree.roots, on_path))]
    while stack:
        i, anc = stack.pop()
        # Down a single-child chain without the stack: most of a long session is one.
        while True:
            if visible[i]:
                vparent[i] = anc
                into = vside if anc >= 0 and side and i in side else vchildren
                sib = into.get(anc)
                if sib is None:
                    into[anc] = [i]
                else:
                    sib.append(i)
                order.append(i)
                anc = i
            a = start[i]
            count = start[i + 1] - a
            if count != 1:
                break
            i = packed[a]
        if count:
            stack.extend([(c, anc) for c in reversed(_ordered(children[i], on_path))])

    # 2. Visible subtree sizes (for the hidden counts of folded rows).
    size = array("q", [1]) * n  # arrays: kept with the rows, no int object each
    for i in reversed(order):
        p = vparent[i]
        if p >= 0:
            size[p] += size[i]

    # 3. Pi's flatten over the visible tree, skipping folded subtrees.
    roots = vchildren.get(-1, [])
    multi = len(roots) > 1
    pre = array("q", [-1]) * n
    for k, i in enumerate(order):
        pre[i] = k
    # Visible labelled entries by preorder position: a folded subtree's labels are one run.
    labelled = sorted((pre[e], e) for e in labels if 0 <= e < n and pre[e] >= 0)
    walk = _Walk(vchildren, vparent, size, pre, on_path, leaf, multi, labels, labelled, vside)
    rows: list[Row] = []
    row_of: dict[int, int] = {}
    work: list[_Work] = [
        (r, 1 if multi else 0, multi, multi, k == len(roots) - 1, None, multi, False)
        for k, r in reversed(list(enumerate(roots)))
    ]
    _emit(walk, folds, work, rows, row_of)
    return TreeRows(
        rows=rows,
        mode=mode,
        leaf=leaf,
        shown=len(order),
        row_of=row_of,
        vparent=vparent,
        parents=tree.parents,
        walk=walk,
    )


_Work = tuple[int, int, bool, bool, bool, "Gutter | None", bool, bool]
"""A node to lay out: (entry, indent, just_branched, show_connector, is_last, gutters,
virtual_root_child, side_note), as in Pi's flatten."""


@dataclass(slots=True)
class _Walk:
    """The visible tree of one :func:`flatten`: enough to lay out any part of it again."""

    vchildren: dict[int, list[int]]
    """Visible children of each visible entry (``-1``: the roots), active path first."""
    vparent: list[int]
    size: array[int]
    """Visible subtree size of each visible entry, itself included."""
    pre: array[int]
    """Preorder position of each visible entry: a subtree is one run of positions."""
    on_path: bytearray
    leaf: int | None
    multi: bool
    """More than one visible root: every level is shifted by one."""
    labels: dict[int, str]
    labelled: list[tuple[int, int]]
    """``(preorder position, entry)`` of every visible labelled entry, in order."""
    vside: dict[int, list[int]] = field(default_factory=dict)
    """Visible side notes of each visible entry (not among its :attr:`vchildren`)."""

    def inside(self, i: int) -> tuple[tuple[str, ...], int]:
        """The labels under visible entry ``i`` (its descendants) and how many there are."""
        lo = bisect_right(self.labelled, (self.pre[i], _AFTER))
        hi = bisect_left(self.labelled, (self.pre[i] + self.size[i], -1))
        if hi <= lo:
            return (), 0
        shown = self.labelled[lo : min(hi, lo + INSIDE_LABELS_SHOWN)]
        return tuple(self.labels[e] for _p, e in shown), hi - lo

    def next_labelled(self, pre: int, step: int) -> int | None:
        """The labelled entry after (``step`` 1) or before (-1) preorder position ``pre``,
        wrapping around; None when there is none."""
        if not self.labelled:
            return None
        if step > 0:
            k = bisect_right(self.labelled, (pre, _AFTER))
            return self.labelled[k % len(self.labelled)][1]
        k = bisect_left(self.labelled, (pre, -1)) - 1
        return self.labelled[k][1]


def _emit(
    walk: _Walk,
    folds: Folds,
    work: list[_Work],
    rows: list[Row],
    row_of: dict[int, int] | None = None,
) -> None:
    """Lay out the nodes on the ``work`` stack and their unfolded descendants, appending a
    row for each (Pi's flatten, without recursion)."""
    vchildren, vparent, size, on_path = walk.vchildren, walk.vparent, walk.size, walk.on_path
    leaf, multi, get_label = walk.leaf, walk.multi, walk.labels.get
    no_kids: list[int] = []
    vside = walk.vside
    while work:
        i, indent, just_branched, show_conn, is_last, gutters, vroot, side = work.pop()
        kids = vchildren.get(i, no_kids)
        sides = vside.get(i, no_kids)
        parent = vparent[i]
        foldable = (
            bool(kids) and not side and (parent < 0 or len(vchildren.get(parent, no_kids)) > 1)
        )
        folded = foldable and folds.is_folded(i, bool(on_path[i]))
        display = (indent - 1 if indent > 0 else 0) if multi else indent
        connector = ("└" if is_last else "├") if show_conn and not vroot else ""
        if row_of is not None:
            row_of[i] = len(rows)
        inside, inside_count = walk.inside(i) if folded and walk.labelled else ((), 0)
        rows.append(
            Row(
                i,
                display,
                connector,
                gutters,
                on_path[i] == 1,
                get_label(i),
                i == leaf,
                len(kids) > 1,
                foldable,
                folded,
                size[i] - 1 if folded else 0,
                inside,
                inside_count,
                side,
            )
        )
        if folded or not (kids or sides):
            continue
        _push_children(
            work, kids, indent, just_branched, display, connector, is_last, gutters, sides
        )


def _push_children(
    work: list[_Work],
    kids: list[int],
    indent: int,
    just_branched: bool,
    display: int,
    connector: str,
    is_last: bool,
    gutters: Gutter | None,
    sides: list[int] = [],  # noqa: B006 (never changed)
) -> None:
    if connector:
        gutters = (display - 1 if display > 0 else 0, not is_last, gutters)
    if len(kids) == 1:
        child_indent = indent + 1 if just_branched and indent > 0 else indent
        work.append((kids[0], child_indent, False, False, True, gutters, False, False))
    elif kids:
        last = len(kids) - 1
        work.extend(
            [
                (c, indent + 1, True, True, k == last, gutters, False, False)
                for k, c in reversed(list(enumerate(kids)))
            ]
        )
    # Side notes come first, right under their entry and one level in (popped first).
    work.extend(
        [(c, indent + 1, False, False, True, gutters, False, True) for c in reversed(sides)]
    )


def refold(tree_rows: TreeRows, index: int, folds: Folds) -> TreeRows:
    """``tree_rows`` once the fold of row ``index`` follows ``folds``, only its subtree's rows
    redone: equal to a new :func:`flatten` with ``folds``."""
    walk = tree_rows.walk
    rows = tree_rows.rows
    assert walk is not None
    row = rows[index]
    i = row.entry
    # The rows shown for i's subtree follow it: one run of preorder positions.
    lo, hi = walk.pre[i], walk.pre[i] + walk.size[i]
    end = index + 1
    while end < len(rows) and lo <= walk.pre[rows[end].entry] < hi:
        end += 1
    folded = row.foldable and folds.is_folded(i, bool(walk.on_path[i]))
    inside, inside_count = walk.inside(i) if folded else ((), 0)
    new = replace(
        row,
        folded=folded,
        hidden=walk.size[i] - 1 if folded else 0,
        inside=inside,
        inside_count=inside_count,
    )
    sub: list[Row] = []
    kids = walk.vchildren.get(i)
    if kids and not folded:  # a foldable row has children
        # The state Pi's flatten had at i: a foldable row is a root or a branch's child.
        parent = walk.vparent[i]
        if parent < 0:
            roots = walk.vchildren[-1]
            just_branched, is_last = walk.multi, i == roots[-1]
        else:
            just_branched, is_last = True, i == walk.vchildren[parent][-1]
        indent = row.indent + 1 if walk.multi else row.indent
        work: list[_Work] = []
        _push_children(
            work,
            kids,
            indent,
            just_branched,
            row.indent,
            row.connector,
            is_last,
            row.gutters,
            walk.vside.get(i, []),
        )
        _emit(walk, folds, work, sub)
    out = [*rows[:index], new, *sub, *rows[end:]]
    return TreeRows(
        rows=out,
        mode=tree_rows.mode,
        leaf=tree_rows.leaf,
        shown=tree_rows.shown,
        row_of={r.entry: k for k, r in enumerate(out)},
        vparent=tree_rows.vparent,
        parents=tree_rows.parents,
        walk=walk,
    )
