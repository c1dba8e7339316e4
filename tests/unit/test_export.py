"""``piview export``: one branch as Markdown or self-contained HTML."""

from __future__ import annotations

import base64
import json
import re
from html import unescape
from pathlib import Path

import pytest

from piview.catalog.demo import demo_path
from piview.cli import run_command
from piview.commands.common import CliError
from piview.export import export_branch
from piview.model import load_session
from tests.conftest import FIXTURES, fixture

ALL_FIXTURES = sorted(p.name for p in FIXTURES.glob("*.jsonl"))
PNG_1X1 = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9aw"
    "AAAABJRU5ErkJggg=="
)


def run(src: Path, out: Path, *args: str) -> str:
    """Export ``src`` to ``out`` through the command and return the written text."""
    assert run_command(["export", str(src), "-o", str(out), *args]) == 0
    return out.read_text(encoding="utf-8")


def header_line(session_id: str = "s1") -> str:
    head = {"type": "session", "version": 3, "id": session_id, "cwd": "/tmp/p",
            "timestamp": "2026-05-14T10:00:00Z"}  # fmt: skip
    return json.dumps(head)


def msg(id_: str, parent: str | None, message: dict, **extra: object) -> str:
    entry = {"type": "message", "id": id_, "parentId": parent,
             "timestamp": "2026-05-14T10:00:01.000Z", "message": message, **extra}  # fmt: skip
    return json.dumps(entry)


def user(text: str | list) -> dict:
    return {"role": "user", "content": text, "timestamp": 1}


def assistant(content: list, **extra: object) -> dict:
    return {"role": "assistant", "content": content, "provider": "anthropic", "model": "m",
            "stopReason": "stop", "timestamp": 2, **extra}  # fmt: skip


# --------------------------------------------------------------------------- every file


@pytest.mark.parametrize("name", [*ALL_FIXTURES, "demo"])
@pytest.mark.parametrize("fmt", ["md", "html"])
def test_every_fixture_exports(name: str, fmt: str, tmp_path: Path) -> None:
    src = demo_path() if name == "demo" else fixture(name)
    before = src.read_bytes()
    text = run(src, tmp_path / f"out.{fmt}", "--tools", "full", "--thinking")
    assert text.strip()
    assert src.read_bytes() == before  # the session file is never written
    if fmt == "html":
        assert text.startswith("<!DOCTYPE html>") and text.rstrip().endswith("</html>")
        assert "<script" not in text.lower()


