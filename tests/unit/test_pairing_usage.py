"""Tool pairing along the tree, and usage totals."""

from __future__ import annotations

import json

import pytest

from piview.model import load_session, usage_report
from piview.model.types import Cost, Usage
from piview.model.usage import UsageTotals

H = '{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}'


def msg(i: str, parent: str | None, message: dict, ts: str = "2026-01-01T00:00:00.000Z") -> str:
    return json.dumps(
        {"type": "message", "id": i, "parentId": parent, "timestamp": ts, "message": message}
    )


def call(*ids: str, usage: dict | None = None, model: str = "m1") -> dict:
    return {
        "role": "assistant",
        "provider": "p",
        "model": model,
        "stopReason": "toolUse",
        "content": [{"type": "toolCall", "id": c, "name": "bash", "arguments": {}} for c in ids],
        **({"usage": usage} if usage else {}),
    }


def result(cid: str, error: bool = False, usage: dict | None = None) -> dict:
    return {
        "role": "toolResult",
        "toolCallId": cid,
        "toolName": "bash",
        "content": [{"type": "text", "text": "out"}],
        "isError": error,
        **({"usage": usage} if usage else {}),
    }


def test_pairing_nearest_ancestor_with_reused_ids_and_branches(write_session) -> None:
    s = load_session(
        write_session(
            [
                H,
                msg("a1", None, call("t1", "t2")),
                msg("r1", "a1", result("t1")),
                msg("a2", "r1", call("t1")),  # t1 reused in a later turn
                msg("r2", "a2", result("t1", error=True)),
                msg("x", "a1", result("zzz")),  # orphan: no such call
                msg("b1", None, call("t9")),  # separate root
                msg("b2", None, result("t9")),  # sibling root: must not pair with b1
            ]
        )
    )
    p = s.pairing
    assert p.result_call == {1: (0, 0), 3: (2, 0)}
    assert p.orphan_results == [4, 6]
    assert p.unanswered == [(0, 1), (5, 0)]
    assert p.errors == [3]
    assert len(p.calls) == 4 and len(p.results) == 4


U1 = {
    "input": 100,
    "output": 50,
    "cacheRead": 10,
    "cacheWrite": 5,
    "cacheWrite1h": 2,
    "reasoning": 20,
    "totalTokens": 165,
    "cost": {"input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0, "total": 3},
}
U2 = {
    "input": 1,
    "output": 1,
    "cacheRead": 0,
    "cacheWrite": 0,
    "cost": {"input": 0.5, "output": 0.25, "cacheRead": 0.125, "cacheWrite": 0.125},
}


def test_usage_path_all_abandoned_tools_and_models(write_session) -> None:
    s = load_session(
        write_session(
            [
                H,
                msg("a1", None, call("t1", usage=U1)),
                msg("r1", "a1", result("t1", usage=U2)),
                msg("a2", "r1", call(usage=U2, model="m2")),
                msg("b1", "a1", call(usage=U1)),  # abandoned sibling branch
                msg("c", "a2", {"role": "user", "content": "x"}),
            ]
        )
    )
    path = s.tree.path(s.tree.leaf)
    rep = usage_report(s.nodes, path)
    assert rep.path.input == 101 and rep.path.output == 51
    assert rep.path.reasoning == 20  # never added to output
    assert rep.path.cost == pytest.approx(4.0)  # 3 (total) + 1.0 (sum of parts)
    assert rep.all.input == 201 and rep.all.cache_write1h == 4
    assert rep.abandoned.input == 100 and rep.abandoned.cost == pytest.approx(3)
    assert rep.tools_all.input == 1 and rep.tools_path.cost == pytest.approx(1.0)
    assert set(rep.per_model_all) == {"p/m1", "p/m2"}
    assert rep.per_model_all["p/m1"].count == 2
    assert rep.context_sizes == [(0, 110), (2, 1)]


def test_usage_tolerates_missing_cost_and_bad_numbers() -> None:
    t = UsageTotals()
    t.add(Usage(input=5, output=1))
    t.add(Usage(input=float("nan"), output=float("inf"), cost=Cost(total=float("nan"))))
    t.add(None)
    assert (t.input, t.output, t.cost, t.count) == (5, 1, 0, 2)
