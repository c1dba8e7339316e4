"""Provides :class:`BranchFigures`: the usage figure each branch panel row shows, as a mixin
of :class:`piview.widgets.branch_panel.BranchPanel`.

Branch points, folded rows and OpenClaw's side notes show their subtree's figure (the entry
and everything under it), leaves their branch's figure from the root (a row with nothing
shown under it counts what the filter hides under it too); one of cost, tokens, assistant
turns or wall time, cycled with ``$`` (a key of the session screen, so that it works from the
transcript too). The sums come from :func:`piview.model.subtree.subtree_sums`,
computed once per tree (in the flatten worker for a big tree), so a row costs a lookup.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from piview.model.treeview import Row, TreeRows
from piview.render.figures import fmt_figure

if TYPE_CHECKING:
    from textual.scroll_view import ScrollView as _Widget

    from piview.model.subtree import Figure, SubtreeSums
else:
    _Widget = object  # a plain mixin: Textual sees only the widget class itself

__all__ = ["BranchFigures"]


class BranchFigures(_Widget):
    """The figures of the rows; the panel hands it the sums with :meth:`set_sums`."""

    figure: Figure = "cost"
    """The figure shown: ``cost``, ``tokens``, ``turns`` or ``duration``."""
    _sums: SubtreeSums | None = None
    _figure_chosen = False
    _tree_rows: TreeRows | None

    @property
    def sums(self) -> SubtreeSums | None:
        """The sums the figures come from (``None`` until they are computed)."""
        return self._sums

    def set_sums(self, sums: SubtreeSums | None) -> None:
        """Show the figures of ``sums``. Until the user picks a figure, a file that records
        no cost shows tokens (a column of nothing helps no one)."""
        self._sums = sums
        if sums is not None and not self._figure_chosen:
            self.figure = "cost" if sums.total().cost else "tokens"
        self.refresh()

    def action_cycle_figure(self, step: int = 1) -> None:
        """Show the next figure: cost, tokens, turns, duration."""
        from piview.model.subtree import next_figure  # the sums: when the panel first shows

        self._figure_chosen = True
        self.figure = next_figure(self.figure, step)
        self.refresh()

    def figure_text(self, row: Row) -> str:
        """The short figure of ``row`` (``""`` for a row that shows none, or a zero)."""
        sums = self._sums
        if sums is None or row.entry >= len(sums.tree):
            return ""
        if row.is_branch_point or row.folded or row.side:
            # An OpenClaw side note is no branch: its own figure (and what hangs under it).
            return fmt_figure(self.figure, sums.subtree(row.entry))
        walk = self._tree_rows.walk if self._tree_rows is not None else None
        if walk is not None and walk.vchildren.get(row.entry):
            return ""
        return fmt_figure(self.figure, sums.through(row.entry))
