"""Provides :class:`BranchGrow`: the branch panel following what Pi appends, as a mixin of
:class:`piview.widgets.branch_panel.BranchPanel`.

When the file grew by a chain of entries under an entry of the active path (Pi appended to its
leaf, or went back with ``/tree`` and went on), the panel lays out only the fork's segment
again (:func:`piview.model.treeview_grow.grow_rows`) instead of flattening the whole tree in a
worker: the new rows show with the poll. The usage figures of the grown tree are summed in a
worker once the file is quiet for a moment; until they arrive the rows keep the figures they
had (new rows show none).
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from piview.model.treefilter import FilterMode
from piview.model.treeview import Folds, TreeRows
from piview.widgets.offthread import compute_off_thread

if TYPE_CHECKING:
    from textual.scroll_view import ScrollView as _Widget
    from textual.timer import Timer

    from piview.model.session import Session
    from piview.model.subtree import SubtreeSums
else:
    _Widget = object  # a plain mixin: Textual sees only the widget class itself

__all__ = ["SUMS_DELAY", "BranchGrow"]

SUMS_DELAY = 1.0
"""Seconds after the last growth before the usage of the grown tree is summed (in a worker)."""


class BranchGrow(_Widget):
    """Growing the rows with the file; the panel provides what is declared here."""

    _session: Session | None
    _leaf: int | None
    _folds: Folds
    _tree_rows: TreeRows | None
    _stale: bool
    _generation: int
    building: bool
    cursor: int
    filter_mode: FilterMode
    marked: int | None

    if TYPE_CHECKING:

        def _update_virtual_size(self) -> None: ...
        def set_sums(self, sums: SubtreeSums | None) -> None: ...

    def grow(self, session: Session, leaf: int) -> bool:
        """Show ``session``, which grew since the rows were laid out (its tree extended, the
        entries before left as they were), with ``leaf`` active, as
        :meth:`~piview.widgets.branch_panel.BranchPanel.set_session` would, laying out only
        what changed. True when done (or nothing grew); False when it cannot (a panel hidden
        or building, folds the user chose, a shape
        :func:`~piview.model.treeview_grow.grow_rows` leaves to a full flatten): then call
        ``set_session``."""
        old = self._tree_rows
        if (
            session is not self._session
            or old is None
            or old.walk is None
            or self.building
            or self._stale
            or not (self.is_mounted and self.display)
        ):
            return False
        first_new = len(old.walk.pre)  # the entries the rows were laid out for
        if first_new == len(session) and old.leaf == leaf:
            return True
        fresh = Folds.for_tree(len(session), self.filter_mode)
        folds = self._folds
        if folds.opened or folds.closed or folds.fold_side != fresh.fold_side:
            return False  # set_session forgets the user's folds: the old rows had them
        from piview.model.treeview_grow import grow_rows  # only once the file grows

        rows = grow_rows(old, session, leaf, first_new, self.filter_mode, fresh)
        if rows is None:
            return False
        self.marked = None
        self._leaf = leaf
        self._folds = fresh
        # The row texts stay: an entry's text is its own (set_session forgets them because
        # its session may be another).
        self._generation += 1
        self._tree_rows = rows
        row = rows.nearest_row(leaf)
        self._update_virtual_size()
        self.cursor = row if row is not None else 0
        self.refresh()
        # Once the file is quiet for a moment: summing a big tree takes long on the
        # interpreter, which the next appends' paints would have to share.
        if self._sums_timer is not None:
            self._sums_timer.stop()
        self._sums_timer = self.set_timer(SUMS_DELAY, self._sum_grown, name="grow-sums")
        return True

    _sums_timer: Timer | None = None

    _summing = False
    """True while a worker sums the usage of a grown tree (one at a time)."""

    def _sum_grown(self) -> None:
        """Sum the usage of the tree shown in a worker (a second one waits for the first:
        appends may come faster than a big tree is summed)."""
        self._sums_timer = None
        session = self._session
        if self._summing or session is None:
            return
        self._summing = True
        from piview.model.subtree import subtree_sums

        compute_off_thread(
            self,
            partial(subtree_sums, session),
            partial(self._grown_sums, session),
            group="grow",
            description="Summing the usage of the grown tree",
        )

    def _grown_sums(self, session: Session, sums: SubtreeSums | None) -> None:
        self._summing = False
        if session is not self._session or sums is None:
            return
        if sums.tree is session.tree:
            self.set_sums(sums)
            self.refresh()
        else:
            self._sum_grown()  # the tree grew again meanwhile
