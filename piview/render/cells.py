"""Provides :func:`cells`: Rich's ``cell_len`` of a string, measured faster when most of it is
printable ASCII.

Rich measures a string that is not all single-cell characters one character at a time in
Python; a header with one ``▸`` or ``…`` in it pays that for every character. The width of a
string is the sum of its characters' widths (outside the zero-width joiner and variation
selector rules, left to Rich), so the printable ASCII runs count one cell a character and only
what is left is measured by Rich (short, and cached there).
"""

from __future__ import annotations

import re

from rich.cells import cell_len, get_character_cell_size
from rich.text import Text

_ASCII_RUNS = re.compile(r"[\x20-\x7e]+")
_JOINERS = ("\u200d", "\ufe0f")  # Rich measures these with their neighbours


def cells(text: str) -> int:
    """``rich.cells.cell_len(text)``."""
    if text.isascii() and text.isprintable():
        return len(text)
    rest = _ASCII_RUNS.sub("", text)
    if _JOINERS[0] in rest or _JOINERS[1] in rest:
        return cell_len(text)
    return len(text) - len(rest) + cell_len(rest)


def _single_cells(text: str) -> bool:
    """True when every character of ``text`` takes one cell."""
    if text.isascii() and text.isprintable():
        return True
    return all(get_character_cell_size(c) == 1 for c in _ASCII_RUNS.sub("", text))


def truncate(text: Text, width: int) -> None:
    """``text.truncate(width, overflow="ellipsis")``: where every character takes one cell,
    cut by position (Rich measures the cut character by character otherwise)."""
    plain = text.plain
    if width < 1 or not _single_cells(plain):
        text.truncate(width, overflow="ellipsis")
    elif len(plain) > width:
        text.plain = plain[: width - 1] + "…"
