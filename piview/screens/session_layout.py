"""Provides :class:`PanelWidths`: the widths of the session screen's side panels.

The transcript always keeps :data:`MIN_TRANSCRIPT` columns: when a panel opens and there is no
room for both, the other one closes. ``<``, ``>`` and the mouse move the panel's border.
"""

from __future__ import annotations

from typing import Any

from textual import events
from textual.screen import Screen

from piview.widgets.branch_panel import BranchPanel
from piview.widgets.usage_sidebar import UsageSidebar

MIN_TRANSCRIPT = 40
"""Columns the transcript keeps, whatever the panels."""
BRANCH_SHARE = 0.38
"""The branch panel's default share of the width."""
BRANCH_MIN, BRANCH_MAX = 24, 90
SIDEBAR_WIDTH, SIDEBAR_MIN = 42, 34


def _visible(widget: BranchPanel | UsageSidebar) -> bool:
    return widget.has_class("-visible")


class PanelWidths:
    """The widths of ``screen``'s :class:`BranchPanel` and :class:`UsageSidebar`; the screen
    calls :meth:`layout` when a panel opens or closes, and hands over its ``<``, ``>`` and the
    mouse on a border."""

    def __init__(self, screen: Screen[Any]) -> None:
        self._screen = screen
        self._branch_width: int | None = None
        """The branch panel's width as the user set it (``<`` ``>``, dragging); None: a share."""
        self._sidebar_width: int | None = None
        self._dragging: str | None = None

    def _panes(self) -> tuple[BranchPanel, UsageSidebar]:
        return self._screen.query_one(BranchPanel), self._screen.query_one(UsageSidebar)

    def layout(self, opened: str | None = None) -> None:
        """Size the visible panels to the screen; ``opened`` (``"branches"`` or ``"usage"``)
        is the one just shown, which wins the room when there is not enough for both."""
        width = self._screen.size.width
        if not width:
            return
        panel, sidebar = self._panes()
        show_b, show_s = _visible(panel), _visible(sidebar)
        if show_b and show_s and width - BRANCH_MIN - SIDEBAR_MIN - 2 < MIN_TRANSCRIPT:
            # No room for both: the one just opened stays.
            close: BranchPanel | UsageSidebar
            if opened == "usage":
                close, name = panel, "branch panel"
            else:
                close, name = sidebar, "usage sidebar"
            close.remove_class("-visible")
            self._screen.notify(
                f"Closed the {name}: no room for both at {width} columns", timeout=3
            )
            show_b, show_s = _visible(panel), _visible(sidebar)
        b, sw = self._widths(width, show_b, show_s)
        if show_b:
            panel.styles.width = b
        if show_s:
            sidebar.styles.width = sw

    def _widths(self, width: int, show_b: bool, show_s: bool) -> tuple[int, int]:
        """The widths of the branch panel and the sidebar (0 when hidden) on a screen
        ``width`` wide, when both fit."""
        want_b = self._branch_width or max(BRANCH_MIN, min(BRANCH_MAX, int(width * BRANCH_SHARE)))
        want_s = self._sidebar_width or SIDEBAR_WIDTH
        # Widths include the border; the transcript keeps MIN_TRANSCRIPT columns.
        room = max(0, width - MIN_TRANSCRIPT)
        b = max(BRANCH_MIN, want_b) if show_b else 0
        sw = max(SIDEBAR_MIN, want_s) if show_s else 0
        over = b + sw - room
        if over > 0 and show_b:  # the branch panel gives way first, down to its minimum
            b = max(BRANCH_MIN, b - over)
            over = b + sw - room
        if over > 0 and show_s:
            sw = max(SIDEBAR_MIN, sw - over)
        return b, sw

    def transcript_width_with_sidebar(self, now: int) -> int | None:
        """The transcript's width once the hidden sidebar is shown (``u``), from ``now``,
        its width as the panels are; None when the branch panel would close for it."""
        width = self._screen.size.width
        show_b = _visible(self._screen.query_one(BranchPanel))
        if not width or (show_b and width - BRANCH_MIN - SIDEBAR_MIN - 2 < MIN_TRANSCRIPT):
            return None
        b_now = self._widths(width, show_b, False)[0]
        b, sw = self._widths(width, show_b, True)
        return now - (b - b_now) - sw

    def resize(self, delta: int) -> None:
        """Move the border of the branch panel (or, without it, the sidebar) by ``delta``
        columns: ``>`` widens the branch panel, ``<`` widens the sidebar."""
        panel, sidebar = self._panes()
        if _visible(panel):
            self._branch_width = max(BRANCH_MIN, panel.outer_size.width + delta)
        elif _visible(sidebar):
            self._sidebar_width = max(SIDEBAR_MIN, sidebar.outer_size.width - delta)
        else:
            self._screen.notify(
                "Open the branch panel (b) or the usage sidebar (u) first", timeout=3
            )
            return
        self.layout()

    # ------------------------------------------------------------------ dragging a border

    def mouse_down(self, event: events.MouseDown) -> None:
        """Start dragging when the press is on a panel's border."""
        panel, sidebar = self._panes()
        x = event.screen_x
        if _visible(panel) and x == panel.region.right - 1:
            self._dragging = "branches"
        elif _visible(sidebar) and x == sidebar.region.x:
            self._dragging = "usage"
        else:
            return
        self._screen.capture_mouse()
        event.stop()

    def mouse_move(self, event: events.MouseMove) -> None:
        """Move the border with the mouse."""
        if self._dragging is None:
            return
        if self._dragging == "branches":
            self._branch_width = max(BRANCH_MIN, event.screen_x + 1)
        else:
            self._sidebar_width = max(SIDEBAR_MIN, self._screen.size.width - event.screen_x)
        self.layout()

    def mouse_up(self, event: events.MouseUp) -> None:
        """Stop dragging."""
        if self._dragging is not None:
            self._dragging = None
            self._screen.release_mouse()