def test_default_output_name_in_cwd(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    assert run_command(["export", str(fixture("linear.jsonl"))]) == 0
    # HTML by default, as the viewer's x; the absolute path says where the file went.
    assert (tmp_path / "linear.html").is_file()
    assert capsys.readouterr().out.strip() == str((tmp_path / "linear.html").resolve())


def test_format_follows_output_suffix_and_directory(tmp_path: Path) -> None:
    text = run(fixture("linear.jsonl"), tmp_path / "x.html")
    assert text.startswith("<!DOCTYPE html>")
    assert (
        run_command(
            ["export", str(fixture("linear.jsonl")), "-o", str(tmp_path), "--format", "html"]
        )
        == 0
    )
    assert (tmp_path / "linear.html").is_file()


def test_header_facts(tmp_path: Path) -> None:
    md = run(fixture("linear.jsonl"), tmp_path / "o.md")
    assert "/home/dev/src/tinyhttp" in md
    assert "leaf a9d93650" in md
    assert "$1.25" in md  # branch cost: 0.375 + 0.875
    assert "anthropic/claude-sonnet-4-5" in md
    html = run(fixture("entry_types.jsonl"), tmp_path / "o.html")
    assert "<h1>Router walkthrough</h1>" in html  # the session name
    assert "1 hidden extension message" in html


# --------------------------------------------------------------------------- the branch only


def _texts(path: Path, ids: list[str]) -> list[str]:
    out = []
    for line in path.read_text().splitlines():
        o = json.loads(line)
        if o.get("id") in ids:
            out.append(o["message"]["content"][0]["text"])
    return out


@pytest.mark.parametrize("fmt", ["md", "html"])
def test_only_the_branch_is_exported(fmt: str, tmp_path: Path) -> None:
    src = fixture("tree_branches.jsonl")
    text = run(src, tmp_path / f"o.{fmt}")
    # The current leaf's branch: d7783140 → d1ef3985 → 2272e989.
    assert "urllib3" in text
    assert "d1ef3985" in text
    # Entries of abandoned branches are absent.
    for t in ("Full jitter.", "Decorrelated jitter instead."):
        assert t not in text
    for i in ("eb4f6607", "a5d544a8", "2e09b722", "0239e327"):
        assert i not in text
    assert "3 other branches left out" in text


def test_leaf_option_picks_another_branch(tmp_path: Path) -> None:
    text = run(fixture("tree_branches.jsonl"), tmp_path / "o.md", "--leaf", "cbcbd688")
    assert "Decorrelated jitter instead." in text
    assert "Full jitter." not in text
    assert "urllib3" not in text
    assert "decorrelated-jitter" in text  # the label of 22b90c96, next to that entry
    heading = next(ln for ln in text.splitlines() if "`22b90c96`" in ln)
    assert "decorrelated-jitter" in heading


def test_api_takes_an_entry_index(tmp_path: Path) -> None:
    session = load_session(fixture("tree_branches.jsonl"))
    leaf = session.find("a5d544a8")
    out = export_branch(
        session, leaf, fmt="md", tools="preview", thinking=False, out=tmp_path / "a.md"
    )
    text = out.read_text()
    assert "Full jitter." in text and "urllib3" not in text


# --------------------------------------------------------------------------- images


def test_images_embedded_in_html(tmp_path: Path) -> None:
    html = run(fixture("images.jsonl"), tmp_path / "o.html", "--tools", "full")
    srcs = re.findall(r'<img src="([^"]+)"', html)
    assert any(s.startswith("data:image/png;base64,") for s in srcs)
    assert any(s.startswith("data:image/jpeg;base64,") for s in srcs)  # from the read result
    assert all(s.startswith("data:") for s in srcs)
    assert "invalid base64" in html  # line 6: never a crash


def test_images_written_as_files_for_markdown(tmp_path: Path) -> None:
    md = run(fixture("images.jsonl"), tmp_path / "out.md", "--tools", "full")
    folder = tmp_path / "out_files"
    png = folder / "img-8ab4f7ca-1.png"
    assert png.is_file()
    assert png.read_bytes().startswith(b"\x89PNG")
    assert "](out_files/img-8ab4f7ca-1.png)" in md
    assert (folder / "img-a2223741-1.jpg").is_file()  # the tool result's image
    assert "invalid base64" in md
    assert not (folder / "img-49f4a44a-1.png").exists()


def test_markdown_image_names_cannot_escape_the_folder(write_session, tmp_path: Path) -> None:
    image = {"type": "image", "data": PNG_1X1, "mimeType": "image/png"}
    src = write_session(
        [header_line(), msg("../../evil", None, user([{"type": "text", "text": "hi"}, image]))]
    )
    md = run(src, tmp_path / "o.md")
    files = [p.name for p in (tmp_path / "o_files").iterdir()]
    assert len(files) == 1 and "/" not in files[0] and files[0].endswith(".png")
    assert not list(tmp_path.parent.glob("evil*"))
    assert f"(o_files/{files[0]})" in md


def test_no_images_no_folder(tmp_path: Path) -> None:
    run(fixture("linear.jsonl"), tmp_path / "o.md")
    assert not (tmp_path / "o_files").exists()


# --------------------------------------------------------------------------- escaping


def test_html_escapes_everything_from_the_file(write_session, tmp_path: Path) -> None:
    lines = [
        header_line("<script>alert('id')</script>"),
        msg("u1", None, user("Hi <script>alert(1)</script> [x](javascript:alert(2))")),
        msg("a1", "u1", assistant([
            {"type": "text", "text": "<img src=x onerror=alert(3)> [y](JavaScript:alert(4)) "
                                     "![t](https://tracker.example/p.png) <b>bold</b>"},
            {"type": "toolCall", "id": "c1", "name": "bash",
             "arguments": {"command": "echo '</pre><script>alert(5)</script>'"}},
        ])),
        msg("r1", "a1", {"role": "toolResult", "toolCallId": "c1", "toolName": "bash",
                         "content": [{"type": "text", "text": "</code></pre><script>x()</script>"}],
                         "isError": False, "timestamp": 3}),
        json.dumps({"type": "custom_message", "customType": "<i>t</i>", "content": "c",
                    "display": True, "id": "c1x", "parentId": "r1",
                    "timestamp": "2026-05-14T10:00:02Z"}),
        json.dumps({"type": "label", "id": "l1", "parentId": "c1x", "targetId": "u1",
                    "label": "<svg onload=alert(6)>", "timestamp": "2026-05-14T10:00:03Z"}),
        json.dumps({"type": "session_info", "id": "n1", "parentId": "l1",
                    "name": "<script>name()</script>", "timestamp": "2026-05-14T10:00:04Z"}),
    ]  # fmt: skip
    html = run(write_session(lines), tmp_path / "o.html", "--tools", "full")
    low = html.lower()
    assert "<script" not in low
    assert "&lt;script&gt;" in html
    assert 'href="javascript' not in low
    assert not re.search(r"<[^>]*\bon(error|load)=", low)  # no event handler in any tag
    assert "<img src=x" not in low and "<svg onload" not in low
    assert "<i>t</i>" not in html and "<b>bold</b>" not in html
    assert all(s.startswith("data:") for s in re.findall(r'<img src="([^"]*)"', html))
    assert 'href="https://tracker.example/p.png"' in html  # a remote image becomes a link
    assert "Content-Security-Policy" in html


def test_markdown_fences_survive_backticks(write_session, tmp_path: Path) -> None:
    lines = [
        header_line(),
        msg("u1", None, user("go")),
        msg("a1", "u1", assistant(
            [{"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "a.md"}}])),
        msg("r1", "a1", {"role": "toolResult", "toolCallId": "c1", "toolName": "read",
                         "content": [{"type": "text", "text": "```\nx\n````\ny"}],
                         "isError": False, "timestamp": 3}),
    ]  # fmt: skip
    md = run(write_session(lines), tmp_path / "o.md", "--tools", "full")
    assert "`````markdown\n```\nx\n````\ny\n`````" in md


def test_ansi_and_control_characters_are_stripped(write_session, tmp_path: Path) -> None:
    lines = [header_line(), msg("b1", None, {
        "role": "bashExecution", "command": "ls", "output": "\x1b[31mred\x1b[0m\x07 done",
        "exitCode": 0, "cancelled": False, "truncated": False, "timestamp": 1})]  # fmt: skip
    for fmt in ("md", "html"):
        text = run(write_session(lines), tmp_path / f"o.{fmt}", "--tools", "full")
        assert "\x1b" not in text and "\x07" not in text
        assert "red done" in text


# --------------------------------------------------------------------------- tools and thinking


def test_tools_modes_differ(tmp_path: Path) -> None:
    src = fixture("edit_tools.jsonl")
    texts = {m: run(src, tmp_path / f"{m}.md", "--tools", m) for m in ("none", "preview", "full")}
    first = '"""Configuration loading for tinyhttp."""'
    last = 'cfg.timeout = float(env["TINYHTTP_TIMEOUT"])'
    assert "▸ `read src/tinyhttp/config.py`" in texts["none"]
    assert first not in texts["none"] and "```diff" not in texts["none"]
    assert first in texts["preview"] and last not in texts["preview"]
    assert "more lines" in texts["preview"]
    assert first in texts["full"] and last in texts["full"]
    assert len(texts["none"]) < len(texts["preview"]) < len(texts["full"])
    html = {m: run(src, tmp_path / f"{m}.html", "--tools", m) for m in ("none", "preview", "full")}
    last_html = last
    plain = {m: unescape(re.sub(r"<span[^>]*>|</span>", "", t)) for m, t in html.items()}
    assert '<span class="tool-title">read src/tinyhttp/config.py</span>' in html["none"]
    assert "class Config:" not in plain["none"] and 'class="diff"' not in html["none"]
    # preview: the first lines shown, the whole kept behind them in a <details>
    assert "class Config:" in plain["preview"] and last_html in plain["preview"]
    assert plain["preview"].index(last_html) > plain["preview"].index('<details class="out">')
    assert "class Config:" in plain["full"] and last_html in plain["full"]
    assert '<details class="out">' not in html["full"]


def test_edit_diffs_and_errors(tmp_path: Path) -> None:
    src = fixture("edit_tools.jsonl")
    md = run(src, tmp_path / "o.md")
    assert "```diff" in md
    assert "✗ error" in md  # the failing pytest
    html = run(src, tmp_path / "o.html")
    assert '<span class="l add">' in html and '<span class="l del">' in html
    assert "<mark>" in html  # a 1:1 changed line has its change marked
    assert 'class="tool error"' in html
    assert "todo" in html  # the custom tool, generic rendering


def test_legacy_edit_without_diff_uses_arguments(write_session, tmp_path: Path) -> None:
    lines = [
        header_line(),
        msg("a1", None, assistant([{"type": "toolCall", "id": "c1", "name": "edit",
             "arguments": {"path": "f.py", "oldText": "x = 1", "newText": "x = 2"}}])),
    ]  # fmt: skip
    md = run(write_session(lines), tmp_path / "o.md")
    assert "```diff\n-x = 1\n+x = 2\n```" in md
    assert "no result" in md


@pytest.mark.parametrize("fmt", ["md", "html"])
def test_thinking_only_with_the_flag(fmt: str, tmp_path: Path) -> None:
    src = fixture("roles_all.jsonl")
    thought = "I should read server.py first."
    without = run(src, tmp_path / f"a.{fmt}")
    assert thought not in without and "redacted" not in without
    with_ = run(src, tmp_path / f"b.{fmt}", "--thinking")
    assert thought in with_
    assert "Thinking redacted by the provider" in with_
    if fmt == "html":
        assert '<details class="thinking" open>' in with_


# --------------------------------------------------------------------------- roles


def test_roles_and_marks(tmp_path: Path) -> None:
    md = run(fixture("compaction_context.jsonl"), tmp_path / "o.md")
    assert "!! not sent to the model" in md  # the !!git diff --stat
    assert "Branch: feature/chunked" not in md  # display:false custom message
    assert "1 hidden extension message" in md
    assert "Compaction" in md and "61.0k tokens" in md
    assert "empty summary" in md
    assert "*compacted*" in md
    assert "*exit 1*" in md


def test_wrappers(write_session, tmp_path: Path) -> None:
    text = 'Look:\n<file name="src/a.py">\nprint(1)\nprint(2)\n</file>\n\nthanks'
    src = write_session([header_line(), msg("u1", None, user(text))])
    html = run(src, tmp_path / "o.html")
    assert '<details class="wrapper"><summary>file src/a.py (2 lines)</summary>' in html
    assert "print(2)" in re.sub(r"<[^>]+>", "", html)
    md = run(src, tmp_path / "o.md")
    assert "> ▸ file src/a.py (2 lines)" in md
    assert "print(2)" not in md and "thanks" in md


def test_unknown_entries_and_dividers(tmp_path: Path) -> None:
    md = run(fixture("unknown.jsonl"), tmp_path / "o.md")
    assert "frobnicate" in md and "telemetry" in md and "audio" in md
    md = run(fixture("entry_types.jsonl"), tmp_path / "o2.md")
    assert "model → anthropic/claude-sonnet-4-5" in md
    assert "thinking level → medium" in md
    assert "router-question" in md


def test_orphan_tool_results(tmp_path: Path) -> None:
    md = run(fixture("tool_pairing.jsonl"), tmp_path / "o.md", "--tools", "none")
    assert md.count("Tool result without a call") == 2
    assert "⋯ no result" in md  # the aborted call


# --------------------------------------------------------------------------- errors


def test_missing_file_is_a_cli_error(tmp_path: Path) -> None:
    with pytest.raises(CliError, match="no such file"):
        run_command(["export", str(tmp_path / "nope.jsonl"), "-o", str(tmp_path / "o.md")])


def test_unknown_leaf_is_a_cli_error(tmp_path: Path) -> None:
    with pytest.raises(CliError, match="no entry"):
        run_command(
            ["export", str(fixture("linear.jsonl")), "--leaf", "zzzz", "-o", str(tmp_path / "o.md")]
        )


def test_refuses_to_overwrite_the_session(write_session, tmp_path: Path) -> None:
    src = write_session([header_line(), msg("u1", None, user("hi"))], name="s.md")
    before = src.read_bytes()
    with pytest.raises(CliError, match="session file"):
        run_command(["export", str(src), "-o", str(src)])
    with pytest.raises(CliError, match="session file"):
        run_command(
            ["export", str(src), "--format", "md", "-o", str(src.parent)]
        )  # the default name s.md is the session
    assert src.read_bytes() == before


def test_unwritable_output_is_a_cli_error(tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("x")
    with pytest.raises(CliError, match="cannot export"):
        run_command(
            ["export", str(fixture("linear.jsonl")), "-o", str(tmp_path / "a-file" / "o.md")]
        )


@pytest.mark.parametrize("fmt", ["md", "html"])
def test_missing_output_folders_are_created(fmt: str, tmp_path: Path) -> None:
    out = tmp_path / "some" / "new" / "dir" / f"x.{fmt}"
    assert run(fixture("images.jsonl"), out).strip()
    assert out.is_file()


def test_invalid_base64_never_crashes(write_session, tmp_path: Path) -> None:
    bad = {"type": "image", "data": "!!!", "mimeType": "image/png"}
    weird = {"type": "image", "data": base64.b64encode(b"x").decode(), "mimeType": 'x" onload="'}
    src = write_session([header_line(), msg("u1", None, user([bad, weird]))])
    html = run(src, tmp_path / "o.html")
    assert "invalid base64" in html and "unsupported type" in html
    assert not re.search(r"<[^>]*\bonload=", html)


def test_unclosed_fence_in_a_message_is_closed_in_markdown(write_session, tmp_path: Path) -> None:
    lines = [
        header_line(),
        msg("a1", None, assistant([{"type": "text", "text": "Here:\n```python\nx = 1"}],
                                  stopReason="length")),
        msg("u2", "a1", user("after the fence")),
    ]  # fmt: skip
    md = run(write_session(lines), tmp_path / "o.md")
    assert "```python\nx = 1\n```" in md
    assert "output token limit" in md


def test_one_more_line_is_singular(write_session, tmp_path: Path) -> None:
    out = "\n".join(f"line {n}" for n in range(11))
    lines = [header_line(), msg("b1", None, {
        "role": "bashExecution", "command": "seq", "output": out, "exitCode": 0,
        "cancelled": False, "truncated": False, "timestamp": 1})]  # fmt: skip
    md = run(write_session(lines), tmp_path / "o.md")
    assert "*… 1 earlier line*" in md and "line 0" not in md and "line 10" in md


@pytest.mark.parametrize("fmt", ["md", "html"])
def test_empty_sessions(fmt: str, write_session, tmp_path: Path) -> None:
    for k, data in enumerate([b"", (header_line() + "\n").encode()]):
        src = write_session(data, name=f"e{k}.jsonl")
        text = run(src, tmp_path / f"e{k}.{fmt}")
        assert "Pi session" in text and "(empty)" in text


def test_generic_tool_arguments(write_session, tmp_path: Path) -> None:
    long_args = {"query": "x" * 120}
    lines = [
        header_line(),
        msg("a1", None, assistant([
            {"type": "toolCall", "id": "c1", "name": "todo", "arguments": {"n": 1}},
            {"type": "toolCall", "id": "c2", "name": "search", "arguments": long_args},
        ])),
    ]  # fmt: skip
    md = run(write_session(lines), tmp_path / "o.md", "--tools", "full")
    assert '`todo {"n": 1}`' in md and '"n": 1\n' not in md  # short: the title only
    assert '```json\n{\n  "query": "' + "x" * 120 in md  # long: in full below the title


def test_labels_on_results_and_dividers(write_session, tmp_path: Path) -> None:
    def label(id_: str, parent: str, target: str, text: str) -> str:
        return json.dumps({"type": "label", "id": id_, "parentId": parent, "targetId": target,
                           "label": text, "timestamp": "2026-05-14T10:00:05Z"})  # fmt: skip

    lines = [
        header_line(),
        json.dumps({"type": "model_change", "id": "m1", "parentId": None, "provider": "p",
                    "modelId": "x", "timestamp": "2026-05-14T10:00:00Z"}),
        msg("a1", "m1", assistant(
            [{"type": "toolCall", "id": "c1", "name": "ls", "arguments": {}}])),
        msg("r1", "a1", {"role": "toolResult", "toolCallId": "c1", "toolName": "ls",
                         "content": [{"type": "text", "text": "a"}], "isError": False,
                         "timestamp": 3}),
        label("l1", "r1", "r1", "listing\x1b[31m!"),
        label("l2", "l1", "m1", "start"),
    ]  # fmt: skip
    md = run(write_session(lines), tmp_path / "o.md", "--tools", "none")
    assert "▸ `ls .` — ✓ · 0ms · 🏷 listing!" in md
    assert "*── model → p/x ──* 🏷 start" in md
    assert "\x1b" not in md
