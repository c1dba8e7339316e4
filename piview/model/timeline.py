"""Provides a branch's timeline: where the time and the context went, shaped like Pi's loop.

A user prompt starts a *run*; each assistant message and the tool calls it makes are one
*turn* (Pi's ``agent-loop``). :func:`build_timeline` walks the branch once (linear in its
length) and gives, per turn, the model's time, each tool call's span, and the
tokens of the context Pi built for it, split by what they are (``piview timeline``, the
timeline screen of issue 31).

Measured and inferred times:

- *Measured*: every entry's ``timestamp`` (when Pi wrote the line) and a message's own
  ``timestamp`` (when Pi made the message: for an assistant message, when pi-ai started the
  request, so the wait for the first token is in). ``model_ms`` is the entry's time minus
  the message's (the issue's "streaming" time); a call starts when its assistant entry was
  written and ends at its result's entry.
- *Inferred*: whatever the file does not say. A missing or unreadable time takes the last
  good time before it on the branch, and a time earlier than that one (a clock step, a
  hand-edited file) is clamped to it; such a span is 0 ms long and flagged ``inferred``.
  A call without a result on the branch (aborted) is 0 ms long, its end inferred. A file
  without a single good time has ISO times of None and every span 0.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import msgspec

from piview.model.context import context_kind as _is_context_entry
from piview.model.decode import BadLineError, decode_entry
from piview.model.estimate import entry_estimate, estimate_split
from piview.model.store_ts import GAP_MS, TS_LEN, unpack_ts
from piview.model.tree import parse_iso_ms
from piview.model.types import (
    AssistantMessage,
    BranchSummaryEntry,
    CompactionEntry,
    CustomMessageEntry,
    MessageEntry,
    UnknownMessage,
)

if TYPE_CHECKING:
    from piview.model.session import Session
    from piview.model.store import NodeStore

_WRITE_SLACK_MS = 1_000.0
"""How much earlier than the entry before it a turn's request may start: Pi writes an entry
after its message ends, and the next request starts meanwhile (a few ms, measured)."""

MarkerKind = Literal["compaction", "model_change", "error", "idle"]

IDLE_MS = 60_000.0
"""A gap longer than this (waiting on the user, or anything else) is an ``idle`` marker: the
screen folds it, so one coffee break does not flatten the rest."""


@dataclass(slots=True)
class ToolSpan:
    """One tool call of a turn, from the call to its result."""

    id: str
    """The call's id (``toolCall.id``)."""
    name: str
    start_ms: float
    """When its assistant entry was written, in ms since the run's start."""
    end_ms: float
    """When its result's entry was written, in ms since the run's start (without a result on
    the branch: its start, and :attr:`inferred`)."""
    is_error: bool
    result: int | None = None
    """The entry index of its result on the branch, or None."""
    inferred: bool = False
    """A time the span rests on was missing, out of order, or the result is missing."""

    def to_json(self) -> dict[str, Any]:
        """``{id, name, start_ms, end_ms, is_error}`` of the JSON contract."""
        return {
            "id": self.id,
            "name": self.name,
            "start_ms": _ms(self.start_ms),
            "end_ms": _ms(self.end_ms),
            "is_error": self.is_error,
        }


@dataclass(slots=True)
class TurnContext:
    """The tokens of the context Pi built for a turn (its input), split by what they are.

    The parts are Pi's own estimate (``estimateTokens``, :mod:`piview.model.estimate`) of
    the messages of the context ``piview context`` gives at the entry before the turn (the
    turn's parent, :attr:`Turn.context_at`), summed by kind: they sum exactly to that
    context's ``estimate`` (each message's estimate is a whole number, ``ceil(chars / 4)``;
    an assistant message's is split into :attr:`thinking`, ``floor(thinking chars / 4)``,
    and the rest, :attr:`assistant`). :attr:`reported_input` is the measured truth beside it.
    """

    system: int = 0
    """System-role messages in the context (oh-my-pi), and roles ``convertToLlm`` does not
    send: ``piview context`` lists them unsent, without an estimate, and Pi estimates them
    at 0, so this is 0 (kept for the shape of the JSON)."""
    user: int = 0
    """User messages, custom messages (an extension's context) and ``!`` bash runs."""
    assistant: int = 0
    """Assistant messages: text and tool calls (their estimate less :attr:`thinking`)."""
    thinking: int = 0
    """The thinking blocks' part of the assistant messages' estimate: ``floor(thinking
    chars / 4)`` of each message."""
    tools: dict[str, int] = field(default_factory=dict)
    """Tool results by tool name."""
    summaries: int = 0
    """Compaction and branch summaries (a compaction's retained messages count by their
    own kind)."""
    reported_input: int | None = None
    """The turn's own usage: input + cacheRead + cacheWrite, as Pi reports it (measured)."""

    @property
    def total(self) -> int:
        """The sum of the parts: ``piview context --json``'s ``estimate`` at
        :attr:`Turn.context_at`."""
        return (
            self.system
            + self.user
            + self.assistant
            + self.thinking
            + sum(self.tools.values())
            + self.summaries
        )

    def to_json(self) -> dict[str, Any]:
        """``{system, user, assistant, thinking, tools, summaries, reported_input}``."""
        return {
            "system": self.system,
            "user": self.user,
            "assistant": self.assistant,
            "thinking": self.thinking,
            "tools": dict(self.tools),
            "summaries": self.summaries,
            "reported_input": self.reported_input,
        }


