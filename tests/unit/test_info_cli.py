"""``piview info``: the JSON contract and the command line's errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from piview.cli import main
from tests.conftest import corpus_files, fixture

KEYS = {
    "version",
    "session_id",
    "title",
    "name",
    "cwd",
    "parent_session",
    "entries",
    "bad_lines",
    "entry_types",
    "roles",
    "leaf",
    "leaves",
    "branch_points",
    "roots",
    "path",
    "tool_calls",
    "usage",
    "subagents",
    "subagent_of",
}
U_KEYS = {"input", "output", "cacheRead", "cacheWrite", "cacheWrite1h", "reasoning", "cost"}


def info_json(path: Path, capsys: pytest.CaptureFixture[str]) -> dict:
    assert main(["info", str(path), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("name", sorted(p.name for p in fixture("").glob("*.jsonl")))
def test_info_json_has_exactly_the_contract_keys(name: str, capsys) -> None:
    d = info_json(fixture(name), capsys)
    assert set(d) == KEYS
    assert set(d["tool_calls"]) == {
        "calls",
        "results",
        "paired",
        "unanswered",
        "orphan_results",
        "errors",
    }
    assert set(d["usage"]) == {
        "path",
        "all",
        "tools",
        "summaries",
        "total",
        "model_usage",
        "with_subagents",
    }
    for u in d["usage"].values():
        assert set(u) == U_KEYS
    assert d["entries"] == sum(d["entry_types"].values())


def test_info_bad_lines(capsys) -> None:
    d = info_json(fixture("bad_lines.jsonl"), capsys)
    assert [b["line"] for b in d["bad_lines"]] == [4, 5, 6, 10]
    assert all(isinstance(b["reason"], str) and b["reason"] for b in d["bad_lines"])


def test_info_v1_has_null_leaf(capsys) -> None:
    d = info_json(fixture("v1.jsonl"), capsys)
    assert d["version"] == 1 and d["leaf"] is None
    assert d["path"][0] == d["roots"][0] and len(d["path"]) == d["entries"]


def test_info_human_readable(capsys) -> None:
    assert main(["info", str(fixture("linear.jsonl"))]) == 0
    out = capsys.readouterr().out
    assert "entries" in out and "usage" in out


def test_missing_file_is_one_line_exit_2(tmp_path: Path) -> None:
    r = subprocess.run(
        [sys.executable, "-m", "piview", "info", str(tmp_path / "nope.jsonl")],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2
    assert r.stdout == "" and r.stderr.count("\n") == 1 and "no such file" in r.stderr
    assert "Traceback" not in r.stderr


CORPUS = corpus_files()


@pytest.mark.corpus
@pytest.mark.skipif(not CORPUS, reason="../shared/corpus is absent")
@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name)
def test_info_on_the_corpus_matches_a_hand_count(path: Path, capsys) -> None:
    d = info_json(path, capsys)
    lines = [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
    entries = [x for x in lines if x.get("type") != "session"]
    assert d["entries"] == len(entries) and d["bad_lines"] == []
    types: dict[str, int] = {}
    for e in entries:
        types[e["type"]] = types.get(e["type"], 0) + 1
    assert d["entry_types"] == dict(sorted(types.items()))
    calls = sum(
        1
        for e in entries
        if e["type"] == "message" and e["message"]["role"] == "assistant"
        for b in e["message"]["content"]
        if b.get("type") == "toolCall"
    )
    results = [
        e for e in entries if e["type"] == "message" and e["message"]["role"] == "toolResult"
    ]
    assert d["tool_calls"]["calls"] == calls and d["tool_calls"]["results"] == len(results)
    assert d["tool_calls"]["errors"] == sum(1 for r in results if r["message"]["isError"])
    cost = sum(
        e["message"]["usage"]["cost"]["total"]
        for e in entries
        if e["type"] == "message" and e["message"]["role"] == "assistant"
    )
    assert d["usage"]["all"]["cost"] == pytest.approx(cost)
    if "version" not in lines[0]:
        assert d["leaf"] is None and len(d["path"]) == len(entries)
    else:
        assert d["leaf"] == entries[-1]["id"] and d["path"][-1] == d["leaf"]


KNOWN = {  # counted by hand from the files (see tests/fixtures/sessions/EXPECTED.md for ours)
    "large-session.jsonl": {"calls": 391, "results": 373, "unanswered": 18},
    "before-compaction.jsonl": {"calls": 454, "results": 448, "unanswered": 6},
    "branches.jsonl": {"leaves": 4, "branch_points": 2, "path": 12},
}


@pytest.mark.corpus
@pytest.mark.skipif(not CORPUS, reason="../shared/corpus is absent")
def test_corpus_known_counts(capsys) -> None:
    for path in CORPUS:
        want = KNOWN.get(path.name)
        if not want:
            continue
        d = info_json(path, capsys)
        for k, v in want.items():
            got = d["tool_calls"].get(k) if k in d["tool_calls"] else len(d[k])
            assert got == v, (path.name, k)
