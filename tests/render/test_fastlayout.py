"""The fast layout of ``piview print``: Rich's own lines and bytes, laid out faster."""

from __future__ import annotations

import io
import random
from pathlib import Path

import pytest
from rich.console import Console, Group
from rich.segment import Segment, SegmentLines
from rich.style import Style
from rich.text import Span, Text

import piview.export.text as text_writer
from piview.export.text import print_branch
from piview.model import load_session
from piview.model.session import Session
from piview.render.fastlayout import FastConsole, layout, text_lines
from piview.render.items import _failure, _parts, build_items, render_header
from piview.render.plain import plain_output
from piview.render.roles._common import Indent
from piview.render.roles._fields import details_in_body, fork_note
from tests.conftest import corpus_files, fixture

_PIECES = [
    "a", "bb", " ", "  ", "word", "x" * 30, "-", "\n", "\n\n", "é", "漢字", "e\u0301",
    "\u200b", "👍", "ccc ", "y" * 90, ".", "   \n",
]  # fmt: skip
# The last two undo what others set: the order styles combine in shows.
_STYLES = [
    Style(bold=True), Style(color="red"), Style(bgcolor="blue"), Style(underline=True), "italic",
    Style(color="green", bold=False), Style(bgcolor="yellow", italic=False),
]  # fmt: skip


def _random_text(rnd: random.Random, ascii_only: bool = False) -> Text:
    pieces = [p for p in _PIECES if p.isascii()] if ascii_only else _PIECES
    text = Text(
        style=rnd.choice(["", Style(dim=True), "bold", Style.null()]),
        justify=rnd.choice([None, "default", "left", "left", None, "center", "right", "full"]),
        overflow=rnd.choice([None, "fold", "crop", "ellipsis"]),
        no_wrap=rnd.choice([None, None, True, False]),
        end=rnd.choice(["\n", "\n", "\n", ""]),
    )
    for _ in range(rnd.randint(0, 12)):
        text.append(rnd.choice(pieces), style=rnd.choice([None, None, *_STYLES]))
    n = len(text.plain)
    for _ in range(rnd.randint(0, 3)):  # overlapping and empty spans too
        a = rnd.randint(0, n)
        text.spans.append(Span(a, min(n, a + rnd.randint(0, 12)), rnd.choice(_STYLES)))
    return text