@dataclass(slots=True)
class Turn:
    """One assistant message and the tool calls it makes."""

    entry: int
    """The assistant message's entry index."""
    start_ms: float
    """When the model's request started (the message's own ``timestamp``), in ms since the
    run's start; the entry before's time when the message's is missing or unusable."""
    model_ms: float
    """Model time (request to the message's end, the issue's "streaming"): the entry's time
    minus the message's own ``timestamp`` (measured;
    inferred, from the entry before, when the message's time is missing, and clamped between
    the entry before and its own entry when after its entry or over a second before the
    entry before)."""
    end_ms: float
    """When the turn ended: its last tool result, else its own entry (ms since run start)."""
    tools: list[ToolSpan]
    context: TurnContext
    context_at: int | None
    """The entry ``piview context --at`` gives :attr:`context` for (the turn's parent)."""
    stop_reason: str | None = None
    model: str | None = None
    """``provider/model`` of the message."""
    inferred: bool = False
    """:attr:`model_ms` or :attr:`start_ms` rests on a missing or clamped time."""

    def to_json(self, session: Session) -> dict[str, Any]:
        """``{entry_id, model_ms, tools, context}`` of the JSON contract."""
        return {
            "entry_id": session.ids[self.entry],
            "model_ms": _ms(self.model_ms),
            "tools": [t.to_json() for t in self.tools],
            "context": self.context.to_json(),
        }


@dataclass(slots=True)
class Run:
    """A user prompt and the turns that answer it."""

    entry: int | None
    """The user message's entry index; None for turns before any prompt on the branch."""
    start: str | None
    """ISO time of the prompt's entry (of the first entry of the run without a prompt)."""
    end: str | None
    """ISO time of the run's last entry (its last tool result or assistant message)."""
    start_epoch_ms: float
    """:attr:`start` in ms since the epoch (0 when no entry of the file has a time); every
    ``*_ms`` offset of the run's turns and calls is from it."""
    wall_ms: float
    """From the run's start to its end."""
    wait_ms: float
    """The gap before this prompt since the previous run ended (0 for the first run)."""
    turns: list[Turn]
    inferred: bool = False
    """The run's start (so its wait) rests on a missing or clamped time, or it has no prompt
    (it starts when its first turn's request did)."""

    def to_json(self, session: Session) -> dict[str, Any]:
        """``{entry_id, start, end, wait_ms, turns}`` of the JSON contract."""
        return {
            "entry_id": session.ids[self.entry] if self.entry is not None else None,
            "start": self.start,
            "end": self.end,
            "wait_ms": _ms(self.wait_ms),
            "turns": [t.to_json(session) for t in self.turns],
        }


@dataclass(slots=True)
class ToolTotals:
    """One tool name's calls over the branch."""

    calls: int = 0
    total_ms: float = 0.0
    p50_ms: float = 0.0
    """The median call (the lower middle of an even count: a time one call took)."""
    max_ms: float = 0.0
    errors: int = 0

    def to_json(self) -> dict[str, Any]:
        """``{calls, total_ms, p50_ms, max_ms, errors}``."""
        return {
            "calls": self.calls,
            "total_ms": _ms(self.total_ms),
            "p50_ms": _ms(self.p50_ms),
            "max_ms": _ms(self.max_ms),
            "errors": self.errors,
        }


