"""Provides the keys a screen answers to, read from the bindings themselves.

The help screen and the command palette list them from here; only bindings piview's own
classes declare are listed (not those of Textual's base widgets).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from textual.binding import Binding

if TYPE_CHECKING:
    from textual.app import App
    from textual.dom import DOMNode
    from textual.screen import Screen


@dataclass(slots=True)
class KeyHelp:
    """One action: the keys bound to it and what it does."""

    action: str
    keys: list[str]
    """Key names as shown (``?``, ``]``, ``^p``)."""
    what: str
    binding: Binding


@dataclass(slots=True)
class KeyGroup:
    """The keys of one part of the screen (a widget, the screen, the app)."""

    title: str
    node: DOMNode
    keys: list[KeyHelp] = field(default_factory=list)


def own_bindings(node: DOMNode) -> list[Binding]:
    """The bindings piview's classes declare for ``node`` (subclasses first, as Textual
    merges them), without those of Textual's base classes."""
    out: list[Binding] = []
    seen: set[str] = set()
    for cls in type(node).__mro__:
        if not cls.__module__.startswith("piview."):
            continue
        for b in cls.__dict__.get("BINDINGS", ()):
            if not isinstance(b, Binding):
                continue
            for key in b.key.split(","):
                key = key.strip()
                if key not in seen:
                    seen.add(key)
                    out.append(replace(b, key=key))
    return out


def _title(node: DOMNode) -> str:
    """The heading of ``node``'s keys: its class's ``HELP_TITLE``, else its name in words."""
    title = getattr(node, "HELP_TITLE", None)
    if isinstance(title, str):
        return title
    name = type(node).__name__
    words = "".join(f" {c}" if c.isupper() else c for c in name).split()
    return " ".join(words).capitalize()


def _group(app: App[object], node: DOMNode) -> KeyGroup:
    group = KeyGroup(_title(node), node)
    by_action: dict[str, KeyHelp] = {}
    for b in own_bindings(node):
        display = app.get_key_display(b)
        hit = by_action.get(b.action)
        if hit is None:
            hit = by_action[b.action] = KeyHelp(b.action, [], b.tooltip or b.description, b)
            group.keys.append(hit)
        if display not in hit.keys:
            hit.keys.append(display)
    return group


def screen_keys(screen: Screen[object]) -> list[KeyGroup]:
    """Every key ``screen`` answers to: its widgets' (the focused one first), its own, and
    the app's, each group in the order the bindings are declared."""
    app = screen.app
    widgets = [w for w in screen.walk_children(with_self=False) if own_bindings(w)]
    focused = screen.focused
    widgets.sort(key=lambda w: w is not focused)
    groups = [_group(app, w) for w in widgets]
    groups.append(_group(app, screen))
    if screen.is_modal:
        # A modal screen stops the app's bindings: only its own keys work there.
        return [g for g in groups if g.keys]
    app_group = _group(app, app)
    if app.ENABLE_COMMAND_PALETTE:
        palette = Binding(app.COMMAND_PALETTE_BINDING, "command_palette", "command palette")
        app_group.keys.append(
            KeyHelp("command_palette", [app.get_key_display(palette)], "command palette", palette)
        )
    groups.append(app_group)
    # A widget class seen twice (two tables) adds nothing the first did not list.
    unique: list[KeyGroup] = []
    titles: set[str] = set()
    for g in groups:
        if g.keys and g.title not in titles:
            titles.add(g.title)
            unique.append(g)
    return unique
