"""The cards of the extensions' tools (issue #30) on the genuine sessions of
tests/fixtures/extensions: pi-mcp-adapter's ``mcp``, pi-web-access's ``web_search`` and
``fetch_content``, the example extension's ``todo``.

Each card shows what it knows (server, tool, query, url, items), falls back to the generic
rendering on arguments or details of another shape, and never raises on any shape.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from piview.model import Session, load_session
from piview.model.types import ImageContent, TextContent, ToolCall, ToolResultMessage
from piview.render.items import Item
from piview.render.plugins import REGISTRY, Registry, ToolCallView
from piview.render.roles import ext_tools
from tests.render.helpers import items_of, render, to_str

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "extensions"


def _file(case: str) -> Path:
    (path,) = (FIXTURES / case / "sessions").glob("*/*.jsonl")
    return path


def _tools(case: str) -> tuple[Session, list[Item]]:
    s = load_session(_file(case))
    return s, [i for i in items_of(s) if i.kind == "tool"]


def _drawn(case: str, *, expanded: bool) -> list[str]:
    s, tools = _tools(case)
    return [render(s, i, expanded=expanded) for i in tools]


# ----------------------------------------------------------------------------- genuine files


def test_mcp_cards_show_server_tool_arguments_and_result() -> None:
    echo, pixel, explode, missing, search = _drawn("mcp", expanded=False)
    assert "mcp fixture/echo" in echo.splitlines()[0]
    assert "server  fixture" in echo and "tool    echo (fixture_echo)" in echo
    assert 'args    {"text": "hello from piview"}' in echo
    assert "echo: hello from piview" in echo and "second line" in echo
    assert "details:" not in echo  # the card, not the generic body
    assert "a 2x2 rgb pixel" in pixel and "▣ image/png 2×2" in pixel  # collapsed: one line
    assert "✗ tool_error" in explode and "Error: boom: scripted failure" in explode
    assert "✗ tool_not_found" in missing and "no_such_tool" in missing
    assert 'mcp search "echo"' in search and "fixture · fixture_echo" in search


def test_mcp_images_are_drawn_as_the_generic_result_draws_them(tmp_path: Path) -> None:
    s, tools = _tools("mcp")
    g, generic = _mangled(tmp_path, "mcp", {"weird": 1}, None)
    for expanded in (False, True):
        card = render(s, tools[1], expanded=expanded).splitlines()
        plain = render(g, generic[1], expanded=expanded).splitlines()
        pic = [ln for ln in plain if "▣" in ln or "▀" in ln or "▄" in ln]
        assert pic and pic == [ln for ln in card if "▣" in ln or "▀" in ln or "▄" in ln]


def test_web_search_cards_list_each_query_and_its_results() -> None:
    one, two, page, missing = _drawn("web", expanded=False)
    assert 'web_search "piview terminal session viewer"' in one.splitlines()[0]
    assert '"piview terminal session viewer"  3 results' in one
    assert "piview: a viewer for Pi sessions · https://example.com/piview" in one
    assert "Textual · https://example.net/textual" in one
    assert "responseId" not in one  # the answer's text is not repeated under the results
    assert '"pi coding agent sessions"  2 results' in two and '"textual tui"  2 results' in two


def test_fetch_cards_show_the_url_status_and_first_lines() -> None:
    _one, _two, page, missing = _drawn("web", expanded=False)
    head = page.splitlines()[0]
    assert "fetch_content http://127.0.0.1:" in head and "/page" in head
    assert '✓ fetched · "Fixture page" · 13 lines · 624 chars' in page
    assert "This page is served by the loopback server" in page
    assert "more lines)" in page and "*   three" not in page  # collapsed: the first lines
    assert "✗ HTTP 404: Not Found" in missing
    full = _drawn("web", expanded=True)[2]
    assert "*   three" in full and "more lines)" not in full


def test_todo_cards_show_the_items_with_their_state() -> None:
    drawn = _drawn("todo", expanded=False)
    assert 'todo add "write the fixtures"' in drawn[0].splitlines()[0]
    assert "[ ] #1 write the fixtures  ← added" in drawn[0]
    toggled = drawn[3]
    assert "todo toggle #1" in toggled.splitlines()[0]
    assert "1/3 done" in toggled and "[x] #1 write the fixtures  ← toggled" in toggled
    assert "[ ] #2 draw the cards" in toggled and "[ ] #3 ship it" in toggled
    assert "✗ #99 not found" in drawn[5] and "←" not in drawn[5]


def test_collapsed_cards_show_their_first_lines() -> None:
    todos = [{"id": n, "text": f"item {n}", "done": n % 2 == 0} for n in range(1, 31)]
    c = _view("todo", {"action": "list"}, {"action": "list", "todos": todos, "nextId": 31})
    short = to_str(ext_tools.todo(c))
    assert "[ ] #1 item 1" in short and "#9 " not in short and "(+22 more lines)" in short
    c.expanded = True
    assert "[x] #30 item 30" in to_str(ext_tools.todo(c))


# ----------------------------------------------------------------------------- fallback


def _mangled(tmp_path: Path, case: str, args: Any, details: Any) -> tuple[Session, list[Item]]:
    """The case's file with every call's arguments and every result's details replaced."""
    out = []
    for line in _file(case).read_text().splitlines():
        e = json.loads(line)
        m = e.get("message") or {}
        if m.get("role") == "assistant":
            for b in m["content"]:
                if b.get("type") == "toolCall":
                    b["arguments"] = args
        if m.get("role") == "toolResult":
            m["details"] = details
        out.append(json.dumps(e))
    path = tmp_path / f"{case}.jsonl"
    path.write_text("\n".join(out) + "\n")
    s = load_session(path)
    return s, [i for i in items_of(s) if i.kind == "tool"]


