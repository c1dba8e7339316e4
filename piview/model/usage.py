"""Provides token and cost totals over any set of entries.

Model usage comes from assistant messages. A tool result may carry the usage of nested model
work done by the tool: it counts in session totals but is kept apart from main-model usage.
``reasoning`` is already part of ``output`` and is never added to it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields

from piview.model.decode import SkEntry
from piview.model.types import Usage, number

__all__ = ["UsageTotals", "UsageReport", "usage_report", "sum_usage"]


@dataclass(slots=True)
class UsageTotals:
    """Summed usage. Token fields are counts; ``cost`` is dollars."""

    input: float = 0
    output: float = 0
    cache_read: float = 0
    cache_write: float = 0
    cache_write1h: float = 0
    reasoning: float = 0
    cost: float = 0
    count: int = 0
    """How many usage records were added."""

    def add(self, usage: Usage | None) -> None:
        """Add one usage record (``None`` is ignored).

        Files are hand-editable: :func:`~piview.model.types.number` reads NaN, infinities,
        booleans and absurd sizes as 0 (10**400 would make the sums raise).
        """
        if usage is None:
            return
        self.count += 1
        self.input += number(usage.input)
        self.output += number(usage.output)
        self.cache_read += number(usage.cache_read)
        self.cache_write += number(usage.cache_write)
        self.cache_write1h += number(usage.cache_write1h)
        self.reasoning += number(usage.reasoning)
        if usage.cost is not None:
            self.cost += usage.cost.total_cost()

    def __iadd__(self, other: UsageTotals) -> UsageTotals:
        for f in fields(self):
            setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))
        return self

    def __sub__(self, other: UsageTotals) -> UsageTotals:
        out = UsageTotals()
        for f in fields(self):
            setattr(out, f.name, getattr(self, f.name) - getattr(other, f.name))
        return out

    @property
    def tokens(self) -> float:
        """input + output + cache read + cache write (reasoning is inside output)."""
        return self.input + self.output + self.cache_read + self.cache_write

    def as_json(self) -> dict[str, float]:
        """The totals with the JSON key names of ``piview info --json``."""

        def n(v: float) -> float | int:
            return int(v) if float(v).is_integer() else v

        return {
            "input": n(self.input),
            "output": n(self.output),
            "cacheRead": n(self.cache_read),
            "cacheWrite": n(self.cache_write),
            "cacheWrite1h": n(self.cache_write1h),
            "reasoning": n(self.reasoning),
            "cost": round(self.cost, 10),
        }


def model_key(node: SkEntry) -> str:
    """``provider/model`` of an assistant skeleton."""
    msg = node.message
    if msg is None:
        return "?"
    provider = msg.provider or "?"
    model = msg.model or "?"
    return f"{provider}/{model}"


def sum_usage(nodes: list[SkEntry], indices: Iterable[int], role: str = "assistant") -> UsageTotals:
    """Sum the usage of the messages with ``role`` among ``indices``."""
    out = UsageTotals()
    for i in indices:
        msg = nodes[i].message
        if msg is not None and msg.role == role:
            out.add(msg.usage)
    return out


@dataclass(slots=True)
class UsageReport:
    """Usage of one branch against the whole file."""

    path: UsageTotals
    """Assistant usage on the branch shown."""
    all: UsageTotals
    """Assistant usage in the whole file."""
    abandoned: UsageTotals
    """Assistant usage off the branch shown (all minus path)."""
    tools_path: UsageTotals
    """Nested usage reported by tool results on the branch."""
    tools_all: UsageTotals
    """Nested usage reported by tool results in the whole file."""
    per_model_path: dict[str, UsageTotals]
    per_model_all: dict[str, UsageTotals]
    context_sizes: list[tuple[int, float]]
    """Per assistant turn on the branch: (entry index, input + cacheRead)."""


def usage_report(nodes: list[SkEntry], path: list[int]) -> UsageReport:
    """Compute every usage figure for the branch ``path`` (root to leaf) of a file."""
    on_path = set(path)
    total = UsageTotals()
    branch = UsageTotals()
    tools_all = UsageTotals()
    tools_path = UsageTotals()
    per_all: dict[str, UsageTotals] = {}
    per_path: dict[str, UsageTotals] = {}
    for i, node in enumerate(nodes):
        msg = node.message
        if msg is None or msg.usage is None:
            continue
        if msg.role == "assistant":
            key = model_key(node)
            total.add(msg.usage)
            per_all.setdefault(key, UsageTotals()).add(msg.usage)
            if i in on_path:
                branch.add(msg.usage)
                per_path.setdefault(key, UsageTotals()).add(msg.usage)
        elif msg.role == "toolResult":
            tools_all.add(msg.usage)
            if i in on_path:
                tools_path.add(msg.usage)
    sizes: list[tuple[int, float]] = []
    for i in path:
        msg = nodes[i].message
        if msg is not None and msg.role == "assistant" and msg.usage is not None:
            sizes.append((i, number(msg.usage.input) + number(msg.usage.cache_read)))
    return UsageReport(
        path=branch,
        all=total,
        abandoned=total - branch,
        tools_path=tools_path,
        tools_all=tools_all,
        per_model_path=per_path,
        per_model_all=per_all,
        context_sizes=sizes,
    )
