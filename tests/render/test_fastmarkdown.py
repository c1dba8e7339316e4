"""Markdown laid out element by element (``piview print``): Rich's own lines, on random and
real texts, plain and in colour."""

from __future__ import annotations

import io
import random

import pytest
from rich.console import Console
from rich.markdown import Markdown

from piview.model import load_session
from piview.model.types import TextContent
from piview.render.fastlayout import FastConsole, _layout, _rich_lines, layout
from piview.render.fastmarkdown import markdown_lines
from piview.render.plain import markdown_class
from piview.render.roles._common import blocks_of
from piview.render.sanitize import sanitize
from piview.render.theme import CODE_THEME
from tests.conftest import corpus_files, fixture

_BLOCKS = [
    "plain words in a paragraph that runs on for a while " * 3,
    "a **bold** word, an *emphasis*, `inline code` and ~~struck~~ text",
    "# A heading one",
    "## Heading two with `code`",
    "### three",
    "- one\n- two **bold**\n- three",
    "1. first\n2. second\n10. tenth",
    "* nested\n  * inner item\n  * another",
    "> a quote\n> over two lines",
    "```python\ndef f(x):\n\treturn x  # tab\n```",
    "```\nno language\n  indented\n```",
    "    an indented code block",
    "| a | b |\n|---|:-:|\n| 1 | two |\n| three | 4 |",
    "---",
    "a [link](https://example.com/x) here",
    "an image ![alt text](img/p.png) inline",
    "![](only/image.png)",
    "line one  \nhard break",
    "soft\nbreak",
    "wide 漢字 and emoji 👍 text " * 4,
    "x" * 130,
    "<kbd>Ctrl</kbd>+<kbd>C</kbd> and <b>html</b>",
    "",
    "trailing spaces   ",
    "- item with a block:\n\n  ```py\n  x = 1\n  ```\n- two\n  > a quote in a list\n- ![i](p.png)",
    "1. one\n   - inner **bold**\n     1. deeper `code`\n2. two\n\n   para in item",
]


def _consoles(width: int, colour: bool) -> tuple[Console, FastConsole]:
    kw: dict[str, object] = (
        {"color_system": "truecolor", "force_terminal": True} if colour else {"color_system": None}
    )
    rich = Console(width=width, file=io.StringIO(), **kw)  # type: ignore[arg-type]
    fast = FastConsole(width=width, file=io.StringIO(), **kw)  # type: ignore[arg-type]
    return rich, fast


def _check(text: str, width: int, colour: bool, plain: bool) -> bool:
    """Rich's lines of ``text`` against :func:`markdown_lines`'; True when the fast way
    drew it (not handed back to Rich)."""
    cls = markdown_class(plain)
    rich, fast = _consoles(width, colour)

    def md() -> Markdown:
        return cls(text, code_theme=CODE_THEME, hyperlinks=False)

    want = Console.render_lines(rich, md(), rich.options, pad=False)
    got = markdown_lines(fast, md(), fast.options, _layout, _rich_lines)
    assert layout(fast, md(), fast.options) == want
    if got is None:
        return False
    assert got[0] == want, (text, width, colour, plain)
    return True


@pytest.mark.parametrize("colour", [False, True], ids=["plain", "colour"])
def test_random_markdown_is_richs(colour: bool) -> None:
    rnd = random.Random(11 if colour else 12)
    fast = 0
    for _ in range(400):
        text = "\n\n".join(rnd.choice(_BLOCKS) for _ in range(rnd.randint(1, 6)))
        if rnd.random() < 0.3:
            text = text.replace("\n\n", "\n", rnd.randint(0, 3))
        fast += _check(text, rnd.choice([1, 2, 5, 20, 37, 80, 121]), colour, plain=not colour)
    assert fast > 250  # most take the fast way; the rest (images) Rich draws


def _texts(paths: list) -> list[str]:
    out: list[str] = []
    for path in paths:
        session = load_session(path)
        for i in range(len(session)):
            content = getattr(getattr(session.entry(i), "message", None), "content", None)
            for block in blocks_of(content):
                if isinstance(block, TextContent) and block.text.strip():
                    out.append(sanitize(block.text).strip("\n"))
    return out


@pytest.mark.corpus
@pytest.mark.parametrize("colour", [False, True], ids=["plain", "colour"])
def test_real_markdown_is_richs(colour: bool) -> None:
    """Every text block of the fixtures and of the real corpus (when present)."""
    names = ["roles_all.jsonl", "edit_tools.jsonl", "entry_types.jsonl", "system_prompt.jsonl"]
    texts = _texts([fixture(n) for n in names] + corpus_files())
    assert texts
    rnd = random.Random(3)
    sample = rnd.sample(texts, min(len(texts), 800))
    widths = [rnd.choice([18, 78, 198]) for _ in sample]
    pairs = zip(sample, widths, strict=True)
    fast = sum(_check(t[:20_000], w, colour, not colour) for t, w in pairs)
    assert fast > len(sample) // 2
