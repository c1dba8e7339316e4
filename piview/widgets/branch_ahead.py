"""Provides :class:`RowsAhead`: the branch panel's rows flattened ahead, in a worker, while
the panel is hidden.

The rows are kept for the panel's next show if nothing they were flattened from (session,
leaf, filter, folds) changed since; else the show flattens them.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from textual.widget import Widget

from piview.model.session import Session
from piview.model.treeview import TreeRows
from piview.widgets.offthread import compute_off_thread

AHEAD_MIN = 2_000
"""Sessions of fewer entries are flattened when the panel is shown (a few milliseconds)."""


class RowsAhead:
    """The rows of a hidden panel made ready for its next show, in workers of ``owner``."""

    def __init__(self, owner: Widget) -> None:
        self._owner = owner
        self.inputs = 0
        """Counts the changes of what the rows are flattened from: the panel adds one at each."""
        self.kept: tuple[int, Session, TreeRows] | None = None
        """The rows flattened ahead, with the ``inputs`` and the session they are for."""
        self._running = False

    def start(
        self, session: Session, flatten: Callable[[], TreeRows], then: Callable[[], None] | None
    ) -> None:
        """Run ``flatten`` (the rows of ``session``) in a worker and keep its rows; ``then``
        once done, or at once when there is nothing to do."""

        if (
            self._running
            or len(session) < AHEAD_MIN
            or (self.kept is not None and self.kept[0] == self.inputs)
        ):
            if then is not None:
                then()
            return
        self._running = True
        compute_off_thread(
            self._owner,
            flatten,
            partial(self._done, self.inputs, session, then),
            group="flatten-ahead",
            description="Flattening the session tree ahead",
        )

    def _done(
        self,
        inputs: int,
        session: Session,
        then: Callable[[], None] | None,
        rows: TreeRows | None,
    ) -> None:
        self._running = False
        if rows is not None and inputs == self.inputs:
            self.kept = (inputs, session, rows)
        if then is not None:
            then()

    def take(self, session: Session) -> TreeRows | None:
        """The rows kept if they are still those ``session`` would be flattened into now
        (then forgotten), else None."""
        kept, self.kept = self.kept, None
        if kept is None or kept[0] != self.inputs or kept[1] is not session:
            return None
        return kept[2]