@dataclass(slots=True)
class Totals:
    """The branch's time, summed over its runs."""

    wall_ms: float = 0.0
    """From the first run's start to the last run's end (waits included)."""
    model_ms: float = 0.0
    """Every turn's model time."""
    tool_ms: float = 0.0
    """Time with at least one tool call running (parallel calls counted once)."""
    wait_ms: float = 0.0
    """Every run's wait before its prompt."""
    by_tool: dict[str, ToolTotals] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """``{wall_ms, model_ms, tool_ms, wait_ms, by_tool}``."""
        return {
            "wall_ms": _ms(self.wall_ms),
            "model_ms": _ms(self.model_ms),
            "tool_ms": _ms(self.tool_ms),
            "wait_ms": _ms(self.wait_ms),
            "by_tool": {name: t.to_json() for name, t in self.by_tool.items()},
        }


@dataclass(slots=True)
class Marker:
    """Something the screen marks on the timeline (not part of the JSON contract)."""

    kind: MarkerKind
    entry: int
    """The compaction, model change or assistant message (for ``error``), or the entry
    after the gap (``idle``)."""
    run: int
    """Index of the run it falls in (or before, for a compaction between runs)."""
    at_ms: float
    """Where it is, in ms since that run's start (``idle``: where the gap begins, negative
    for the wait before the run's prompt)."""
    duration_ms: float = 0.0
    """``idle``: the gap's length (over :data:`IDLE_MS`)."""
    detail: str = ""
    """``model_change``: the new ``provider/model``; ``error``: the stop reason."""


@dataclass(slots=True)
class Timeline:
    """A branch's runs, totals and markers."""

    leaf: int | None
    runs: list[Run]
    totals: Totals
    markers: list[Marker]
    path: list[int] = field(default_factory=list)
    """The branch, root to leaf."""

    def to_json(self, session: Session) -> dict[str, Any]:
        """The ``piview timeline --json`` object: exactly ``runs`` and ``totals``."""
        return {
            "runs": [r.to_json(session) for r in self.runs],
            "totals": self.totals.to_json(),
        }


def _ms(value: float) -> int:
    return int(round(value))


# ---- times ---------------------------------------------------------------------------------


def _entry_times(session: Session, path: list[int]) -> tuple[list[float], list[bool]]:
    """Each entry's time on the branch in ms since the epoch, and whether it was inferred.

    A missing or unreadable time takes the last good one before it (the first good one, for
    those before it); a time earlier than the last good one is clamped to it. So the times
    never go back, and every span drawn from them is 0 or more.
    """
    nodes = session.nodes
    column = getattr(nodes, "ts", None)
    raw: list[float | None] = []
    for i in path:
        v = GAP_MS
        if column is not None and len(column) >= (i + 1) * TS_LEN:
            k = i * TS_LEN
            v = int.from_bytes(column[k : k + TS_LEN], "little", signed=True)
        # The column holds Pi's exact form as ms; any other form is kept as written.
        raw.append(float(v) if v != GAP_MS else parse_iso_ms(nodes.timestamp(i)))
    first = next((t for t in raw if t is not None), 0.0)
    times: list[float] = []
    inferred: list[bool] = []
    last = first
    for t in raw:
        if t is None or t < last:
            times.append(last)
            inferred.append(True)
        else:
            times.append(t)
            inferred.append(False)
            last = t
    return times, inferred


def _iso(ms: float) -> str:
    """Pi's ``toISOString()`` form of ``ms`` since the epoch."""
    try:
        return unpack_ts(int(ms))
    except (ValueError, OverflowError):
        return ""


class _Message(msgspec.Struct, gc=False):
    timestamp: Any = None


class _Line(msgspec.Struct, gc=False):
    message: _Message | None = None


_line_decoder = msgspec.json.Decoder(_Line)


def _assistant_stamp(session: Session, i: int) -> float | None:
    """The message timestamp in ms of an assistant entry, read from its line without
    decoding the rest."""
    try:
        line = _line_decoder.decode(session.read_line(i))
    except (msgspec.DecodeError, RecursionError):
        raw = session.raw(i)
        msg = raw.get("message") if isinstance(raw, dict) else None
        return _stamp(msg.get("timestamp")) if isinstance(msg, dict) else None
    return _stamp(line.message.timestamp) if line.message is not None else None


