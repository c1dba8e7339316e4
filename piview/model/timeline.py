"""Provides a branch's timeline: where the time and the context went, shaped like Pi's loop.

A user prompt starts a *run*; each assistant message and the tool calls it makes are one
*turn* (Pi's ``agent-loop``). :func:`build_timeline` walks the branch once (linear in its
length) and gives, per turn, the model's streaming time, each tool call's span, and the
tokens of the context Pi built for it, split by what they are (``piview timeline``, the
timeline screen of issue 31).

Measured and inferred times:

- *Measured*: every entry's ``timestamp`` (when Pi wrote the line) and a message's own
  ``timestamp`` (when Pi made the message: for an assistant message, when streaming
  started). ``model_ms`` is the entry's time minus the message's; a call starts when its
  assistant entry was written and ends at its result's entry.
- *Inferred*: whatever the file does not say. A missing or unreadable time takes the last
  good time before it on the branch, and a time earlier than that one (a clock step, a
  hand-edited file) is clamped to it; such a span is 0 ms long and flagged ``inferred``.
  A call without a result on the branch ends at the next entry written after it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from piview.model.session import Session

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
    """When its result's entry was written, in ms since the run's start (inferred when the
    call has no result on the branch: see :attr:`inferred`)."""
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

    The same estimate as ``piview context`` at the entry before the turn (the turn's
    parent, :attr:`Turn.context_at`): the reported input tokens there, shared out over the
    context's messages by their size in the file
    (:func:`piview.model.context_report.token_shares`). The parts are rounded so that they
    sum to the rounded total; all are 0 when no usage says the total.
    """

    system: int = 0
    """System-role messages in the context (oh-my-pi), and roles ``convertToLlm`` does not
    send: ``piview context`` lists them unsent, without tokens. 0 in Pi's own files."""
    user: int = 0
    """User messages, custom messages (an extension's context) and ``!`` bash runs."""
    assistant: int = 0
    """Assistant messages: text and tool calls (their share less :attr:`thinking`)."""
    thinking: int = 0
    """The thinking blocks' part of the assistant messages' share (by characters)."""
    tools: dict[str, int] = field(default_factory=dict)
    """Tool results by tool name."""
    summaries: int = 0
    """Compaction and branch summaries (and a compaction's retained messages)."""
    reported_input: int | None = None
    """The turn's own usage: input + cacheRead + cacheWrite, as Pi reports it (measured)."""

    @property
    def total(self) -> int:
        """The sum of the parts (``piview context``'s total plus :attr:`system`)."""
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
    """When streaming started (the message's own ``timestamp``), in ms since the run's
    start; the entry's time when the message's is missing or unusable."""
    model_ms: float
    """Streaming time: the entry's time minus the message's own ``timestamp`` (measured;
    0 and :attr:`inferred` when either is missing or the difference is negative)."""
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
    start_epoch_ms: float | None
    """:attr:`start` in ms since the epoch (None when no entry of the run has a time)."""
    wall_ms: float
    """From the run's start to its end."""
    wait_ms: float
    """The gap before this prompt since the previous run ended (0 for the first run)."""
    turns: list[Turn]
    inferred: bool = False
    """The start, end or wait rests on a missing or clamped time."""

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
    """Every turn's streaming time."""
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
    """Ms since that run's start."""
    duration_ms: float = 0.0
    """``idle``: the gap's length."""
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


def build_timeline(session: Session, leaf: int | None = None) -> Timeline:
    """The timeline of the branch from the root to ``leaf`` (default: the current leaf),
    in one walk of the branch."""
    raise NotImplementedError  # TODO(#31): filled in by the next commit
