"""The tool-call list of a branch (``piview tools``)."""

from __future__ import annotations

import json

import pytest

from piview.cli import main
from piview.model import load_session
from piview.model.tools import tool_rows, tool_stats
from tests.conftest import fixture

KEYS = {
    "entry_id",
    "call_id",
    "name",
    "arguments",
    "status",
    "result_entry_id",
    "latency_ms",
    "output_chars",
    "subagent_sessions",
}


def test_tools_json_contract(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tools", str(fixture("tool_pairing.jsonl")), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows and all(set(r) == KEYS for r in rows)
    assert {r["status"] for r in rows} <= {"ok", "error", "no_result", "orphan_result"}
    for r in rows:
        if r["status"] in ("ok", "error"):
            assert r["result_entry_id"] and r["latency_ms"] is not None
        if r["status"] == "no_result":
            assert r["result_entry_id"] is None and r["latency_ms"] is None


def test_statuses_on_the_branch() -> None:
    s = load_session(fixture("tool_pairing.jsonl"))
    rows = tool_rows(s, s.tree.path(s.tree.leaf))
    statuses = [r.status for r in rows]
    assert "ok" in statuses and "error" in statuses
    stats = {st.name: st for st in tool_stats(rows)}
    assert sum(st.count for st in stats.values()) == len(rows)
    assert sum(st.errors for st in stats.values()) == statuses.count("error")


def test_orphan_and_unanswered(write_session) -> None:
    h = '{"type":"session","version":3,"id":"s"}'
    call = {
        "type": "message",
        "id": "a",
        "parentId": None,
        "timestamp": "2026-01-01T00:00:00.000Z",
        "message": {
            "role": "assistant",
            "content": [
                {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "ls"}}
            ],
        },
    }
    orphan = {
        "type": "message",
        "id": "r",
        "parentId": "a",
        "timestamp": "2026-01-01T00:00:02.500Z",
        "message": {
            "role": "toolResult",
            "toolCallId": "zz",
            "toolName": "read",
            "content": [{"type": "text", "text": "12345"}],
            "isError": False,
        },
    }
    s = load_session(write_session([h, json.dumps(call), json.dumps(orphan)]))
    rows = tool_rows(s, s.tree.path(s.tree.leaf))
    assert [(r.name, r.status, r.output_chars) for r in rows] == [
        ("bash", "no_result", None),
        ("read", "orphan_result", 5),
    ]


def test_tools_table_and_leaf_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tools", str(fixture("tool_pairing.jsonl"))]) == 0
    assert "per tool" in capsys.readouterr().out
    assert main(["tools", str(fixture("tool_pairing.jsonl")), "--leaf", "nope"]) == 2
    assert "no entry" in capsys.readouterr().err
