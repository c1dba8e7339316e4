"""piview print: the branch written with the per-role rendering."""

from __future__ import annotations

import json
import re

import pytest

from piview.cli import run_command
from piview.commands.common import CliError
from piview.export.text import SYSTEM_PREVIEW_LINES, print_branch
from piview.model import load_session
from tests.conftest import fixture
from tests.render.helpers import console


def printed(name: str, **kw: object) -> str:
    s = load_session(fixture(name))
    c = console(100)
    opts = {"thinking": False, "tools": "preview", "hidden": False, **kw}
    print_branch(s, None, console=c, **opts)  # type: ignore[arg-type]
    return c.file.getvalue()  # type: ignore[attr-defined]


def test_print_branch_preview() -> None:
    out = printed("edit_tools.jsonl")
    assert out.startswith("── model → anthropic/claude-sonnet-4-5 ──")
    assert "● user" in out and "▸ thinking · 58 chars · Look at the module" in out
    assert "▸ read src/tinyhttp/config.py  ✓ 23 lines" in out
    assert "(+13 more lines)" in out
    assert "\n\n● assistant" in out  # items separated by blank lines
    assert "\x1b" not in out
    assert not any(
        line.endswith(" ")
        for line in out.splitlines()
        if "●" not in line and "▸" not in line and "──" not in line
    )


def test_print_branch_modes() -> None:
    full = printed("edit_tools.jsonl", tools="full", thinking=True)
    assert "▾ thinking" in full and "(+13 more lines)" not in full
    none = printed("edit_tools.jsonl", tools="none")
    assert "▸ read src/tinyhttp/config.py" in none and "Configuration loading" not in none
    hidden = printed("entry_types.jsonl", hidden=True)
    assert "[custom: todo-state]" in hidden and "hidden (display: false)" in hidden
    assert "[custom: todo-state]" not in printed("entry_types.jsonl")


def test_print_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_command(["print", str(fixture("tree_branches.jsonl")), "--leaf", "22b"]) == 0
    out = capsys.readouterr().out
    assert "Decorrelated jitter" in out and "Full jitter it is" not in out
    with pytest.raises(CliError, match="ambiguous"):
        run_command(["print", str(fixture("tree_branches.jsonl")), "--leaf", "22"])
    with pytest.raises(CliError, match="no entry"):
        run_command(["print", str(fixture("tree_branches.jsonl")), "--leaf", "nope"])
    with pytest.raises(CliError):
        run_command(["print", "/nonexistent/x.jsonl"])


def test_print_shows_branch_summaries_whole() -> None:
    """A branch summary is what the reader of a printed branch needs: never folded."""
    out = printed("entry_types.jsonl")
    assert "▾ branch summary" in out
    assert "Looked at regex-based routing; decided against it." in out


def test_print_shows_system_messages(write_session) -> None:
    """System messages show their text; a long prompt is cut with a count, whole with full."""
    out = printed("system_prompt.jsonl")
    assert "You are an expert coding assistant operating inside pi" in out
    assert "The user is in read-only review mode." in out
    assert "− tool write" in out
    prompt = "\n\n".join(f"Rule {n}: be careful." for n in range(1, 41))
    path = write_session(
        [
            '{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z"}',
            '{"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z",'
            f'"message":{{"role":"system","content":{json.dumps(prompt)}}}}}',
        ]
    )
    s = load_session(path)
    c = console(100)
    print_branch(s, None, console=c, thinking=False, tools="preview", hidden=False)
    cut = c.file.getvalue()  # type: ignore[attr-defined]
    assert "Rule 1: be careful." in cut and "Rule 40:" not in cut
    assert "more lines)" in cut
    assert len(cut.splitlines()) == 1 + SYSTEM_PREVIEW_LINES + 1
    c = console(100)
    print_branch(s, None, console=c, thinking=False, tools="preview", hidden=False, system="full")
    whole = c.file.getvalue()  # type: ignore[attr-defined]
    assert "Rule 40: be careful." in whole and "more lines)" not in whole


def test_print_system_flag(capsys: pytest.CaptureFixture[str], write_session) -> None:
    prompt = "\n".join(f"line {n}" for n in range(1, 31))
    path = write_session(
        [
            '{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z"}',
            '{"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z",'
            f'"message":{{"role":"system","content":{json.dumps(prompt)}}}}}',
        ]
    )
    assert run_command(["print", str(path)]) == 0
    assert "line 30" not in capsys.readouterr().out
    assert run_command(["print", str(path), "--system", "full"]) == 0
    assert "line 30" in capsys.readouterr().out


def test_print_color_flag(capsys: pytest.CaptureFixture[str]) -> None:
    """--color always colours even into a pipe; never and auto (a pipe) write no escape."""
    path = str(fixture("edit_tools.jsonl"))
    assert run_command(["print", path, "--color", "always"]) == 0
    coloured = capsys.readouterr().out
    assert "\x1b[" in coloured
    for flag in (["--color", "never"], []):
        assert run_command(["print", path, *flag]) == 0
        plain = capsys.readouterr().out
        assert "\x1b" not in plain
        # The same text, the colours aside (and trailing spaces an unseen style kept).
        bare = re.sub(r"\x1b\[[0-9;]*m", "", coloured)
        assert [x.rstrip() for x in bare.splitlines()] == [x.rstrip() for x in plain.splitlines()]
