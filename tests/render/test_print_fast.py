"""``piview print``'s shortcuts: what is not printed is not built, and the output is the same."""

from __future__ import annotations

import pytest

import piview.render.roles.tool as tool_role
from piview.export.text import print_branch
from piview.model import load_session
from tests.conftest import fixture
from tests.render.helpers import console


def _printed(name: str, **kw: object) -> str:
    s = load_session(fixture(name))
    c = console(100)
    opts = {"thinking": False, "tools": "preview", "hidden": False, **kw}
    print_branch(s, None, console=c, processes=1, **opts)  # type: ignore[arg-type]
    return c.file.getvalue()  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", ["edit_tools.jsonl", "roles_all.jsonl", "images.jsonl"])
def test_tools_none_builds_no_tool_bodies(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """``--tools none`` prints one line per call: the results' bodies are never made."""
    calls: list[object] = []
    real = tool_role._result_body

    def counting(*a: object, **kw: object) -> object:
        calls.append(a)
        return real(*a, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(tool_role, "_result_body", counting)
    out = _printed(name, tools="none")
    assert calls == []
    assert "✓" in out  # the headers still say how each call went
    _printed(name, tools="preview")
    assert calls  # (the preview does draw them)


def test_the_same_image_is_decoded_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two blocks holding the same image (under different keys) decode it once."""
    import piview.render.image as image
    from tests.render.test_image import png

    image.clear_cache()
    decoded: list[object] = []
    real = image._decode_preview

    def counting(*a: object) -> object:
        decoded.append(a)
        return real(*a)  # type: ignore[arg-type]

    monkeypatch.setattr(image, "_decode_preview", counting)
    data = png(12, 8)
    a = image.render_image(data, "image/png", width=40, key=("k", 1))
    b = image.render_image(data, "image/png", width=40, key=("k", 2))
    image.render_image(data, "image/png", width=30, key=("k", 3))  # another width: drawn again
    assert a is b
    assert len(decoded) == 2


def test_spans_one_after_another_are_cut_as_rich_cuts() -> None:
    """Texts whose spans follow one another (headers, inline styles; empty ones too), under
    their own style or not: the same segments as Rich's."""
    import io
    import random

    from rich.console import Console
    from rich.style import Style
    from rich.text import Span, Text

    from piview.render.fastlayout import FastConsole

    rnd = random.Random(8)
    styles = [Style(bold=True), Style(color="red"), Style(bgcolor="blue"), Style(italic=False)]
    for _ in range(1500):
        plain = "".join(rnd.choice(["ab", " ", "word ", "x", "é", "漢"]) for _ in range(9))
        text = Text(
            plain,
            style=rnd.choice(["", "dim", Style(underline=True)]),
            justify=rnd.choice([None, "left"]),
        )
        at = 0
        while at < len(plain):
            start = min(len(plain), at + rnd.choice([0, 0, 1, 3]))
            end = min(len(plain), start + rnd.choice([0, 1, 2, 5]))
            text.spans.append(Span(start, end, rnd.choice(styles)))
            at = end
        width = rnd.randint(8, 40)
        kw: dict[str, object] = {"width": width, "color_system": "truecolor"}
        rich = Console(file=io.StringIO(), force_terminal=True, **kw)  # type: ignore[arg-type]
        fast = FastConsole(file=io.StringIO(), force_terminal=True, **kw)  # type: ignore[arg-type]
        want = rich.render_lines(text.copy(), rich.options, pad=False)
        assert fast.render_lines(text.copy(), fast.options, pad=False) == want, text.spans


def test_cells_are_richs() -> None:
    """Random strings of ASCII, controls, wide, zero-width and joined characters."""
    import random

    from rich.cells import cell_len

    from piview.render.cells import cells

    pieces = ["abc", " ", "\n", "\t", "\x1b", "\x7f", "é", "e\u0301", "漢字", "👍", "▸", "…"]
    pieces += ["\u200b", "\u200d", "\ufe0f", "👨\u200d👩", "❤\ufe0f", "x" * 600, "\u0085"]
    rnd = random.Random(4)
    for _ in range(3000):
        text = "".join(rnd.choice(pieces) for _ in range(rnd.randint(0, 8)))
        assert cells(text) == cell_len(text), repr(text)


@pytest.mark.parametrize("colour", [False, True], ids=["plain", "colour"])
def test_paddings_are_richs(colour: bool) -> None:
    """A padded Text (a Markdown code block in plain mode) laid out here: Rich's lines."""
    import io
    import random

    from rich.console import Console
    from rich.padding import Padding
    from rich.style import Style
    from rich.text import Text

    from piview.render.fastlayout import FastConsole, layout

    rnd = random.Random(9)
    kw: dict[str, object] = (
        {"color_system": "truecolor", "force_terminal": True} if colour else {"color_system": None}
    )
    for _ in range(600):
        words = [rnd.choice(["def", "x = 1", "    y", "", "漢字", "a" * 50]) for _ in range(5)]
        text = Text(
            "\n".join(words), justify=rnd.choice(["left", None]), style=rnd.choice(["", "dim"])
        )
        pad = tuple(rnd.randint(0, 3) for _ in range(4))
        style = rnd.choice(["none", Style(bgcolor="grey11"), ""])
        padding = Padding(text, pad, style=style, expand=rnd.random() < 0.8)  # type: ignore[arg-type]
        width = rnd.randint(1, 70)
        rich = Console(width=width, file=io.StringIO(), **kw)  # type: ignore[arg-type]
        fast = FastConsole(width=width, file=io.StringIO(), **kw)  # type: ignore[arg-type]
        want = Console.render_lines(rich, padding, rich.options, pad=False)
        assert layout(fast, padding, fast.options) == want, (pad, width)


def test_truncate_is_richs() -> None:
    """Cutting a header with an ellipsis: the same text and spans as ``Text.truncate``."""
    import random

    from rich.text import Text

    from piview.render.cells import truncate

    rnd = random.Random(10)
    pieces = ["▸ thinking", " · ", "12 chars", "…", "漢字", "e\u0301", "x" * 30, "\x00", "👍"]
    for _ in range(2000):
        text = Text()
        for _k in range(rnd.randint(0, 6)):
            text.append(rnd.choice(pieces), style=rnd.choice(["bold", "dim", ""]))
        width = rnd.randint(0, 50)
        want = text.copy()
        want.truncate(width, overflow="ellipsis")
        got = text.copy()
        truncate(got, width)
        assert (got.plain, got.spans) == (want.plain, want.spans), (text.plain, width)


_CODE = 'def f(x):\n\treturn "s"  # comment\n\nclass A:\n    pass\n'


@pytest.mark.parametrize("name", ["python", "typescript", "text", "no-such-lexer", "js"])
def test_a_lexer_made_once_highlights_as_richs_lookup(name: str) -> None:
    import io

    from rich.console import Console
    from rich.syntax import Syntax

    from piview.render.lexers import lexer

    c = Console(width=50, file=io.StringIO(), color_system="truecolor", force_terminal=True)
    for kw in ({"word_wrap": True, "background_color": "default"}, {"padding": 1}):
        want = c.render_lines(Syntax(_CODE, name, theme="monokai", **kw), c.options)  # type: ignore[arg-type]
        got = c.render_lines(Syntax(_CODE, lexer(name), theme="monokai", **kw), c.options)  # type: ignore[arg-type]
        assert got == want


def test_code_and_markdown_blocks_look_their_lexer_up_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Highlighted in colour: the same lines as Rich's Markdown, the lexer looked up once."""
    import io

    import pygments.lexers
    from rich.console import Console
    from rich.markdown import Markdown

    from piview.render.lexers import lexer
    from piview.render.plain import markdown_class
    from piview.render.roles._common import code

    lexer.cache_clear()
    looked: list[str] = []
    real = pygments.lexers.get_lexer_by_name

    def counting(name: str, **kw: object) -> object:
        looked.append(name)
        return real(name, **kw)

    monkeypatch.setattr(pygments.lexers, "get_lexer_by_name", counting)
    monkeypatch.setattr("rich.syntax.get_lexer_by_name", counting)
    c = Console(width=60, file=io.StringIO(), color_system="truecolor", force_terminal=True)
    text = f"Some `code`:\n\n```python\n{_CODE}```\n\nand\n\n```nosuch\nx = 1\n```\n"
    want = c.render_lines(Markdown(text, code_theme="monokai", hyperlinks=False), c.options)
    looked.clear()
    for _ in range(3):
        md = markdown_class(False)(text, code_theme="monokai", hyperlinks=False)
        assert c.render_lines(md, c.options) == want
        c.render_lines(code(_CODE, "a.py"), c.options)
    assert {"nosuch", "python", "text"} <= set(looked)
    assert len(looked) == len(set(looked)), looked  # once each, not in every round


@pytest.mark.corpus
def test_entry_timestamp_is_the_skeletons() -> None:
    """Read from its column: the timestamp ``nodes[i]`` has, for every entry (kept whole or
    not) of every fixture and of the real corpus."""
    from pathlib import Path

    from piview.render.roles._common import entry_timestamp
    from tests.conftest import corpus_files

    paths = sorted(Path(fixture("roles_all.jsonl")).parent.glob("*.jsonl")) + corpus_files()
    checked = 0
    for path in paths:
        session = load_session(path)
        for i in range(len(session.nodes)):
            assert entry_timestamp(session, i) == session.nodes[i].timestamp, (path, i)
            checked += 1
    assert checked > 100


def test_times_of_day_follow_the_local_zone(monkeypatch: pytest.MonkeyPatch) -> None:
    """The remembered time of day is the zone's: another zone set, another time."""
    import time

    from piview.render.format import fmt_time_of_day
    from piview.render.roles._common import _time_of_day

    stamp = "2026-03-01T10:20:30.000Z"
    try:
        for zone, want in (("UTC", "10:20:30"), ("Asia/Kolkata", "15:50:30"), ("UTC", "10:20:30")):
            monkeypatch.setenv("TZ", zone)
            time.tzset()
            assert _time_of_day(stamp) == fmt_time_of_day(stamp) == want
    finally:
        monkeypatch.undo()
        time.tzset()


def test_sanitize_returns_a_text_of_lines_as_it_is() -> None:
    """Texts of many lines and nothing else to do skip the work; every text comes out as the
    full treatment gives it (random controls, escapes, tabs, carriage returns)."""
    import random
    import re

    import piview.render.sanitize as sanitize_mod

    # The full treatment: every text with a control character through every step.
    every = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
    rnd = random.Random(12)
    pieces = ["line", "\n", "\n\n", "\t", "\r\n", "\r", "\x1b[31m", "\x1b]0;t\x07", "\x00", "é"]
    pieces += ["\x9b1m", "\ud800", "\x7f", " ", "漢"]
    texts = ["".join(rnd.choice(pieces) for _ in range(rnd.randint(0, 10))) for _ in range(3000)]
    fast = [(sanitize_mod.sanitize(t), sanitize_mod.sanitize(t, tabs=False)) for t in texts]
    quick = sanitize_mod._NEEDS_WORK_RE
    try:
        sanitize_mod._NEEDS_WORK_RE = every
        full = [(sanitize_mod.sanitize(t), sanitize_mod.sanitize(t, tabs=False)) for t in texts]
    finally:
        sanitize_mod._NEEDS_WORK_RE = quick
    assert fast == full
    assert quick.search("a\nb\nc") is None  # (new lines alone: nothing to do)


def test_rstrip_shortcut_is_the_loops() -> None:
    """A line whose last segment ends in something else than a space is kept as it is: what
    the loop gives (an empty segment put last makes the loop run)."""
    import random

    from rich.segment import Segment
    from rich.style import Style

    from piview.render.roles._indent import _rstrip

    rnd = random.Random(13)
    texts = ["ab", "ab ", "  ", "", "x  y", "\n"]
    styles = [None, Style(bold=True), Style(bgcolor="red"), Style(underline=True)]
    for _ in range(3000):
        line = [
            Segment(rnd.choice(texts), rnd.choice(styles), None) for _ in range(rnd.randint(0, 4))
        ]
        assert _rstrip(line) == _rstrip([*line, Segment("")]), line
