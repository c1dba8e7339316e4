"""Provides :class:`TextInput`: Textual's Input, whose cursor does not blink when animations
are off (``TEXTUAL_ANIMATIONS=none``): a user who turns motion off wants a steady cursor, and a
screenshot then shows the same cursor however long the app took to get there."""

from __future__ import annotations

from textual.widgets import Input


class TextInput(Input):
    """An Input with a steady cursor when the app's animation level is ``none``."""

    def on_mount(self) -> None:
        """Turn the blink off when animations are off."""
        if self.app.animation_level == "none":
            self.cursor_blink = False
