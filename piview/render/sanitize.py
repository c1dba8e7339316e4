"""Provides the text sanitiser every string from a session file goes through before display.

Session files hold raw tool output: ANSI colour codes, cursor movement, ``\\r`` progress bars,
tabs and binary junk. None of it may reach the terminal, where it could move the cursor,
change the title or corrupt the screen. :func:`sanitize` does what Pi's TUI does: strip escape
sequences and control characters, resolve carriage returns the way a terminal would, and
expand tabs.
"""

from __future__ import annotations

import re
from functools import cache

# ESC-introduced sequences: CSI (ESC [ … final), OSC (ESC ] … BEL or ST), DCS/SOS/PM/APC
# (ESC P/X/^/_ … ST) and two/three-byte escapes (ESC ( B, ESC =, ESC 7 …). An unterminated
# string sequence runs to the end of the text, as it would swallow it in a terminal.
_ANSI = (
    r"\x1b(?:"
    r"\[[0-?]*[ -/]*[@-~]?"
    r"|\][^\x07\x1b]*(?:\x07|\x1b\\)?"
    r"|[PX^_][^\x1b]*(?:\x1b\\)?"
    r"|[ -/]*[0-~]?"
    r")"
    # 8-bit CSI: parameters and final byte go with it.
    r"|\x9b[0-?]*[ -/]*[@-~]?"
)
# Every C0 control except \t and \n, DEL, C1 controls, and lone surrogates (these cannot be
# encoded to UTF-8 and would make writing the output raise).
_CTRL = r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]"
# Quick test for the common case: text with nothing to do (new lines are kept as they are, so
# a text of many lines and nothing else is returned at once, not run through every step).
_NEEDS_WORK_RE = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f\ud800-\udfff]")
_TAB = "   "  # Pi's TUI expands tabs to three spaces


# Compiled on first use (about a millisecond of the first screen, whose text rarely has
# escapes or control characters): the quick test above is the one every text goes through.
@cache
def _ansi_re() -> re.Pattern[str]:
    return re.compile(_ANSI)


@cache
def _ctrl_re() -> re.Pattern[str]:
    return re.compile(_CTRL)


def strip_ansi(text: str) -> str:
    """Remove ANSI escape sequences only (everything else is kept)."""
    return _ansi_re().sub("", text)


def _resolve_cr(line: str) -> str:
    # A terminal returns the cursor to column 0 at \r: what was printed last is what shows.
    # Trailing \r (a progress line that ends "…\r\n") overwrites nothing, so drop it first.
    line = line.rstrip("\r")
    cut = line.rfind("\r")
    return line[cut + 1 :] if cut >= 0 else line


def sanitize(text: object, *, tabs: bool = True) -> str:
    """Make text from a session file safe and tidy to show in a terminal.

    Strips ANSI escape sequences and every control character except ``\\n`` and ``\\t``;
    ``\\r\\n`` becomes ``\\n`` and a line with bare ``\\r`` keeps only the text after its last
    ``\\r``; tabs become three spaces (unless ``tabs`` is false). Anything that is not a string
    gives ``""``.
    """
    if not isinstance(text, str):
        return ""
    if not _NEEDS_WORK_RE.search(text):
        return text
    if "\x1b" in text or "\x9b" in text:
        text = _ansi_re().sub("", text)
    if "\r" in text:
        text = text.replace("\r\n", "\n")
        if "\r" in text:
            text = "\n".join(_resolve_cr(line) for line in text.split("\n"))
    if tabs and "\t" in text:
        text = text.replace("\t", _TAB)
    return _ctrl_re().sub("", text)


def sanitize_line(text: object) -> str:
    """:func:`sanitize`, then newlines as spaces: for one-line headers and previews."""
    out = sanitize(text)
    if "\n" in out:
        out = " ".join(part.strip() for part in out.split("\n") if part.strip())
    return out
