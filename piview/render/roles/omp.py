"""Provides the rendering of what only oh-my-pi writes: its roles and its settings entries.

* ``developer`` messages, instructions the host injected (plan-mode reminders): styled like
  system instructions, never like the user.
* ``fileMention`` messages, the files an ``@mention`` attached: one line per file, the
  content when expanded.
* ``pythonExecution`` messages, code the user ran in the host's kernel: like a ``!`` command.
* ``session_init`` entries, a subagent's initial context: collapsed to a line.
* Slim dividers for the settings entries (``title_change``, ``mode_change``, ``model_usage``,
  ``service_tier_change``, ``ttsr_injection``, ``credential_pin``, ``reset_boundary``,
  ``archive``) and for the custom entries ``tool_execution_start`` and ``session_exit``.
"""

from __future__ import annotations

from typing import Any

from rich.console import RenderableType
from rich.text import Text

from piview.model.types import (
    ArchiveEntry,
    CredentialPinEntry,
    CustomEntry,
    DeveloperMessage,
    FileMentionMessage,
    ModeChangeEntry,
    ModelUsageEntry,
    PythonExecutionMessage,
    ResetBoundaryEntry,
    ServiceTierChangeEntry,
    SessionInitEntry,
    TitleChangeEntry,
    TtsrInjectionEntry,
    number,
)
from piview.render.format import fmt_cost, fmt_tokens
from piview.render.roles import bash
from piview.render.roles._common import (
    Ctx,
    Rendered,
    blocks_of,
    blocks_plain,
    blocks_renderables,
    code,
    count_lines,
    header,
    indent,
    lines_label,
    marker,
    message_as,
    more_line,
    prepare,
    preview_lines,
    text_of,
)
from piview.render.roles._limits import QUIET_CUSTOM_TYPES
from piview.render.roles.dividers import rule
from piview.render.sanitize import sanitize, sanitize_line
from piview.render.theme import style

__all__ = [
    "QUIET_CUSTOM_TYPES",
    "divider_text",
    "entry_words",
    "plain_developer",
    "plain_divider",
    "plain_file_mention",
    "plain_python",
    "plain_session_init",
    "render_developer",
    "render_divider",
    "render_file_mention",
    "render_python",
    "render_session_init",
]

PREVIEW_LINES = 3


# --------------------------------------------------------------------------- developer


def render_developer(ctx: Ctx) -> Rendered:
    """``developer`` (host instructions) and the text's first lines; all of it expanded."""
    m = message_as(ctx, DeveloperMessage)
    left = Text(f"{marker(ctx)} ", style=style("piview.marker"))
    left.append("developer", style("piview.system"))
    left.append("  instructions from the host", style("piview.dim"))
    if m is None:
        return header(left, ctx.time, ctx.width), None
    blocks = blocks_of(m.content)
    text = sanitize(text_of(blocks)).strip()
    if text:
        left.append(f" · {lines_label(count_lines(text))}", style("piview.dim"))
    head = header(left, ctx.time, ctx.width)
    if not ctx.expanded:
        if not text:
            return head, None
        preview, more = preview_lines(text, PREVIEW_LINES)
        shown: list[RenderableType] = [Text(preview, style=style("piview.dim"))]
        if more:
            shown.append(more_line(more))
        return head, indent(*shown)
    body = blocks_renderables(ctx, blocks, key=("dev",), text_style=style("piview.dim"))
    return head, indent(*body) if body else None


def plain_developer(ctx: Ctx) -> str:
    """``developer`` and the text."""
    m = message_as(ctx, DeveloperMessage)
    return "developer\n" + (blocks_plain(blocks_of(m.content)) if m is not None else "")


# --------------------------------------------------------------------------- fileMention


