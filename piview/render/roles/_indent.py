"""Provides :class:`Indent`: an item's body shifted right under its header, and
:func:`indent`, the renderables of a body stacked and indented."""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.measure import Measurement
from rich.segment import Segment

BODY_INDENT = 2
"""Columns the body of an item is indented under its header."""


class Indent:
    """A renderable shifted right by a few columns, without padding lines on the right.

    (:class:`rich.padding.Padding` fills every line to the full width, which leaves trailing
    spaces in ``piview print`` output.)
    """

    def __init__(self, renderable: RenderableType, columns: int = BODY_INDENT) -> None:
        self.renderable = renderable
        self.columns = columns

    def inner_options(self, options: ConsoleOptions) -> ConsoleOptions:
        """The options the indented renderable is laid out with."""
        return options.update_width(max(1, options.max_width - self.columns)).reset_height()

    def shift(self, lines: list[list[Segment]]) -> list[list[Segment]]:
        """The lines of the indented renderable, shifted right, trailing plain spaces dropped."""
        pad = Segment(" " * self.columns)
        out: list[list[Segment]] = []
        for line in lines:
            line = _rstrip(line)
            out.append([pad, *line] if line else [])
        return out

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        lines = console.render_lines(
            self.renderable, self.inner_options(options), pad=False, new_lines=False
        )
        new_line = Segment.line()
        for line in self.shift(lines):
            yield from line
            yield new_line

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        width = max(1, options.max_width - self.columns)
        m = Measurement.get(console, options.update_width(width), self.renderable)
        return Measurement(m.minimum + self.columns, m.maximum + self.columns)


def _visible_blank(seg: Segment) -> bool:
    # Spaces that show something (a background, reverse, underline) must stay.
    s = seg.style
    return s is None or (s.bgcolor is None and not s.reverse and not s.underline)


def _rstrip(line: list[Segment]) -> list[Segment]:
    """A line without its trailing plain spaces (Markdown pads every line to the width)."""
    if line:
        last = line[-1].text
        if last and last[-1] != " ":
            return line  # nothing to strip (what the loop below would give, in a copy)
    end = len(line)
    while end and not line[end - 1].control and _visible_blank(line[end - 1]):
        seg = line[end - 1]
        stripped = seg.text.rstrip(" ")
        if stripped:
            return [*line[: end - 1], Segment(stripped, seg.style)]
        end -= 1
    return line[:end]


def indent(*renderables: RenderableType | None) -> RenderableType:
    """The renderables stacked and indented under a header."""
    parts = [r for r in renderables if r is not None]
    inner: RenderableType = parts[0] if len(parts) == 1 else Group(*parts)
    return Indent(inner)
