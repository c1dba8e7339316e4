"""Provides the rendering of what Pi's event stream holds and a session file never does
(:mod:`piview.model.stream`): extension errors and failed commands as error blocks, a tool's
partial results as a collapsible progression under its call, retries and compactions as
dividers, UI requests and queue updates as slim notices."""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any

from rich.console import RenderableType
from rich.text import Text

from piview.render.format import fmt_duration_ms
from piview.render.roles._common import Ctx, Rendered, header, indent, marker, preview_lines
from piview.render.roles._json import details_block, json_plain
from piview.render.roles.dividers import rule
from piview.render.sanitize import sanitize, sanitize_line
from piview.render.theme import style

_PREVIEW = 4
"""Lines of a partial result shown while the progression is collapsed."""


def _event(ctx: Ctx) -> dict[str, Any]:
    raw = getattr(ctx.entry, "raw", None)
    ev = raw.get("event") if isinstance(raw, dict) else None
    return ev if isinstance(ev, dict) else {}


def _list(value: object) -> list[Any]:
    return value if isinstance(value, list) else []


def _dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _s(value: object) -> str:
    return sanitize_line(value) if isinstance(value, str) else ""


def _extension(path: object) -> str:
    return PurePosixPath(path).name if isinstance(path, str) and path else "?"


# ------------------------------------------------------------------ errors


def error_title(ev: dict[str, Any]) -> str:
    """The error's one line: what failed, and where."""
    t = ev.get("type")
    if t == "extension_error":
        where = _extension(ev.get("extensionPath"))
        when = _s(ev.get("event"))
        return f"extension error · {where}" + (f" · in {when}" if when else "")
    if t == "response":
        return f"command {_s(ev.get('command')) or '?'} failed"
    if t == "auto_retry_end":
        return f"retry gave up after attempt {ev.get('attempt', '?')}"
    if t == "compaction_end":
        return f"compaction failed ({_s(ev.get('reason')) or '?'})"
    return f"{_s(t) or 'event'} failed"


def _error_text(ev: dict[str, Any]) -> str:
    for key in ("error", "finalError", "errorMessage"):
        if isinstance(ev.get(key), str):
            return str(ev[key])
    return ""


def render_error(ctx: Ctx) -> Rendered:
    """``✗ extension error · ext.ts · in turn_end`` and the error (with the file's path)."""
    ev = _event(ctx)
    left = Text(f"{marker(ctx)} ", style=style("piview.marker"))
    left.append("✗ ", style("piview.error"))
    left.append(error_title(ev), style("piview.error"))
    head = header(left, ctx.time, ctx.width)
    if not ctx.expanded:
        return head, None
    body: list[RenderableType] = [Text(sanitize(_error_text(ev)), style("piview.error.text"))]
    if ev.get("type") == "extension_error" and isinstance(ev.get("extensionPath"), str):
        body.append(Text(sanitize_line(ev["extensionPath"]), style("piview.path")))
    return head, indent(*body)


def plain_error(ctx: Ctx) -> str:
    """The error's title and text."""
    ev = _event(ctx)
    path = ev.get("extensionPath")
    tail = f"\n{path}" if isinstance(path, str) else ""
    return f"{error_title(ev)}\n{_error_text(ev)}{tail}"


# ------------------------------------------------------------------ a tool's partial results


def _partial_text(partial: object) -> str:
    if not isinstance(partial, dict):
        return json_plain(partial)
    parts = [
        str(b.get("text", ""))
        for b in partial.get("content") or []
        if isinstance(b, dict) and b.get("type") == "text"
    ]
    return "\n".join(parts)


def progress_title(ev: dict[str, Any]) -> str:
    """``deploy · 3 partial results · 1.2s``."""
    n = ev.get("count") if isinstance(ev.get("count"), int) else 0
    words = f"{_s(ev.get('toolName')) or 'tool'} · {n:,} partial result{'s' if n != 1 else ''}"
    if isinstance(ev.get("durationMs"), int | float):
        words += f" · {fmt_duration_ms(ev['durationMs'])}"
    return words


def render_progress(ctx: Ctx) -> Rendered:
    """The count and the last partial; every partial kept when expanded."""
    ev = _event(ctx)
    partials = _list(ev.get("partials"))
    left = Text(f"{marker(ctx)} ", style=style("piview.marker"))
    left.append("progress ", style("piview.tool"))
    left.append(progress_title(ev), style("piview.dim"))
    head = header(left, ctx.time, ctx.width)
    if not partials:
        return head, None
    body: list[RenderableType] = []
    if not ctx.expanded:
        last = partials[-1]
        text, more = preview_lines(sanitize(_partial_text(last)), _PREVIEW)
        body.append(Text("last: ", style("piview.dim")) + Text(text, style("piview.tool.output")))
        if more:
            body.append(Text(f"… (+{more} more lines)", style("piview.dim")))
        if isinstance(last, dict):
            body.extend(details_block(last.get("details"), "details", expanded=False))
        return head, indent(*body)
    count = ev.get("count")
    n = count if isinstance(count, int) else len(partials)
    first = n - len(partials) + 1
    if first > 1:
        body.append(Text(f"({first - 1:,} earlier partial results not kept)", style("piview.dim")))
    for k, partial in enumerate(partials, first):
        body.append(Text(f"{k}. ", style("piview.dim")) + Text(sanitize(_partial_text(partial))))
        if isinstance(partial, dict):
            body.extend(details_block(partial.get("details"), "   details", expanded=False))
    return head, indent(*body)


