"""The exported HTML page as a reader uses it (highlighting, contents, anchors, expandable
output, print and narrow styles, toggles) and the Markdown that renders as the page does."""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from piview.cli import run_command
from tests.conftest import FIXTURES, fixture
from tests.unit.test_export import assistant, header_line, msg, run, user

ALL_FIXTURES = sorted(p.name for p in FIXTURES.glob("*.jsonl"))
PY_FILE = "import os\n\n\ndef main() -> int:\n    return 0\n" + "".join(
    f"x{n} = {n}\n" for n in range(20)
)


def entry(type_: str, id_: str, parent: str | None, **fields: object) -> str:
    return json.dumps({"type": type_, "id": id_, "parentId": parent,
                       "timestamp": "2026-05-14T10:00:05Z", **fields})  # fmt: skip


def result(id_: str, parent: str, call: str, name: str, text: str, error: bool = False) -> str:
    return msg(id_, parent, {"role": "toolResult", "toolCallId": call, "toolName": name,
                             "content": [{"type": "text", "text": text}], "isError": error,
                             "timestamp": 3})  # fmt: skip


def session_lines() -> list[str]:
    """Two turns: a highlighted read and a failing bash, a label, a user's failing !cmd, a
    branch summary with a task list, and a compaction."""
    return [
        header_line(),
        msg("u1", None, user("Fix the parser in `src/app.py`, it breaks on empty input")),
        msg("a1", "u1", assistant([
            {"type": "text", "text": "Like this:\n```python\ndef f():\n    return 1\n```"},
            {"type": "thinking", "thinking": "Let me look first."},
            {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "src/app.py"}},
            {"type": "toolCall", "id": "c2", "name": "bash", "arguments": {"command": "ls nope"}},
        ])),
        result("r1", "a1", "c1", "read", PY_FILE),
        result("r2", "r1", "c2", "bash", "ls: cannot access 'nope': ENOENT", error=True),
        entry("label", "l1", "r2", targetId="r1", label="the read"),
        msg("u2", "l1", user("Second question")),
        msg("b1", "u2", {"role": "bashExecution", "command": "false", "output": "boom\n",
                         "exitCode": 2, "cancelled": False, "truncated": False,
                         "timestamp": 4}),
        entry("branch_summary", "bs1", "b1", fromId="a1",
              summary="Tried another way.\n\n- [x] parser fixed\n- [ ] docs"),
        entry("compaction", "cp1", "bs1", summary="## Goal\nParser.", firstKeptEntryId="u2",
              tokensBefore=1000),
        msg("u3", "cp1", user("Third")),
        entry("label", "l2", "u3", targetId="u3", label="end"),
    ]  # fmt: skip


@pytest.fixture
def page(write_session, tmp_path: Path) -> str:
    return run(write_session(session_lines()), tmp_path / "o.html", "--thinking")


# --------------------------------------------------------------------------- safety


@pytest.mark.parametrize("name", ALL_FIXTURES)
@pytest.mark.parametrize("tools", ["preview", "full"])
def test_no_script_and_no_remote_resource(name: str, tools: str, tmp_path: Path) -> None:
    html = run(fixture(name), tmp_path / "o.html", "--tools", tools, "--thinking").lower()
    assert "<script" not in html and "javascript:" not in html
    assert not re.search(
        r"""(?:src|srcset|action|poster|data)\s*=\s*["']?\s*(?:https?:)?//""", html
    )
    assert not re.search(r"url\(\s*['\"]?\s*(?:https?:)?//", html) and "@import" not in html
    assert "<link" not in html and "<iframe" not in html and "<object" not in html
    csp = re.search(r'http-equiv="content-security-policy" content="([^"]*)"', html)
    assert csp and "default-src &#x27;none&#x27;" in csp.group(1)
    assert "script-src" not in csp.group(1)  # nothing loosens default-src 'none' for scripts


# --------------------------------------------------------------------------- 1 highlighting


def test_tool_output_and_fences_are_highlighted(page: str) -> None:
    # The read's output is lexed by the file's extension, the fence by its language.
    read = page[page.index('id="entry-r1"') :]
    assert '<code class="language-python"><span class="t-kn">import</span>' in read[:900]
    fence = page[page.index('<pre><code class="language-python">') :]
    assert '<span class="t-k">def</span>' in fence[:300] and '<span class="t-nf">f</span>' in fence
    # One embedded stylesheet colours the classes, light and dark.
    style = page[page.index("<style>") : page.index("</style>")]
    assert re.search(r"^\.t-k \{ color: #[0-9A-Fa-f]+", style, re.M)
    dark = style[style.index("@media (prefers-color-scheme: dark) {\n.t-") :]
    assert ".t-k {" in dark
    # Error output is not lexed as the file's language.
    assert "<pre class=\"code error\"><code>ls: cannot access 'nope': ENOENT</code>" in page


