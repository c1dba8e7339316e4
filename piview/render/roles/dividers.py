"""Provides the slim, dim one-line dividers for settings entries.

``model_change``, ``thinking_level_change``, ``label`` and ``session_info`` change how the
session runs or is named; they are not conversation. Each becomes a rule-like line:
``── model → anthropic/claude-sonnet-4-5 ──``.
"""

from __future__ import annotations

from rich.text import Text

from piview.model.types import (
    LabelEntry,
    ModelChangeEntry,
    SessionInfoEntry,
    ThinkingLevelChangeEntry,
)
from piview.render.roles._common import Ctx, Rendered
from piview.render.sanitize import sanitize_line
from piview.render.theme import style

__all__ = ["divider_text", "plain", "render", "rule"]


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
    return sanitize_line(ctx.node.type) or "?"


def render(ctx: Ctx) -> Rendered:
    """``── words ─────── HH:MM:SS``, dim, exactly one line."""
    return rule(divider_text(ctx), ctx.time, ctx.width), None


def rule(words: str, time: str, width: int) -> Text:
    """``── words ─────── time`` in the divider style, exactly one line."""
    width = max(20, width)
    # One line: a huge label (1 MB) would only cost time to measure before being cut.
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
