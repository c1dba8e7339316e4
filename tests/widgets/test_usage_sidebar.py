"""UsageSidebar: the figures of a UsageReport in a tiny host app, plus one snapshot."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Sparkline, Static

from piview.model import UsageReport, load_session, usage_report
from piview.render.format import fmt_cost, fmt_tokens
from piview.widgets import UsageSidebar
from tests.conftest import fixture

SIZE = (40, 44)


class Host(App[None]):
    """Just the sidebar, showing ``report`` once mounted."""

    def __init__(self, report: UsageReport | None) -> None:
        super().__init__()
        self.report = report

    def compose(self) -> ComposeResult:
        yield UsageSidebar()

    def on_mount(self) -> None:
        self.theme = "textual-dark"
        self.query_one(UsageSidebar).show(self.report)


def report_of(name: str, leaf: int | None = None) -> UsageReport:
    s = load_session(fixture(name))
    leaf = s.tree.leaf if leaf is None else leaf
    assert leaf is not None
    return usage_report(s.nodes, s.tree.path(leaf))


def text_of(app: App[None], selector: str) -> str:
    return str(app.query_one(selector, Static).content)


async def test_totals_per_model_and_context() -> None:
    report = report_of("tree_branches.jsonl")
    app = Host(report)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        totals = text_of(app, "#usage-totals").splitlines()
        assert totals[0].split() == ["Usage", "branch", "file", "abandon"]
        inputs = [fmt_tokens(t.input) for t in (report.path, report.all, report.abandoned)]
        assert totals[1].split() == ["in", *inputs]
        costs = [fmt_cost(t.cost) for t in (report.path, report.all, report.abandoned)]
        assert [ln for ln in totals if ln.startswith("cost")][0].split() == ["cost", *costs]
        assert any(ln.startswith(" of 1h") for ln in totals)
        models = text_of(app, "#usage-models")
        assert "claude-sonnet-4-5" in models
        assert "no nested model usage" in text_of(app, "#usage-tools")
        spark = app.query_one(Sparkline)
        assert list(spark.data or []) == [size for _, size in report.context_sizes]
        stats = text_of(app, "#usage-context-stats").splitlines()
        sizes = [size for _, size in report.context_sizes]
        assert stats[1].split() == [
            fmt_tokens(min(sizes)),
            fmt_tokens(max(sizes)),
            fmt_tokens(sizes[-1]),
        ]
        assert all(len(line) <= 32 for line in totals)


async def test_tool_usage_kept_apart_and_updates() -> None:
    app = Host(None)
    async with app.run_test(size=SIZE) as pilot:
        sidebar = app.query_one(UsageSidebar)
        await pilot.pause()
        assert "No usage" in text_of(app, "#usage-totals")
        assert not app.query_one(Sparkline).display
        report = report_of("usage_extended.jsonl")
        sidebar.show(report)
        await pilot.pause()
        tools = text_of(app, "#usage-tools")
        assert report.tools_all.count and fmt_tokens(report.tools_all.tokens) in tools
        assert "gpt-5.1-codex" in text_of(app, "#usage-models")
        assert app.query_one(Sparkline).display
        sidebar.report = None
        await pilot.pause()
        assert "No usage" in text_of(app, "#usage-totals")


def test_snapshot_usage_sidebar(snap_compare) -> None:
    assert snap_compare(Host(report_of("usage_extended.jsonl")), terminal_size=SIZE)


async def test_session_total_as_pis() -> None:
    """Pi's /session total on a file Pi 0.85.1 wrote: its parts, its total, its lines per
    provider/model (tool and summary usage in one), each figure as Pi's answer has it."""
    from tests.pi_reference.pi085 import FILES, stored

    s = load_session(FILES[0])
    assert s.tree.leaf is not None
    report = usage_report(s.nodes, s.tree.path(s.tree.leaf))
    answer = stored(FILES[0])
    app = Host(report)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        lines = text_of(app, "#usage-total").splitlines()
        assert lines[0].split() == ["Session", "total", "tokens", "cost"]
        assert "By provider/model" in lines
        rows = {ln[:16].strip(): ln[16:].split() for ln in lines[1:] if ln[:1] == " "}
        stats = answer["stats"]
        assert rows["total"] == [fmt_tokens(stats["tokens"]["total"]), fmt_cost(stats["cost"])]
        parts = answer["parts"]
        for label, part in (("model calls", "assistant"), ("tool results", "tools")):
            p = parts[part]
            tokens = p["input"] + p["output"] + p["cacheRead"] + p["cacheWrite"]
            assert rows[label] == [fmt_tokens(tokens), fmt_cost(p["cost"])]
        for b in answer["breakdown"]:
            key = b["key"]  # a long one is named by its model alone (its responseModel here)
            shown = key.split("/", 1)[1] if len(key) >= 16 and "/" in key else key
            assert rows[shown] == [fmt_tokens(b["tokens"]), fmt_cost(b["cost"])]
        assert all(len(line) <= 31 for line in lines)  # the sidebar's 34 columns, padded


async def test_session_total_without_tools_or_summaries() -> None:
    """Only the parts that occur; no breakdown for one model."""
    report = report_of("linear.jsonl")
    app = Host(report)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        text = text_of(app, "#usage-total")
        assert "model calls" in text and "total" in text
        assert "tool results" not in text and "summaries" not in text
        assert "By provider/model" not in text
