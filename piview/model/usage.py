"""Provides token and cost totals over any set of entries.

Main-model usage comes from assistant messages, nested usage from tool results, and summary
usage from compaction and branch summaries; Pi's ``/session`` total sums the three
(:func:`pi_total`). ``reasoning`` is already part of ``output``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, Protocol

from piview.model.decode import SkEntry
from piview.model.pairing import Pairing
from piview.model.store import ROLE_NAMES, NodeStore, as_store
from piview.model.tree import Tree
from piview.model.types import Usage, number

SUMMARY_TYPES = ("compaction", "branch_summary")
"""Entry types whose ``usage`` is the model call that wrote their summary."""
TOOLS_SUMMARIES = "Tools/summaries"
"""Pi's ``/session`` line for the usage of tool results and summaries (no model named)."""


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
        """Add one usage record (``None`` is ignored); :func:`~piview.model.types.number`
        reads NaN, infinities, booleans and absurd sizes as 0."""
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

    def __add__(self, other: UsageTotals) -> UsageTotals:
        out = UsageTotals()
        out += self
        out += other
        return out

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
    return model_label(msg.provider, msg.model)


def model_label(provider: str | None, model: str | None) -> str:
    """``provider/model``, with ``?`` for a missing part."""
    return f"{provider or '?'}/{model or '?'}"


def sum_usage(
    nodes: Sequence[SkEntry], indices: Iterable[int], role: str = "assistant"
) -> UsageTotals:
    """Sum the usage of the messages with ``role`` among ``indices``."""
    store = as_store(nodes)
    out = UsageTotals()
    if isinstance(indices, range) and indices == range(len(store)) and role in ROLE_NAMES:
        indices = store.of_role(role)  # the whole file: skip other roles at C speed
    for i in indices:
        if store.role(i) == role:
            out.add(store.message_usage(i))
    return out


def sum_summaries(nodes: Sequence[SkEntry], indices: Iterable[int] | None = None) -> UsageTotals:
    """Sum the usage of the compaction and branch-summary entries among ``indices`` (default:
    the whole file). Such entries are kept whole: a walk of those, at any size."""
    store = as_store(nodes)
    out = UsageTotals()
    wanted = None if indices is None else set(indices)
    for i in store.whole_indices():
        sk = store.whole[i]
        if sk.type in SUMMARY_TYPES and (wanted is None or i in wanted):
            out.add(sk.usage)
    return out


def pi_total(*parts: UsageTotals) -> UsageTotals:
    """The sum of ``parts`` (assistant, tool results, summaries): Pi's session total."""
    out = UsageTotals()
    for part in parts:
        out += part
    return out


SUMS_KEY = "usage sums"
"""``Session.derived[(SUMS_KEY, leaf)]``: the usage sums of ``piview info`` for ``leaf``'s
branch, as :func:`info_sums` computes them (the index cache keeps them)."""


class _Session(Protocol):
    """What :func:`info_sums` reads of a :class:`~piview.model.session.Session`."""

    tree: Tree
    derived: dict[object, Any]

    @property
    def nodes(self) -> NodeStore: ...
    @property
    def pairing(self) -> Pairing: ...


def info_sums(
    session: _Session, leaf: int | None, path: list[int] | None = None
) -> dict[str, UsageTotals]:
    """The usage sums of ``piview info`` for ``leaf``'s branch: ``path``, ``all``, ``tools``
    and ``summaries``, kept in ``session.derived`` (and the index cache's extras)."""
    key = (SUMS_KEY, -1 if leaf is None else leaf)
    found: dict[str, UsageTotals] | None = session.derived.get(key)
    if found is None:
        nodes = session.nodes
        if path is None:
            path = session.tree.path(leaf) if leaf is not None else []
        tools = UsageTotals()
        for i in session.pairing.results:
            tools.add(nodes.message_usage(i))
        found = {
            "path": sum_usage(nodes, path),
            "all": sum_usage(nodes, range(len(nodes))),
            "tools": tools,
            "summaries": sum_summaries(nodes),
        }
        session.derived[key] = found
    return found


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
    side_path: UsageTotals = field(default_factory=UsageTotals)
    """oh-my-pi's ``model_usage`` entries on the branch: model work outside the conversation
    (titles, summaries), never counted as main-model turns."""
    side_all: UsageTotals = field(default_factory=UsageTotals)
    """The same in the whole file."""
    summaries_path: UsageTotals = field(default_factory=UsageTotals)
    """The usage of the compaction and branch-summary entries on the branch."""
    summaries_all: UsageTotals = field(default_factory=UsageTotals)
    """The same in the whole file."""
    answered_all: dict[str, UsageTotals] = field(default_factory=dict)
    """Assistant usage in the whole file per ``provider/model`` of the model that answered
    (``responseModel`` where the provider named one), as Pi's ``/session`` groups it."""

    @property
    def total_all(self) -> UsageTotals:
        """What Pi's ``/session`` reports: assistant, tool-result and summary usage over
        the whole file."""
        return pi_total(self.all, self.tools_all, self.summaries_all)


