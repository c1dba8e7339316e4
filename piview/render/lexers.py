"""Provides :func:`lexer`: a Pygments lexer made once per name, for Rich's Syntax.

Given a lexer's name, Rich's :class:`~rich.syntax.Syntax` looks it up among every lexer
Pygments has each time it highlights (a tenth of a millisecond or two), and once more for
the plain-text lexer when the name is unknown. Given a lexer, it uses that one: the same
lexer, with the options Rich would give it, made once.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pygments.lexer import Lexer

TAB_SIZE = 4
"""Rich's Syntax default, which it passes to the lexer."""


@lru_cache(maxsize=256)
def lexer(name: str) -> Lexer:
    """The lexer ``Syntax(code, name)`` highlights with: Pygments' lexer for ``name``, or the
    plain-text one when Pygments has none by that name."""
    from pygments.lexers import get_lexer_by_name  # imported here: Pygments is slow to import
    from pygments.util import ClassNotFound

    try:
        return get_lexer_by_name(name, stripnl=False, ensurenl=True, tabsize=TAB_SIZE)
    except ClassNotFound:
        return get_lexer_by_name("text", stripnl=False, ensurenl=True, tabsize=TAB_SIZE)
