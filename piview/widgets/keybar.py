"""Provides :class:`KeyBar`: the footer line of keys, drawn by one widget.

Textual's ``Footer`` mounts a widget per key. This draws the line as one piece of text, ``?
Help`` first, ``q Quit`` and the command palette on the right, what fits in between.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from rich.style import Style
from rich.text import Text
from textual import events
from textual.widget import Widget

if TYPE_CHECKING:
    from textual.screen import Screen


class _Key(NamedTuple):
    key: str
    display: str
    description: str
    enabled: bool


class KeyBar(Widget, can_focus=False):
    """One line of the keys that work now: the focused widget's first, then the screen's.

    Clicking a key presses it.
    """

    ALLOW_SELECT = False
    COMPONENT_CLASSES = {"keybar--key", "keybar--description", "keybar--palette"}
    DEFAULT_CSS = """
    KeyBar {
        dock: bottom;
        height: 1;
        color: $footer-foreground;
        background: $footer-background;
        .keybar--key {
            color: $footer-key-foreground;
            background: $footer-key-background;
            text-style: bold;
        }
        .keybar--description {
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
        .keybar--palette { color: $foreground 20%; }
    }
    """

    PINNED_FIRST = ("question_mark",)
    """Keys always shown, at the left (help)."""
    PINNED_LAST = ("q",)
    """Keys always shown, at the right (quit), before the command palette."""

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id)
        self._spans: list[tuple[int, int, str]] = []
        """``(start, end, key)`` of each key drawn, for clicks."""

    def on_mount(self) -> None:
        """Redraw whenever the keys that apply change (focus moves, a screen opens)."""
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)

    def on_unmount(self) -> None:
        """Stop listening."""
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, screen: Screen[object]) -> None:
        if screen is self.screen:
            self.refresh()

    def keys(self) -> tuple[list[_Key], list[_Key], list[_Key], _Key | None]:
        """``(first, middle, last, palette)``: the keys to show, in order."""
        app = self.app
        first: list[_Key] = []
        middle: list[_Key] = []
        last: list[_Key] = []
        palette: _Key | None = None
        seen: set[str] = set()
        for key, active in self.screen.active_bindings.items():
            binding = active.binding
            item = _Key(key, app.get_key_display(binding), binding.description, active.enabled)
            if key == app.COMMAND_PALETTE_BINDING and app.ENABLE_COMMAND_PALETTE:
                palette = item
                continue
            if not binding.show or binding.action in seen:
                continue
            seen.add(binding.action)
            if key in self.PINNED_FIRST:
                first.append(item)
            elif key in self.PINNED_LAST:
                last.append(item)
            else:
                middle.append(item)
        return first, middle, last, palette

    def render(self) -> Text:
        """The line: pinned keys always, the others while they fit."""
        key_style = self.get_component_rich_style("keybar--key")
        description_style = self.get_component_rich_style("keybar--description")
        width = self.size.width
        first, middle, last, palette = self.keys()

        def piece(k: _Key) -> Text:
            dim = Style(dim=True) if not k.enabled else Style()
            return Text.assemble(
                (f" {k.display} ", key_style + dim), (f"{k.description} ", description_style + dim)
            )

        right = Text()
        right_spans: list[tuple[int, int, str]] = []  # offsets within ``right``
        for k in last:
            text = piece(k)
            right_spans.append((right.cell_len, right.cell_len + text.cell_len, k.key))
            right.append_text(text)
        if palette is not None:
            start = right.cell_len
            right.append("▏", self.get_component_rich_style("keybar--palette"))
            right.append_text(piece(palette))
            right_spans.append((start, right.cell_len, palette.key))
        line = Text(no_wrap=True, overflow="crop", end="")
        spans: list[tuple[int, int, str]] = []
        room = width - right.cell_len
        for n, k in enumerate([*first, *middle]):
            text = piece(k)
            if n >= len(first) and line.cell_len + text.cell_len > room:
                break  # in order: the first keys are the ones used most
            spans.append((line.cell_len, line.cell_len + text.cell_len, k.key))
            line.append_text(text)
        line.append(" " * max(0, width - line.cell_len - right.cell_len))
        x = line.cell_len
        spans.extend((x + a, x + b, key) for a, b, key in right_spans)
        line.append_text(right)
        self._spans = spans
        return line

    def on_click(self, event: events.Click) -> None:
        """Press the key under the mouse."""
        for start, end, key in self._spans:
            if start <= event.x < end:
                event.stop()
                self.app.simulate_key(key)
                return
