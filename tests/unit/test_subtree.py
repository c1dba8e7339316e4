"""Subtree sums (model/subtree.py) against a brute-force sum per entry and per leaf."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from piview.model import load_session
from piview.model.session import Session
from piview.model.subtree import FIGURES, Figures, next_figure, subtree_sums
from piview.model.tree import parse_iso_ms
from tests.conftest import FIXTURES, corpus_files, fixture

FILES = sorted(FIXTURES.glob("*.jsonl")) + [
    p for p in corpus_files() if p.stat().st_size < 20_000_000
]


def _own(s: Session, i: int) -> tuple[float, float, int, float | None]:
    """What entry ``i`` costs by itself, read from its full entry (not the skeleton)."""
    node = s.nodes[i]
    usage = None
    turn = 0
    if node.message is not None and node.message.role in ("assistant", "toolResult"):
        usage = node.message.usage
        turn = node.message.role == "assistant"
    elif node.type in ("compaction", "branch_summary"):
        usage = node.usage
    cost = tokens = 0.0
    if usage is not None:
        cost = usage.cost.total_cost() if usage.cost is not None else 0.0
        tokens = sum(
            float(x or 0)
            for x in (usage.input, usage.output, usage.cache_read, usage.cache_write)
            if not isinstance(x, bool) and math.isfinite(float(x or 0))
        )
    return cost, tokens, int(turn), parse_iso_ms(node.timestamp)


def _brute(s: Session, entries: list[int]) -> Figures:
    owns = [_own(s, j) for j in entries]
    times = [t for *_, t in owns if t is not None]
    return Figures(
        sum(o[0] for o in owns),
        sum(o[1] for o in owns),
        sum(o[2] for o in owns),
        min(times, default=math.inf),
        max(times, default=-math.inf),
    )


def _same(a: Figures, b: Figures) -> None:
    assert a.cost == pytest.approx(b.cost, abs=1e-9)
    assert a.tokens == pytest.approx(b.tokens)
    assert a.turns == b.turns
    assert a.first_ms == b.first_ms
    assert a.last_ms == b.last_ms


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_sums_equal_a_brute_force_sum_on_every_fixture(path: Path) -> None:
    s = load_session(path)
    tree = s.tree
    sums = subtree_sums(s)
    for i in range(len(s)):
        _same(sums.subtree(i), _brute(s, tree.subtree(i)))
    real = tree.branching_children()
    for leaf in tree.leaves():
        part = sums.leaf_part(leaf)
        assert part is not None
        route = tree.path(leaf)
        _same(part.path, _brute(s, route))
        _same(sums.path(leaf), part.path)
        # A fork has two children that are not side notes (OpenClaw's make no branch).
        forks = [k for k, j in enumerate(route[:-1]) if real[j] > 1]
        cut = forks[-1] + 1 if forks else 0
        assert part.fork == (route[cut - 1] if cut else -1)
        assert part.start == route[cut]
        _same(part.part, _brute(s, route[cut:]))
    for i in range(len(s)):
        _same(sums.path(i), _brute(s, tree.path(i)))
        _same(sums.through(i), _brute(s, tree.path(i)[:-1] + tree.subtree(i)))
    _same(sums.total(), _brute(s, list(range(len(s)))))
    costs = [p.part.cost for p in sums.parts()]
    assert costs == sorted(costs, reverse=True)
    assert len(costs) == tree.leaf_count()


@pytest.mark.corpus
def test_the_branched_corpus_file_has_costly_parts() -> None:
    path = next((p for p in corpus_files() if p.name == "branches.jsonl"), None)
    if path is None:
        pytest.skip("no ../shared/corpus")
    sums = subtree_sums(load_session(path))
    parts = sums.parts()
    # Pi's faux model records tokens but no cost: the parts are ordered by tokens.
    assert [(p.leaf, p.fork, p.part.tokens, p.part.turns) for p in parts] == [
        (21, 3, 12175, 3),
        (27, 7, 7540, 2),
        (35, 3, 7162, 2),
        (11, 7, 3567, 1),
    ]
    assert sums.total().tokens == 41454 and sums.total().turns == 11
    assert sums.total().duration_ms == 323_979


def _line(i: str, parent: str | None, ts: str, **extra: object) -> str:
    m: dict[str, object] = {"role": "user", "content": "hi"}
    m.update(extra)
    return json.dumps(
        {"type": "message", "id": i, "parentId": parent, "timestamp": ts, "message": m}
    )


def _assistant(i: str, parent: str | None, ts: str, cost: float, tokens: int) -> str:
    usage = {"input": tokens, "output": 0, "cacheRead": 0, "cacheWrite": 0, "cost": {"total": cost}}
    m = {"role": "assistant", "content": [], "usage": usage, "stopReason": "stop"}
    return json.dumps(
        {"type": "message", "id": i, "parentId": parent, "timestamp": ts, "message": m}
    )


def test_backward_equal_and_bad_timestamps_and_summary_usage(write_session) -> None:
    summary_usage = {
        "input": 5,
        "output": 5,
        "cacheRead": 0,
        "cacheWrite": 0,
        "cost": {"total": 0.5},
    }
    path = write_session(
        [
            _line("a", None, "2026-01-01T00:10:00.000Z"),
            _assistant("b", "a", "2026-01-01T00:05:00.000Z", 1.0, 100),  # backwards
            _assistant("c", "a", "2026-01-01T00:05:00.000Z", 2.0, 200),  # equal
            _line("d", "c", "not a time"),
            json.dumps(
                {
                    "type": "branch_summary",
                    "id": "e",
                    "parentId": "a",
                    "timestamp": "2026-01-01T00:20:00.000Z",
                    "fromId": "a",
                    "summary": "s",
                    "usage": summary_usage,
                }
            ),
        ]
    )
    s = load_session(path)
    sums = subtree_sums(s)
    root = sums.subtree(0)
    assert root.cost == pytest.approx(3.5)
    assert root.tokens == 310
    assert root.turns == 2
    assert root.duration_ms == 15 * 60_000
    assert sums.summaries.count == 1
    assert sums.summaries.cost == pytest.approx(0.5)
    d = sums.leaf_part(3)
    assert d is not None and d.fork == 0 and d.start == 2
    assert d.part.cost == 2.0 and d.part.duration_ms == 0
    assert d.path.duration_ms == 5 * 60_000
    assert sums.parts()[0].leaf == 3


def test_sums_are_kept_until_the_tree_changes() -> None:
    s = load_session(fixture("tree_branches.jsonl"))
    assert subtree_sums(s) is subtree_sums(s)
    s.derived.clear()
    assert subtree_sums(s) is not None


def test_next_figure_wraps() -> None:
    assert [next_figure(f) for f in FIGURES] == [*FIGURES[1:], FIGURES[0]]
    assert next_figure("cost", -1) == "duration"


@pytest.mark.parametrize("shape", ["chain", "fan"])
def test_a_deep_chain_and_a_wide_fan(shape: str, write_session) -> None:
    n = 20_000
    lines = [_assistant("r", None, "2026-01-01T00:00:00.000Z", 0.001, 1)]
    for k in range(n):
        parent = f"e{k - 1}" if shape == "chain" and k else "r"
        lines.append(_assistant(f"e{k}", parent, "2026-01-01T00:00:01.000Z", 0.001, 1))
    s = load_session(write_session(lines))
    sums = subtree_sums(s)
    assert sums.subtree(0).turns == n + 1
    assert sums.subtree(0).tokens == n + 1
    parts = sums.parts()
    assert len(parts) == (1 if shape == "chain" else n)
    if shape == "chain":
        assert parts[0].path.turns == n + 1 and parts[0].fork == -1
    else:
        assert all(p.fork == 0 and p.part.turns == 1 and p.path.turns == 2 for p in parts)


def test_absurd_numbers_read_as_zero_as_everywhere(write_session) -> None:
    usage = '{"input":true,"output":1e300,"cacheRead":5,"cacheWrite":"7","cost":{"total":1e200}}'
    line = (
        '{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z",'
        '"message":{"role":"assistant","content":[],"stopReason":"stop","usage":' + usage + "}}"
    )
    s = load_session(write_session([line]))
    root = subtree_sums(s).subtree(0)
    from piview.model.usage import sum_usage

    expected = sum_usage(s.nodes, range(len(s)))
    assert root.tokens == expected.tokens
    assert root.cost == expected.cost == 0
    assert root.turns == 1


def test_timestamps_without_a_zone_are_read_as_utc_as_the_tree_does(
    write_session, monkeypatch: pytest.MonkeyPatch
) -> None:
    import time

    monkeypatch.setenv("TZ", "Asia/Kolkata")
    time.tzset()
    try:
        path = write_session(
            [
                _line("a", None, "2026-01-01T00:00:00.0000"),  # 24 characters, no zone
                _line("b", "a", "2026-01-01T01:00:00.000Z"),
            ]
        )
        s = load_session(path)
        assert subtree_sums(s).subtree(0).duration_ms == 3_600_000
    finally:
        monkeypatch.setenv("TZ", "UTC")
        time.tzset()