def _consoles(width: int) -> tuple[Console, Console]:
    kw: dict[str, object] = {"width": width, "color_system": "truecolor", "force_terminal": True}
    return Console(file=io.StringIO(), **kw), FastConsole(file=io.StringIO(), **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize("ascii_only", [True, False])
def test_text_lines_are_richs(ascii_only: bool) -> None:
    """Random styled texts at random widths: the same segments as Rich's, line for line."""
    rnd = random.Random(5 if ascii_only else 6)
    taken = 0
    for _ in range(2500):
        text = _random_text(rnd, ascii_only)
        width = rnd.randint(1, 60)
        rich, fast = _consoles(width)
        under = rnd.choice([None, Style.null(), Style(bgcolor="default"), Style(color="green")])
        for pad, new_lines in ((False, False), (True, True), (False, True)):
            kw = {"pad": pad, "new_lines": new_lines, "style": under}
            want = rich.render_lines(text.copy(), rich.options, **kw)  # type: ignore[arg-type]
            got = fast.render_lines(text.copy(), fast.options, **kw)  # type: ignore[arg-type]
            assert got == want, (text, text.spans, width, pad, new_lines, under)
        # The stream may cut a segment at a new line where Rich's runs on: cut into lines,
        # the same.
        assert _split(fast.render(text.copy())) == _split(rich.render(text.copy()))
        taken += text_lines(fast, text, fast.options) is not None
    assert taken > 1000  # most of them take the fast way (the rest: Rich draws them)


def _split(segments: object) -> list[list[Segment]]:
    return list(Segment.split_lines(segments))  # type: ignore[arg-type]


def test_groups_and_indents_are_richs() -> None:
    """Groups of texts, indented bodies, Markdown around them: Rich's lines."""
    from piview.render.plain import markdown_class

    rnd = random.Random(9)
    md = markdown_class(False)
    for _ in range(800):
        parts: list[object] = []
        for _k in range(rnd.randint(1, 4)):
            kind = rnd.random()
            if kind < 0.5:
                parts.append(_random_text(rnd))
            elif kind < 0.8:
                parts.append(Indent(Group(_random_text(rnd), _random_text(rnd))))
            else:
                parts.append(Indent(md("Some *text* and `code`, a list:\n\n- one\n- two two two")))
        renderable = Group(*parts)  # type: ignore[arg-type]
        width = rnd.randint(5, 70)
        rich, fast = _consoles(width)
        want = rich.render_lines(renderable, rich.options, pad=False)
        assert layout(fast, renderable, fast.options) == want
        assert layout(rich, renderable, rich.options) == want  # any console, not only ours
        assert fast.render_lines(renderable, fast.options, pad=False) == want


def test_syntax_lines_are_richs() -> None:
    """Highlighted code (word-wrapped, with or without padding or a background) at random
    widths, alone and in Markdown: Rich's lines."""
    from rich.syntax import Syntax

    from piview.render.plain import markdown_class
    from piview.render.theme import CODE_THEME

    rnd = random.Random(12)
    pieces = [
        "a",
        "bb",
        "  ",
        "\t",
        "\n",
        "x" * 30,
        "é",
        "漢字",
        " ",
        "\n\n",
        "-",
        "{",
        "//",
        "'s'",
    ]
    md = markdown_class(False)
    for _ in range(400):
        code = "".join(rnd.choice(pieces) for _ in range(rnd.randint(0, 40)))
        width = rnd.randint(5, 90)
        rich, fast = _consoles(width)
        for kw in ({"background_color": "default"}, {"padding": 1}, {"padding": (0, 2)}, {}):
            syntax = Syntax(
                code, rnd.choice(["python", "js"]), theme=CODE_THEME, word_wrap=True, **kw
            )  # type: ignore[arg-type]
            want = rich.render_lines(Group(Text("head"), syntax), rich.options, pad=False)
            assert layout(fast, Group(Text("head"), syntax), fast.options) == want, (code, kw)
        text = f"Some:\n\n```python\n{code.strip() or 'x'}\n```\n"
        want = rich.render_lines(md(text, code_theme=CODE_THEME), rich.options, pad=False)
        assert layout(fast, md(text, code_theme=CODE_THEME), fast.options) == want, code


# --------------------------------------------------------------------------- whole prints


def _rich_print(
    session: Session, console: Console, *, thinking: bool, tools: str, hidden: bool
) -> None:
    """``print_branch`` as it was before the fast layout: Rich lays out and prints each item."""
    items = build_items(session, session.tree.path(session.tree.leaf), show_hidden=hidden)
    with plain_output(console.color_system is None), details_in_body():
        width = max(20, console.width)
        crop = console.width < width
        options = console.options.update_width(width).reset_height()
        note = fork_note(session, width)
        if note is not None:
            console.print(Group(note), crop=True)
            console.line()
        for k, item in enumerate(items):
            if k:
                console.line()
            expanded = text_writer._expanded(item, thinking=thinking, tools=tools)
            if tools == "none" and item.kind in text_writer._TOOL_KINDS:
                console.print(Group(render_header(session, item, expanded=False, width=width)))
                continue
            try:
                head, body = _parts(session, item, expanded, width)
                content = Group(head, body) if body is not None else Group(head)
                lines = Console.render_lines(console, content, options, pad=False)
            except Exception as exc:  # noqa: BLE001
                lines = Console.render_lines(
                    console, _failure(item, exc, width), options, pad=False
                )
            if item.kind == "system":
                lines = text_writer._preview(console, lines)
            console.print(SegmentLines(lines, new_lines=True), crop=crop)


def _both(path: Path, width: int, colour: bool, **kw: object) -> tuple[str, str]:
    session = load_session(path)
    opts: dict[str, object] = {"thinking": True, "tools": "full", "hidden": True, **kw}
    extra: dict[str, object] = (
        {"color_system": "truecolor", "force_terminal": True} if colour else {"color_system": None}
    )
    rich = Console(width=width, file=io.StringIO(), **extra)  # type: ignore[arg-type]
    _rich_print(session, rich, **opts)  # type: ignore[arg-type]
    fast = FastConsole(width=width, file=io.StringIO(), **extra)  # type: ignore[arg-type]
    print_branch(session, None, console=fast, **opts)  # type: ignore[arg-type]
    return rich.file.getvalue(), fast.file.getvalue()  # type: ignore[attr-defined]


_FIXTURES = [
    "edit_tools.jsonl",
    "pi085_fields.jsonl",
    "roles_all.jsonl",
    "images.jsonl",
    "entry_types.jsonl",
    "system_prompt.jsonl",
]


@pytest.mark.parametrize("colour", [False, True], ids=["plain", "colour"])
@pytest.mark.parametrize("name", _FIXTURES)
def test_print_is_byte_for_byte_richs_on_fixtures(name: str, colour: bool) -> None:
    for width in (20, 80, 200):
        for tools in ("full", "preview", "none"):
            want, got = _both(fixture(name), width, colour, tools=tools)
            assert got == want, (name, width, tools)


@pytest.mark.parametrize("colour", [False, True], ids=["plain", "colour"])
@pytest.mark.parametrize("path", [pytest.param(p, id=p.name) for p in corpus_files()])
def test_print_is_byte_for_byte_richs_on_corpus(path: Path, colour: bool) -> None:
    big = path.stat().st_size > 200_000
    kw = {"tools": "preview", "thinking": False} if big else {}
    want, got = _both(path, 100, colour, **kw)
    assert got == want


@pytest.mark.scaling  # a ratio of times: the scaling tier, not the default run
def test_fast_print_costs_less_than_richs(tmp_path: Path) -> None:
    """The fast layout and writer are a real share of printing: a ratio of two runs in the same
    process (CPU time), never an absolute time."""
    import statistics
    import time

    from benchmarks.gen_session import generate

    path = tmp_path / "s.jsonl"
    generate(str(path), 600 * 1024, seed=2)
    session = load_session(path)
    opts = {"thinking": False, "tools": "preview", "hidden": False}

    def fast() -> float:
        c = FastConsole(width=80, file=io.StringIO(), color_system=None)
        t0 = time.process_time()
        print_branch(session, None, console=c, processes=1, **opts)  # type: ignore[arg-type]
        return time.process_time() - t0

    def rich() -> float:
        c = Console(width=80, file=io.StringIO(), color_system=None)
        t0 = time.process_time()
        _rich_print(session, c, **opts)  # type: ignore[arg-type]
        return time.process_time() - t0

    fast(), rich()  # warm: imports, entry cache
    runs = [(fast(), rich()) for _ in range(3)]
    f, r = statistics.median(a for a, _ in runs), statistics.median(b for _, b in runs)
    assert f < 0.8 * r, (f, r)
