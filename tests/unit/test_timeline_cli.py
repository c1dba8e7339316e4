"""``piview timeline``: the JSON contract, ``--leaf``, the readable summary, errors, and the
context splits summing to ``piview context --json``'s ``estimate`` at the same entries."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from piview.cli import main
from piview.model import load_session
from tests.conftest import corpus_files
from tests.unit.test_timeline import generate, write


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


def test_json_contract_and_leaf(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = generate(6)
    path = write(tmp_path, lines)
    data = run_json(capsys, "timeline", str(path), "--json")
    assert set(data) == {"runs", "totals"}
    assert len(data["runs"]) == 6
    # --leaf: the branch through an entry, down to its newest leaf (here the same branch).
    prompt = data["runs"][2]["entry_id"]
    again = run_json(capsys, "timeline", str(path), "--leaf", prompt[:7], "--json")
    assert again == data


def test_readable_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, generate(5))
    assert main(["timeline", str(path)]) == 0
    out = capsys.readouterr().out
    for word in ("runs", "wall", "model", "tool", "wait", "read", "bash", "grep", "p50"):
        assert word in out
    assert len([line for line in out.splitlines() if "e0000" in line]) == 5  # one per run


def test_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, generate(2))
    assert main(["timeline", str(path), "--leaf", "nope"]) == 2
    assert "no entry with id" in capsys.readouterr().err
    assert main(["timeline", str(tmp_path / "missing.jsonl")]) == 2


def _context_estimate(capsys: pytest.CaptureFixture[str], path: Path, at: str) -> int:
    data = run_json(capsys, "context", str(path), "--at", at, "--json")
    estimates = [m["estimate"] for m in data["messages"] if m["estimate"] is not None]
    assert data["estimate"] == sum(estimates)
    return int(data["estimate"])


def _parents(path: Path) -> dict[str, str | None]:
    """Each entry's parent id (piview's: first-version files have none written)."""
    session = load_session(path)
    ids, parents = session.ids, session.tree.parents
    return {ids[i]: ids[parents[i]] if parents[i] >= 0 else None for i in range(len(session))}


def check_against_context_cli(
    path: Path, capsys: pytest.CaptureFixture[str], every: int = 1
) -> int:
    data = run_json(capsys, "timeline", str(path), "--json")
    parents = _parents(path)
    turns = [t for r in data["runs"] for t in r["turns"] if parents.get(t["entry_id"])]
    for turn in turns[::every]:
        c = turn["context"]
        parts = c["user"] + c["assistant"] + c["thinking"] + sum(c["tools"].values())
        parts += c["summaries"] + c["system"]
        # Pi's estimate, exactly: each message's is a whole number, split without rounding.
        want = _context_estimate(capsys, path, parents[turn["entry_id"]] or "")
        assert parts == want, (turn["entry_id"], parts, want)
    return len(turns[::every])


def test_context_sums_to_piview_context(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert check_against_context_cli(write(tmp_path, generate(12)), capsys) == 24


@pytest.mark.corpus
@pytest.mark.parametrize(
    "path",
    corpus_files(),
    ids=lambda p: p.name,
)
def test_context_sums_to_piview_context_on_the_corpus(
    path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert check_against_context_cli(path, capsys, every=5) > 0
