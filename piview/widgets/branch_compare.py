"""Provides :class:`BranchCompare`: marking a branch and asking to compare it with another, as
a mixin of :class:`piview.widgets.branch_panel.BranchPanel`.

``m`` marks the entry at the cursor (``◆`` on its row); its branch runs through it down to its
newest leaf, as for enter. ``=`` posts :class:`BranchCompare.CompareRequested` for the marked
branch and the one at the cursor, which the session screen answers with the comparison screen.
The key bindings stay on the panel.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

from piview.render.sanitize import sanitize_line

if TYPE_CHECKING:
    from textual.scroll_view import ScrollView as _Widget

    from piview.model.session import Session
else:
    _Widget = object  # a plain mixin: Textual sees only the widget class itself

__all__ = ["BranchCompare"]


class BranchCompare(_Widget):
    """The mark and the comparison request; the panel provides what is declared here."""

    _session: Session | None

    if TYPE_CHECKING:

        @property
        def cursor_entry(self) -> int | None: ...

    class CompareRequested(Message, namespace="branch_panel"):
        """Compare the branch to ``leaf_a`` (the marked one) with the one to ``leaf_b``."""

        def __init__(self, panel: BranchCompare, leaf_a: int, leaf_b: int) -> None:
            self.panel = panel
            """The panel the comparison was asked in."""
            self.leaf_a = leaf_a
            """The newest leaf under the marked entry."""
            self.leaf_b = leaf_b
            """The newest leaf under the entry at the cursor."""
            super().__init__()

        @property
        def control(self) -> BranchCompare:
            """The panel."""
            return self.panel

    marked: int | None = None
    """The entry marked with ``m``: its branch is compared by ``=``."""

    def action_mark(self) -> None:
        """Mark the entry under the cursor for a comparison (again: unmark it)."""
        entry = self.cursor_entry
        if entry is None or self._session is None:
            return
        if self.marked == entry:
            self.marked = None
            self.refresh()
            self.notify("Mark cleared", timeout=2)
            return
        self.marked = entry
        self.refresh()  # the row shows ◆ once the cursor leaves it
        self.notify(
            f"Marked {sanitize_line(self._session.ids[entry][:8])}: "
            "= compares its branch with the one at the cursor",
            timeout=4,
            markup=False,
        )

    def action_compare(self) -> None:
        """Post :class:`CompareRequested` for the marked branch and the cursor's."""
        entry = self.cursor_entry
        if entry is None or self._session is None:
            return
        if self.marked is None:
            self.notify("Mark a branch with m first, then = compares it with this one", timeout=4)
            return
        tree = self._session.tree
        # As enter: an entry's branch runs through it down to its newest leaf.
        a, b = tree.newest_leaf(self.marked), tree.newest_leaf(entry)
        if a == b:
            self.notify("Both entries are on the same branch: mark another one", timeout=4)
            return
        self.post_message(self.CompareRequested(self, a, b))
