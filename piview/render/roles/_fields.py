"""Provides the per-entry fields Pi added from 0.80 to 0.85, in the forms the views draw.

Short forms for a header: a usage figure (``↑939 ↓41 $0.0034``), the provider's raw stop
reason beside the stop (``cut off · max_tokens``), an assistant's reasoning tokens, 1-hour cache
writes, ``providerThinkingLevel`` and ``endTurn`` (each only where it fits, see
:func:`append_fitting`), the tools a tool result loaded (``addedToolNames``). Long forms, as
``(label, value)`` rows, for the inspector (:func:`assistant_rows`, :func:`usage_rows`).

``piview print`` has no inspector: inside :func:`details_in_body` (print sets it), what does
not fit an assistant's header is written as one dim line under its text instead.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING

from rich.style import Style
from rich.text import Text

from piview.model.types import (
    AssistantMessage,
    BranchSummaryEntry,
    CompactionEntry,
    ToolResultMessage,
    Usage,
    number,
)
from piview.render.cells import cells
from piview.render.format import fmt_cost, fmt_tokens
from piview.render.sanitize import sanitize_line
from piview.render.theme import style

if TYPE_CHECKING:
    from piview.model.session import Session

_IN_BODY: ContextVar[bool] = ContextVar("piview_details_in_body", default=False)


@contextmanager
def details_in_body(on: bool = True) -> Iterator[None]:
    """Within the block, what does not fit a header is drawn in the body (no inspector)."""
    token = _IN_BODY.set(on)
    try:
        yield
    finally:
        _IN_BODY.reset(token)


def details_wanted() -> bool:
    """True inside :func:`details_in_body`."""
    return _IN_BODY.get()


def _num(v: object) -> float:
    return float(number(v))


def usage_text(usage: Usage | None) -> str:
    """``↑1.2k ↓340 R12k W800`` (zero parts left out; ``""`` for an empty usage)."""
    if usage is None:
        return ""
    if not any(_num(v) for v in (usage.input, usage.output, usage.cache_read, usage.cache_write)):
        return ""  # an empty turn (error, abort): zeros are noise
    parts = [f"↑{fmt_tokens(_num(usage.input))}", f"↓{fmt_tokens(_num(usage.output))}"]
    if _num(usage.cache_read):
        parts.append(f"R{fmt_tokens(_num(usage.cache_read))}")
    if _num(usage.cache_write):
        parts.append(f"W{fmt_tokens(_num(usage.cache_write))}")
    return " ".join(parts)


def usage_cost(usage: Usage | None) -> float:
    """The usage's total cost in dollars (0 when absent or unreadable)."""
    if usage is None or usage.cost is None:
        return 0.0
    try:
        return usage.cost.total_cost()
    except (TypeError, ValueError):
        return 0.0


def usage_label(usage: Usage | None) -> str:
    """``↑939 ↓41 $0.0034``: the tokens and the cost (``""`` when there are none)."""
    tokens, cost = usage_text(usage), usage_cost(usage)
    bits = [tokens] if tokens else []
    if cost:
        bits.append(fmt_cost(cost))
    return " ".join(bits)


def raw_stop(msg: AssistantMessage) -> str:
    """The provider's own stop reason (``max_tokens``) when it says more than Pi's, else ``""``."""
    raw = sanitize_line(msg.raw_stop_reason) if isinstance(msg.raw_stop_reason, str) else ""
    return raw if raw and raw != msg.stop_reason else ""


def assistant_extras(msg: AssistantMessage) -> list[str]:
    """The short words of an assistant's newer fields, most useful first: ``reasoning 150``,
    ``1h W600``, ``thinking max``, ``end turn`` (or ``no end turn``)."""
    out: list[str] = []
    u = msg.usage
    if u is not None:
        if _num(u.reasoning):
            out.append(f"reasoning {fmt_tokens(_num(u.reasoning))}")
        if _num(u.cache_write1h):
            out.append(f"1h W{fmt_tokens(_num(u.cache_write1h))}")
    level = msg.provider_thinking_level
    if isinstance(level, str) and level:
        out.append(f"thinking {sanitize_line(level)}")
    if msg.end_turn is True:
        out.append("end turn")
    elif msg.end_turn is False:
        out.append("no end turn")
    return out


def append_fitting(
    left: Text,
    words: Sequence[str],
    room: int,
    style: str | Style,
    *,
    first: str = "  ",
    in_order: bool = True,
) -> list[str]:
    """Append each word whole to ``left`` (``first`` before the first one shown, `` · `` before
    the others) while ``left`` stays within ``room`` cells; returns the words left out. In
    order, the words after one that does not fit are left out too (the most useful come first);
    else a later, shorter word may still take the room."""
    used = cells(left.plain)
    shown = 0
    rest: list[str] = []
    for word in words:
        piece = (first if not shown else " · ") + word
        n = cells(piece)
        if rest and in_order or used + n > room:
            rest.append(word)
            continue
        left.append(piece, style=style)
        used += n
        shown += 1
    return rest


def header_room(width: int, time: str, keep: Text | None = None) -> int:
    """The cells a header's left part has beside the time and what is kept (as ``header``
    lays them out: no time below 40 columns)."""
    room = width - (len(time) + 1 if time and width >= 40 else 0)
    return room - (cells(keep.plain) if keep is not None else 0)


def loaded_tools(results: Sequence[ToolResultMessage]) -> list[str]:
    """The tools the results loaded (``addedToolNames``), in order, each once."""
    names: dict[str, None] = {}
    for r in results:
        for name in r.added_tool_names or []:
            if isinstance(name, str) and name:
                names[sanitize_line(name)] = None
    return list(names)


