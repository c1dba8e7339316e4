"""Provides :func:`markdown_lines`: Rich's lines of a Markdown text, element by element.

Rich's own loop over the parsed tokens runs unchanged, but each top-level element is handed
back and laid out on its own: one renderable (a paragraph's or heading's Text, a code block's
Padding or Syntax) by :func:`piview.render.fastlayout.layout`'s rules, anything else by Rich.
The lines of the whole are the elements' lines in order, an empty line between two; an element
that leaves its last line open (an image placeholder) gives ``None``, and the caller draws the
text with Rich."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from itertools import chain
from typing import TYPE_CHECKING, Any

from rich.markdown import Markdown, MarkdownElement
from rich.segment import Segment

if TYPE_CHECKING:
    from rich.console import Console, ConsoleOptions, RenderableType

ELEMENT = MarkdownElement
"""What Rich's Markdown draws its blocks with (a list item's paragraphs among them)."""

Lines = list[list[Segment]]
Layout = Callable[["Console", Any, "ConsoleOptions"], "tuple[Lines, bool]"]
RichLines = Callable[["Console", "RenderableType", "ConsoleOptions"], "tuple[Lines, bool]"]


class _Element:
    """A top-level element Rich's loop would render now, with the options it would use."""

    __slots__ = ("element", "options")

    def __init__(self, element: Any, options: ConsoleOptions) -> None:
        self.element = element
        self.options = options


class _Collector:
    """The console as Markdown's loop sees it: its own ``render`` calls (one per top-level
    element) give the element back; everything else is the real console's."""

    def __init__(self, console: Console) -> None:
        self._console = console

    def __getattr__(self, name: str) -> Any:
        return getattr(self._console, name)

    def render(self, renderable: Any, options: ConsoleOptions | None = None) -> Iterable[Any]:
        """The element itself, to be laid out by :func:`markdown_lines`."""
        return (_Element(renderable, options or self._console.options),)


def markdown_lines(
    console: Console,
    markdown: Markdown,
    options: ConsoleOptions,
    layout: Layout,
    rich_lines: RichLines,
) -> tuple[Lines, bool] | None:
    """The lines of ``console.render_lines(markdown, options, pad=False)`` and whether the
    last is left open, or ``None`` where an element leaves a line open before another."""
    lines: Lines = []
    open_end = False
    collector: Any = _Collector(console)
    parts: Iterable[Any] = markdown.__rich_console__(collector, options)
    for part in parts:
        if open_end:
            return None  # what follows would go on the open line: Rich's own way then
        if type(part) is Segment:
            # The new line Rich writes between two elements, after a closed line.
            if part.text != "\n" or part.control:
                return None
            lines.append([])
            continue
        drawn, open_end = element_lines(console, part.element, part.options, layout, rich_lines)
        lines.extend(drawn)
    return lines, open_end


_END = object()


def element_lines(
    console: Console, element: Any, options: ConsoleOptions, layout: Layout, rich_lines: RichLines
) -> tuple[Lines, bool]:
    """The lines Rich draws for one element: what it yields laid out by ``layout`` when it
    is one renderable (a paragraph's Text, a code block's Padding or Syntax), else Rich's
    lines of the stream it yields (a list's segments)."""
    if options.max_width < 1:
        return [], False
    it = iter(element.__rich_console__(console, options))
    first = next(it, _END)
    if first is _END:
        return [], False
    if not isinstance(first, Segment):
        second = next(it, _END)
        if second is _END:
            return layout(console, first, options)
        parts: Iterable[Any] = chain((first, second), it)
    else:
        parts = chain((first,), it)
    return rich_lines(console, _Stream(console, parts, options), options)


class _Stream:
    """What an element yields, as Rich's console renders it (segments as they are, any
    renderable through the console)."""

    def __init__(self, console: Console, parts: Iterable[Any], options: ConsoleOptions) -> None:
        self.console = console
        self.parts = parts
        self.options = options

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterable[Any]:
        for part in self.parts:
            if isinstance(part, Segment):
                yield part
            else:
                yield from self.console.render(part, self.options)
