"""End to end: ``piview diff`` run as a real process on nasty files and into a closed pipe."""

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

NASTY_FILES = (
    "ansi_everywhere",
    "control_ids",
    "non_utf8",
    "duplicate_ids",
    "nan_and_huge_numbers",
)


def _first_leaf(path: Path) -> str:
    info = run_piview(["info", "--json", str(path)])
    assert info.returncode == 0
    return json.loads(info.stdout)["leaves"][0]


@pytest.mark.parametrize("name", NASTY_FILES)
def test_diff_on_a_nasty_file(name: str, tmp_path: Path) -> None:
    """Status 0, valid JSON, and not one ESC byte (nor another C0/C1 control) on stdout."""
    path = build(name, tmp_path)
    first = _first_leaf(path)
    for args in (["--json"], []):
        out = run_piview(["diff", str(path), first, "leaf", *args])
        assert out.returncode == 0, out.stderr.decode(errors="replace")
        assert b"\x1b" not in out.stdout
        text = out.stdout.decode("utf-8")
        if args:
            assert set(json.loads(text)) == {"ancestor", "a", "b"}
        else:
            bad = [c for c in text if (ord(c) < 32 and c != "\n") or 0x7F <= ord(c) <= 0x9F]
            assert not bad, sorted(set(bad))


def test_diff_into_a_closed_pipe_exits_quietly(tmp_path: Path) -> None:
    path = build("duplicate_ids", tmp_path)
    proc = subprocess.Popen(
        [sys.executable, "-m", "piview", "diff", str(path), "leaf", "leaf"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == 0, err.decode(errors="replace")
    assert err == b""


def test_diff_of_a_missing_file_is_one_line_and_status_2(tmp_path: Path) -> None:
    out = run_piview(["diff", str(tmp_path / "no-such-session.jsonl"), "leaf", "leaf"])
    assert out.returncode == 2 and out.stdout == b""
    lines = out.stderr.decode().strip().splitlines()
    assert len(lines) == 1 and "no-such-session.jsonl" in lines[0], lines
