"""Provides :data:`REGISTRY`, the renderers of tool calls, custom messages and custom entries
by name: piview's own, and those of plugins (entry point group ``piview.renderers``, each a
``register(registry)``; the README's "Renderer plugins"), looked for when the first block is
drawn. One that raises, or returns no renderable, leaves the built-in rendering and a notice.
"""

from __future__ import annotations

import io
import os
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.protocol import is_renderable
from rich.segment import Segment
from rich.text import Text

from piview.model.types import TextContent, ToolCall, ToolResultMessage
from piview.render.roles._indent import indent
from piview.render.sanitize import sanitize, sanitize_line
from piview.render.theme import style

GROUP = "piview.renderers"
Renderer = Callable[[Any], "RenderableType | None"]


class ToolCallView:
    """A tool call with its result(s), as a ``registry.tool`` renderer gets it: ``.name``,
    ``.args`` (a dict), ``.id``, ``.details`` (the first result's, or None), ``.is_error``,
    ``.expanded`` (False while the block is collapsed: its first lines are shown)."""

    def __init__(self, call: ToolCall, results: list[ToolResultMessage], expanded: bool = True):
        self.name, self.id, self.results, self.expanded = call.name, call.id, results, expanded
        self.args: dict[str, Any] = call.arguments if isinstance(call.arguments, dict) else {}
        self.details = results[0].details if results else None
        self.is_error = any(r.is_error for r in results)
        self.own: Any = None
        """What the built-in renderers take from the block's header."""

    @property
    def text(self) -> str | None:
        """The results' text (sanitised), or None without a result."""
        blocks = [b.text for r in self.results for b in r.content if isinstance(b, TextContent)]
        return sanitize("\n".join(blocks)) if self.results else None


@dataclass(slots=True)
class MessageView:
    """A custom message (``custom_message`` entry or ``custom`` role), for ``registry.message``:
    ``content`` is its text (sanitised)."""

    custom_type: str
    content: str
    details: Any = None
    display: bool = True
    expanded: bool = True


@dataclass(slots=True)
class EntryView:
    """A ``custom`` entry (extension state), for ``registry.entry``."""

    custom_type: str
    data: Any = None
    expanded: bool = True


class Registry:
    """The renderers by kind (``tool``, ``message``, ``entry``) and name; a plugin's replaces a
    built-in one of the same name."""

    def __init__(self) -> None:
        self._table: dict[tuple[str, str], Renderer] = {}
        self._builtin: dict[tuple[str, str], Renderer] = {}
        self._source: dict[Renderer, str] = {}
        self._loading: str | None = None
        self._lock = threading.RLock()
        self.loaded = False
        self.plugins: list[str] = []
        """``name (package version)`` of each plugin loaded, or why it failed to load."""

    def _add(self, key: tuple[str, str]) -> Callable[[Renderer], Renderer]:
        def add(fn: Renderer) -> Renderer:
            self._source.setdefault(fn, self._loading or "piview")
            if self._loading is None:  # piview's own: never over a plugin's loaded before
                self._builtin[key] = fn
                self._table.setdefault(key, fn)
            else:
                self._table[key] = fn
            return fn

        return add

    def tool(self, name: str) -> Callable[[Renderer], Renderer]:
        """Decorates ``fn(call: ToolCallView) -> RenderableType`` for the tool ``name``."""
        return self._add(("tool", name))

    def message(self, custom_type: str) -> Callable[[Renderer], Renderer]:
        """Decorates ``fn(msg: MessageView) -> RenderableType`` for that ``customType``."""
        return self._add(("message", custom_type))

    def entry(self, custom_type: str) -> Callable[[Renderer], Renderer]:
        """Decorates ``fn(entry: EntryView) -> RenderableType`` for that ``customType``."""
        return self._add(("entry", custom_type))

    def load(self) -> list[str]:
        """Load the plugins once (none with ``PIVIEW_NO_PLUGINS`` set); :attr:`plugins`."""
        if self.loaded:
            return self.plugins
        with self._lock:  # blocks are drawn in workers too: all see the plugins or none
            if not self.loaded and not _off() and _declared():
                self._load()
            self.loaded = True
        return self.plugins

    def _load(self) -> None:
        from importlib.metadata import entry_points  # not before a plugin is known to be there

        for ep in sorted(entry_points(group=GROUP), key=lambda ep: ep.name):  # a fixed order
            dist = ep.dist
            self._loading = f"{ep.name} ({dist.name} {dist.version})" if dist else ep.name
            before = dict(self._table)
            try:
                ep.load()(self)
                self.plugins.append(self._loading)
            except Exception as exc:  # noqa: BLE001 - a broken plugin never stops piview
                self._table = before  # none of its renderers
                self.plugins.append(f"{self._loading}: not loaded, {_why(exc)}")
            self._loading = None

    def plugin(self, kind: str, name: str) -> Renderer | None:
        """A plugin's renderer of ``name`` (None when piview draws it itself)."""
        self.load()
        fn = self._table.get((kind, name))
        return None if fn is None or fn is self._builtin.get((kind, name)) else fn

    def render(
        self, kind: str, name: str, view: Any, default: Renderer, lines: int | None = None
    ) -> RenderableType | None:
        """The body ``name``'s renderer draws of ``view`` (a plugin's indented and cut to
        ``lines``), else the built-in one's, else ``default``'s. A built-in card (one
        registered for a tool it is not the default of) that returns None or raises leaves
        ``default``'s generic body: it knows one shape of a tool's arguments and details, and
        a newer extension may write another."""
        builtin = self._builtin.get((kind, name), default)
        if builtin is not default:
            builtin = _CardOrDefault(builtin, default)
        fn = self.plugin(kind, name)
        return builtin(view) if fn is None else _Drawn(self, fn, view, lines, builtin)

    def record(self, fn: Renderer, view: Any, width: int = 100) -> tuple[str, str] | str:
        """``fn``'s renderable of ``view`` as plain text and an HTML fragment (Rich's HTML
        export, inline styles), or the notice saying why not (for the exports)."""
        try:
            out = _drawn(fn, view)
            console = Console(record=True, width=width, file=io.StringIO())
            console.print(out)
            pre = '<pre class="plugin" style="font-family:monospace">{code}</pre>'
            html = console.export_html(inline_styles=True, code_format=pre, clear=False)
            return "\n".join(ln.rstrip() for ln in console.export_text().split("\n")), html
        except Exception as exc:  # noqa: BLE001
            return self.notice(fn, exc)

    def notice(self, fn: Renderer, exc: BaseException) -> str:
        """The one line that says a renderer failed."""
        return f"⚠ plugin {self._source.get(fn, '?')} failed: {_why(exc)}"

    def report(self) -> str:
        """What ``piview --plugins`` prints: each plugin, its package and what it draws."""
        if _off():
            return "plugins are off (PIVIEW_NO_PLUGINS is set)"
        lines = []
        for src in self.load():
            keys = (k for k, fn in self._table.items() if fn is not self._builtin.get(k))
            names = [f"{k} {n}" for k, n in keys if self._source[self._table[k, n]] == src]
            lines.append(f"{src}: {', '.join(names)}" if names else src)
        return "\n".join(lines) or f"no plugins installed (entry point group {GROUP})"


