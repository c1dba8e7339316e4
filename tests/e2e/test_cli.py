"""End to end: the scriptable commands, run as real processes on nasty files.

``piview info --json`` and ``piview print`` exit 0 and write no escape byte, whatever the file
holds; ``piview print … | head`` ends quietly with status 0; a missing file is one line on
stderr and status 2.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.e2e.conftest import run_piview
from tests.fuzz.nasty import build

pytestmark = pytest.mark.e2e

NASTY_FILES = ("ansi_everywhere", "control_ids", "non_utf8", "images", "nan_and_huge_numbers")


@pytest.mark.parametrize("name", NASTY_FILES)
def test_info_json_and_print_on_a_nasty_file(name: str, tmp_path: Path) -> None:
    """Status 0, valid JSON, and not one ESC byte (nor another C0/C1 control) on stdout."""
    path = build(name, tmp_path)
    info = run_piview(["info", "--json", str(path)])
    assert info.returncode == 0, info.stderr.decode(errors="replace")
    assert b"\x1b" not in info.stdout
    facts = json.loads(info.stdout)
    assert facts["entries"] >= 0
    for args in (["--tools", "preview"], ["--tools", "full", "--thinking", "--hidden"]):
        out = run_piview(["print", str(path), *args])
        assert out.returncode == 0, out.stderr.decode(errors="replace")
        assert out.stderr == b""
        assert b"\x1b" not in out.stdout
        text = out.stdout.decode("utf-8")
        bad = [c for c in text if (ord(c) < 32 and c != "\n") or 0x7F <= ord(c) <= 0x9F]
        assert not bad, sorted(set(bad))
    for args in (["--json"], []):
        out = run_piview(["context", str(path), *args])
        assert out.returncode == 0, out.stderr.decode(errors="replace")
        assert b"\x1b" not in out.stdout
        if args:
            assert set(json.loads(out.stdout)) == {
                "at",
                "thinking_level",
                "model",
                "system",
                "estimate",
                "messages",
            }


@pytest.mark.parametrize(
    "command",
    [
        ["print"],
        ["print", "--tools", "full", "--thinking"],
        ["info"],
        ["info", "--json"],
        ["tools", "--json"],
        ["tools"],
        ["context"],
        ["context", "--json"],
    ],
)
def test_output_into_a_closed_pipe_exits_quietly(command: list[str], tmp_path: Path) -> None:
    """``piview print FILE | head``: the reader is gone before piview writes; status 0 and
    nothing on stderr (Rich's own answer would be status 1)."""
    path = build("duplicate_ids", tmp_path)
    proc = subprocess.Popen(
        [sys.executable, "-m", "piview", *command, str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader goes away, as head does
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == 0, err.decode(errors="replace")
    assert err == b""


@pytest.mark.parametrize(
    "command", [[], ["print"], ["info", "--json"], ["tools"], ["context", "--json"]]
)
def test_a_missing_file_is_one_line_and_status_2(command: list[str], tmp_path: Path) -> None:
    """No traceback: one line naming the file, on stderr, and status 2."""
    missing = tmp_path / "no-such-session.jsonl"
    out = run_piview([*command, str(missing)])
    assert out.returncode == 2
    assert out.stdout == b""
    lines = out.stderr.decode().strip().splitlines()
    assert len(lines) == 1 and "no-such-session.jsonl" in lines[0], lines