def _stamp(value: object) -> float | None:
    """A message's ``timestamp`` (ms since the epoch, or an ISO string) in ms, or None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        v = float(value)
        return v if math.isfinite(v) and 0 < v < 253_402_300_800_000 else None
    return parse_iso_ms(value)


# ---- context -------------------------------------------------------------------------------

_USER_ROLES = frozenset({"user", "custom", "bashExecution"})
_SUMMARY_ROLES = frozenset({"branchSummary", "compactionSummary"})
_TOOL = "tool:"  # the prefix of a tool result's key in the running sums


def _role_key(role: str | None, tool_name: str | None) -> str:
    """The part of :class:`TurnContext` a context message of ``role`` counts in."""
    if role in _USER_ROLES:
        return "user"
    if role == "assistant":
        return "assistant"
    if role == "toolResult":
        return _TOOL + (tool_name or "?")
    if role in _SUMMARY_ROLES:
        return "summaries"
    return "system"  # system messages, and roles convertToLlm does not send


class _Cumulative:
    """Running sums of estimates by key along the branch, readable at any earlier position.

    Each key keeps the positions where it grew and its sum after each (sparse: a key grows
    only at the entries of its kind), so the sum of a span of the branch is two bisects.
    """

    __slots__ = ("positions", "sums")

    def __init__(self) -> None:
        self.positions: dict[str, list[int]] = {}
        self.sums: dict[str, list[int]] = {}

    def add(self, pos: int, key: str, size: int) -> None:
        ps = self.positions.get(key)
        if ps is None:
            self.positions[key], self.sums[key] = [pos], [size]
            return
        ss = self.sums[key]
        if ps[-1] == pos:
            ss[-1] += size
        else:
            ps.append(pos)
            ss.append(ss[-1] + size)

    def before(self, key: str, pos: int) -> int:
        """The key's sum over the positions before ``pos``."""
        ps = self.positions[key]
        k = bisect.bisect_left(ps, pos)
        return self.sums[key][k - 1] if k else 0

    def span(self, lo: int, hi: int) -> dict[str, int]:
        """Sums by key over positions ``lo`` to ``hi - 1``."""
        out: dict[str, int] = {}
        for key in self.positions:
            v = self.before(key, hi) - self.before(key, lo)
            if v:
                out[key] = v
        return out


def _add(into: dict[str, int], key: str, size: int) -> None:
    into[key] = into.get(key, 0) + size


def _parts(sizes: dict[str, int], reported: int | None) -> TurnContext:
    """The context's estimates by key as a :class:`TurnContext`."""
    ctx = TurnContext(reported_input=reported)
    for key, n in sizes.items():
        if key.startswith(_TOOL):
            ctx.tools[key[len(_TOOL) :]] = n
        elif key == "user":
            ctx.user = n
        elif key == "assistant":
            ctx.assistant = n
        elif key == "thinking":
            ctx.thinking = n
        elif key == "summaries":
            ctx.summaries = n
        else:
            ctx.system = n
    return ctx


def _usage_total(nodes: NodeStore, i: int) -> float | None:
    """Input + cacheRead + cacheWrite of an assistant message, or None without usage."""
    if nodes.role(i) != "assistant":
        return None
    u = nodes.message_usage(i)
    if u is None:
        return None
    return float(u.input or 0) + float(u.cache_read or 0) + float(u.cache_write or 0)


def _message_estimates(message: object) -> list[tuple[str, int]]:
    """The keys and Pi's estimates a context message adds (an assistant message's split
    into its thinking and the rest, which sum to its estimate)."""
    n, thinking = estimate_split(message)
    if isinstance(message, AssistantMessage):
        return [("assistant", n - thinking), ("thinking", thinking)]
    if isinstance(message, UnknownMessage):
        return [("system", n)]
    role = str(message.__struct_config__.tag)  # type: ignore[attr-defined]
    return [(_role_key(role, getattr(message, "tool_name", None)), n)]


def _compaction_estimates(entry: object) -> tuple[int, list[tuple[str, int]] | None]:
    """A compaction's summary estimate, and its retained tail's keys and estimates (newer
    Pi), or None when it keeps none."""
    if not isinstance(entry, CompactionEntry):
        return 0, None
    tail = entry.retained_tail
    if not tail:
        return entry_estimate(entry), None
    return entry_estimate(entry), [kv for m in tail for kv in _message_estimates(m)]


def _decoded(session: Session, i: int) -> object:
    """Entry ``i`` decoded as :meth:`Session.entry` decodes it (without its cache: each
    entry of the branch is read once)."""
    try:
        return decode_entry(session.read_line(i), legacy=session.version < 3)[0]
    except (BadLineError, RecursionError):
        return None