def _off() -> bool:
    return os.environ.get("PIVIEW_NO_PLUGINS", "") not in ("", "0")


def _drawn(fn: Renderer, view: Any) -> RenderableType:
    out = fn(view)
    if out is None or not is_renderable(out):
        raise TypeError(f"returned {type(out).__name__}, not a renderable")
    return out


def _why(exc: BaseException) -> str:
    return sanitize_line(f"{type(exc).__name__}: {exc}")


def _declared() -> bool:
    """Whether an installed distribution names the group in its ``entry_points.txt`` (read
    without importlib.metadata, which the first screen would pay for)."""
    tag, found = f"[{GROUP}]".encode(), "*-info/entry_points.txt"
    try:
        return any(tag in p.read_bytes() for d in sys.path for p in Path(d or ".").glob(found))
    except OSError:
        return True  # importlib.metadata tells


class _CardOrDefault:
    """A built-in card, ``default``'s body where it draws nothing or fails."""

    __slots__ = ("card", "default")

    def __init__(self, card: Renderer, default: Renderer):
        self.card, self.default = card, default

    def __call__(self, view: Any) -> RenderableType | None:
        try:
            out = self.card(view)
        except Exception:  # noqa: BLE001 - a card never breaks the view: the generic body
            out = None
        return self.default(view) if out is None else out


class _Drawn:
    """What a plugin's renderer draws, indented and cut to ``lines`` lines; else (it raised,
    returned no renderable, or Rich failed to draw it) a notice and the built-in body."""

    def __init__(
        self, reg: Registry, fn: Renderer, view: Any, lines: int | None, builtin: Renderer
    ):
        self.reg, self.fn, self.view, self.lines, self.builtin = reg, fn, view, lines, builtin

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        try:
            out = indent(_drawn(self.fn, self.view))
            lines = console.render_lines(out, options.reset_height(), pad=False)
        except Exception as exc:  # noqa: BLE001 - a plugin never breaks the view
            note = Text(self.reg.notice(self.fn, exc), style("piview.warning"), no_wrap=True)
            builtin = self.builtin(self.view)
            yield Group(indent(note), *([builtin] if builtin is not None else []))
            return
        n = self.lines
        cut = lines if n is None or len(lines) <= n + 1 else lines[:n]
        for line in cut:
            yield from line
            yield Segment.line()
        if len(cut) < len(lines):
            more = len(lines) - len(cut)
            yield indent(Text(f"… (+{more:,} more lines)", style=style("piview.notice")))


REGISTRY = Registry()
"""The one registry: the role modules register piview's renderers here when imported."""