def test_highlighting_budget_is_stated(write_session, tmp_path: Path, monkeypatch) -> None:
    import piview.export.html_style as style

    monkeypatch.setattr(style.Highlighter.__init__, "__defaults__", (10,))
    html = run(write_session(session_lines()), tmp_path / "o.html")
    assert 'class="t-kn"' not in html
    assert "code blocks are not highlighted" in html


def test_over_budget_pages_highlight_the_previews(
    write_session, tmp_path: Path, monkeypatch
) -> None:
    import piview.export.html_style as style

    monkeypatch.setattr(style.Highlighter.__init__, "__defaults__", (150,))
    html = run(write_session(session_lines()), tmp_path / "o.html")
    out = html[html.index('<details class="out">') :]
    summary, body = out.split("</summary>", 1)
    assert '<span class="t-kn">import</span>' in summary  # what shows first is highlighted
    assert 'class="t-' not in body[: body.index("</details>")]  # the whole output is plain
    assert "the previews of tool output are highlighted" in html


# --------------------------------------------------------------------------- 2 navigation


def test_contents_lists_turns_with_marks(page: str) -> None:
    nav = page[page.index('<nav class="toc"') : page.index("</nav>")]
    assert "Contents · 3 turns" in nav
    items = re.findall(r"<li[^>]*>.*?</li>", nav)
    assert len(items) == 5  # three turns, the branch summary and the compaction
    assert 'href="#entry-u1">Fix the parser in src/app.py, it breaks on empty input</a>' in nav
    # The first turn's failed call is marked and linked (its result's anchor).
    assert 'class="err" href="#entry-r2"' in items[0]
    # The user's !cmd that exited 2 marks the second turn.
    assert 'class="err" href="#entry-b1"' in items[1]
    assert 'class="mark"><a href="#entry-bs1">⎇ branch summary</a>' in nav
    assert 'class="mark"><a href="#entry-cp1">⇲ compaction</a>' in nav
    assert '<li value="3"><a href="#entry-u3">Third</a>' in nav  # marks are not numbered


def test_every_entry_has_an_anchor(page: str) -> None:
    ids = set(re.findall(r'id="entry-([^"]+)"', page))
    # Results are drawn with their call, the label with the entry after it: all linkable.
    assert ids >= {"u1", "a1", "r1", "r2", "l1", "u2", "b1", "bs1", "cp1", "u3", "l2"}
    assert len(re.findall(r'id="entry-r1"', page)) == 1


def test_branch_summary_links_its_origin(page: str) -> None:
    assert '<a class="badge dim" href="#entry-a1">from a1</a>' in page


def test_branch_summary_origin_off_the_page_is_not_a_link(write_session, tmp_path: Path) -> None:
    lines = [header_line(), entry("branch_summary", "bs1", None, fromId="gone", summary="s")]
    html = run(write_session(lines), tmp_path / "o.html")
    assert '<span class="badge dim">from gone</span>' in html and 'href="#entry-gone"' not in html


# --------------------------------------------------------------------------- 3 expandable


def test_preview_keeps_the_whole_output_behind_a_details(page: str) -> None:
    out = page[page.index('<details class="out">') :]
    out = out[: out.index("</details>") + len("</details>")]
    summary = out[out.index("<summary>") : out.index("</summary>")]
    text = unescape(re.sub(r"<[^>]+>", "", summary))
    assert "import os" in text and "x19 = 19" not in text  # the preview is the summary
    assert "more lines · show all" in text
    assert "x19 = 19" in unescape(re.sub(r"<[^>]+>", "", out))  # the rest one click away
    # The tool header is a real disclosure, not a drawn triangle.
    assert '<details class="tool ok" open id="entry-r1"><summary class="tool-head">' in page
    assert "▸ read" not in page


def test_full_output_cap_is_stated(write_session, tmp_path: Path, monkeypatch) -> None:
    import piview.export.doc as doc
    import piview.export.html as html_writer

    monkeypatch.setattr(doc, "FULL_CAP", 50)
    monkeypatch.setattr(html_writer, "FULL_CAP", 50)
    html = run(write_session(session_lines()), tmp_path / "o.html")
    assert "characters are not kept in this page (one block keeps up to 50)" in html


def test_tools_none_keeps_calls_only(write_session, tmp_path: Path) -> None:
    html = run(write_session(session_lines()), tmp_path / "o.html", "--tools", "none")
    assert '<span class="tool-title">read src/app.py</span>' in html
    assert "x19" not in html and '<details class="out">' not in html
    assert 'id="entry-r1"' in html  # results keep their anchors


# --------------------------------------------------------------------------- 4 print, narrow


