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

from rich.cells import cell_len

__all__ = ["cells"]

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
