"""The per-entry fields Pi 0.80 to 0.85 writes, drawn where a user looks for them (issue 27).

Covers, on the hand-written fixture ``pi085_fields.jsonl`` (a version 3 fork with
``parentSession``): ``rawStopReason`` beside a ``length`` and an ``error`` stop,
``usage.reasoning`` and ``usage.cacheWrite1h``, ``providerThinkingLevel`` (and the thinking level
``max``), ``endTurn`` true and false, a tool result's own ``usage`` and its ``addedToolNames``, a
compaction's and a branch summary's ``usage``: in the transcript's headers (at 80 and 200
columns), in ``piview print``, in the Markdown and HTML export, and in the inspector.
"""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from piview.cli import run_command
from piview.export.text import print_branch
from piview.model import Session, load_session
from piview.render.items import Item, build_items, render_header, render_item
from piview.render.roles._fields import details_in_body
from piview.screens.entry_json import entry_json_renderable
from piview.screens.inspector import inspector_renderable
from tests.conftest import fixture
from tests.render.helpers import console, to_str

NAME = "pi085_fields.jsonl"


def session() -> Session:
    return load_session(fixture(NAME))


def items(s: Session) -> list[Item]:
    assert s.tree.leaf is not None
    return list(build_items(s, s.tree.path(s.tree.leaf)))


def entry_of(s: Session, eid: str) -> int:
    return s.tree.id_index[eid]


def head(s: Session, eid: str, kind: str, width: int) -> str:
    item = next(it for it in items(s) if it.entry == entry_of(s, eid) and it.kind == kind)
    return render_header(s, item, expanded=False, width=width).plain


def body(s: Session, eid: str, kind: str, width: int = 100) -> str:
    item = next(it for it in items(s) if it.entry == entry_of(s, eid) and it.kind == kind)
    return to_str(render_item(s, item, expanded=False, width=width), width)


def printed(width: int) -> str:
    c = console(width)
    print_branch(session(), None, console=c, thinking=False, tools="preview", hidden=False)
    return c.file.getvalue()  # type: ignore[attr-defined]


def text_of(renderable: object, width: int = 100) -> str:
    c = Console(width=width, file=io.StringIO(), color_system=None)
    c.print(renderable)
    return c.file.getvalue()  # type: ignore[attr-defined]


# --------------------------------------------------------------------------- transcript


def test_raw_stop_reason_beside_the_stop() -> None:
    s = session()
    assert "✂ cut off · max_tokens" in head(s, "a1000005", "assistant", 80)
    assert "(length)" not in head(s, "a1000005", "assistant", 80)
    assert "Output stopped at the token limit (max_tokens)." in body(s, "a1000005", "assistant")
    assert "✗ error · overloaded_error" in head(s, "a1000011", "assistant", 80)
    # A raw reason that says what Pi's does (tool_use behind toolUse) is left to the inspector.
    assert "tool_use" not in head(s, "a1000003", "assistant", 200)


def test_assistant_extras_in_the_header_where_they_fit() -> None:
    s = session()
    wide = head(s, "a1000003", "assistant", 200)
    assert "reasoning 150 · 1h W600 · thinking max · no end turn" in wide
    assert "reasoning 1.2k · thinking max · end turn" in head(s, "a1000005", "assistant", 200)
    narrow = head(s, "a1000003", "assistant", 80)
    # At 80 columns they do not fit whole: left out, nothing else cut, the time in place.
    assert "reasoning" not in narrow and "$0.01" in narrow and narrow.endswith("14:00:04")
    assert len(narrow) == 80
    # The transcript has the inspector for them: no line of its own under the text.
    assert "reasoning" not in body(s, "a1000003", "assistant", 80)


def test_tool_result_usage_and_loaded_tools_in_the_tool_header() -> None:
    s = session()
    for width in (80, 200):
        h = head(s, "a1000003", "tool", width)
        assert "✓ 1 line · 2.0s · ↑300 ↓20 $0.0012 · +2 tools" in h, h
        assert len(h) <= width
    assert "loaded tools: web_search, web_fetch" in body(s, "a1000003", "tool", 80)


def test_summary_usage_on_its_line() -> None:
    s = session()
    for width in (80, 200):
        compaction = head(s, "a1000006", "compaction", width)
        assert "  ↑900 ↓41 $0.0033 " in compaction and compaction.endswith(" 14:00:12")
        assert len(compaction) == width
        # What has no room is left out whole, never cut: the id is in the inspector's JSON.
        assert "…" not in compaction and "summary 5 lines" in compaction
        assert ("kept from a1000005" in compaction) == (width == 200)
        branch = head(s, "a1000009", "branch_summary", width)
        assert "from a1000008" in branch and "↑39 ↓9 $0.0003" in branch


def test_thinking_level_max_is_shown(capsys) -> None:
    s = session()
    item = next(it for it in items(s) if it.entry == entry_of(s, "a1000002"))
    assert "thinking: max" in render_header(s, item, expanded=False, width=80).plain
    assert run_command(["context", str(fixture(NAME)), "--json"]) == 0
    assert '"thinking_level": "max"' in capsys.readouterr().out


