"""Provides :class:`UsageSidebar`: tokens and cost of the branch shown, the file and the rest.

Everything comes from one :class:`~piview.model.usage.UsageReport` (and the cost of each
branch from a :class:`~piview.model.branchcost.BranchCosts`); the sidebar only lays it out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.css.query import NoMatches
from textual.reactive import reactive
from textual.widgets import Static

from piview.render.figures import fmt_cost_tiny
from piview.render.format import fmt_cost_short as fmt_cost
from piview.render.format import fmt_tokens

if TYPE_CHECKING:
    from piview.model.branchcost import BranchCosts
    from piview.model.usage import UsageReport, UsageTotals


_LABEL = 7
"""Width of the row labels of the totals table."""
_COL = 8
"""Width of each number column of the totals table."""
_MODEL_LABEL = 13
_MODEL_COL = 9

_HEAD = "bold $text-primary"
_MUTED = "$text-muted"
_COST = "$text-success"


def _cells(label: str, values: list[str], label_width: int, col: int, style: str = "") -> Content:
    """One table line: a left-aligned label and right-aligned values."""
    parts: list[str | tuple[str, str]] = [(label.ljust(label_width)[:label_width], _MUTED)]
    for v in values:
        parts.append((v.rjust(col), style) if style else v.rjust(col))
    return Content.assemble(*parts)


def _pair(label: str, branch: str, file: str, style: str = "") -> Content:
    """A line of a two-column (branch, file) table."""
    return _cells(label, [branch, file], _MODEL_LABEL, _MODEL_COL, style)


def _pair_head(title: str) -> Content:
    """The heading line of a two-column (branch, file) table."""
    return Content.assemble(
        (title.ljust(_MODEL_LABEL), _HEAD),
        *[(h.rjust(_MODEL_COL), _HEAD) for h in ("branch", "file")],
    )


def _short_model(key: str, width: int) -> str:
    """``provider/model`` shown as the model name, cut to ``width``."""
    name = key.split("/", 1)[1] if "/" in key and not key.endswith("/?") else key
    return name if len(name) <= width else name[: width - 1] + "…"


_TOTAL_LABEL = 16
"""Width of the labels of the session total (Pi's ``Tools/summaries`` line fits, indented)."""
_TOTAL_TOKENS = 7
"""Its tokens column: :func:`fmt_tokens` gives at most 6 characters; the cost column is
:data:`_COL` wide."""


def _total_line(label: str, tokens: float, cost: float, style: str = _MUTED) -> Content:
    if len(label) > _TOTAL_LABEL:
        label = label[: _TOTAL_LABEL - 1] + "…"
    return Content.assemble(
        (label.ljust(_TOTAL_LABEL), style),
        (fmt_tokens(tokens).rjust(_TOTAL_TOKENS), style if style != _MUTED else ""),
        (fmt_cost(cost).rjust(_COL), _COST),
    )


def _total_head(title: str) -> Content:
    """The heading of a block of :func:`_total_line` rows: its title, tokens, cost."""
    return Content.assemble(
        (title.ljust(_TOTAL_LABEL), _HEAD),
        ("tokens".rjust(_TOTAL_TOKENS), _HEAD),
        ("cost".rjust(_COL), _HEAD),
    )


def _total_block(report: UsageReport) -> Content:
    """The whole file's total as Pi's ``/session`` counts it, with its lines per
    ``provider/model`` when there are several."""
    from piview.model.usage import pi_breakdown  # the model is imported with the report

    lines = [_total_head("Session total")]
    parts = [
        (" model calls", report.all),
        (" tool results", report.tools_all),
        (" summaries", report.summaries_all),
    ]
    for label, t in parts:
        if t.count or label == " model calls":
            lines.append(_total_line(label, t.tokens, t.cost))
    total = report.total_all
    lines.append(_total_line(" total", total.tokens, total.cost, "bold"))
    breakdown = pi_breakdown(report)
    if len(breakdown) > 1:  # as Pi's /session: one line says nothing the total does not
        lines.append(Content.styled("By provider/model", _HEAD))
        for key, t in breakdown:
            if len(key) >= _TOTAL_LABEL and "/" in key:
                key = key.split("/", 1)[1]  # the model says more than its provider
            lines.append(_total_line(f" {key}", t.tokens, t.cost))
    return Content("\n").join(lines)


def _family_block(own: UsageTotals, children: UsageTotals, files: int) -> Content:
    """This file's model calls with its subagents' (every child file once: what the calls
    that started them paid for)."""
    both = own + children
    kids = f" {files} subagent{'s' if files != 1 else ''}"
    return Content("\n").join(
        [
            _total_head("With subagents"),
            _total_line(" this session", own.tokens, own.cost),
            _total_line(kids, children.tokens, children.cost),
            _total_line(" total", both.tokens, both.cost, "bold"),
        ]
    )


def _totals_block(report: UsageReport) -> Content:
    cols = [report.path, report.all, report.abandoned]
    lines = [
        Content.assemble(
            ("Usage".ljust(_LABEL), _HEAD),
            *[(h.rjust(_COL), _HEAD) for h in ("branch", "file", "abandon")],
        )
    ]

    def row(label: str, get: str, fmt: object = fmt_tokens, style: str = "") -> None:
        values = [fmt(getattr(t, get)) for t in cols]  # type: ignore[operator]
        lines.append(_cells(label, values, _LABEL, _COL, style))

    row("in", "input")
    row("out", "output")
    row("cache r", "cache_read")
    row("cache w", "cache_write")
    row(" of 1h", "cache_write1h")
    row("reason", "reasoning")
    row("cost", "cost", fmt_cost, _COST)
    row("turns", "count", lambda n: f"{n:,}")
    return Content("\n").join(lines)


def _models_block(report: UsageReport) -> Content:
    from piview.model.usage import UsageTotals  # the model is imported with the report

    keys = sorted(
        set(report.per_model_all) | set(report.per_model_path),
        key=lambda k: (-report.per_model_all.get(k, UsageTotals()).cost, k),
    )
    head = _pair_head("Per model")
    if not keys:
        return Content("\n").join([head, Content.styled("no assistant usage", _MUTED)])
    lines = [head]
    width = _MODEL_LABEL + 2 * _MODEL_COL
    for key in keys:
        b = report.per_model_path.get(key, UsageTotals())
        f = report.per_model_all.get(key, UsageTotals())
        lines.append(Content.styled(_short_model(key, width), "bold"))
        lines.append(_pair("  tokens", fmt_tokens(b.tokens), fmt_tokens(f.tokens)))
        lines.append(_pair("  cost", fmt_cost(b.cost), fmt_cost(f.cost), _COST))
    return Content("\n").join(lines)


def _tools_block(report: UsageReport) -> Content:
    def table(title: str, b: UsageTotals, f: UsageTotals) -> list[Content]:
        return [
            _pair_head(title),
            _pair("  tokens", fmt_tokens(b.tokens), fmt_tokens(f.tokens)),
            _pair("  cost", fmt_cost(b.cost), fmt_cost(f.cost), _COST),
            _pair("  calls", f"{b.count:,}", f"{f.count:,}"),
        ]

    if not report.tools_all.count:
        lines = [_pair_head("Tool results"), Content.styled("no nested model usage", _MUTED)]
    else:
        lines = table("Tool results", report.tools_path, report.tools_all)
    if report.side_all.count:  # oh-my-pi's model_usage entries: their own kind, apart
        lines += table("Other model work", report.side_path, report.side_all)
    return Content("\n").join(lines)


_BRANCH_LABEL = 17
_BRANCH_COL = 7


def _branch_line(
    label: str, cost: float, tokens: float, style: str = _MUTED, mark: str = ""
) -> Content:
    room = _BRANCH_LABEL - 1 - len(mark)
    if len(label) > room:
        label = label[: room - 1] + "…"
    return Content.assemble(
        (label, style),
        (mark.ljust(_BRANCH_LABEL - len(label)), "bold $text-accent"),
        ((fmt_cost_tiny(cost) if cost else "$0").rjust(_BRANCH_COL), _COST),
        fmt_tokens(tokens).rjust(_BRANCH_COL),
    )


def _branches_block(costs: BranchCosts) -> Content:
    """Cost by branch: each leaf's own part since its fork point, the most expensive first
    (``◀`` marks the branch shown), then the abandoned branches and the summaries."""
    head = Content.assemble(
        ("By branch".ljust(_BRANCH_LABEL), _HEAD),
        *[(h.rjust(_BRANCH_COL), _HEAD) for h in ("cost", "tokens")],
    )
    lines = [head]
    for b in costs.listed:
        if b.active:
            lines.append(_branch_line(b.name, b.part.cost, b.part.tokens, "bold", " ◀"))
        else:
            lines.append(_branch_line(b.name, b.part.cost, b.part.tokens, ""))
    if costs.rest_count:
        lines.append(_branch_line(f"+{costs.rest_count} more", costs.rest.cost, costs.rest.tokens))
    a = costs.abandoned
    lines.append(_branch_line("abandoned", a.cost, a.tokens))
    if costs.summaries.count:
        sm = costs.summaries
        lines.append(_branch_line(f"summaries ({sm.count})", sm.cost, sm.tokens))
    return Content("\n").join(lines)


def _context_stats(sizes: list[float]) -> Content:
    if not sizes:
        return Content.styled("no assistant turns on this branch", _MUTED)
    w = 10
    labels = Content.assemble(*[(h.rjust(w), _MUTED) for h in ("min", "max", "last")])
    figures = (min(sizes), max(sizes), sizes[-1])
    values = Content.assemble(*[fmt_tokens(v).rjust(w) for v in figures])
    return Content("\n").join([labels, values])


class UsageSidebar(VerticalScroll):
    """Token and cost figures of a :class:`~piview.model.usage.UsageReport`, about 34 columns:
    the session's total as Pi's ``/session`` has it, totals of branch / file / abandoned, cost
    by branch, per model, tool results' usage, and the context size per turn.

    Set :attr:`report` (or call :meth:`show`) to update it.
    """

    DEFAULT_CSS = """
    UsageSidebar {
        width: 34;
        height: 1fr;
        padding: 0 1;
        scrollbar-size-vertical: 1;
    }
    UsageSidebar > Static {
        width: 1fr;
        height: auto;
    }
    UsageSidebar > .-section {
        margin-bottom: 1;
    }
    UsageSidebar > Sparkline {
        height: 2;
    }
    """

    # The hint as a string: the usage model is not imported before the first screen.
    report: reactive[UsageReport | None] = reactive["UsageReport | None"](None, init=False)
    """The figures shown; ``None`` shows a placeholder."""
    branches: BranchCosts | None = None
    """The cost by branch shown below the totals (``None``: the section is empty)."""
    family: tuple[UsageTotals, UsageTotals, int] | None = None
    """This file's model calls, its subagents' and how many files they are (``None``: no
    subagents)."""

    def compose(self) -> ComposeResult:
        """Nothing yet: the sections are mounted when the sidebar is first shown (it starts
        hidden, and each widget mounted costs the first screen a few milliseconds)."""
        yield from ()

    def on_show(self) -> None:
        """Mount and fill the sections, the first time."""
        if not self.children:
            # Imported here: Sparkline (and statistics under it) when the sidebar first shows.
            from textual.widgets import Sparkline

            self.mount_all(
                [
                    Static(id="usage-total", classes="-section"),
                    Static(id="usage-family", classes="-section"),
                    Static(id="usage-totals", classes="-section"),
                    Static(id="usage-branches", classes="-section"),
                    Static(id="usage-models", classes="-section"),
                    Static(id="usage-tools", classes="-section"),
                    Static(Content.styled("Context per turn", _HEAD), id="usage-context-title"),
                    Sparkline([], id="usage-sparkline"),
                    Static(id="usage-context-stats"),
                ]
            )
            self._fill()

    empty_text = "No usage to show"

    def show(
        self,
        report: UsageReport | None,
        *,
        waiting: bool = False,
        branches: BranchCosts | None = None,
    ) -> None:
        """Show ``report`` (same as setting :attr:`report`) and the cost of ``branches``;
        ``waiting``: it is being summed."""
        self.empty_text = "Summing usage…" if waiting else "No usage to show"
        self.branches = branches
        if report is self.report:
            self._fill()
        self.report = report
        if report is None:
            self._fill()

    def show_family(self, own: UsageTotals, children: UsageTotals, files: int) -> None:
        """Show "with subagents": ``own`` (this file's model calls) and ``children`` (those
        of its ``files`` subagent files, each once)."""
        self.family = (own, children, files)
        self._fill()

    def watch_report(self) -> None:
        """Refill the sections."""
        self._fill()

    def _fill(self) -> None:
        try:
            totals = self.query_one("#usage-totals", Static)
        except NoMatches:
            return  # not shown yet: on_show fills it
        report = self.report
        total = self.query_one("#usage-total", Static)
        total.display = report is not None
        family = self.query_one("#usage-family", Static)
        family.display = self.family is not None
        if self.family is not None:
            family.update(_family_block(*self.family))
        models = self.query_one("#usage-models", Static)
        branches = self.query_one("#usage-branches", Static)
        branches.display = report is not None and self.branches is not None
        if report is not None and self.branches is not None:
            branches.update(_branches_block(self.branches))
        tools = self.query_one("#usage-tools", Static)
        from textual.widgets import Sparkline  # loaded by on_show already

        spark = self.query_one("#usage-sparkline", Sparkline)
        stats = self.query_one("#usage-context-stats", Static)
        if report is None:
            totals.update(Content.styled(self.empty_text, _MUTED))
            for w in (models, tools):
                w.update("")
            spark.data = []
            spark.display = False
            stats.update("")
            return
        total.update(_total_block(report))
        totals.update(_totals_block(report))
        models.update(_models_block(report))
        tools.update(_tools_block(report))
        sizes = [s for _, s in report.context_sizes]
        spark.data = sizes
        spark.display = bool(sizes)
        stats.update(_context_stats(sizes))
