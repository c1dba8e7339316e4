"""Provides the slim, dim one-line dividers for settings entries.

``model_change``, ``thinking_level_change``, ``label`` and ``session_info`` change how the
session runs or is named; they are not conversation. Each becomes a rule-like line:
``── model → anthropic/claude-sonnet-4-5 ──``. So do OpenClaw's ``reset`` (the conversation
starts afresh), ``leaf`` (the active leaf moved) and its ``custom`` entries ``model-snapshot``
(the model in force) and ``openclaw:prompt-error``.
"""

from __future__ import annotations

from rich.text import Text

from piview.model.types import (
    CustomEntry,
    LabelEntry,
    ModelChangeEntry,
    SessionInfoEntry,
    ThinkingLevelChangeEntry,
    UnknownEntry,
)
from piview.render.roles._common import Ctx, Rendered
from piview.render.sanitize import sanitize_line
from piview.render.theme import style


def divider_text(ctx: Ctx) -> str:
    """The divider's words, e.g. ``model → openai/gpt-5``."""
    e = ctx.entry
    if isinstance(e, ModelChangeEntry):
        words = f"model → {sanitize_line(e.label()) or '?'}"
        if e.role and e.role != "default":  # oh-my-pi's model roles (smol, slow, fallback)
            words += f" ({sanitize_line(e.role)})"
        if e.resolved_model_is_fallback:
            words += " · fallback"
        return words
    if isinstance(e, ThinkingLevelChangeEntry):
        words = f"thinking: {sanitize_line(e.thinking_level) or '?'}"
        if e.configured and e.configured != e.thinking_level:
            words += f" ({sanitize_line(e.configured)})"  # oh-my-pi: the selector, e.g. auto
        return words
    if isinstance(e, LabelEntry):
        target = sanitize_line(e.target_id) or "?"
        if e.label:
            return f'label "{sanitize_line(e.label)}" on {target}'
        return f"label cleared on {target}"
    if isinstance(e, SessionInfoEntry):
        name = sanitize_line(e.name).strip() if e.name else ""
        return f'name: "{name}"' if name else "name cleared"
    if isinstance(e, CustomEntry):
        return _openclaw_custom(e)
    if isinstance(e, UnknownEntry) and isinstance(e.raw, dict):
        return _openclaw_entry(e.raw) or sanitize_line(e.entry_type)
    return sanitize_line(ctx.node.type) or "?"


def _text(v: object) -> str:
    return sanitize_line(v) if isinstance(v, str) else ""


def _openclaw_custom(e: CustomEntry) -> str:
    data = e.data if isinstance(e.data, dict) else {}
    if e.custom_type == "model-snapshot":
        prov = _text(data.get("provider"))
        model = _text(data.get("modelId") or data.get("model")) or "?"
        return f"model in force: {prov + '/' if prov else ''}{model}"
    if e.custom_type == "openclaw:prompt-error":
        why = _text(data.get("error") or data.get("message") or data.get("reason"))
        return f"prompt error: {why}" if why else "prompt error"
    return _text(e.custom_type) or "custom"


def _openclaw_entry(raw: dict[str, object]) -> str | None:
    kind = raw.get("type")
    if kind == "reset":
        reason = _text(raw.get("reason"))
        kept = _text(raw.get("firstKeptEntryId"))
        words = "reset: the conversation starts afresh" + (f" ({reason})" if reason else "")
        return words + (f", kept from {kept}" if kept else "")
    if kind == "leaf":
        return f"active leaf → {_text(raw.get('targetId')) or '?'}"
    return None


def render(ctx: Ctx) -> Rendered:
    """``── words ─────── HH:MM:SS``, dim, exactly one line."""
    return rule(divider_text(ctx), ctx.time, ctx.width), None


def rule(words: str, time: str, width: int) -> Text:
    """``── words ─────── time`` in the divider style, exactly one line."""
    width = max(20, width)
    # One line: a huge label would only cost time to measure before being cut.
    words = words[: 2 * width]
    left = f"── {words} "
    right = f" {time}" if time else ""
    fill = width - len(left) - len(right)
    if fill < 2:
        text = Text(left.rstrip() + right, style=style("piview.divider"))
    else:
        text = Text(left + "─" * fill + right, style=style("piview.divider"))
    text.no_wrap = True
    text.overflow = "ellipsis"
    return text


def plain(ctx: Ctx) -> str:
    """The divider's words."""
    return divider_text(ctx)
