"""Provides the searches over blocks: :func:`item_matches` (one block of a branch),
:func:`scan_all` (every block of every branch, for ``/all:``) and :func:`branch_info` (how a
result names its branch). The query rule itself is :mod:`piview.model.query`.

A block matches when its plain text (:func:`piview.render.items.item_text`: everything its
expanded drawing shows) matches the query; the raw lines of its entries are tested first, so
most blocks are ruled out without decoding them. No Textual here.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from piview.model.query import Query
from piview.model.treetext import row_text
from piview.render.item import Item, ItemKind
from piview.render.items import build_items, item_text
from piview.render.sanitize import sanitize_line

if TYPE_CHECKING:
    from piview.model.session import Session

_BATCH = 128
"""Entries looked at between two reports of :func:`scan_all` (so a worker can stop)."""


def item_matches(session: Session, item: Item, query: Query, memo: dict[int, bool]) -> bool:
    """Whether block ``item`` matches ``query``.

    ``memo``: the raw-line test of each entry, kept across the blocks of one search.
    """
    entries = [item.entry]
    if item.kind == "tool":
        entries += session.pairing.call_results.get((item.entry, item.part), [])
    if not any(_may_match(session, e, query, memo) for e in entries):
        return False
    return query.matches(item_text(session, item))


def _may_match(session: Session, entry: int, query: Query, memo: dict[int, bool]) -> bool:
    hit = memo.get(entry)
    if hit is None:
        hit = memo[entry] = query.may_match_line(session.read_line(entry))
    return hit


@dataclass(frozen=True, slots=True)
class AllHit:
    """A block matching a search over all branches, and the branch it is shown on."""

    entry: int
    part: int
    kind: ItemKind
    leaf: int
    """The leaf of the branch to show it on: the branch shown, if the entry is on it, else
    the newest branch through the entry."""


class LeafFinder:
    """The newest leaf under entries (``Tree.newest_leaf``), for many entries in linear time
    overall: each entry's answer is remembered, for it and for every entry on the way down."""

    def __init__(self, session: Session) -> None:
        self._start = session.tree.children.start
        self._items = session.tree.children.items
        self._memo: dict[int, int] = {}

    def __call__(self, i: int) -> int:
        """The leaf reached from ``i`` by always following the newest child."""
        memo, start, items = self._memo, self._start, self._items
        seen: list[int] = []
        j = i
        while j not in memo and start[j + 1] > start[j]:
            seen.append(j)
            j = items[start[j + 1] - 1]
        leaf = memo.get(j, j)
        memo[j] = leaf
        for k in seen:
            memo[k] = leaf
        return leaf


def scan_all(
    session: Session,
    query: Query,
    *,
    shown_path: list[int],
    shown_leaf: int | None,
    show_hidden: bool = False,
) -> Iterator[tuple[int, list[AllHit]]]:
    """Every block of every branch matching ``query``, in file order, in batches.

    Each entry is looked at once, whatever the number of branches through it. Yields
    ``(entries looked at, hits)`` every few hundred entries, hits or not, so that the
    caller can report progress and stop.
    """
    if query.blank:
        return
    pairing = session.pairing
    result_call = pairing.result_call
    on_shown = set(shown_path)
    leaf_of = LeafFinder(session)
    memo: dict[int, bool] = {}
    # A paired result is drawn in its call's block: a line that may match marks the call.
    calls_to_check: set[int] = set()
    for k, r in enumerate(pairing.results):
        ref = result_call.get(r)
        if ref is not None and _may_match(session, r, query, memo):
            calls_to_check.add(ref[0])
        if k % _BATCH == _BATCH - 1:
            yield 0, []
    batch: list[AllHit] = []
    n = len(session)
    for i in range(n):
        if i in result_call:
            pass  # drawn in its call's block
        elif i in calls_to_check or _may_match(session, i, query, memo):
            for item in build_items(session, [i], show_hidden=show_hidden):
                if item_matches(session, item, query, memo):
                    on = i in on_shown and shown_leaf is not None
                    leaf = shown_leaf if on and shown_leaf is not None else leaf_of(i)
                    batch.append(AllHit(item.entry, item.part, item.kind, leaf))
        if (i + 1) % _BATCH == 0 or i + 1 == n:
            yield i + 1, batch
            batch = []


@dataclass(frozen=True, slots=True)
class BranchInfo:
    """How a result names its branch: leaf id, label, first words."""

    leaf: int
    short_id: str
    label: str | None
    """The label nearest the leaf on the branch's own part (below its last fork)."""
    words: str
    """The one-line text of the first user message of that part (else of its first entry)."""

    def line(self) -> str:
        """``1a2b3c4d [label] first words``."""
        label = f" [{self.label}]" if self.label else ""
        return sanitize_line(f"{self.short_id}{label}  {self.words}")


def branch_info(session: Session, leaf: int) -> BranchInfo:
    """Name the branch of ``leaf`` by the part of it below its last fork.

    Costs the length of that part: the parts of different leaves never overlap.
    """
    tree = session.tree
    start, parents = tree.children.start, tree.parents
    labels = session.labels
    label: str | None = None
    first_user: int | None = None
    i = leaf
    top = leaf
    while i >= 0:
        if label is None and i in labels:
            label = labels[i]
        node = session.nodes[i]
        if node.message is not None and node.message.role == "user":
            first_user = i
        top = i
        p = parents[i]
        if p < 0 or start[p + 1] - start[p] > 1:
            break
        i = p
    shown = first_user if first_user is not None else top
    try:
        words = row_text(session, shown)
    except Exception:  # noqa: BLE001 - a name is a nicety: never fail a search for it
        words = ""
    return BranchInfo(leaf, session.ids[leaf][:8], label, words)


def snippet(session: Session, hit: AllHit, query: Query, width: int) -> str:
    """The first line of the block's text that holds a match, one line, at most ``width``
    characters, with some text before the match kept for context."""
    item = Item(hit.kind, hit.entry, hit.part)
    lines = item_text(session, item).split("\n")
    line = next((ln for ln in lines if query.spans(ln)), lines[0])
    line = sanitize_line(line)
    spans = query.spans(line)
    if spans and spans[0][0] > width // 3:
        line = "…" + line[spans[0][0] - width // 4 + 1 :]
    return line[:width]
