"""Provides :class:`BranchAhead`: the branch panel's rows flattened ahead, in a worker, while
the panel is hidden, as a mixin of :class:`piview.widgets.branch_panel.BranchPanel`.

A hidden panel flattens nothing (its rows go stale) until it is shown: then ``b`` had to lay
out every row of the tree and sum every subtree's usage on the UI thread (in time linear in
the tree; a tree of ``BIG_TREE`` entries and more is flattened in a worker on show,
the panel usable meanwhile, and is not flattened ahead). :meth:`BranchAhead.flatten_ahead`,
called by the session screen once the user has been on a branch for a moment, does that work
in a worker; the rows are kept for the panel's next show if nothing it was flattened for
(session, leaf, filter, folds) changed since. Otherwise the show flattens as before.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from piview.widgets.offthread import compute_off_thread

if TYPE_CHECKING:
    from collections.abc import Callable

    from textual.widget import Widget

    from piview.model.session import Session
    from piview.model.treefilter import FilterMode
    from piview.model.treeview import Folds, TreeRows

    _Widget = Widget
else:
    _Widget = object  # a plain mixin: Textual sees only the panel class itself

__all__ = ["AHEAD_MIN", "BranchAhead"]

AHEAD_MIN = 2_000
"""Sessions of fewer entries are flattened when the panel is shown (a few milliseconds)."""


class BranchAhead(_Widget):
    """The rows of a hidden panel made ready for its next show; the panel provides what is
    declared here, and counts every change of what its rows depend on in ``_inputs``."""

    _session: Session | None
    _leaf: int | None
    _folds: Folds
    _stale: bool
    building: bool
    filter_mode: FilterMode

    _inputs = 0
    """Counts the changes of what the rows are flattened from while the panel is hidden."""
    _ahead: tuple[int, Session, TreeRows] | None = None
    _ahead_running = False

    def flatten_ahead(self, then: Callable[[], None] | None = None) -> None:
        """Flatten the rows of a hidden panel whose rows are stale in a worker, for its next
        show (nothing to do when shown, up to date, small or already flattening); ``then``
        once done (or at once, when there is nothing to do)."""
        session = self._session
        if (
            session is None
            or not self._stale
            or self.building
            or self._ahead_running
            or not AHEAD_MIN <= len(session) < self._ahead_limit()  # bigger: in a worker anyway
            or (self._ahead is not None and self._ahead[0] == self._inputs)
        ):
            if then is not None:
                then()
            return
        flatten = self._ahead_flatten()
        self._ahead_running = True
        compute_off_thread(
            self,
            partial(flatten, session, self._leaf, self.filter_mode, self._folds.copy()),
            partial(self._flattened_ahead, self._inputs, session, then),
            group="flatten-ahead",
            description="Flattening the session tree ahead",
        )

    def _flattened_ahead(
        self,
        inputs: int,
        session: Session,
        then: Callable[[], None] | None,
        rows: TreeRows | None,
    ) -> None:
        self._ahead_running = False
        if rows is not None and inputs == self._inputs and session is self._session:
            self._ahead = (inputs, session, rows)
        if then is not None:
            then()

    # The panel passes its limit and its flattening in (read at each call, so a test that
    # patches them on piview.widgets.branch_panel is seen): this mixin does not import the
    # panel back.
    def _ahead_limit(self) -> int:
        """The session size from which the panel flattens in a worker anyway."""
        raise NotImplementedError

    def _ahead_flatten(self) -> Callable[[Session, int | None, FilterMode, Folds], TreeRows]:
        """The function that flattens and sums the rows."""
        raise NotImplementedError

    def take_ahead(self) -> TreeRows | None:
        """The rows flattened ahead if they are still those the panel would flatten now
        (then forgotten), else None."""
        ahead, self._ahead = self._ahead, None
        if ahead is None or ahead[0] != self._inputs or ahead[1] is not self._session:
            return None
        return ahead[2]