# ---- the walk ------------------------------------------------------------------------------


def build_timeline(session: Session, leaf: int | None = None) -> Timeline:
    """The timeline of the branch from the root to ``leaf`` (default: the current leaf),
    in one walk of the branch (plus one for the times).

    Each turn's context is the one :func:`piview.model.context.build_context` gives at the
    turn's parent, kept as running sums of its messages' estimates by kind (restarting at a
    compaction or an oh-my-pi ``/clear``, as it does): each message is decoded and estimated
    once, and no turn rebuilds the context.
    """
    tree = session.tree
    if leaf is None:
        leaf = tree.leaf
    if leaf is None:
        return Timeline(None, [], Totals(), [], [])
    path = tree.path(leaf)
    times, inferred = _entry_times(session, path)
    timed = not all(inferred)  # a file without a single good time has no ISO times
    nodes = session.nodes
    ids = session.ids
    pairing = session.pairing
    pos_of = {i: pos for pos, i in enumerate(path)}

    runs: list[Run] = []
    markers: list[Marker] = []
    run: Run | None = None
    covered = 0.0  # the run's busy time so far ends here (idle gaps are measured from it)
    prev_end: float | None = None  # when the previous run ended

    # The context, as build_context would give it at the current position.
    cum = _Cumulative()
    # Estimates by key of the context at the current position: a compaction's summary and
    # what it kept, then the context entries after it (or after a /clear).
    sizes: dict[str, int] = {}
    lo = 0  # the first position after the last /clear
    first_pos: dict[str, int] = {}  # an id's first position on the branch

    def close(r: Run) -> None:
        nonlocal prev_end
        end = r.start_epoch_ms
        for t in r.turns:
            end = max(end, (r.start_epoch_ms) + t.end_ms)
        r.end = _iso(end) if timed else None
        r.wall_ms = end - (r.start_epoch_ms)
        prev_end = end

    def open_run(entry: int | None, t: float, was_inferred: bool) -> Run:
        nonlocal run, covered
        if run is not None:
            close(run)
        wait = max(0.0, t - prev_end) if prev_end is not None else 0.0
        run = Run(entry, _iso(t) if timed else None, None, t, 0.0, wait, [], was_inferred)
        if wait > IDLE_MS:
            markers.append(
                Marker("idle", entry if entry is not None else -1, len(runs), -wait, wait)
            )
        runs.append(run)
        covered = t
        return run

    for pos, i in enumerate(path):
        t = times[pos]
        # The store's columns, not a skeleton per entry: this loop runs over every entry.
        etype = nodes.etype(i)
        role = nodes.role(i) if etype == "message" else None
        node = nodes[i] if etype != "message" or role not in ("user", "assistant") else None

        if role == "user":
            open_run(i, t, inferred[pos])
        elif role == "assistant":
            r = run
            stamp = _assistant_stamp(session, i)
            prev_t = times[pos - 1] if pos else t
            turn_inferred = inferred[pos]
            if stamp is None:
                stream = prev_t  # the file does not say when streaming began: the entry before
                turn_inferred = True
            elif stamp < prev_t - _WRITE_SLACK_MS or stamp > t:
                stream = min(max(stamp, prev_t), t)
                turn_inferred = True
            else:
                stream = stamp
            if r is None:
                r = open_run(None, stream, True)
            base_t = r.start_epoch_ms
            if stream - covered > IDLE_MS:
                markers.append(Marker("idle", i, len(runs) - 1, covered - base_t, stream - covered))
            # The context Pi built for this turn: the one at its parent (pos - 1).
            reported = _usage_total(nodes, i)
            context = _parts(sizes, _ms(reported) if reported is not None else None)
            spans: list[ToolSpan] = []
            end = t
            for k, b in enumerate(nodes.blocks(i)):
                if b.type != "toolCall":
                    continue
                result = next(
                    (
                        x
                        for x in pairing.call_results.get((i, k), [])
                        if x in pos_of and pos_of[x] > pos
                    ),
                    None,
                )
                if result is not None:
                    rpos = pos_of[result]
                    r_end, r_inf = times[rpos], inferred[rpos]
                    is_error = nodes.is_error(result)
                else:
                    r_end = t  # unknown: 0 ms, not up to the next entry (a prompt, maybe)
                    r_inf, is_error = True, False
                spans.append(
                    ToolSpan(
                        b.id or "",
                        b.name or "?",
                        t - base_t,
                        r_end - base_t,
                        is_error,
                        result,
                        r_inf,
                    )
                )
                end = max(end, r_end)
            stop = nodes.stop_reason(i)
            provider, model_id = nodes.model(i)
            model = f"{provider or '?'}/{model_id}" if model_id else None
            r.turns.append(
                Turn(
                    i,
                    stream - base_t,
                    t - stream,
                    end - base_t,
                    spans,
                    context,
                    path[pos - 1] if pos else None,
                    stop,
                    model,
                    turn_inferred,
                )
            )
            covered = max(covered, end)
            if stop in ("error", "aborted"):
                markers.append(Marker("error", i, len(runs) - 1, t - base_t, 0.0, stop or ""))
        elif node is not None and etype in ("compaction", "model_change"):
            at = t - (run.start_epoch_ms) if run is not None else 0.0
            kind: MarkerKind = "compaction"
            detail = ""
            if etype == "model_change":
                kind = "model_change"
                detail = node.model or (
                    f"{node.provider or '?'}/{node.model_id}" if node.model_id else ""
                )
            markers.append(Marker(kind, i, max(0, len(runs) - 1), at, 0.0, detail))

        # The context at this position, for the turns after it (build_context's rules).
        first_pos.setdefault(ids[i], pos)
        if etype == "compaction" and node is not None:
            summary, kept = _compaction_estimates(_decoded(session, i))
            sizes = {"summaries": summary}
            if kept is not None:
                for key, n in kept:
                    _add(sizes, key, n)
            else:
                k0 = first_pos.get(node.first_kept_entry_id or "", pos)
                if not lo <= k0 < pos:
                    k0 = pos
                for key, v in cum.span(k0, pos).items():
                    _add(sizes, key, v)
        elif etype == "reset_boundary":
            lo, sizes = pos + 1, {}
        else:
            for key, n in _context_estimates(session, i, role, node):
                cum.add(pos, key, n)
                _add(sizes, key, n)

    if run is not None:
        close(run)
    return Timeline(leaf, runs, _totals(runs), markers, path)


