"""Provides :class:`SessionLayout`: the widths of the session screen's side panels, as a mixin
of :class:`piview.screens.session.SessionScreen`.

The branch panel takes a share of the width and the usage sidebar what its figures need, both
within bounds; the transcript always keeps :data:`MIN_TRANSCRIPT` columns. When a panel opens
and there is no room for both, the other one closes (and says so). ``<`` and ``>`` move the
panel's border by a few columns, and so does dragging the border with the mouse.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import events

from piview.widgets.branch_panel import BranchPanel
from piview.widgets.usage_sidebar import UsageSidebar

if TYPE_CHECKING:
    from textual.screen import Screen

    _Screen = Screen[None]
else:
    _Screen = object  # a plain mixin: Textual sees only the screen class itself

__all__ = ["MIN_TRANSCRIPT", "SessionLayout"]

MIN_TRANSCRIPT = 40
"""Columns the transcript keeps, whatever the panels."""
BRANCH_SHARE = 0.38
"""The branch panel's default share of the width."""
BRANCH_MIN, BRANCH_MAX = 24, 90
SIDEBAR_WIDTH, SIDEBAR_MIN = 42, 34
RESIZE_STEP = 4


class SessionLayout(_Screen):
    """Panel widths; the screen calls :meth:`_layout_panels` when a panel opens or closes."""

    _branch_width: int | None = None
    """The branch panel's width as the user set it (``<`` ``>``, dragging); None: a share."""
    _sidebar_width: int | None = None
    _dragging: str | None = None
    composed = False
    """True once the screen's Mount found its children. Textual mounts no child of a screen
    closed before it composed (the app quitting, the screen switched away at once), yet
    sends that screen its Mount and the Resize already queued: they have nothing to lay out."""

    def _check_composed(self) -> bool:
        """Whether the screen has its children (and is not being removed with the app)."""
        self.composed = self.is_attached and bool(self.query(BranchPanel))
        return self.composed

    def _visible(self, widget: BranchPanel | UsageSidebar) -> bool:
        return widget.has_class("-visible")

    def _layout_panels(self, opened: str | None = None) -> None:
        """Size the visible panels to the screen; ``opened`` (``"branches"`` or ``"usage"``)
        is the one just shown, which wins the room when there is not enough for both."""
        width = self.size.width
        if not width:
            return
        panel, sidebar = self.query_one(BranchPanel), self.query_one(UsageSidebar)
        show_b, show_s = self._visible(panel), self._visible(sidebar)
        if show_b and show_s and width - BRANCH_MIN - SIDEBAR_MIN - 2 < MIN_TRANSCRIPT:
            # No room for both: the one just opened stays.
            close: BranchPanel | UsageSidebar
            if opened == "usage":
                close, name = panel, "branch panel"
            else:
                close, name = sidebar, "usage sidebar"
            close.remove_class("-visible")
            self.notify(f"Closed the {name}: no room for both at {width} columns", timeout=3)
            show_b, show_s = self._visible(panel), self._visible(sidebar)
        b, sw = self._panel_widths(width, show_b, show_s)
        if show_b:
            panel.styles.width = b
        if show_s:
            sidebar.styles.width = sw

    def _panel_widths(self, width: int, show_b: bool, show_s: bool) -> tuple[int, int]:
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
        width = self.size.width
        show_b = self._visible(self.query_one(BranchPanel))
        if not width or (show_b and width - BRANCH_MIN - SIDEBAR_MIN - 2 < MIN_TRANSCRIPT):
            return None
        b_now = self._panel_widths(width, show_b, False)[0]
        b, sw = self._panel_widths(width, show_b, True)
        return now - (b - b_now) - sw

    def on_resize(self, event: events.Resize) -> None:
        """The panels follow the terminal's size."""
        if self.composed:
            self._layout_panels()

    def action_resize_panel(self, delta: int) -> None:
        """Move the border of the branch panel (or, without it, the sidebar) by ``delta``
        columns: ``>`` widens the branch panel, ``<`` widens the sidebar."""
        panel, sidebar = self.query_one(BranchPanel), self.query_one(UsageSidebar)
        if self._visible(panel):
            self._branch_width = max(BRANCH_MIN, panel.outer_size.width + delta)
        elif self._visible(sidebar):
            self._sidebar_width = max(SIDEBAR_MIN, sidebar.outer_size.width - delta)
        else:
            self.notify("Open the branch panel (b) or the usage sidebar (u) first", timeout=3)
            return
        self._layout_panels()

    # ------------------------------------------------------------------ dragging a border

    def on_mouse_down(self, event: events.MouseDown) -> None:
        """Start dragging when the press is on a panel's border."""
        panel, sidebar = self.query_one(BranchPanel), self.query_one(UsageSidebar)
        x = event.screen_x
        if self._visible(panel) and x == panel.region.right - 1:
            self._dragging = "branches"
        elif self._visible(sidebar) and x == sidebar.region.x:
            self._dragging = "usage"
        else:
            return
        self.capture_mouse()
        event.stop()

    def on_mouse_move(self, event: events.MouseMove) -> None:
        """Move the border with the mouse."""
        if self._dragging is None:
            return
        if self._dragging == "branches":
            self._branch_width = max(BRANCH_MIN, event.screen_x + 1)
        else:
            self._sidebar_width = max(SIDEBAR_MIN, self.size.width - event.screen_x)
        self._layout_panels()

    def on_mouse_up(self, event: events.MouseUp) -> None:
        """Stop dragging."""
        if self._dragging is not None:
            self._dragging = None
            self.release_mouse()
