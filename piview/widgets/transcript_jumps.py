"""Provides :class:`TranscriptJumps`: the keys that move the transcript's cursor to the next
block of some sort (user message, label, compaction, model change, ``!`` command, error), as
a mixin of :class:`piview.widgets.transcript.Transcript`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from piview.render.items import Item, ItemList
from piview.render.layout import find_item, step_cyclic

if TYPE_CHECKING:
    from textual.widget import Widget as _Widget

    from piview.model import Session
else:
    _Widget = object  # a plain mixin: Textual sees only the widget class itself

__all__ = ["TranscriptJumps"]


class TranscriptJumps(_Widget):
    """Jumps between blocks; the widget provides what is declared here."""

    items: Sequence[Item]
    session: Session
    cursor: int

    if TYPE_CHECKING:

        def _set_cursor(self, index: int) -> None: ...

    def action_user(self, step: int) -> None:
        """Focus the next (or previous) user message."""
        found = find_item(self.items, self.cursor, step, lambda it: it.user)
        if found is not None:
            self._set_cursor(found)
        else:
            self.app.bell()

    def action_label(self, step: int) -> None:
        """Focus the next (or previous) labelled entry of the branch, wrapping around."""
        session = self.session
        if session is None or not self.items:
            return
        items = self.items
        if isinstance(items, ItemList):  # one pass over the blocks at C speed
            spots = items.first_positions_of(session.labels)
        else:
            spots = [k for k, it in enumerate(items) if it.entry in session.labels]
        if not spots:
            elsewhere = len(session.labels)
            self.notify(
                "No labelled entry on this branch"
                + (f" ({elsewhere} on other branches: b shows them)" if elsewhere else ""),
                timeout=3,
            )
            return
        self._set_cursor(step_cyclic(spots, self.cursor, step)[0])

    _JUMPS: dict[str, str] = {
        "compaction": "compaction",
        "model": "model change",
        "bash": "! shell command",
    }

    def _jump_targets(self, kind: str) -> list[int]:
        """Positions of the items ``action_jump`` goes to, in order (found at C speed)."""
        items = self.items
        item_kind = "divider" if kind == "model" else kind
        if isinstance(items, ItemList):
            spots = items.positions(item_kind)  # type: ignore[arg-type]
        else:
            spots = [k for k, it in enumerate(items) if it.kind == item_kind]
        if kind == "model":
            nodes = self.session.nodes
            spots = [k for k in spots if nodes[items[k].entry].type == "model_change"]
        return spots

    def action_jump(self, kind: str, step: int) -> None:
        """Focus the next (or previous) compaction, model change or ``!`` command, wrapping
        around and saying so."""
        what = self._JUMPS.get(kind, kind)
        spots = self._jump_targets(kind)
        if not spots:
            self.notify(f"No {what} on this branch", timeout=3)
            return
        target, wrapped = step_cyclic(spots, self.cursor, step)
        if wrapped:
            where = "below: back to the first one" if step > 0 else "above: back to the last one"
            self.notify(f"No more {what}s {where}", timeout=3)
        self._set_cursor(target)

    def action_next_error(self) -> None:
        """Focus the next error (wrapping around)."""
        found = find_item(self.items, self.cursor, 1, lambda it: it.error)
        wrapped = found is None
        if found is None:
            found = find_item(self.items, -1, 1, lambda it: it.error)
        if found is None:
            self.notify("No errors on this branch", timeout=3)
            return
        if wrapped:
            self.notify("No more errors below: back to the first one", timeout=3)
        self._set_cursor(found)