def pi_breakdown(report: UsageReport) -> list[tuple[str, UsageTotals]]:
    """The lines of Pi's ``/session`` cost breakdown for the whole file (``getUsageCostBreakdown``):
    usage per ``provider/model`` and one :data:`TOOLS_SUMMARIES` line, the most expensive first."""
    lines = list(report.answered_all.items())
    lines.append((TOOLS_SUMMARIES, pi_total(report.tools_all, report.summaries_all)))
    kept = [(k, t) for k, t in lines if t.cost > 0 or t.tokens > 0]
    return sorted(kept, key=lambda kt: -kt[1].cost)  # stable, as Pi's sort


def usage_report(nodes: Sequence[SkEntry], path: Sequence[int]) -> UsageReport:
    """Compute every usage figure for the branch ``path`` (root to leaf) of a file."""
    store = as_store(nodes)
    on_path = set(path)
    total = UsageTotals()
    branch = UsageTotals()
    tools_all = UsageTotals()
    tools_path = UsageTotals()
    per_all: dict[str, UsageTotals] = {}
    per_path: dict[str, UsageTotals] = {}
    answered: dict[str, UsageTotals] = {}
    whole = store.whole
    roles = store.roles
    assistant, tool_result = ROLE_NAMES.index("assistant"), ROLE_NAMES.index("toolResult")
    for i in _with_usage(store):
        role = roles[i]
        if role != assistant and role != tool_result:
            continue
        usage = store.message_usage(i)
        if usage is None:
            continue
        if role == assistant:
            key = model_label(*store.model(i))
            total.add(usage)
            per_all.setdefault(key, UsageTotals()).add(usage)
            # responseModel is rare: a message with one is kept whole (its skeleton has it).
            sk = whole.get(i)
            answer = sk.message.response_model if sk is not None and sk.message else None
            named = model_label(store.model(i)[0], answer) if answer else key
            answered.setdefault(named, UsageTotals()).add(usage)
            if i in on_path:
                branch.add(usage)
                per_path.setdefault(key, UsageTotals()).add(usage)
        else:
            tools_all.add(usage)
            if i in on_path:
                tools_path.add(usage)
    side_all, side_path = UsageTotals(), UsageTotals()
    for i in store.of_type("model_usage"):  # rare entries, kept whole: a scan at C speed
        side_all.add(store[i].usage)
        if i in on_path:
            side_path.add(store[i].usage)
    summaries_all, summaries_path = UsageTotals(), UsageTotals()
    for i in store.whole_indices():  # summaries are kept whole
        sk = store.whole[i]
        if sk.type in SUMMARY_TYPES and sk.usage is not None:
            summaries_all.add(sk.usage)
            if i in on_path:
                summaries_path.add(sk.usage)
    sizes: list[tuple[int, float]] = []
    for i in path:
        if roles[i] == assistant:
            usage = store.message_usage(i)
            if usage is not None:
                sizes.append((i, number(usage.input) + number(usage.cache_read)))
    return UsageReport(
        path=branch,
        all=total,
        abandoned=total - branch,
        tools_path=tools_path,
        tools_all=tools_all,
        per_model_path=per_path,
        per_model_all=per_all,
        context_sizes=sizes,
        side_path=side_path,
        side_all=side_all,
        summaries_path=summaries_path,
        summaries_all=summaries_all,
        answered_all=answered,
    )


def _with_usage(store: NodeStore) -> list[int]:
    """Messages that may carry usage, in file order: those with a usage row, and messages
    kept whole."""
    at = store.usage_at
    rows = [i for i, r in enumerate(at) if r >= 0]
    whole = [i for i, n in store.whole.items() if n.message is not None]
    return sorted(rows + whole) if whole else rows
