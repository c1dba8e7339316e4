"""pi-subagents' children on the genuine fixtures (tests/fixtures/subagents, written by
pi-subagents 0.67.0 in Pi 0.85.1): discovery, lineage, the card's rows, the child files found
where the absolute paths they name do not exist, and each child counted once."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from piview.catalog.hosts import Root, discover
from piview.catalog.lineage import link_files
from piview.catalog.stats import collect_stats, stats_json
from piview.catalog.subagents import child_runs, find_call_site, locate
from piview.model.names import subagent_name_parts as name_parts

CASES = ("single", "parallel", "chain", "fork", "failed", "unknown")
CHILDREN = {"single": 1, "parallel": 2, "chain": 2, "fork": 1, "failed": 1, "unknown": 0}


FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "subagents"


def _root(case: str) -> Path:
    return FIXTURES / case / "sessions"


def _parent(case: str) -> Path:
    (p,) = sorted(_root(case).glob("*/*.jsonl"))
    return p


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _call_and_result(path: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    call = result = None
    for o in _lines(path):
        m = o.get("message") or {}
        if m.get("role") == "assistant":
            for b in m["content"]:
                if b.get("type") == "toolCall" and b["name"] == "subagent":
                    call = b
        if m.get("role") == "toolResult" and m.get("toolName") == "subagent":
            result = m
    assert call is not None and result is not None
    return call, result


@pytest.mark.parametrize("case", CASES)
def test_discovery_lists_each_child_under_its_parent_and_no_transcript(case: str) -> None:
    found = discover([Root("pi", _root(case))])
    parent = str(_parent(case))
    kids = [f for f in found if f.path != parent]
    assert len(kids) == CHILDREN[case]
    assert all(f.parent == parent for f in kids)
    assert not any("subagent-artifacts" in f.path for f in found)  # transcripts are no sessions
    links = link_files([f.path for f in found])
    for f in kids:
        link = links[f.path]
        assert (link.kind, link.parent) == ("subagent", parent)
        assert link.label == ("subagent (fork)" if case == "fork" else "subagent")
        assert link.copies == (case == "fork")


@pytest.mark.parametrize("case", CASES)
def test_rows_and_files_from_the_call(case: str, tmp_path: Path) -> None:
    # A copy: the sessionFile paths (/tmp/pisub/...) do not exist here; the layout is used.
    root = tmp_path / "s"
    shutil.copytree(_root(case), root)
    (parent,) = sorted(root.glob("*/*.jsonl"))
    call, result = _call_and_result(parent)
    text = "\n".join(b.get("text", "") for b in result["content"])
    runs = child_runs(call["arguments"], result.get("details"), result["isError"], text)
    if case == "unknown":
        assert [(r.agent, r.status, r.run_id) for r in runs] == [("no-such-agent", "failed", None)]
        assert locate(parent, runs[0]) is None
        return
    assert len(runs) == CHILDREN[case]
    found = [locate(parent, r) for r in runs]
    assert all(p is not None and p.is_file() for p in found)
    assert all(str(p).startswith(str(parent.with_suffix(""))) for p in found if p)
    assert len(set(found)) == len(found)
    if case == "failed":
        assert runs[0].status == "failed" and "scripted failure" in (runs[0].error or "")
        return
    assert all(r.status == "ok" and r.agent == "delegate" and r.turns == 1 for r in runs)
    assert [r.cost for r in runs] == [0.00135] * len(runs)
    tasks = {"single": ["TASK: say hi"], "parallel": ["TASK: alpha", "TASK: beta"]}
    if case in tasks:
        assert [r.task for r in runs] == tasks[case]
    if case == "chain":
        assert [r.key for r in runs] == ["first", "second"]
    for p in found:  # the child knows its call
        assert p is not None
        site = find_call_site(parent, p)
        assert site is not None and site.tool_call_id == call["id"]


@pytest.mark.parametrize(
    "args, details",
    [
        (None, None),
        ([], "x"),
        ({"agent": 3}, {"results": "no"}),
        ({"agent": "a"}, {"results": [None, 1, {"usage": "x", "exitCode": "0"}]}),
        ({"action": "status", "id": "r1"}, {}),
        ({"workflowScript": 1}, {"results": [{"agent": None, "usage": {"cost": "1"}}]}),
        ({"agent": "a", "task": "t"}, {"results": [], "workflowChildren": {"children": 5}}),
    ],
)
def test_shapes_a_newer_pi_subagents_might_write_never_raise(args: Any, details: Any) -> None:
    runs = child_runs(args, details, False, None)
    for r in runs:
        assert r.status in ("ok", "failed", "running")


def test_child_names_give_agent_and_run_id() -> None:
    assert name_parts("subagent-delegate-2f6153a8-794e-4291-acb0-ec9db6b857ae-1") == (
        "delegate",
        "2f6153a8-794e-4291-acb0-ec9db6b857ae",
    )
    assert name_parts("my session") == (None, None)


def _unique_usage(root: Path) -> tuple[float, int]:
    """An independent count: every assistant message's usage in the session files under
    ``root`` (a file whose first line is a session header; transcripts are not), each record
    (entry id, timestamp, usage) once."""
    seen: set[tuple[str, str, str]] = set()
    cost = 0.0
    for path in sorted(root.rglob("*.jsonl")):
        lines = _lines(path)
        if not lines or lines[0].get("type") != "session":
            continue
        for o in lines:
            m = o.get("message") or {}
            if m.get("role") != "assistant" or not m.get("usage"):
                continue
            key = (o.get("id"), o.get("timestamp"), json.dumps(m["usage"], sort_keys=True))
            if key not in seen:
                seen.add(key)
                cost += m["usage"]["cost"]["total"]
    return cost, len(seen)


@pytest.mark.parametrize("case", CASES)
def test_stats_count_every_usage_record_once(case: str) -> None:
    files = [Path(f.path) for f in discover([Root("pi", _root(case))])]
    report = collect_stats(files, by="session")
    cost, records = _unique_usage(_root(case))
    assert report.total.main.cost == pytest.approx(cost)
    assert report.total.main.count == records
    # The subagent result's usage repeats its children's: never counted beside them.
    assert report.total.tools.count == 0
    out = stats_json(report)
    kids = [g for g in out["groups"] if g["link"] and g["link"].startswith("subagent")]
    assert len(kids) == CHILDREN[case]
    parent = next(g for g in out["groups"] if g["link"] is None)
    assert parent["subagents"]["cost"] == pytest.approx(sum(g["cost"] for g in kids))
    if CHILDREN[case] and case != "failed":
        assert out["repeated"]["entries"] == 1


def _info(path: Path) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, "-m", "piview", "info", "--json", str(path)],
        capture_output=True,
        text=True,
        check=True,
        env={"PIVIEW_NO_CACHE": "1", "PATH": "/usr/bin:/bin"},
    )
    return json.loads(out.stdout)


@pytest.mark.parametrize("case", ["parallel", "fork", "failed"])
def test_info_json_subagents_with_subagents_and_subagent_of(case: str, tmp_path: Path) -> None:
    root = tmp_path / "s"
    shutil.copytree(_root(case), root)
    (parent,) = sorted(root.glob("*/*.jsonl"))
    info = _info(parent)
    kids = info["subagents"]
    assert len(kids) == CHILDREN[case]
    assert all(Path(k["path"]).is_file() and k["agent"] == "delegate" for k in kids)
    want = 0.0 if case == "failed" else 0.00135
    assert [k["cost"] for k in kids] == [want] * len(kids)
    assert all(k["tokens"] == (0 if case == "failed" else 330) for k in kids)
    own = info["usage"]["all"]
    both = info["usage"]["with_subagents"]
    assert set(both) == set(own)
    assert both["cost"] == pytest.approx(own["cost"] + want * len(kids))
    assert both["input"] == own["input"] + sum(300 for _ in kids if want)
    assert info["subagent_of"] is None
    call, _result = _call_and_result(parent)
    for k in kids:
        child = _info(Path(k["path"]))
        assert child["subagent_of"] == {"path": str(parent), "tool_call_id": call["id"]}
        assert child["subagents"] == []