def test_details_in_body_puts_what_did_not_fit_under_the_text() -> None:
    s = session()
    with details_in_body():
        out = body(s, "a1000003", "assistant", 80)
    assert "reasoning 150 · 1h W600 · thinking max · no end turn" in out


# --------------------------------------------------------------------------- print


def test_print_shows_every_field_at_80_columns() -> None:
    out = printed(80)
    lines = out.splitlines()
    assert lines[0] == "⑂ forked from"
    assert lines[1] == "2026-05-13T09-00-00-000Z_019e2000-0000-7000-8000-000000000001.jsonl"
    assert "  reasoning 150 · 1h W600 · thinking max · no end turn" in lines
    assert "  reasoning 1.2k · thinking max · end turn" in lines
    assert "✂ cut off · max_tokens" in out and "✗ error · overloaded_error" in out
    assert "· ↑300 ↓20 $0.0012 · +2 tools" in out
    assert "  loaded tools: web_search, web_fetch" in lines
    assert "↑900 ↓41 $0.0033" in out and "↑39 ↓9 $0.0003" in out
    assert "thinking: max" in out
    assert all(len(line) <= 80 for line in lines)


def test_print_names_the_whole_parent_path_when_it_fits() -> None:
    first = printed(200).splitlines()[0]
    assert first == (
        "⑂ forked from /home/dev/.pi/agent/sessions/--home-dev-src-tinyhttp--/"
        "2026-05-13T09-00-00-000Z_019e2000-0000-7000-8000-000000000001.jsonl"
    )


def test_print_of_a_session_without_a_parent_has_no_fork_line() -> None:
    c = console(80)
    s = load_session(fixture("linear.jsonl"))
    print_branch(s, None, console=c, thinking=False, tools="preview", hidden=False)
    assert "forked from" not in c.file.getvalue()  # type: ignore[attr-defined]


# --------------------------------------------------------------------------- export


def test_markdown_export_shows_every_field(tmp_path: Path) -> None:
    out = tmp_path / "x.md"
    assert run_command(["export", str(fixture(NAME)), "-o", str(out)]) == 0
    md = out.read_text(encoding="utf-8")
    assert "| **Forked from** | /home/dev/.pi/agent/sessions/" in md
    assert "*reasoning 150* · *1h W600* · *thinking max* · *no end turn*" in md
    assert "*length · max\\_tokens*" in md
    assert "Stopped: output token limit reached (max\\_tokens)" in md
    assert "**error · overloaded\\_error**" in md
    assert "✓ · 2.0s · ↑300 ↓20 $0.0012 · +2 tools" in md
    assert "*loaded tools: web\\_search, web\\_fetch*" in md
    assert "### Compaction · 14:00:12 · `a1000006` · *↑900 ↓41 $0.0033*" in md
    assert "*↑39 ↓9 $0.0003*" in md


def test_html_export_shows_every_field(tmp_path: Path) -> None:
    out = tmp_path / "x.html"
    assert run_command(["export", str(fixture(NAME)), "-o", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    for words in (
        "Forked from",
        "2026-05-13T09-00-00-000Z_019e2000-0000-7000-8000-000000000001.jsonl",
        "reasoning 150",
        "1h W600",
        "thinking max",
        "no end turn",
        "length · max_tokens",
        "error · overloaded_error",
        "↑300 ↓20 $0.0012 · +2 tools",
        "loaded tools: web_search, web_fetch",
        "↑900 ↓41 $0.0033",
        "↑39 ↓9 $0.0003",
    ):
        assert words in html, words


# --------------------------------------------------------------------------- inspector


def test_inspector_of_an_assistant_has_its_fields_in_full() -> None:
    s = session()
    out = text_of(entry_json_renderable(s, entry_of(s, "a1000003")))
    for line in (
        "stop            toolUse (provider: tool_use)",
        "thinking level  max",
        "end turn        no",
        "  reasoning     150 (part of output)",
        "  1-hour        600 (part of cache write)",
        "total tokens    4,200",
    ):
        assert line in out, line
    assert '"rawStopReason": "tool_use"' in out  # the JSON still follows


def test_inspector_of_a_tool_result_and_of_summaries() -> None:
    s = session()
    call = inspector_renderable(s, entry_of(s, "a1000003"), 1)
    text = text_of(call)
    assert "loaded tools\nweb_search, web_fetch" in text
    assert "in 300 · out 20" in text
    result = text_of(entry_json_renderable(s, entry_of(s, "a1000004")))
    assert "loaded tools      web_search, web_fetch" in result
    compaction = text_of(entry_json_renderable(s, entry_of(s, "a1000006")))
    assert "summary's usage" in compaction and "input            900" in compaction
    branch = text_of(entry_json_renderable(s, entry_of(s, "a1000009")))
    assert "summary's usage" in branch and "output           9" in branch
    user = text_of(entry_json_renderable(s, entry_of(s, "a1000001")))
    assert "usage" not in user.split("{", 1)[0]  # no facts above the JSON of a user message
