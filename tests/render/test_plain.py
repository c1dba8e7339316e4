"""Plain mode (``piview print`` without colour): the same text, without the colour work."""

from __future__ import annotations

import io
import random
import statistics
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from rich.console import Console, Group
from rich.markdown import Markdown
from rich.syntax import Syntax
from rich.text import Text

import piview.export.text as text_writer
from piview.export.text import print_branch
from piview.model import load_session
from piview.render.plain import markdown_class, plain_code, plain_output
from piview.render.theme import CODE_THEME
from tests.conftest import corpus_files, fixture
from tests.render.helpers import console


def _lines(renderable: object, width: int) -> list[str]:
    c = Console(width=200, file=io.StringIO(), color_system=None)
    lines = c.render_lines(renderable, c.options.update_width(width), pad=False)  # type: ignore[arg-type]
    return ["".join(s.text for s in line).rstrip() for line in lines]


def test_plain_code_lays_out_what_syntax_draws() -> None:
    """One Text gives the lines a word-wrapped Syntax draws, on random code at random widths."""
    rnd = random.Random(7)
    pieces = ["a", "bb", "  ", "\t", "\n", "x" * 30, "é", "漢字", " ", "\n\n", "-", "{", "//"]
    for _ in range(2000):
        code = "".join(rnd.choice(pieces) for _ in range(rnd.randint(0, 40)))
        width = rnd.randint(5, 100)
        syntax = Syntax(
            code, "python", theme=CODE_THEME, word_wrap=True, background_color="default"
        )
        expected = _lines(Group(Text("head"), syntax, Text("more")), width)
        got = _lines(Group(Text("head"), plain_code(code), Text("more")), width)
        assert got == expected, (code, width)


def test_plain_markdown_code_blocks_are_richs_without_lexing() -> None:
    """A Markdown code block in plain mode: the lines (padding included) Rich's Syntax draws."""
    rnd = random.Random(11)
    pieces = ["a", "bb", "  ", "\t", "\n", "x" * 30, "é", "漢字", " ", "\n\n", "-"]
    plain_md = markdown_class(True)
    for _ in range(600):
        code = "".join(rnd.choice(pieces) for _ in range(rnd.randint(1, 40))).strip("\n") or "x"
        text = f"Before `x`:\n\n```python\n{code}\n```\n\nafter\n"
        width = rnd.randint(8, 100)
        ours = _lines(plain_md(text, code_theme=CODE_THEME, hyperlinks=False), width)
        rich = _lines(Markdown(text, code_theme=CODE_THEME, hyperlinks=False), width)
        assert ours == rich, (code, width)


def test_shared_parser_markdown_is_richs_markdown() -> None:
    """Same attributes, same tokens and the same drawing as Rich's own Markdown."""
    text = (
        "# Title\n\nSome *emph* and `code`\n\n- a\n- b\n\n```python\nx = 1\n```\n"
        "| a | b |\n|---|---|\n| 1 | 2 |\n"
    )
    for plain in (False, True):
        ours = markdown_class(plain)(text, code_theme=CODE_THEME, hyperlinks=False)
        rich = Markdown(text, code_theme=CODE_THEME, hyperlinks=False)
        assert isinstance(ours, Markdown)
        assert set(vars(ours)) == set(vars(rich))
        for key in vars(rich):
            if key != "parsed":
                assert getattr(ours, key) == getattr(rich, key), key
        assert [t.as_dict() for t in ours.parsed] == [t.as_dict() for t in rich.parsed]
        assert _lines(ours, 60) == _lines(rich, 60)


@contextmanager
def _lexed_plain() -> Iterator[None]:
    """``print_branch`` as it was: highlighting everything even without colour."""
    original = text_writer.plain_output
    text_writer.plain_output = lambda plain=True: original(False)  # type: ignore[assignment]
    try:
        yield
    finally:
        text_writer.plain_output = original


