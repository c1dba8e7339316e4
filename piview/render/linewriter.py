"""Provides :class:`LineWriter`: lines of segments written to a console's file in big chunks.

``console.print`` of every item goes through Rich's buffer, its render hooks and a render
pass; ``piview print`` already holds its lines cut to the page. The writer turns each segment
into text as Rich's console does when it prints (a styled segment through
``Style.render`` with the console's colour system, a control code only on a terminal) and
writes the text in chunks, the first item at once so that the output starts streaming
straight away. A console that records, renders for Jupyter or Windows, or strips colours
still gets ``console.print``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from rich.console import COLOR_SYSTEMS, Console
from rich.segment import Segment, SegmentLines

CHUNK_CHARS = 64 * 1024
"""Characters gathered before a write (after the first item, written at once)."""


class LineWriter:
    """Writes lines (lists of segments, no new lines) to ``console`` as Rich would print them.

    Call :meth:`close` at the end: what is still gathered is written then. With ``sink``, the
    text goes to ``sink(text, items)`` instead (``items``: calls of :meth:`lines` so far).
    """

    def __init__(
        self,
        console: Console,
        chunk: int = CHUNK_CHARS,
        sink: Callable[[str, int], None] | None = None,
    ) -> None:
        self.console = console
        self.chunk = chunk
        self.sink = sink
        self.items = 0
        self.direct = sink is not None or not (
            sys.platform == "win32"  # Rich cuts writes to a Windows console into small ones
            or console.record
            or console.is_jupyter
            or console.legacy_windows
            or (console.no_color and console.color_system)
        )
        self._system = COLOR_SYSTEMS.get(console.color_system or "")
        self._terminal = console.is_terminal
        self._parts: list[str] = []
        self._size = 0
        self._started = False

    def blank(self) -> None:
        """An empty line."""
        if not self.direct:
            self.console.line()
            return
        self._parts.append("\n")
        self._size += 1

    def lines(self, lines: list[list[Segment]], *, crop: bool = False) -> None:
        """The lines, each ended by a new line; ``crop`` cuts them to the console's width."""
        console = self.console
        self.items += 1
        if crop:
            width = console.width
            lines = [Segment.adjust_line_length(line, width, pad=False) for line in lines]
        if not self.direct:
            console.print(SegmentLines(lines, new_lines=True), crop=False)
            return
        system = self._system
        terminal = self._terminal
        parts = self._parts
        append = parts.append
        size = self._size
        if system is None and not terminal:
            for line in lines:
                # Rich's rule without colour: a styled segment's text as it is; a bare
                # control code left out (not a terminal).
                text = "".join([t for t, s, c in line if s or not c])
                append(text)
                append("\n")
                size += len(text) + 1
        else:
            legacy = console.legacy_windows
            for line in lines:
                pieces = [
                    s.render(t, color_system=system, legacy_windows=legacy)
                    if s
                    else ("" if c and not terminal else t)
                    for t, s, c in line
                ]
                text = "".join(pieces)
                append(text)
                append("\n")
                size += len(text) + 1
        self._size = size
        if not self._started or size >= self.chunk:
            self._started = True
            self.flush()

    def flush(self) -> None:
        """Write what is gathered (a closed pipe: the console's ``on_broken_pipe``)."""
        if not self._parts:
            return
        text = "".join(self._parts)
        self._parts.clear()
        self._size = 0
        if self.sink is not None:
            self.sink(text, self.items)
        else:
            self.write(text)

    def write(self, text: str) -> None:
        """Write ``text`` to the console's file now (a closed pipe: ``on_broken_pipe``)."""
        console = self.console
        if console.quiet or not text:
            return
        try:
            console.file.write(text)
            console.file.flush()
        except BrokenPipeError:
            console.on_broken_pipe()

    def close(self) -> None:
        """Write the rest."""
        self.flush()
