"""End to end on an oh-my-pi session (issue #14): the real ``piview`` in tmux shows the title
slot's title, a blob image and the new roles; a slot rewritten in place retitles the header
without a damage notice; ``q`` exits 0. The scripting commands run on the same file."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from tests.conftest import fixture
from tests.e2e.conftest import Tmux, run_piview

pytestmark = pytest.mark.e2e

SOURCE = fixture("omp") / "agent"


def _copy(tmp_path: Path) -> Path:
    agent = tmp_path / "agent"
    shutil.copytree(SOURCE, agent)
    return next((agent / "sessions").glob("*/*.jsonl"))


def test_omp_session_in_tmux(tmux: Tmux, tmp_path: Path) -> None:
    path = _copy(tmp_path)
    tmux.start(str(path), size=(80, 24))
    tmux.wait_for("Fix the logo colours", timeout=20)
    tmux.send("g")
    screen = tmux.wait_for("developer")
    assert "instructions from the host" in screen and "@ files" in screen
    tmux.wait_for("image/png 32×20")  # the blob, resolved beside the sessions
    line = json.dumps(
        {
            "type": "title",
            "v": 1,
            "title": "Live title",
            "source": "user",
            "updatedAt": "x",
            "pad": "",
        },
        separators=(",", ":"),
    )
    slot = (line[:-2] + " " * (255 - len(line.encode())) + '"}\n').encode()
    fd = os.open(path, os.O_WRONLY)  # the test plays oh-my-pi: the only writer
    try:
        os.pwrite(fd, slot, 0)
    finally:
        os.close(fd)
    screen = tmux.wait_for("Live title", timeout=10)
    assert "amaged" not in screen
    tmux.send("q")
    assert "EXIT=0" in tmux.wait_for("EXIT=", timeout=10)


def test_scripting_commands_on_an_omp_session(tmp_path: Path) -> None:
    path = _copy(tmp_path)
    info = run_piview(["info", "--json", str(path)])
    assert info.returncode == 0, info.stderr
    facts = json.loads(info.stdout)
    assert (facts["version"], facts["title"], facts["bad_lines"], len(facts["roots"])) == (
        3,
        "Fix the logo colours",
        [],
        1,
    )
    for command in (["tools", "--json"], ["context", "--json"], ["print"]):
        out = run_piview([*command, str(path)])
        assert out.returncode == 0 and out.stderr == b"", out.stderr
    out = run_piview(["export", str(path), "-o", str(tmp_path / "x.html")])
    assert out.returncode == 0 and (tmp_path / "x.html").stat().st_size > 1000