def render_file_mention(ctx: Ctx) -> Rendered:
    """``@ files`` and one line per file (its lines); each file's content when expanded."""
    m = message_as(ctx, FileMentionMessage)
    left = Text(f"{marker(ctx)} ", style=style("piview.marker"))
    left.append("@ files", style("piview.wrapper"))
    files = m.files if m is not None else []
    left.append(f"  {len(files)} attached", style("piview.dim"))
    head = header(left, ctx.time, ctx.width)
    body: list[RenderableType] = []
    for f in files:
        line = Text("▸ file " if not ctx.expanded else "▾ file ", style=style("piview.wrapper"))
        line.append(sanitize_line(f.path) or "?", style("piview.path"))
        n = f.line_count
        if isinstance(n, int | float) and not isinstance(n, bool):
            line.append(f" ({lines_label(int(number(n)))})", style("piview.dim"))
        if f.skipped_reason:
            line.append(f" · skipped: {sanitize_line(f.skipped_reason)}", style("piview.warning"))
        if f.image is not None:
            line.append(" · image", style("piview.dim"))
        line.no_wrap = True
        line.overflow = "ellipsis"
        body.append(line)
        if ctx.expanded and f.content:
            body.append(indent(code(sanitize(f.content), f.path)))
    return head, indent(*body) if body else None


def plain_file_mention(ctx: Ctx) -> str:
    """The paths and contents."""
    m = message_as(ctx, FileMentionMessage)
    files = m.files if m is not None else []
    return "files\n" + "\n".join(f"{f.path}\n{sanitize(f.content or '')}" for f in files)


# --------------------------------------------------------------------------- pythonExecution


def render_python(ctx: Ctx) -> Rendered:
    """``>>> code · exit N`` and the output's last lines (all of it when expanded)."""
    m = message_as(ctx, PythonExecutionMessage)
    left = Text(f"{marker(ctx)} ", style=style("piview.marker"))
    left.append(">>> ", style("piview.bash"))
    if m is None:
        return header(left, ctx.time, ctx.width), None
    src = sanitize(m.code).strip()
    first, _, rest = src.partition("\n")
    left.append(first or "?", style("piview.bash"))
    if rest.strip():
        left.append(" …", style("piview.dim"))
    status = Text("  python ", style=style("piview.dim"))
    if m.cancelled:
        status.append("⊘ cancelled", style("piview.warning"))
    elif bash.is_error(m.exit_code):
        status.append("✗ error", style("piview.error"))
    elif m.exit_code is not None:
        status.append("✓ ok", style("piview.ok"))
    output, more = prepare(m.output, None if ctx.expanded else bash.COLLAPSED_LINES, tail=True)
    if m.exclude_from_context:
        status.append("  not sent to the model", style("piview.hidden"))
    body: list[RenderableType] = []
    if ctx.expanded and rest.strip():
        body.append(code(src, "cell.py"))
    if output:
        if more:
            body.append(more_line(more, earlier=True))
        body.append(Text(output))
    if m.truncated:
        body.append(Text("Output truncated.", style=style("piview.warning")))
    return header(left, ctx.time, ctx.width, keep=status), indent(*body) if body else None


def plain_python(ctx: Ctx) -> str:
    """Code and output."""
    m = message_as(ctx, PythonExecutionMessage)
    return f">>> {sanitize(m.code)}\n{sanitize(m.output)}" if m is not None else ">>>"


# --------------------------------------------------------------------------- session_init


def _init_prompt(e: SessionInitEntry) -> str:
    p = e.system_prompt
    return "\n\n".join(p) if isinstance(p, list) else p


def render_session_init(ctx: Ctx) -> Rendered:
    """``session init · agent · N tools`` and the task; the system prompt when expanded."""
    e = ctx.entry
    left = Text(f"{marker(ctx)} ", style=style("piview.marker"))
    left.append("session init", style("piview.system"))
    if not isinstance(e, SessionInitEntry):
        return header(left, ctx.time, ctx.width), None
    bits = [f"agent {sanitize_line(e.agent)}"] if e.agent else []
    if e.resolved_model:
        bits.append(sanitize_line(e.resolved_model))
    bits.append(f"{len(e.tools)} tools")
    left.append("  " + " · ".join(bits), style("piview.dim"))
    head = header(left, ctx.time, ctx.width)
    task = sanitize(e.task).strip()
    body: list[RenderableType] = []
    if task:
        shown, more = (task, 0) if ctx.expanded else preview_lines(task, PREVIEW_LINES)
        body.append(Text(shown))
        if more:
            body.append(more_line(more))
    if ctx.expanded:
        if e.tools:
            body.append(Text("tools: " + ", ".join(map(sanitize_line, e.tools)), style="dim"))
        prompt = sanitize(_init_prompt(e)).strip()
        if prompt:
            body.append(Text(prompt, style=style("piview.dim")))
    return head, indent(*body) if body else None


