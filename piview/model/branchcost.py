"""Provides :func:`branch_costs`: what each branch of a session cost, for the usage sidebar,
from the tree's :class:`~piview.model.subtree.SubtreeSums`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from piview.model.subtree import Figures, subtree_sums
from piview.model.treetext import row_text
from piview.model.usage import UsageTotals

if TYPE_CHECKING:
    from piview.model.session import Session

LISTED = 6
"""Branches the sidebar names; the rest are summed in one line."""


@dataclass(frozen=True, slots=True)
class BranchCost:
    """One leaf's own part of the tree."""

    leaf: int
    name: str
    """Its label, or the text of the part's first entry."""
    part: Figures
    active: bool
    """The leaf is the one shown."""


@dataclass(frozen=True, slots=True)
class BranchCosts:
    """The cost of a session's branches against the branch shown."""

    listed: list[BranchCost]
    """The most expensive parts (the one shown always among them), most expensive first."""
    rest: Figures
    """The other parts, summed."""
    rest_count: int
    leaves: int
    """How many leaves (branches) the tree has."""
    abandoned: Figures
    """Everything off the branch shown: the file's figures minus its path's."""
    summaries: UsageTotals
    """Usage recorded by compaction and branch summary entries."""


def _name(session: Session, leaf: int, start: int) -> str:
    """A branch's name: the first label in its part, else its first user prompt, else the
    text of its first entry (one walk of the part, done for the few branches listed)."""
    path = session.tree.path(leaf)
    part = path[path.index(start) :] if start in path else [leaf]
    labels = session.labels
    for entry in part:
        if entry in labels:
            return f"[{labels[entry]}]"
    store = session.nodes
    first = next((e for e in part if store.role(e) == "user"), part[0])
    try:
        text = row_text(session, first)
    except OSError:
        return store.ids[first]
    return text.removeprefix("user: ")


def branch_costs(session: Session, leaf: int | None, listed: int = LISTED) -> BranchCosts:
    """The branch costs of ``session`` with ``leaf`` shown (``None``: no branch shown)."""
    sums = subtree_sums(session)
    parts = sums.parts()
    shown = parts[:listed]
    if leaf is not None and all(p.leaf != leaf for p in shown):
        mine = next((p for p in parts if p.leaf == leaf), None)
        if mine is not None:
            shown = [*shown[: listed - 1], mine]
    ids = {p.leaf for p in shown}
    rest = [p.part for p in parts if p.leaf not in ids]
    rest_sum = Figures(
        sum(f.cost for f in rest), sum(f.tokens for f in rest), sum(f.turns for f in rest)
    )
    total = sums.total()
    on_path = sums.path(leaf) if leaf is not None and 0 <= leaf < len(sums.tree) else Figures()
    return BranchCosts(
        listed=[
            BranchCost(p.leaf, _name(session, p.leaf, p.start), p.part, p.leaf == leaf)
            for p in shown
        ],
        rest=rest_sum,
        rest_count=len(rest),
        leaves=len(parts),
        abandoned=total - on_path,
        summaries=sums.summaries,
    )