def _context_estimates(
    session: Session, i: int, role: str | None, node: Any
) -> list[tuple[str, int]]:
    """The keys and Pi's estimates entry ``i`` adds to the context: none when it is not a
    context message (``build_context``'s own test, on what the loop already read).
    ``node`` is the skeleton, given for every entry but user and assistant messages."""
    if role not in ("user", "assistant") and (node is None or _is_context_entry(node) is None):
        return []
    entry = _decoded(session, i)
    if isinstance(entry, MessageEntry):
        return _message_estimates(entry.message) if entry.message is not None else []
    if isinstance(entry, CustomMessageEntry):
        return [("user", entry_estimate(entry))]
    if isinstance(entry, BranchSummaryEntry):
        return [("summaries", entry_estimate(entry))]
    return []


def _totals(runs: list[Run]) -> Totals:
    """The branch's totals: sums over runs and turns, tool time as the union of the calls'
    spans, and each tool's calls."""
    totals = Totals()
    if not runs:
        return totals
    durations: dict[str, list[float]] = {}
    busy_start = busy_end = -math.inf
    for r in runs:
        totals.wait_ms += r.wait_ms
        base = r.start_epoch_ms
        for turn in r.turns:
            totals.model_ms += turn.model_ms
            for span in turn.tools:
                start, end = base + span.start_ms, base + span.end_ms
                # Spans come in time order (the times never go back): merge as they come.
                if start > busy_end:
                    if busy_end > busy_start:
                        totals.tool_ms += busy_end - busy_start
                    busy_start, busy_end = start, end
                else:
                    busy_end = max(busy_end, end)
                durations.setdefault(span.name, []).append(end - start)
                t = totals.by_tool.setdefault(span.name, ToolTotals())
                t.calls += 1
                t.errors += span.is_error
    if busy_end > busy_start:
        totals.tool_ms += busy_end - busy_start
    for name, ds in durations.items():
        t = totals.by_tool[name]
        ds.sort()
        t.total_ms = sum(ds)
        t.p50_ms = ds[(len(ds) - 1) // 2]
        t.max_ms = ds[-1]
    first, last = runs[0], runs[-1]
    totals.wall_ms = (last.start_epoch_ms) + last.wall_ms - (first.start_epoch_ms)
    return totals
