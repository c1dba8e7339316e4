"""Provides plain mode: drawing for a console without colour (``piview print`` into a pipe).

Without colour, styles are dropped when the text is written, so the work that only chooses
styles can be skipped: code is not lexed by Pygments (a file's content and a Markdown code
block are laid out as the same lines in one Text, without Syntax's console pass per line),
JSON is not highlighted. What is drawn is the same text at the same places; only the colour
work is left out.

:func:`markdown_class` also gives Rich's Markdown a parser made once: Rich builds a new
markdown-it parser (its rule chains compiled) for every message otherwise.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache
from typing import TYPE_CHECKING

from rich.padding import Padding
from rich.text import Text

if TYPE_CHECKING:
    from rich.console import Console, ConsoleOptions, RenderResult
    from rich.markdown import Markdown

MARKDOWN_TYPES: set[type] = set()
"""The Markdown classes :func:`markdown_class` has made (laid out by ``fastlayout``)."""


_PLAIN: ContextVar[bool] = ContextVar("piview_plain_output", default=False)


def is_plain() -> bool:
    """True while drawing for a console without colour (inside :func:`plain_output`)."""
    return _PLAIN.get()


@contextmanager
def plain_output(plain: bool = True) -> Iterator[None]:
    """Within the block, renderables made and drawn are for a console without colour."""
    token = _PLAIN.set(plain)
    try:
        yield
    finally:
        _PLAIN.reset(token)


SYNTAX_TAB_SIZE = 4
"""Rich's Syntax default: tabs stop every 4 columns."""


def plain_code(code: str) -> Text:
    """What a word-wrapped, transparent :class:`~rich.syntax.Syntax` of ``code`` draws, as one
    unstyled Text.

    Syntax expands tabs, then lays out each line on its own through the console (a console
    pass per line); one Text wraps the same lines the same way in one pass. The tests compare
    the two on random code.
    """
    return Text(code.expandtabs(SYNTAX_TAB_SIZE), justify="default", tab_size=SYNTAX_TAB_SIZE)


@lru_cache(maxsize=2)
def markdown_class(plain: bool) -> type[Markdown]:
    """Rich's Markdown (with one shared parser), or in plain mode one whose code blocks are
    not lexed."""
    from markdown_it import MarkdownIt
    from rich.markdown import CodeBlock, Markdown
    from rich.syntax import Syntax

    from piview.render.lexers import lexer

    # The parser Rich's Markdown.__init__ builds, built once (parsing keeps no state in it).
    parser = MarkdownIt().enable("strikethrough").enable("table")
    made: dict[tuple[str, bool], Markdown] = {}

    class SharedParserMarkdown(Markdown):
        """Rich's Markdown, parsed with a parser made once rather than once per text."""

        def __init__(
            self,
            markup: str,
            code_theme: str = "monokai",
            hyperlinks: bool = True,
        ) -> None:
            # The attributes Rich's __init__ sets for these arguments, taken from one empty
            # Markdown made by it; then the text, parsed by the shared parser.
            key = (code_theme, hyperlinks)
            model = made.get(key)
            if model is None:
                model = made[key] = Markdown("", code_theme, hyperlinks=hyperlinks)
            vars(self).update(vars(model))
            self.markup = markup
            self.parsed = parser.parse(markup)

    if not plain:

        class LexedCodeBlock(CodeBlock):
            """Rich's code block, its lexer made once per name (the same highlighting)."""

            def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
                code = str(self.text).rstrip()
                lexer_ = lexer(self.lexer_name)
                yield Syntax(code, lexer_, theme=self.theme, word_wrap=True, padding=1)

        class LexedMarkdown(SharedParserMarkdown):
            """Markdown whose code blocks' lexers are made once."""

            elements = {**Markdown.elements, "fence": LexedCodeBlock, "code_block": LexedCodeBlock}

        MARKDOWN_TYPES.add(LexedMarkdown)
        return LexedMarkdown

    class PlainCodeBlock(CodeBlock):
        """A fenced or indented code block laid out as the same lines, unlexed."""

        def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
            # Rich draws Syntax(code, word_wrap=True, padding=1) on the theme's background:
            # lines padded to the width, inside a padding of one; the same, as one Text.
            code = str(self.text).rstrip()
            text = Text(code.expandtabs(SYNTAX_TAB_SIZE), justify="left", tab_size=SYNTAX_TAB_SIZE)
            yield Padding(text, 1)

    class PlainMarkdown(SharedParserMarkdown):
        """Markdown whose code blocks are laid out as plain text (no colour to choose)."""

        elements = {**Markdown.elements, "fence": PlainCodeBlock, "code_block": PlainCodeBlock}

    MARKDOWN_TYPES.add(PlainMarkdown)
    return PlainMarkdown