@pytest.mark.parametrize("case", ["mcp", "web", "todo"])
def test_mangled_arguments_fall_back_to_the_generic_rendering(tmp_path: Path, case: str) -> None:
    s, tools = _mangled(tmp_path, case, {"weird": [1, 2]}, {"other": {"shape": True}})
    assert tools
    for item in tools:
        for expanded in (False, True):
            drawn = render(s, item, expanded=expanded)
            assert '{"weird": [1, 2]}' in drawn.splitlines()[0]  # the generic header
            assert "details:" in drawn and "other" in drawn  # the generic body
            marks = ("server  ", "[x] #1 write", "/3 done", " · https://", "✓ fetched", "url  ")
            for mark in marks:
                assert mark not in drawn


def test_a_call_without_a_result_is_drawn_the_generic_way() -> None:
    calls = {"mcp": {"tool": "echo"}, "todo": {"action": "list"}}
    calls |= {"web_search": {"query": "q"}, "fetch_content": {"url": "u"}}
    for name, args in calls.items():
        view = ToolCallView(ToolCall(id="c", name=name, arguments=args), [])
        assert ext_tools.CARDS[name][0](view) is None  # the generic "no result" line


def test_a_card_that_raises_leaves_the_generic_body() -> None:
    reg = Registry()
    reg.loaded = True

    @reg.tool("t")
    def card(c: Any) -> str:
        raise KeyError("newer shape")

    reg.tool("quiet")(lambda c: None)
    assert to_str(reg.render("tool", "t", None, lambda c: "generic")) == "generic\n"
    assert to_str(reg.render("tool", "quiet", None, lambda c: "generic")) == "generic\n"


def test_the_cards_are_registered_as_piviews_own() -> None:
    for name in ("mcp", "web_search", "fetch_content", "todo"):
        assert REGISTRY._builtin[("tool", name)] is ext_tools.CARDS[name][0]


# ----------------------------------------------------------------------------- any shape

_KEYS = [
    "tool", "server", "args", "search", "connect", "describe", "action", "url", "urls",
    "query", "queries", "provider", "mode", "text", "id", "todos", "done", "status", "error",
    "message", "matches", "suggestions", "canonicalTool", "requestedTool", "title",
    "totalLines", "totalChars", "truncated", "content", "nextId",
]  # fmt: skip

_scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(10**20), 10**20)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=30)
    | st.sampled_from(["list", "add", "toggle", "call", "search", "Error: x", '## Query: "q"'])
)
_json = st.recursive(
    _scalars,
    lambda kids: (
        st.lists(kids, max_size=4) | st.dictionaries(st.sampled_from(_KEYS), kids, max_size=5)
    ),
    max_leaves=20,
)
_objects = st.dictionaries(st.sampled_from(_KEYS), _json, max_size=6)
_texts = st.sampled_from(
    [
        "",
        "Error: boom",
        '## Query: "a"\n\n**Sources:**\n1. t\n   https://x.y/z\n\n## Query: "b"\n',
        "**Sources:**\n1. \x1b[31mred\x1b[0m\n   https://e.com\n",
        "x\n" * 40,
    ]
) | st.text(max_size=60)


def _view(
    name: str, args: Any, details: Any, text: str = "ok", *, error: bool = False
) -> ToolCallView:
    content: list[Any] = [TextContent(text=text), ImageContent(data="AAAA", mime_type="image/png")]
    r = ToolResultMessage(tool_call_id="c", tool_name=name, content=content, details=details)
    r.is_error = error
    return ToolCallView(ToolCall(id="c", name=name, arguments=args), [r], expanded=False)


@pytest.mark.fuzz
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(sorted(ext_tools.CARDS)),
    args=_objects | _json,
    details=_objects | _json,
    text=_texts,
    error=st.booleans(),
    expanded=st.booleans(),
)
def test_no_shape_makes_a_card_raise(
    name: str, args: Any, details: Any, text: str, error: bool, expanded: bool
) -> None:
    card, title = ext_tools.CARDS[name]
    view = _view(name, args, details, text, error=error)
    view.expanded = expanded
    out = card(view)  # called bare: the registry's safety net is not what is tested
    if out is not None:
        to_str(out, width=40)
    head = title(args) if isinstance(args, dict) else None
    if head is not None:
        to_str(head, width=40)
    assert ext_tools.title(name, args) is None or isinstance(args, dict)


# ----------------------------------------------------------------------------- piview print


def _print(path: Path, *args: str) -> str:
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "100", "PIVIEW_NO_PLUGINS": "1"}
    r = subprocess.run(
        [sys.executable, "-m", "piview", "print", "--color", "never", *args, str(path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        cwd=ROOT,
    )
    assert r.returncode == 0, r.stderr
    return r.stdout


@pytest.mark.parametrize(
    ("case", "marks"),
    [
        (
            "mcp",
            ["▸ mcp fixture/echo", "server  fixture", "✗ tool_error", "fixture · fixture_echo"],
        ),
        ("web", ["Pi coding agent · https://example.org/pi", "✓ fetched", "✗ HTTP 404"]),
        ("todo", ["▸ todo toggle #1", "[x] #1 write the fixtures", "[ ] #3 ship it"]),
    ],
)
def test_print_draws_the_cards(case: str, marks: list[str]) -> None:
    out = _print(_file(case))
    for mark in marks:
        assert mark in out


def test_the_exports_draw_the_cards_with_the_images(tmp_path: Path) -> None:
    env = {**os.environ, "PIVIEW_NO_PLUGINS": "1"}
    for fmt in ("md", "html"):
        out = tmp_path / f"mcp.{fmt}"
        cmd = [sys.executable, "-m", "piview", "export", str(_file("mcp")), "-o", str(out)]
        subprocess.run(cmd, check=True, capture_output=True, env=env, timeout=120, cwd=ROOT)
        doc = out.read_text()
        if fmt == "md":
            assert "`mcp fixture/echo`" in doc and "![image 1 (image/png)]" in doc
            assert "server  fixture" in doc and "fixture · fixture_echo" in doc
        else:  # Rich's HTML of the card: its words in styled spans
            assert '"tool-title">mcp fixture/echo<' in doc and "<img" in doc
            assert '<pre class="plugin"' in doc and "fixture_echo" in doc