def plain_session_init(ctx: Ctx) -> str:
    """Task, tools and system prompt."""
    e = ctx.entry
    if not isinstance(e, SessionInitEntry):
        return "session init"
    return "\n".join(["session init", e.task, ", ".join(e.tools), _init_prompt(e)])


# --------------------------------------------------------------------------- dividers


def _usage_words(e: ModelUsageEntry) -> str:
    words = f"{sanitize_line(e.purpose) or 'model call'} · "
    words += sanitize_line(f"{e.provider}/{e.model}" if e.provider else e.model) or "?"
    if e.role:
        words += f" ({sanitize_line(e.role)})"
    u = e.usage
    if u is not None:
        tokens = number(u.input) + number(u.output) + number(u.cache_read)
        words += f" · {fmt_tokens(tokens)} tokens"
        if u.cost is not None:
            words += f" · {fmt_cost(u.cost.total_cost())}"
    if e.error_message:
        words += f" · error: {sanitize_line(e.error_message)}"
    return words


def _tiers(value: Any) -> str:
    if isinstance(value, dict) and value:
        pairs = (f"{sanitize_line(str(k))} {sanitize_line(str(v))}" for k, v in value.items())
        return ", ".join(pairs)
    return sanitize_line(str(value)) if value else "default"


def divider_text(ctx: Ctx) -> str:
    """The divider's words, e.g. ``title → "Fix the logo" (was "Logo help")``."""
    return entry_words(ctx.entry) or sanitize_line(ctx.node.type) or "?"


def entry_words(e: object) -> str | None:
    """The divider words of an oh-my-pi settings entry (or quiet custom entry), else None."""
    if isinstance(e, TitleChangeEntry):
        words = f'title → "{sanitize_line(e.title)}"'
        if e.previous_title:
            words += f' (was "{sanitize_line(e.previous_title)}")'
        return words
    if isinstance(e, ModeChangeEntry):
        mode = sanitize_line(e.mode)
        return "mode off" if mode in ("", "none") else f"{mode} mode on"
    if isinstance(e, ModelUsageEntry):
        return "other model work: " + _usage_words(e)
    if isinstance(e, ServiceTierChangeEntry):
        return f"service tier: {_tiers(e.service_tier)}"
    if isinstance(e, TtsrInjectionEntry):
        return "rules injected: " + (", ".join(map(sanitize_line, e.injected_rules)) or "none")
    if isinstance(e, CredentialPinEntry):
        return f"{sanitize_line(e.provider) or '?'} account pinned"
    if isinstance(e, ResetBoundaryEntry):
        return "context cleared (/clear): the model starts afresh here"
    if isinstance(e, ArchiveEntry):
        target = sanitize_line(e.target_id) or "?"
        return f"branch {target} archived" if e.archived else f"branch {target} unarchived"
    if isinstance(e, CustomEntry):
        data = e.data if isinstance(e.data, dict) else {}
        if e.custom_type == "tool_execution_start":
            name = data.get("name") or data.get("toolName") or ""
            return f"tool started: {sanitize_line(str(name)) or '?'}"
        if e.custom_type == "session_exit":
            reason = data.get("reason")
            return "session exit" + (f": {sanitize_line(str(reason))}" if reason else "")
        return f"[{sanitize_line(e.custom_type)}]"
    return None


def render_divider(ctx: Ctx) -> Rendered:
    """``── words ─────── HH:MM:SS``, dim, exactly one line."""
    return rule(divider_text(ctx), ctx.time, ctx.width), None


def plain_divider(ctx: Ctx) -> str:
    """The divider's words."""
    return divider_text(ctx)
