"""Provides piview's palette: every colour the transcript uses, by name, in one place.

Renderers use the :class:`~rich.style.Style` objects of :func:`style`, not style names, so the
output is the same on any console; :data:`THEME` is the same palette as a Rich theme. Colours
are ANSI names, so they follow the terminal's scheme."""

from __future__ import annotations

from rich.style import Style
from rich.theme import Theme

PALETTE: dict[str, Style] = {
    # roles
    "piview.user": Style(color="cyan", bold=True),
    "piview.assistant": Style(color="magenta", bold=True),
    "piview.thinking": Style(color="bright_black", italic=True),
    "piview.thinking.label": Style(color="bright_black"),
    "piview.tool": Style(color="yellow", bold=True),
    "piview.tool.args": Style(color="yellow"),
    "piview.tool.output": Style(),
    "piview.bash": Style(color="green", bold=True),
    "piview.custom": Style(color="blue", bold=True),
    "piview.summary": Style(color="blue", bold=True),
    "piview.system": Style(color="bright_blue", bold=True),
    "piview.unknown": Style(color="bright_black", bold=True),
    # states
    "piview.error": Style(color="red", bold=True),
    "piview.error.text": Style(color="red"),
    "piview.warning": Style(color="yellow"),
    "piview.ok": Style(color="green"),
    "piview.hidden": Style(dim=True),
    "piview.dim": Style(color="bright_black"),
    "piview.marker": Style(color="bright_black"),
    "piview.notice": Style(color="bright_black", italic=True),
    # header details
    "piview.time": Style(color="bright_black"),
    "piview.model": Style(color="magenta"),
    "piview.usage": Style(color="bright_black"),
    "piview.cost": Style(color="green"),
    "piview.path": Style(color="cyan"),
    # dividers
    "piview.divider": Style(color="bright_black"),
    # diffs
    "piview.diff.add": Style(color="green"),
    "piview.diff.del": Style(color="red"),
    "piview.diff.ctx": Style(color="bright_black"),
    "piview.diff.lineno": Style(color="bright_black"),
    "piview.diff.change": Style(reverse=True),
    # wrappers in user text
    "piview.wrapper": Style(color="cyan"),
    # images
    "piview.image": Style(color="bright_black"),
}
"""Every named style of the transcript."""

THEME = Theme({name: s for name, s in PALETTE.items()}, inherit=True)
"""The palette as a Rich theme."""

CODE_THEME = "ansi_dark"
"""Pygments theme for code blocks: ANSI colours and no background, so it suits any terminal."""

_NULL = Style()


def style(name: str) -> Style:
    """The style called ``name`` (a null style for an unknown name, never an error)."""
    return PALETTE.get(name, _NULL)
