"""Provides the rendering of an assistant turn's header and text.

The header carries what the HTML export never shows: the model (when it changes from the
previous assistant on the path), the turn's tokens and cost, and any stop reason other than a
normal ``stop``/``toolUse``. Thinking blocks and tool calls of the same message are items of
their own (see :mod:`piview.render.roles.tool` and :mod:`piview.render.roles.thinking`).
"""

from __future__ import annotations

from datetime import UTC, datetime

from rich.console import RenderableType
from rich.text import Text

from piview.model.openclaw import gateway_origin
from piview.model.types import AssistantMessage, DeferredHandle
from piview.render.format import fmt_cost, fmt_duration_ms, fmt_time_of_day
from piview.render.roles._common import (
    Ctx,
    Rendered,
    blocks_plain,
    blocks_renderables,
    header,
    indent,
    marker,
    message_as,
    prepare,
)
from piview.render.roles._fields import (
    append_fitting,
    assistant_extras,
    details_wanted,
    header_room,
    raw_stop,
    usage_cost,
    usage_text,
)
from piview.render.sanitize import sanitize, sanitize_line
from piview.render.theme import style

__all__ = ["STOP_MARKS", "plain", "previous_model", "render", "usage_text"]

STOP_MARKS: dict[str, str] = {
    "error": "✗ error",
    "aborted": "⊘ aborted",
    "length": "✂ cut off (length)",
    "deferred": "⏸ deferred",
    "pending": "⋯ pending",
}
"""Header marks of the stop reasons worth pointing out."""

_NORMAL_STOPS = ("stop", "toolUse", "", None)
_MAX_WALK = 100_000


def previous_model(ctx: Ctx) -> tuple[str, str] | None:
    """``(provider, model)`` of the nearest assistant above this entry on its path."""
    nodes = ctx.session.nodes
    parents = ctx.session.tree.parents
    p = parents[ctx.item.entry]
    steps = 0
    while p >= 0 and steps < _MAX_WALK:
        m = nodes[p].message
        # A message OpenClaw's gateway wrote is not a turn of the model: passed over.
        if m is not None and m.role == "assistant" and not gateway_origin(m.provider, m.model):
            return (str(m.provider or ""), str(m.model or ""))
        p = parents[p]
        steps += 1
    return None


def _model_label(msg: AssistantMessage) -> str:
    model = sanitize_line(msg.model) or "?"
    provider = sanitize_line(msg.provider)
    return f"{provider}/{model}" if provider else model


def _deferred_line(d: DeferredHandle | None) -> str:
    if d is None:
        return "deferred: no handle"
    parts = [f"deferred: {sanitize_line(d.provider)}/{sanitize_line(d.model_id)}"]
    if d.id:
        parts.append(f"id {sanitize_line(d.id)}")
    if isinstance(d.expires_at, int | float):
        parts.append(f"expires {_ms_clock(d.expires_at)}")
    if isinstance(d.poll_after_ms, int | float):
        parts.append(f"poll after {fmt_duration_ms(d.poll_after_ms)}")
    return " · ".join(parts)


def _ms_clock(ms: float) -> str:
    try:
        iso = datetime.fromtimestamp(ms / 1000, tz=UTC).isoformat()
    except (OverflowError, OSError, ValueError):
        return str(ms)
    return fmt_time_of_day(iso) or str(ms)


def render(ctx: Ctx) -> Rendered:
    """Header ``● assistant · model · usage · cost · stop mark`` and the text blocks."""
    msg = message_as(ctx, AssistantMessage)
    left = Text(f"{marker(ctx, '●')} assistant", style=style("piview.assistant"))
    if msg is None:
        return header(left, ctx.time, ctx.width), None
    here = (str(msg.provider or ""), str(msg.model or ""))
    origin = gateway_origin(msg.provider, msg.model)
    if origin is not None:
        # OpenClaw's gateway wrote it (a delivery, a mirror, an injection): not model output.
        left.stylize(style("piview.dim"))
        left.append("  " + origin, style=style("piview.dim"))
    elif previous_model(ctx) != here:
        left.append("  " + _model_label(msg), style=style("piview.model"))
    if msg.response_model and msg.response_model != msg.model:
        left.append(f" → {sanitize_line(msg.response_model)}", style=style("piview.model"))
    stop = msg.stop_reason
    raw = raw_stop(msg)
    if stop not in _NORMAL_STOPS:
        mark = STOP_MARKS.get(stop, f"stop: {sanitize_line(stop)}")
        if raw:  # the provider's own reason beside Pi's: "cut off · max_tokens"
            mark = mark.removesuffix(" (length)") + f" · {raw}"
        bad = stop in ("error", "aborted")
        left.append("  " + mark, style=style("piview.error" if bad else "piview.warning"))
    usage = usage_text(msg.usage)
    if usage:
        left.append("  " + usage, style=style("piview.usage"))
    cost = usage_cost(msg.usage)
    if cost:
        left.append(" " + fmt_cost(cost), style=style("piview.cost"))
    took = msg.duration  # oh-my-pi records how long the response took
    if isinstance(took, int | float) and not isinstance(took, bool) and took > 0:
        left.append(f" {took / 1000:.1f}s", style=style("piview.dim"))
    # Reasoning, 1-hour cache writes, the provider's thinking level, endTurn: in the header
    # where they fit whole (the time keeps its place), else in the inspector (print: below).
    rest = append_fitting(
        left, assistant_extras(msg), header_room(ctx.width, ctx.time), style("piview.dim")
    )

    body: list[RenderableType] = list(blocks_renderables(ctx, msg.content, key="a"))
    if stop == "error":
        text = prepare(msg.error_message)[0] or "the request failed (no error message)"
        body.append(Text(f"Error: {text}", style=style("piview.error.text")))
    elif stop == "aborted":
        text = prepare(msg.error_message)[0] or "Operation aborted"
        body.append(Text(text, style=style("piview.error.text")))
    elif stop == "length":
        why = f" ({raw})" if raw else ""
        body.append(Text(f"Output stopped at the token limit{why}.", style=style("piview.warning")))
    elif stop == "deferred":
        body.append(Text(_deferred_line(msg.deferred), style=style("piview.warning")))
    elif stop == "pending":
        body.append(Text("Response still pending.", style=style("piview.warning")))
    if msg.diagnostics:
        body.append(_diagnostics_line(msg))
    if rest and details_wanted():
        body.append(Text(" · ".join(rest), style=style("piview.dim")))
    return header(left, ctx.time, ctx.width), indent(*body) if body else None


def _diagnostics_line(msg: AssistantMessage) -> Text:
    diags = msg.diagnostics or []
    parts: list[str] = []
    for d in diags[:3]:
        s = sanitize_line(d.type) or "diagnostic"
        if d.error is not None:
            name = sanitize_line(d.error.name)
            s += f": {name + ': ' if name else ''}{sanitize_line(d.error.message)}"
        parts.append(s)
    if len(diags) > 3:
        parts.append(f"+{len(diags) - 3} more")
    return Text("↻ " + " · ".join(parts), style=style("piview.dim"))


def plain(ctx: Ctx) -> str:
    """Model, text and error of the turn as plain text."""
    msg = message_as(ctx, AssistantMessage)
    if msg is None:
        return "assistant"
    origin = gateway_origin(msg.provider, msg.model)
    lines = [f"assistant {origin or _model_label(msg)}", blocks_plain(msg.content)]
    if msg.error_message:
        lines.append(sanitize(msg.error_message))
    if msg.stop_reason == "deferred":
        lines.append(_deferred_line(msg.deferred))
    return "\n".join(x for x in lines if x)