def test_print_and_narrow_stylesheets(page: str) -> None:
    style = page[page.index("<style>") : page.index("</style>")]
    prints = [m.end() for m in re.finditer(r"@media print \{", style)]
    assert prints
    block = style[prints[0] : style.index("\n}\n", prints[0])]
    assert "max-height: none" in block and "white-space: pre-wrap" in block
    assert "details::details-content { content-visibility: visible" in block  # details open
    assert "nav.toc" in block and "display: none" in block  # no sidebar
    narrow = style[style.index("@media (max-width: 640px)") :]
    assert "white-space: pre-wrap" in narrow[: narrow.index("\n}\n")]
    assert not re.search(r"\.compacted[^{]*\{[^}]*opacity", style)  # not greyed out


# --------------------------------------------------------------------------- 5 toggles


def test_reader_toggles_are_css_only(page: str) -> None:
    for tg in ("tg-think", "tg-out", "tg-full"):
        assert re.search(rf'<input type="checkbox" class="tg" id="{tg}"', page)
        assert f'for="{tg}"' in page
    assert "#tg-think:not(:checked) ~ main .thinking { display: none; }" in page
    assert '<details class="thinking" open>' in page


def test_toggles_only_for_what_the_page_has(write_session, tmp_path: Path) -> None:
    html = run(write_session([header_line(), msg("u1", None, user("hi"))]), tmp_path / "o.html")
    assert 'for="tg-think"' not in html and 'for="tg-full"' not in html


# --------------------------------------------------------------------------- 6 smaller points


def test_label_badge_is_an_svg_not_an_emoji(page: str) -> None:
    assert "🏷" not in page
    assert re.search(r'<span class="badge label" title="label"><svg class="ico"[^>]*>.*?</svg>'
                     r"the read</span>", page)  # fmt: skip


def test_task_lists_render_as_checkboxes(page: str) -> None:
    assert re.search(r'<input class="task-list-item-checkbox" checked="checked" disabled', page)
    assert page.count('class="task-list-item-checkbox"') == 2


def test_failed_shell_command_has_the_error_style(page: str) -> None:
    sec = page[page.index('id="entry-b1"') - 40 :]
    sec = sec[: sec.index("</section>")]
    assert '<section class="msg bash error"' in sec
    assert '<pre class="code error"><code>boom</code></pre>' in sec


def test_only_compacted_entries_are_marked(page: str) -> None:
    marked = set(re.findall(r'<section class="msg [a-z]+ compacted[^"]*" id="entry-([^"]+)"', page))
    assert marked == {"u1", "a1"}


# --------------------------------------------------------------------------- Markdown


def test_markdown_escapes_tags_and_keeps_line_breaks(write_session, tmp_path: Path) -> None:
    text = (
        "my <Widget> component and `<code>` stay\nsecond line <https://e.x>\n\n"
        "```html\n<div>kept</div>\n```\n- item one\n  goes on"
    )
    src = write_session([header_line(), msg("u1", None, user(text))])
    md = run(src, tmp_path / "o.md")
    # Rendered as GitHub would (raw HTML allowed), the .md shows what the page shows.
    out = MarkdownIt("commonmark", {"html": True}).render(md)
    assert "my &lt;Widget&gt; component and <code>&lt;code&gt;</code> stay<br />" in out
    assert '<a href="https://e.x">https://e.x</a>' in out
    assert '<code class="language-html">&lt;div&gt;kept&lt;/div&gt;' in out
    assert "item one<br />\ngoes on" in out
    page = run(src, tmp_path / "o.html")
    assert "my &lt;Widget&gt; component and <code>&lt;code&gt;</code> stay<br />" in page


def test_markdown_thinking_is_plain_text(write_session, tmp_path: Path) -> None:
    think = {"type": "thinking", "thinking": "a <b> *c*\nd"}
    lines = [header_line(), msg("u1", None, user("q")), msg("a1", "u1", assistant([think]))]
    md = run(write_session(lines), tmp_path / "o.md", "--thinking")
    out = MarkdownIt("commonmark", {"html": True}).render(md)
    assert "a &lt;b&gt; *c*<br />\nd" in out


def test_default_format_is_html(tmp_path: Path, capsys) -> None:
    out = tmp_path / "x"
    out.mkdir()
    assert run_command(["export", str(fixture("linear.jsonl")), "-o", str(out)]) == 0
    assert (out / "linear.html").read_text().startswith("<!DOCTYPE html>")
    assert capsys.readouterr().out.strip() == str((out / "linear.html").resolve())


def test_export_can_be_stopped(write_session, tmp_path: Path) -> None:
    from piview.export import ExportCancelled, export_branch
    from piview.model import load_session

    session = load_session(write_session(session_lines()))
    out = tmp_path / "o.html"
    asked: list[int] = []

    def stop() -> bool:
        asked.append(1)
        return True

    with pytest.raises(ExportCancelled):
        export_branch(
            session, None, fmt="html", tools="preview", thinking=False, out=out, should_stop=stop
        )
    assert asked and not out.exists()  # nothing written
    session.close()
