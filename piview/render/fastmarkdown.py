"""Provides :func:`markdown_lines`: Rich's lines of a Markdown text, element by element.

Rich draws a :class:`~rich.markdown.Markdown` as one stream of segments (every paragraph,
list and code block rendered through the console's generators), which
``console.render_lines`` cuts into lines again. Here Rich's own loop over the parsed tokens
runs unchanged, but each top-level element it would render is handed back instead and laid
out on its own: a paragraph or a heading (one Text) by
:func:`piview.render.fastlayout.text_lines`, any other element by Rich. Every element Rich
renders ends its last line, so the lines of the whole are the elements' lines in order, an
empty line where Rich writes the new line between two; an element that leaves its last line
open (an image placeholder) gives ``None``, and the caller draws the text with Rich.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from rich.markdown import Heading, Markdown, Paragraph
from rich.segment import Segment
from rich.text import Text

if TYPE_CHECKING:
    from rich.console import Console, ConsoleOptions, RenderableType

__all__ = ["markdown_lines"]

Lines = list[list[Segment]]
TextLines = Callable[["Console", Text, "ConsoleOptions"], "tuple[Lines, bool] | None"]
RichLines = Callable[["Console", "RenderableType", "ConsoleOptions"], "tuple[Lines, bool]"]

# The elements whose whole rendering is one Text drawn with the element's options.
_ONE_TEXT = (Paragraph, Heading)


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
    text_lines: TextLines,
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
        element, opts = part.element, part.options
        got: tuple[Lines, bool] | None = None
        if isinstance(element, _ONE_TEXT) and opts.max_width >= 1:
            texts = list(element.__rich_console__(console, opts))
            if len(texts) == 1 and type(texts[0]) is Text:
                got = text_lines(console, texts[0], opts)
        if got is None:
            got = rich_lines(console, element, opts)
        element_lines, open_end = got
        lines.extend(element_lines)
    return lines, open_end