def usage_rows(u: Usage) -> list[tuple[str, str]]:
    """A usage in full for the inspector: tokens with their parts, and the cost."""
    out = [
        ("input", f"{_num(u.input):,.0f}"),
        ("output", f"{_num(u.output):,.0f}"),
    ]
    if u.reasoning is not None:
        out.append(("  reasoning", f"{_num(u.reasoning):,.0f} (part of output)"))
    out += [
        ("cache read", f"{_num(u.cache_read):,.0f}"),
        ("cache write", f"{_num(u.cache_write):,.0f}"),
    ]
    if u.cache_write1h is not None:
        out.append(("  1-hour", f"{_num(u.cache_write1h):,.0f} (part of cache write)"))
    if u.total_tokens is not None:
        out.append(("total tokens", f"{_num(u.total_tokens):,.0f}"))
    if u.cost is not None:
        c = u.cost
        parts = (
            f"in {fmt_cost(_num(c.input))} · out {fmt_cost(_num(c.output))} · "
            f"cache r {fmt_cost(_num(c.cache_read))} w {fmt_cost(_num(c.cache_write))}"
        )
        out.append(("cost", f"{fmt_cost(usage_cost(u))} ({parts})"))
    return out


def assistant_rows(msg: AssistantMessage) -> list[tuple[str, str]]:
    """What an assistant message says of itself beyond its content, for the inspector."""
    model = sanitize_line(msg.model) or "?"
    provider = sanitize_line(msg.provider)
    out = [("model", f"{provider}/{model}" if provider else model)]
    if msg.response_model and msg.response_model != msg.model:
        out.append(("response model", sanitize_line(msg.response_model)))
    if msg.response_id:
        out.append(("response id", sanitize_line(msg.response_id)))
    stop = sanitize_line(msg.stop_reason) or "?"
    raw = sanitize_line(msg.raw_stop_reason) if isinstance(msg.raw_stop_reason, str) else ""
    out.append(("stop", f"{stop} (provider: {raw})" if raw else stop))
    if isinstance(msg.provider_thinking_level, str) and msg.provider_thinking_level:
        out.append(("thinking level", sanitize_line(msg.provider_thinking_level)))
    if isinstance(msg.end_turn, bool):
        out.append(("end turn", "yes" if msg.end_turn else "no"))
    if msg.usage is not None:
        out += usage_rows(msg.usage)
    return out


def result_extras(results: Sequence[ToolResultMessage]) -> tuple[str, str]:
    """What a tool's header adds for its results: `` · ↑300 ↓20 $0.0012 · +2 tools`` (their
    own usage, the number of tools they loaded); and the body's line naming those tools
    (``""`` when none)."""
    head, line = "", ""
    with_usage = [r.usage for r in results if r.usage is not None]
    if with_usage:
        total = Usage(
            input=sum(_num(u.input) for u in with_usage),
            output=sum(_num(u.output) for u in with_usage),
            cache_read=sum(_num(u.cache_read) for u in with_usage),
            cache_write=sum(_num(u.cache_write) for u in with_usage),
        )
        label = usage_label(total)
        cost = sum(usage_cost(u) for u in with_usage)
        if cost:
            label = f"{label} {fmt_cost(cost)}" if label else fmt_cost(cost)
        if label:
            head += f" · {label}"
    names = loaded_tools(results)
    if names:  # counted in the header (kept short), named in the body
        head += f" · +{len(names)} tool" + ("s" if len(names) > 1 else "")
        line = "loaded tools: " + ", ".join(names)
    return head, line


def parent_session(session: Session) -> str | None:
    """The header's ``parentSession`` (``branchedFrom`` in older files), else None."""
    h = session.header
    if h is None:
        return None
    for ref in (h.parent_session, h.branched_from):
        if isinstance(ref, str) and ref.strip():
            return ref.strip()
    return None


def fork_note(session: Session, width: int) -> Text | None:
    """``⑂ forked from <parent>`` for a fork (dim), None for a session of its own: the path
    as the header has it when it fits ``width``, else its file name (folded if need be)."""
    ref = parent_session(session)
    if ref is None:
        return None
    whole = sanitize_line(ref)
    name = sanitize_line(ref.replace("\\", "/").rsplit("/", 1)[-1]) or whole
    head = "⑂ forked from "
    shown = whole if cells(head + whole) <= width else name
    if cells(head + shown) > width:
        head = head.rstrip() + "\n"  # the name on a line of its own, folded if still too long
    return Text(head + shown, style=style("piview.dim"), overflow="fold")


def entry_rows(entry: object) -> list[tuple[str, str]]:
    """The inspector's facts of an entry that has them (an assistant message, a tool result, a
    compaction or branch summary with its usage), else ``[]``."""
    msg = getattr(entry, "message", None)
    if isinstance(msg, AssistantMessage):
        return assistant_rows(msg)
    if isinstance(msg, ToolResultMessage):
        out = [("loaded tools", ", ".join(names))] if (names := loaded_tools([msg])) else []
        if msg.usage is not None:
            out += [("tool's own usage", "(not main-model usage)"), *usage_rows(msg.usage)]
        return out
    if isinstance(entry, CompactionEntry | BranchSummaryEntry) and entry.usage is not None:
        return [("summary's usage", "(the model call that wrote it)"), *usage_rows(entry.usage)]
    return []
