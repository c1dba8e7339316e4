"""Counts and ranges: the transcript, the tools view, the branch panel and both exports agree."""

from __future__ import annotations

from pathlib import Path

from piview.export import export_branch
from piview.model import load_session
from piview.model.toolargs import count_lines, read_range
from piview.model.treetext import row_text
from piview.render.items import render_header
from piview.render.tooltable import argument_summary
from tests.render.helpers import assistant, call, chain, items_of, result, user

CONTENT = "".join(f"line {n}\n" for n in range(1, 20))  # 19 lines, ending with a newline


def test_rules() -> None:
    assert count_lines(CONTENT) == 19
    assert count_lines("a\nb") == 2 and count_lines("a\n\n") == 2 and count_lines("") == 0
    assert read_range({"offset": 1, "limit": 8}) == ":1-8"
    assert read_range({"offset": 10}) == ":10"
    assert read_range({"limit": 20}) == ":1-20"
    assert read_range({"offset": True, "limit": 8}) == ":1-8"  # a bool is no line number
    assert read_range({}) == ""


def test_every_view_says_the_same(write_session, tmp_path: Path) -> None:
    path = write_session(
        chain(
            user("go"),
            assistant(call("r1", "read", {"path": "a.py", "offset": 1, "limit": 8})),
            result("r1", "read", "x\n" * 8),
            assistant(call("w1", "write", {"path": "b.py", "content": CONTENT})),
            result("w1", "write", "Successfully wrote 19 lines"),
        )
    )
    s = load_session(path)
    tools = [i for i in items_of(s) if i.kind == "tool"]
    heads = [render_header(s, t, expanded=False, width=100).plain for t in tools]
    assert "read a.py:1-8" in heads[0] and "write b.py (19 lines)" in heads[1]
    assert argument_summary("read", {"path": "a.py", "offset": 1, "limit": 8}) == "a.py:1-8"
    # The branch panel names the call on its result's row, as Pi's /tree does.
    assert row_text(s, 2) == "[read: a.py:1-8]"
    for fmt in ("md", "html"):
        out = export_branch(
            s, None, fmt=fmt, tools="full", thinking=False, out=tmp_path / f"x.{fmt}"
        )
        text = out.read_text()
        assert "a.py:1-8" in text and "(19 lines)" in text and "(20 lines)" not in text


def test_plurals() -> None:
    from piview.render.format import plural

    assert plural(1, "leaf") == "1 leaf" and plural(3, "leaf") == "3 leaves"
    assert plural(1, "error") == "1 error" and plural(0, "error") == "0 errors"
    assert plural(1200, "entry") == "1,200 entries"


def test_header_line_shortens_the_name_first_and_never_leaves_a_separator() -> None:
    from piview.render.format import header_line

    title = "Refactor the session tree loader so that it never recurses"
    cwd = "/home/dev/src/tinyhttp"
    models = ["anthropic/claude-sonnet-4.5", "openai/gpt-5.1-codex"]
    date = "2026-05-14 10:00"
    for width in range(30, 220, 7):
        pieces = header_line(title, cwd, models, date, width)
        line = "  ·  ".join(t for t, _k in pieces)
        assert len(line) <= width, (width, line)
        assert not line.rstrip().endswith(("·", ",")) and " ,  " not in line
        kinds = [k for _t, k in pieces]
        assert kinds[0] == "title" and pieces[0][0]
        for _t, k in pieces[1:]:
            assert k in ("cwd", "models", "date")
    wide = header_line(title, cwd, models, date, 200)
    assert [t for t, _k in wide] == [title, cwd, ", ".join(models), date]
    # Narrower: the name is shortened before anything else goes.
    mid = header_line(title, cwd, models, date, 120)
    assert mid[0][0].endswith("…") and [k for _t, k in mid] == ["title", "cwd", "models", "date"]
    # 80 columns: the date goes, the models shorten to the first and a count.
    narrow = dict((k, t) for t, k in header_line(title, cwd, models, date, 80))
    assert "date" not in narrow and narrow["models"] in (models[0], f"{models[0]} +1")
