"""``piview timeline``: the JSON contract, ``--leaf``, the readable summary, errors, and the
context splits against ``piview context --json`` at the same entries."""

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


def _context_sum(capsys: pytest.CaptureFixture[str], path: Path, at: str) -> tuple[float, int]:
    data = run_json(capsys, "context", str(path), "--at", at, "--json")
    tokens = [m["tokens"] for m in data["messages"] if m["tokens"] is not None]
    return sum(tokens), len(tokens)


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
        parts += c["summaries"]
        want, n = _context_sum(capsys, path, parents[turn["entry_id"]] or "")
        # piview context rounds each message, the timeline each part: within half of each.
        assert abs(parts - want) <= 0.5 * n + 1, (turn["entry_id"], parts, want)
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