def plain_progress(ctx: Ctx) -> str:
    """The title and each partial's text."""
    ev = _event(ctx)
    partials = _list(ev.get("partials"))
    return "\n".join([progress_title(ev), *(_partial_text(p) for p in partials)])


# ------------------------------------------------------------------ dividers and notices


def _ui(ev: dict[str, Any]) -> str:
    method = _s(ev.get("method")) or "?"
    if method == "notify":
        kind = _s(ev.get("notifyType")) or "info"
        return f"notify ({kind}): {_s(ev.get('message'))}"
    if method == "setStatus":
        text = _s(ev.get("statusText"))
        return (
            f"status {_s(ev.get('statusKey'))}: {text}"
            if text
            else f"status {_s(ev.get('statusKey'))} cleared"
        )
    if method == "setWidget":
        lines = ev.get("widgetLines")
        key = _s(ev.get("widgetKey"))
        return (
            f"widget {key}: {len(lines)} lines"
            if isinstance(lines, list)
            else f"widget {key} cleared"
        )
    if method == "setTitle":
        return f"title: {_s(ev.get('title'))}"
    if method == "set_editor_text":
        return f"editor text: {_s(ev.get('text'))}"
    title = _s(ev.get("title"))
    detail = _s(ev.get("message"))
    words = f"{method}: {title}" + (f" · {detail}" if detail else "")
    if isinstance(ev.get("options"), list):
        words += " · " + " / ".join(_s(o) for o in ev["options"])
    return words


def _queue(ev: dict[str, Any]) -> str:
    def items(key: str) -> str:
        v = ev.get(key)
        return ", ".join(f'"{_s(x)}"' for x in v) if isinstance(v, list) and v else "empty"

    return f"queue · steering: {items('steering')} · follow-up: {items('followUp')}"


def event_words(ev: dict[str, Any]) -> str:
    """A divider's or notice's words."""
    t = ev.get("type")
    if t == "auto_retry_start":
        delay = ev.get("delayMs")
        wait = f" in {fmt_duration_ms(delay)}" if isinstance(delay, int | float) else ""
        why = _s(ev.get("errorMessage"))
        return f"retry {ev.get('attempt', '?')}/{ev.get('maxAttempts', '?')}{wait}: {why}"
    if t == "auto_retry_end":
        return f"retry succeeded (attempt {ev.get('attempt', '?')})"
    if t == "compaction_start":
        return f"compaction started ({_s(ev.get('reason')) or '?'})"
    if t == "compaction_end":
        if ev.get("aborted"):
            return f"compaction aborted ({_s(ev.get('reason')) or '?'})"
        result = _dict(ev.get("result"))
        before, after = result.get("tokensBefore"), result.get("estimatedTokensAfter")
        size = (
            f" · {before:,} → {after:,} tokens"
            if isinstance(before, int) and isinstance(after, int)
            else ""
        )
        retry = " · the prompt is retried" if ev.get("willRetry") else ""
        return f"compaction done ({_s(ev.get('reason')) or '?'}){size}{retry}"
    if t == "summarization_retry_scheduled":
        n = f"{ev.get('attempt', '?')}/{ev.get('maxAttempts', '?')}"
        return f"summary retry {n}: {_s(ev.get('errorMessage'))}"
    if t == "summarization_retry_attempt_start":
        return f"summary retry of the {_s(ev.get('source')) or '?'} started"
    if t == "summarization_retry_finished":
        return "summary retry finished"
    if t == "queue_update":
        return _queue(ev)
    if t == "extension_ui_request":
        return _ui(ev)
    if t == "extension_ui_response":
        if ev.get("cancelled"):
            return "answer: cancelled"
        if "confirmed" in ev:
            return f"answer: {'yes' if ev.get('confirmed') else 'no'}"
        return f"answer: {_s(ev.get('value'))}"
    if t == "response":
        return f"session: {_s(ev.get('command'))}"
    return _s(t) or "event"


def _notice(ev: dict[str, Any]) -> bool:
    return ev.get("type") in ("extension_ui_request", "extension_ui_response", "queue_update")


def render_event(ctx: Ctx) -> Rendered:
    """A divider (retries, compactions, session switches) or a slim notice (UI requests,
    queue updates), one line."""
    ev = _event(ctx)
    words = event_words(ev)
    if not _notice(ev):
        return rule(words, ctx.time, ctx.width), None
    left = Text("◆ ", style=style("piview.notice"))
    left.append(words, style("piview.notice"))
    return header(left, ctx.time, ctx.width), None


def plain_event(ctx: Ctx) -> str:
    """The divider's or notice's words."""
    return event_words(_event(ctx))
