"""The pi-subagents fixtures in tests/fixtures/subagents are what their README says they are.

Only the committed files are read: every file the README lists for a case exists with that size,
nothing else is there, every ``.jsonl`` line is JSON, and each case's parent session has the one
``subagent`` toolResult the README describes (usage equal to the children's total).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent / "fixtures" / "subagents"
CASES = ("single", "parallel", "chain", "fork", "failed", "unknown")


def _listed() -> dict[str, dict[str, int]]:
    """The README's ``find`` blocks: case -> relative path -> size in bytes."""
    listed: dict[str, dict[str, int]] = {}
    case = None
    for line in (ROOT / "README.md").read_text().splitlines():
        if m := re.fullmatch(r"### (\w+)", line):
            case = m.group(1)
            listed[case] = {}
        elif case and (m := re.fullmatch(r"\s*(\d+)  (\S+)", line)):
            listed[case][m.group(2)] = int(m.group(1))
    return listed


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _parent(case: str) -> Path:
    (parent,) = (ROOT / case / "sessions").glob("*/*.jsonl")
    return parent


def _tool_result(case: str) -> dict[str, Any]:
    (result,) = [
        e["message"]
        for e in _lines(_parent(case))
        if e["type"] == "message" and e["message"]["role"] == "toolResult"
    ]
    assert result["toolName"] == "subagent"
    return result


def _children(case: str) -> list[Path]:
    sessions = ROOT / case / "sessions"
    return sorted(
        p for p in sessions.glob("*/*/**/*.jsonl") if p.parent.name != "subagent-artifacts"
    )


def test_readme_lists_every_case() -> None:
    assert tuple(_listed()) == CASES


@pytest.mark.parametrize("case", CASES)
def test_files_exist_as_listed(case: str) -> None:
    listed = _listed()[case]
    on_disk = {
        str(p.relative_to(ROOT)): p.stat().st_size for p in (ROOT / case).rglob("*") if p.is_file()
    }
    assert on_disk == listed


@pytest.mark.parametrize("case", CASES)
def test_every_jsonl_line_is_json(case: str) -> None:
    files = list((ROOT / case).rglob("*.jsonl"))
    assert files
    for path in files:
        lines = _lines(path)
        assert lines, path
        assert all(isinstance(e, dict) for e in lines), path


@pytest.mark.parametrize("case", CASES)
def test_sessions_start_with_a_header(case: str) -> None:
    for path in [_parent(case), *_children(case)]:
        assert _lines(path)[0]["type"] == "session", path


@pytest.mark.parametrize("case", ["single", "parallel", "chain", "fork"])
def test_tool_result_usage_is_the_children_total(case: str) -> None:
    result = _tool_result(case)
    total = result["details"]["totalChildUsage"]
    assert result["usage"]["input"] == total["input"] == 300 * len(result["details"]["results"])
    assert result["usage"]["output"] == total["output"]
    assert result["usage"]["cost"]["total"] == pytest.approx(total["cost"])
    children = _children(case)
    assert len(children) == len(result["details"]["results"])
    child_cost = 0.0
    for path in children:
        for e in _lines(path):
            msg = e.get("message", {})
            if (
                e["type"] == "message"
                and msg.get("role") == "assistant"
                and "toolCall" not in [c["type"] for c in msg["content"]]
            ):
                child_cost += msg["usage"]["cost"]["total"]
    assert child_cost == pytest.approx(total["cost"])


def test_fork_child_links_to_its_parent() -> None:
    (child,) = _children("fork")
    assert child.parent.name == "forks"
    header = _lines(child)[0]
    assert Path(header["parentSession"]).name == _parent("fork").name
    parent_ids = [e["id"] for e in _lines(_parent("fork"))[1:]]
    child_ids = [e["id"] for e in _lines(child)[1:]]
    assert child_ids[:4] == parent_ids[:4]


@pytest.mark.parametrize("case", ["failed", "unknown"])
def test_failures_are_errors_without_details(case: str) -> None:
    result = _tool_result(case)
    assert result["isError"] is True
    assert result["details"] == {}
    assert "usage" not in result
    assert len(_children(case)) == (1 if case == "failed" else 0)
