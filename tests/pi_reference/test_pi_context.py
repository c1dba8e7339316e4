"""``piview context --json`` against Pi's own ``buildSessionContext``.

The stored answers (tests/pi_reference/answers, made by Pi 0.73.1 with context.mjs) are
compared on every corpus file (skipped without the corpus) and on chosen fixtures; with
``node`` and Pi's package (``PIVIEW_PI_NPM``), Pi is also asked live, texts in full.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from piview.cli import main
from tests.conftest import CORPUS, FIXTURES, corpus_files
from tests.pi_reference.pi import (
    ANSWERS,
    FIXTURE_FILES,
    compact,
    file_digest,
    pi_context,
    pi_npm,
    stored,
)

KEYS = {"at", "thinking_level", "model", "system", "estimate", "messages"}
MESSAGE_KEYS = {"entry_id", "role", "sent", "text", "tokens", "estimate"}


def piview_context(path: Path, at: str | None, capsys: pytest.CaptureFixture[str]) -> Any:
    args = ["context", str(path), "--json"] + (["--at", at] if at else [])
    assert main(args) == 0
    return json.loads(capsys.readouterr().out)


def _files() -> list[Any]:
    """Every session Pi answered for: the fixtures, and the corpus files (skipped if absent)."""
    params = [pytest.param(p, id=f"{p.parent.name}/{p.name}") for p in FIXTURE_FILES]
    for answer in sorted(ANSWERS.glob("*.json")):
        if answer.name.startswith(f"{FIXTURES.name}__"):
            continue
        source = json.loads(answer.read_text())["file"]
        path = CORPUS / source
        mark = pytest.mark.skipif(not path.is_file(), reason=f"corpus file {source} absent")
        params.append(pytest.param(path, id=f"corpus/{source}", marks=mark))
    return params


def test_answers_exist_without_the_corpus() -> None:
    """Pi's answers for the corpus are in the repository, whether or not the corpus is here."""
    here = {p.stem for p in ANSWERS.glob("*.json")}
    assert {
        "pi-0.73__branches",
        "pi-0.73__tools",
        "pi-mono__before-compaction",
        "pi-mono__large-session",
    } <= here


def test_every_corpus_file_has_an_answer() -> None:
    """A corpus file added later must get Pi's answers too (python -m tests.pi_reference.pi)."""
    for path in corpus_files():
        assert stored(path) is not None, path


@pytest.mark.parametrize("path", _files())
def test_same_as_pi_stored(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """At every entry Pi answered for: the same messages, roles, sent flags, texts, settings."""
    answer = stored(path)
    assert answer is not None, f"no stored answer for {path}: run python -m tests.pi_reference.pi"
    if answer["sha1"] != file_digest(path):
        pytest.skip(f"{path} is not the file the answer was made from")
    for case in answer["cases"]:
        got = piview_context(path, None if case["default"] else case["at"], capsys)
        assert set(got) == KEYS
        assert all(set(m) == MESSAGE_KEYS for m in got["messages"])
        assert got["at"] == case["at"]
        assert got["thinking_level"] == case["thinking_level"], case["at"]
        assert got["model"] == case["model"], case["at"]
        assert [compact(m) for m in got["messages"]] == case["messages"], case["at"]
        if "system" not in path.name and "roles_all" not in path.name:
            assert got["system"] is None  # no system message on any of their paths


@pytest.mark.skipif(pi_npm() is None, reason="node or Pi's package not found (PIVIEW_PI_NPM)")
@pytest.mark.parametrize("path", _files())
def test_same_as_pi_live(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Pi asked now, texts compared whole."""
    folder = pi_npm()
    assert folder is not None
    for case in pi_context(folder, path):
        got = piview_context(path, None if case["default"] else case["at"], capsys)
        assert got["at"] == case["at"]
        assert got["thinking_level"] == case["thinking_level"]
        assert got["model"] == case["model"]
        mine = [{k: m[k] for k in ("entry_id", "role", "sent", "text")} for m in got["messages"]]
        assert mine == case["messages"], case["at"]
