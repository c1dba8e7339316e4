"""The usage sidebar's cost by branch (model/branchcost.py, shown by UsageSidebar)."""

from __future__ import annotations

import json

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Static

from piview.model import load_session, usage_report
from piview.model.branchcost import BranchCosts, branch_costs
from piview.model.session import Session
from piview.model.subtree import subtree_sums
from piview.render.figures import fmt_cost_tiny as fmt_cost
from piview.widgets import UsageSidebar
from tests.conftest import fixture

SIZE = (40, 50)


class Host(App[None]):
    """The sidebar showing a session's usage with its cost by branch."""

    def __init__(self, session: Session, leaf: int | None = None) -> None:
        super().__init__()
        self.session = session
        self.leaf = session.tree.leaf if leaf is None else leaf

    def compose(self) -> ComposeResult:
        yield UsageSidebar()

    def on_mount(self) -> None:
        self.theme = "textual-dark"
        path = self.session.tree.path(self.leaf) if self.leaf is not None else []
        report = usage_report(self.session.nodes, path)
        costs = branch_costs(self.session, self.leaf)
        self.query_one(UsageSidebar).show(report, branches=costs)


def block(app: App[None]) -> list[str]:
    return str(app.query_one("#usage-branches", Static).content).splitlines()


def test_branch_costs_of_the_fixture() -> None:
    s = load_session(fixture("tree_branches.jsonl"))
    costs = branch_costs(s, s.tree.leaf)
    sums = subtree_sums(s)
    assert costs.leaves == s.tree.leaf_count() == 4
    parts = [b.part.cost for b in costs.listed]
    assert parts == sorted(parts, reverse=True) and len(parts) == 4
    assert [b.active for b in costs.listed].count(True) == 1
    active = next(b for b in costs.listed if b.active)
    assert active.leaf == s.tree.leaf
    assert costs.abandoned.cost == pytest.approx(
        sums.total().cost - sums.path(s.tree.leaf).cost  # type: ignore[arg-type]
    )
    # Named by a label in the part, else by the prompt that started it.
    assert "[decorrelated-jitter]" in [b.name for b in costs.listed]
    assert "Full jitter." in [b.name for b in costs.listed]


def test_few_listed_the_active_one_always_among_them() -> None:
    s = load_session(fixture("tree_branches.jsonl"))
    cheapest = subtree_sums(s).parts()[-1].leaf
    costs = branch_costs(s, cheapest, listed=2)
    assert len(costs.listed) == 2 and costs.listed[-1].leaf == cheapest
    assert costs.listed[-1].active and costs.rest_count == 2
    every = branch_costs(s, cheapest)
    total = sum(b.part.cost for b in every.listed)
    assert sum(b.part.cost for b in costs.listed) + costs.rest.cost == pytest.approx(total)


async def test_the_sidebar_lists_the_branches_largest_first() -> None:
    s = load_session(fixture("tree_branches.jsonl"))
    app = Host(s)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        lines = block(app)
        assert lines[0].split() == ["By", "branch", "cost", "tokens"]
        costs: BranchCosts = branch_costs(s, s.tree.leaf)
        for line, b in zip(lines[1:], costs.listed, strict=False):
            assert ("◀" in line) == b.active
            assert fmt_cost(b.part.cost) in line
        assert lines[-1].split()[:2] == ["abandoned", fmt_cost(costs.abandoned.cost)]
        assert all(len(line) <= 31 for line in lines)


async def test_summaries_that_record_usage_are_counted(write_session) -> None:
    u = {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "cost": {"total": 0.25}}
    lines = [
        json.dumps(
            {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00.000Z"}
        ),
        json.dumps(
            {
                "type": "message",
                "id": "a",
                "parentId": None,
                "timestamp": "2026-01-01T00:00:01.000Z",
                "message": {"role": "user", "content": "hi"},
            }
        ),
        json.dumps(
            {
                "type": "compaction",
                "id": "c",
                "parentId": "a",
                "timestamp": "2026-01-01T00:00:02.000Z",
                "summary": "s",
                "firstKeptEntryId": "a",
                "tokensBefore": 100,
                "usage": u,
            }
        ),
    ]
    s = load_session(write_session(lines))
    app = Host(s)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert block(app)[-1].split() == ["summaries", "(1)", "$0.25", "15"]


async def test_without_branch_costs_the_section_is_hidden() -> None:
    s = load_session(fixture("tree_branches.jsonl"))
    app = Host(s)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        side = app.query_one(UsageSidebar)
        side.show(side.report)
        await pilot.pause()
        assert not app.query_one("#usage-branches", Static).display


def test_snapshot_cost_by_branch(snap_compare) -> None:
    assert snap_compare(Host(load_session(fixture("tree_branches.jsonl"))), terminal_size=SIZE)
