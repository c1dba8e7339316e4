"""piview's totals and context against Pi 0.85.1's own, on files Pi 0.85.1 wrote.

The stored answers (tests/pi_reference/answers/pi-0.85, made by stats_085.mjs and
context.mjs) are compared always; with a Node of 22.19 or newer and Pi 0.85's package
(``PIVIEW_PI085_NPM``), Pi is asked live, on the fixtures and on files it writes now.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from piview.cli import main
from piview.model import load_session
from piview.model.usage import pi_breakdown, usage_report
from tests.pi_reference.pi import compact, file_digest
from tests.pi_reference.pi085 import FILES, ROLES, pi085, pi_context, pi_stats, stored, write

_PARTS = {"all": "assistant", "tools": "tools", "summaries": "summaries"}

live = pytest.mark.skipif(
    pi085() is None, reason="Node >= 22.19 or Pi 0.85's package not found (PIVIEW_PI085_NPM)"
)


def _info(path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main(["info", str(path), "--json"]) == 0
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


def _same_totals(mine: dict[str, Any], pi: dict[str, Any], pi_cost: float) -> None:
    """To the token, and to the cent (and to Pi's float sum within rounding)."""
    for key in ("input", "output", "cacheRead", "cacheWrite"):
        assert mine[key] == pi[key], key
    assert round(mine["cost"], 2) == round(pi_cost, 2)
    assert mine["cost"] == pytest.approx(pi_cost, abs=1e-9)


def _check_totals(path: Path, answer: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    usage = _info(path, capsys)["usage"]
    stats = answer["stats"]
    _same_totals(usage["total"], stats["tokens"], stats["cost"])
    for mine, theirs in _PARTS.items():
        part = answer["parts"][theirs]
        _same_totals(usage[mine], part, part["cost"])
    session = load_session(path)
    tree = session.tree
    report = usage_report(session.nodes, tree.path(tree.leaf) if tree.leaf is not None else [])
    lines = [(k, t.tokens, t.cost) for k, t in pi_breakdown(report)]
    assert [k for k, _, _ in lines] == [b["key"] for b in answer["breakdown"]]
    for (_, tokens, cost), b in zip(lines, answer["breakdown"], strict=True):
        assert tokens == b["tokens"]
        assert cost == pytest.approx(b["cost"], abs=1e-9)
    total = report.total_all
    assert (total.input, total.output, total.cost) == (
        stats["tokens"]["input"],
        stats["tokens"]["output"],
        pytest.approx(stats["cost"], abs=1e-9),
    )


def _check_context(path: Path, cases: list[dict[str, Any]], capsys: Any, whole: bool) -> None:
    for case in cases:
        args = ["context", str(path), "--json"] + ([] if case["default"] else ["--at", case["at"]])
        assert main(args) == 0
        got = json.loads(capsys.readouterr().out)
        assert got["at"] == case["at"]
        assert got["thinking_level"] == case["thinking_level"], case["at"]
        assert got["model"] == case["model"], case["at"]
        if whole:
            keys = ("entry_id", "role", "sent", "text")
            mine = [{k: m[k] for k in keys} for m in got["messages"]]
            assert mine == case["messages"], case["at"]
        else:
            assert [compact(m) for m in got["messages"]] == case["messages"], case["at"]


@pytest.mark.parametrize("path", FILES, ids=ROLES)
def test_totals_are_pis_stored(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """usage.total is Pi's /session total; all, tools and summaries are its three parts;
    the per provider/model lines are its breakdown."""
    answer = stored(path)
    assert answer["sha1"] == file_digest(path), (
        "fixture changed: python -m tests.pi_reference.pi085"
    )
    _check_totals(path, answer, capsys)


def test_the_fixture_has_every_kind_of_usage(capsys: pytest.CaptureFixture[str]) -> None:
    """What the comparison is worth: tool, summary and 1-hour cache usage, two models."""
    answer = stored(FILES[0])
    assert all(answer["parts"][p]["input"] > 0 for p in ("assistant", "tools", "summaries"))
    keys = {b["key"] for b in answer["breakdown"]}
    # One beta call was answered by a dated model (responseModel): Pi names it by that.
    assert keys == {"faux-a/alpha", "faux-b/beta", "faux-b/beta-2026-11-20", "Tools/summaries"}
    usage = _info(FILES[0], capsys)["usage"]
    assert usage["total"]["cacheWrite1h"] > 0 and usage["total"]["reasoning"] > 0
    assert usage["all"]["cost"] < usage["total"]["cost"]  # the old figure fell short of Pi's


def test_parent_session(capsys: pytest.CaptureFixture[str]) -> None:
    """info --json names the file a fork came from, as its header does."""
    fork, main_file = FILES[1], FILES[0]
    header = json.loads(fork.read_text().splitlines()[0])
    assert _info(fork, capsys)["parent_session"] == header["parentSession"]
    assert _info(main_file, capsys)["parent_session"] is None


@pytest.mark.parametrize("path", FILES, ids=ROLES)
def test_context_is_pis_stored(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """piview context at every entry Pi 0.85 answered for."""
    _check_context(path, stored(path)["cases"], capsys, whole=False)


@live
@pytest.mark.parametrize("path", FILES, ids=ROLES)
def test_totals_and_context_are_pis_live(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Pi 0.85 asked now about the fixtures, texts compared whole."""
    found = pi085()
    assert found is not None
    _check_totals(path, pi_stats(found, path), capsys)
    _check_context(path, pi_context(found, path), capsys, whole=True)


@live
def test_files_pi_writes_now(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Pi 0.85 writes the sessions again (new ids, new times); piview agrees with it on them."""
    found = pi085()
    assert found is not None
    for path in write(found, tmp_path):
        _check_totals(path, pi_stats(found, path), capsys)
        _check_context(path, pi_context(found, path), capsys, whole=True)