def _printed(path: Path, width: int = 100, **kw: object) -> str:
    session = load_session(path)
    c = console(width)
    opts = {"thinking": True, "tools": "full", "hidden": True, **kw}
    print_branch(session, None, console=c, **opts)  # type: ignore[arg-type]
    return c.file.getvalue()  # type: ignore[attr-defined]


_FILES = [fixture(n) for n in ("edit_tools.jsonl", "roles_all.jsonl", "images.jsonl")]


@pytest.mark.parametrize("path", [pytest.param(p, id=p.name) for p in _FILES + corpus_files()])
def test_plain_print_is_the_highlighted_print_without_colour(path: Path) -> None:
    """Skipping the colour work changes no text (only trailing spaces an unseen style kept)."""
    big = path.stat().st_size > 200_000  # corpus files: every item, tool output previewed
    for width in (100,) if big else (80, 200):
        kw = {"tools": "preview"} if big else {}
        fast = _printed(path, width, **kw)
        with _lexed_plain():
            slow = _printed(path, width, **kw)
        assert [x.rstrip() for x in fast.splitlines()] == [x.rstrip() for x in slow.splitlines()]


def test_plain_print_runs_no_lexer(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without colour, Pygments is never asked to lex (its styles would be thrown away)."""
    from pygments.lexer import RegexLexer

    calls = []
    real = RegexLexer.get_tokens_unprocessed

    def counting(self, text, stack=("root",)):  # type: ignore[no-untyped-def]
        calls.append(type(self).__name__)
        return real(self, text, stack)

    monkeypatch.setattr(RegexLexer, "get_tokens_unprocessed", counting)
    _printed(fixture("edit_tools.jsonl"))
    assert calls == []
    # A terminal with colour still gets highlighted code.
    session = load_session(fixture("edit_tools.jsonl"))
    c = Console(width=100, file=io.StringIO(), color_system="truecolor", force_terminal=True)
    print_branch(session, None, thinking=True, tools="full", hidden=True, console=c)
    assert calls


def test_plain_mode_is_only_inside_print() -> None:
    """The viewer and every other renderer keep their colours."""
    from piview.render.plain import is_plain

    assert not is_plain()
    with plain_output():
        assert is_plain()
        with plain_output(False):
            assert not is_plain()
    assert not is_plain()


@pytest.mark.scaling  # a ratio of times: the scaling tier, not the default run
def test_plain_print_costs_less_than_highlighting(tmp_path: Path) -> None:
    """The colour work skipped is a real share of printing: a ratio of two runs, same process."""
    from benchmarks.gen_session import generate

    path = tmp_path / "s.jsonl"
    generate(str(path), 600 * 1024, seed=1)
    session = load_session(path)

    def run() -> float:
        c = console(80)
        t0 = time.process_time()
        print_branch(session, None, thinking=False, tools="preview", hidden=False, console=c)
        return time.process_time() - t0

    run()  # warm: imports, entry cache
    fast = statistics.median(run() for _ in range(3))
    with _lexed_plain():
        slow = statistics.median(run() for _ in range(3))
    assert fast < 0.85 * slow, (fast, slow)


def test_print_streams_item_by_item() -> None:
    """The first item is written before the second is drawn (``| head`` stops early)."""
    events: list[str] = []

    class Recorder(io.StringIO):
        def write(self, s: str) -> int:
            events.append("write")
            return super().write(s)

    real = text_writer.print_lines

    def recording(*args: object, **kw: object):  # type: ignore[no-untyped-def]
        events.append("render")
        return real(*args, **kw)  # type: ignore[arg-type]

    text_writer.print_lines = recording  # type: ignore[assignment]
    try:
        session = load_session(fixture("edit_tools.jsonl"))
        c = Console(width=100, file=Recorder(), color_system=None)
        print_branch(session, None, thinking=True, tools="full", hidden=False, console=c)
    finally:
        text_writer.print_lines = real
    renders = [k for k, e in enumerate(events) if e == "render"]
    assert len(renders) > 3
    assert "write" in events[renders[0] : renders[1]]
