"""piview print: the branch written with the per-role rendering."""

from __future__ import annotations

import pytest

from piview.cli import run_command
from piview.commands.common import CliError
from piview.export.text import print_branch
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
