"""Provides the rendering of tool calls with their results, and of results without a call.

A tool item is one ``toolCall`` block of an assistant message plus the result(s) paired with
it along the path. The header reads like the command (``read src/app.py:10-29``,
``$ pytest -q``, ``edit config.py:15``); under it goes the call's own content where it has one
(an edit's diff, the content of a write, a long command or unusual arguments) and the result,
cut to a few lines until the item is expanded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from rich.console import RenderableType
from rich.style import Style
from rich.text import Text

from piview.model.names import SUBAGENT_TOOLS
from piview.model.toolargs import read_range
from piview.model.types import (
    AssistantMessage,
    ImageContent,
    TextContent,
    ToolCall,
    ToolResultMessage,
    number,
)
from piview.render.format import fmt_duration_ms
from piview.render.plugins import REGISTRY, ToolCallView
from piview.render.roles._common import (
    MAX_TEXT_LINES,
    PREVIEW_LINE_CHARS,
    Ctx,
    Rendered,
    ToolOwn,
    blocks_plain,
    blocks_renderables,
    clip,
    code,
    count_lines,
    entry_ms,
    header,
    indent,
    lines_label,
    marker,
    message_as,
    more_line,
    prepare,
)
from piview.render.roles._fields import result_extras
from piview.render.roles._json import details_block, json_plain, json_renderable, safe_json
from piview.render.roles.ext_tools import title as ext_title  # registers their cards too
from piview.render.roles.subagent import card, title
from piview.render.sanitize import sanitize, sanitize_line
from piview.render.theme import style

_ARGS_PREVIEW = 100  # characters of compact JSON arguments in a generic header


@dataclass(slots=True)
class ToolView:
    """How one tool call reads: its title and how to cut its result."""

    title: Text
    path: str | None = None
    """File the tool works on (result highlighting)."""
    tail: bool = False
    """Collapsed result shows the last lines (bash) rather than the first."""
    lines: int = 8
    """Result lines shown while collapsed."""
    command: str | None = None
    """A bash command longer than one line (shown whole when expanded)."""
    extra: dict[str, Any] = field(default_factory=dict)


def _arg(args: dict[str, Any], *names: str) -> str:
    for n in names:
        v = args.get(n)
        if isinstance(v, str) and v:
            return sanitize_line(v)
    return ""


def _int(v: object) -> int | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return None


def describe(name: str, args: object, namespace: str | None = None) -> ToolView:
    """The readable form of a call: ``read path:10-29``, ``$ cmd``, ``grep /pat/ in p``, …"""
    a: dict[str, Any] = args if isinstance(args, dict) else {}
    tool_style = style("piview.tool")
    arg_style = style("piview.tool.args")
    path_style = style("piview.path")
    name_s = sanitize_line(name) or "?"
    t = Text()
    if name == "read":
        path = _arg(a, "path", "file_path")
        t.append("read ", tool_style)
        t.append(path or "?", path_style)
        rng = read_range(a)
        if rng:
            t.append(rng, arg_style)
        return ToolView(t, path=path or None, lines=10)
    if name == "bash":
        cmd = sanitize(a.get("command")) if isinstance(a.get("command"), str) else ""
        first, _, rest = cmd.strip().partition("\n")
        t.append("$ ", tool_style)
        t.append(first or "?", arg_style)
        if rest.strip():
            t.append(" …", style("piview.dim"))
        timeout = number(a.get("timeout"))  # NaN, 10**400 …: no timeout shown
        if timeout:
            t.append(f" (timeout {timeout:g}s)", style("piview.dim"))
        return ToolView(t, tail=True, lines=5, command=cmd if rest.strip() else None)
    if name == "edit":
        path = _arg(a, "path", "file_path")
        t.append("edit ", tool_style)
        t.append(path or "?", path_style)
        return ToolView(t, path=path or None, lines=8)
    if name == "write":
        path = _arg(a, "path", "file_path")
        content = a.get("content")
        t.append("write ", tool_style)
        t.append(path or "?", path_style)
        if isinstance(content, str):
            t.append(f" ({lines_label(count_lines(content))})", style("piview.dim"))
        return ToolView(t, path=path or None, lines=10)
    if name == "grep":
        t.append("grep ", tool_style)
        t.append(f"/{_arg(a, 'pattern')}/", arg_style)
        if a.get("ignoreCase"):
            t.append("i", arg_style)
        t.append(" in ", style("piview.dim"))
        t.append(_arg(a, "path") or ".", path_style)
        glob = _arg(a, "glob")
        if glob:
            t.append(f" ({glob})", arg_style)
        lim = _int(a.get("limit"))
        if lim is not None:
            t.append(f" limit {lim}", style("piview.dim"))
        return ToolView(t, lines=8)
    if name == "find":
        t.append("find ", tool_style)
        t.append(_arg(a, "pattern") or "?", arg_style)
        t.append(" in ", style("piview.dim"))
        t.append(_arg(a, "path") or ".", path_style)
        return ToolView(t, lines=8)
    if name == "ls":
        t.append("ls ", tool_style)
        t.append(_arg(a, "path") or ".", path_style)
        lim = _int(a.get("limit"))
        if lim is not None:
            t.append(f" (limit {lim})", style("piview.dim"))
        return ToolView(t, lines=8)
    if name in SUBAGENT_TOOLS and not namespace:
        own = title(a)
        if own is not None:
            return ToolView(own, lines=8)
    # The popular extensions' tools (mcp, web_search, fetch_content, todo), when their
    # arguments have the shape their card knows; still "generic": their arguments are shown
    # whole when the card falls back to the generic body.
    ext = None if namespace else ext_title(name, a)
    if ext is not None:
        return ToolView(ext, lines=8, extra={"generic": True})
    full = f"{sanitize_line(namespace)}.{name_s}" if namespace else name_s
    t.append(full, tool_style)
    if a or not isinstance(args, dict):
        preview = json_plain(args)
        if len(preview) > _ARGS_PREVIEW:
            preview = preview[:_ARGS_PREVIEW] + "…"
        t.append(" " + preview, arg_style)
    return ToolView(t, lines=8, extra={"generic": True})


# ----------------------------------------------------------------------------- diffs

_DIFF_LINE = re.compile(r"^([+\- ])( *\d+) (.*)$", re.DOTALL)
_DIFF_SKIP = re.compile(r"^ +\.\.\.\s*$")


def diff_lines(diff: str, limit: int | None = None) -> list[Text]:
    """Pi's numbered diff (``+NN text``, ``-NN text``, `` NN text``) as coloured lines.

    A lone removed line followed by a lone added line gets the changed span highlighted.
    With ``limit``, only the first ``limit + 1`` lines are made (enough to tell that there
    are more).
    """
    if limit is not None:
        diff, _more = clip(diff.lstrip("\n"), limit + 2, (limit + 2) * (PREVIEW_LINE_CHARS + 1))
    raw = sanitize(diff).split("\n")
    parsed: list[tuple[str, str, str]] = []
    for line in raw:
        if not line and not parsed:
            continue
        if _DIFF_SKIP.match(line):
            parsed.append(("…", "", ""))
            continue
        m = _DIFF_LINE.match(line)
        if m:
            parsed.append((m.group(1), m.group(2), m.group(3)))
        else:
            parsed.append(("?", "", line))
    while parsed and parsed[-1] == ("?", "", ""):
        parsed.pop()
    out: list[Text] = []
    if limit is not None:
        parsed = parsed[: limit + 1]
    for k, (sign, num, text) in enumerate(parsed):
        out.append(_diff_text(sign, num, text))
        if sign == "+" and k >= 1 and parsed[k - 1][0] == "-":
            lone_del = k < 2 or parsed[k - 2][0] != "-"
            lone_add = k + 1 >= len(parsed) or parsed[k + 1][0] != "+"
            if lone_del and lone_add:
                _mark_change(out[-2], out[-1], parsed[k - 1][2], text)
    return out


def diff_counts(diff: str) -> tuple[int, int]:
    """Added and removed lines of a Pi diff."""
    adds = dels = 0
    for line in diff.split("\n"):
        if line.startswith("+"):
            adds += 1
        elif line.startswith("-"):
            dels += 1
    return adds, dels


def _diff_text(sign: str, num: str, text: str) -> Text:
    if sign == "…":
        return Text("   ⋮", style=style("piview.diff.lineno"))
    st = {"+": "piview.diff.add", "-": "piview.diff.del"}.get(sign, "piview.diff.ctx")
    t = Text(no_wrap=False)
    if num:
        t.append(num + " ", style("piview.diff.lineno"))
    t.append(sign if sign in "+-" else " ", style(st))
    t.append(text, style(st) if sign in "+-" else Style())
    return t


def _mark_change(old_t: Text, new_t: Text, old: str, new: str) -> None:
    # Highlight the span between the common prefix and suffix of a 1:1 changed line.
    p = 0
    n = min(len(old), len(new))
    while p < n and old[p] == new[p]:
        p += 1
    s = 0
    while s < n - p and old[len(old) - 1 - s] == new[len(new) - 1 - s]:
        s += 1
    if p == 0 and s == 0:
        return
    change = style("piview.diff.change")
    if len(old) - s > p:
        start = old_t.cell_len - len(old)
        old_t.stylize(change, start + p, start + len(old) - s)
    if len(new) - s > p:
        start = new_t.cell_len - len(new)
        new_t.stylize(change, start + p, start + len(new) - s)


def _str(v: object) -> str:
    return v if isinstance(v, str) else ""


def _edits_of(args: dict[str, Any]) -> list[tuple[str, str]]:
    edits = args.get("edits")
    out: list[tuple[str, str]] = []
    if isinstance(edits, list):
        for e in edits:
            if isinstance(e, dict):
                old, new = e.get("oldText"), e.get("newText")
                out.append((_str(old), _str(new)))
    old, new = args.get("oldText"), args.get("newText")
    if isinstance(old, str) or isinstance(new, str):
        out.append((_str(old), _str(new)))
    return out


def args_diff_lines(args: dict[str, Any], limit: int | None = None) -> list[Text]:
    """Fallback diff from the call's ``oldText``/``newText`` or ``edits[]`` (no line numbers).

    With ``limit``, only the first ``limit + 1`` lines are made.
    """
    out: list[Text] = []
    stop = None if limit is None else limit + 1
    for k, (old, new) in enumerate(_edits_of(args)):
        if stop is not None and len(out) >= stop:
            break
        if k:
            out.append(Text("   ⋮", style=style("piview.diff.lineno")))
        for sign, part, name in (("-", old, "piview.diff.del"), ("+", new, "piview.diff.add")):
            if not part:
                continue
            if stop is not None:
                part, _more = clip(part, stop, stop * (PREVIEW_LINE_CHARS + 1))
            out.extend(Text(sign + line, style=style(name)) for line in sanitize(part).split("\n"))
    return out if stop is None else out[:stop]


def _args_diff_total(args: dict[str, Any]) -> int:
    """Lines :func:`args_diff_lines` would make without a limit."""
    edits = _edits_of(args)
    n = max(0, len(edits) - 1)
    for old, new in edits:
        n += (old.count("\n") + 1 if old else 0) + (new.count("\n") + 1 if new else 0)
    return n


def _diff_of(results: list[tuple[int, ToolResultMessage]]) -> tuple[str | None, int | None]:
    for _i, r in results:
        d = r.details
        if isinstance(d, dict) and isinstance(d.get("diff"), str):
            first = _int(d.get("firstChangedLine"))
            return d["diff"], first
    return None, None


# ----------------------------------------------------------------------------- call + results


def _call(ctx: Ctx) -> tuple[AssistantMessage | None, ToolCall | None]:
    msg = getattr(ctx.entry, "message", None)
    if not isinstance(msg, AssistantMessage):
        return None, None
    k = ctx.item.part
    if 0 <= k < len(msg.content) and isinstance(msg.content[k], ToolCall):
        return msg, msg.content[k]  # type: ignore[return-value]
    return msg, None


def _results(ctx: Ctx) -> list[tuple[int, ToolResultMessage]]:
    out: list[tuple[int, ToolResultMessage]] = []
    for r in ctx.session.pairing.call_results.get((ctx.item.entry, ctx.item.part), []):
        m = getattr(ctx.session.entry(r), "message", None)
        if isinstance(m, ToolResultMessage):
            out.append((r, m))
    return out


def _result_raw(r: ToolResultMessage) -> str:
    """The result's text blocks joined, not yet sanitised (see :func:`prepare`)."""
    return "\n".join(b.text for b in r.content if isinstance(b, TextContent)).strip("\n")


def _truncation_note(r: ToolResultMessage) -> Text | None:
    d = r.details
    if not isinstance(d, dict):
        return None
    parts: list[str] = []
    tr = d.get("truncation")
    if isinstance(tr, dict) and tr.get("truncated"):
        shown, total = _int(tr.get("outputLines")), _int(tr.get("totalLines"))
        if shown is not None and total is not None:
            parts.append(f"output truncated: {shown:,} of {total:,} lines kept")
        else:
            parts.append("output truncated")
    for key, label in (
        ("matchLimitReached", "match limit reached"),
        ("resultLimitReached", "result limit reached"),
        ("entryLimitReached", "entry limit reached"),
    ):
        if d.get(key):
            parts.append(label)
    path = d.get("fullOutputPath")
    if isinstance(path, str) and path:
        parts.append(f"full output: {sanitize_line(path)}")
    if not parts:
        return None
    return Text("[" + " · ".join(parts) + "]", style=style("piview.warning"))


def _result_body(
    ctx: Ctx,
    r_index: int,
    r: ToolResultMessage,
    view: ToolView,
    *,
    expanded: bool,
    show_text: bool = True,
    drawn: frozenset[str] = frozenset(),
) -> list[RenderableType]:
    out: list[RenderableType] = []
    text, more = prepare(_result_raw(r), None if expanded else view.lines, tail=view.tail)
    text_style = style("piview.error.text") if r.is_error else None
    if show_text and text:
        if more and view.tail:
            out.append(more_line(more, earlier=True))
        if text_style is not None:
            out.append(Text(text, style=text_style))
        elif view.path and not r.is_error:
            out.append(code(text, view.path))
        else:
            out.append(Text(text, style=style("piview.tool.output")))
        if more and not view.tail:
            out.append(more_line(more))
    out.extend(_image_renderables(ctx, r_index, r, expanded))
    note = _truncation_note(r)
    if note is not None:
        out.append(note)
    # What the tool's own renderResult reads, less what is drawn above.
    d = r.details
    if isinstance(d, dict) and (drawn := drawn | (_NOTE_KEYS if note is not None else set())):
        d = {k: v for k, v in d.items() if k not in drawn}
    out.extend(details_block(d, "details", expanded=expanded))
    return out


_NOTE_KEYS = frozenset(
    {"truncation", "fullOutputPath", "matchLimitReached", "resultLimitReached", "entryLimitReached"}
)
_EDIT_KEYS = frozenset({"diff", "firstChangedLine"})


def _image_renderables(
    ctx: Ctx, r_index: int, r: ToolResultMessage, expanded: bool
) -> list[RenderableType]:
    imgs = [(k, b) for k, b in enumerate(r.content) if isinstance(b, ImageContent)]
    out: list[RenderableType] = []
    for k, b in imgs:
        out.extend(blocks_renderables(ctx, [b], key=("r", r_index, k), images=expanded))
    return out


def _status(
    results: list[tuple[int, ToolResultMessage]], view: ToolView, *, count_output: bool = True
) -> Text:
    t = Text()
    if not results:
        t.append("⋯ no result", style("piview.warning"))
        return t
    errors = sum(1 for _i, r in results if r.is_error)
    if errors:
        t.append("✗ error", style("piview.error"))
    else:
        t.append("✓", style("piview.ok"))
    n = sum(count_lines(_result_raw(r)) for _i, r in results)
    n_img = sum(1 for _i, r in results for b in r.content if isinstance(b, ImageContent))
    bits: list[str] = []
    if n and count_output:
        bits.append(lines_label(n))
    if n_img:
        bits.append(f"{n_img} image" + ("s" if n_img > 1 else ""))
    if len(results) > 1:
        bits.append(f"{len(results)} results")
    if bits:
        t.append(" " + ", ".join(bits), style("piview.dim"))
    return t


def render(ctx: Ctx) -> Rendered:
    """A tool call, its result(s) under it, collapsed to a few lines unless expanded."""
    msg, call = _call(ctx)
    if call is None:
        left = Text("? tool call not found", style=style("piview.error.text"))
        return header(left, ctx.time, ctx.width), None
    args = call.arguments
    view = describe(call.name, args, call.namespace)
    results = _results(ctx)
    left = Text(f"{marker(ctx)} ", style=style("piview.marker"))
    left.append_text(view.title)
    diff, first_line = _diff_of(results) if call.name == "edit" else (None, None)
    if call.name == "edit" and first_line is not None:
        left.append(f":{first_line}", style("piview.tool.args"))
    # Status, size and latency are kept whole: a long argument is what gets shortened.
    status = Text("  ")
    # An edit's or write's text result is one "Successfully …" line: its size says nothing.
    status.append_text(_status(results, view, count_output=call.name not in ("edit", "write")))
    if diff is not None:
        adds, dels = diff_counts(diff)
        status.append(f" +{adds}", style("piview.diff.add"))
        status.append(f" −{dels}", style("piview.diff.del"))
    if results:
        t0, t1 = entry_ms(ctx.session, ctx.item.entry), entry_ms(ctx.session, results[0][0])
        if t0 is not None and t1 is not None and t1 >= t0:
            sep = " " if status.plain.endswith("✓") else " · "
            status.append(f"{sep}{fmt_duration_ms(t1 - t0)}", style("piview.dim"))
    # The results' own model work and the tools they loaded (Pi 0.80.7, 0.81.0).
    extra, loaded_line = result_extras([r for _i, r in results])
    status.append(extra, style("piview.usage"))
    head = header(left, ctx.time, ctx.width, keep=status)
    if ctx.head_only:
        return head, None

    drawn = ToolCallView(call, [r for _i, r in results], ctx.expanded)
    drawn.own = ToolOwn(ctx, msg, view, results, diff, loaded_line)
    lines = None if ctx.expanded else view.lines
    return head, REGISTRY.render("tool", call.name, drawn, _builtin, lines)


def _builtin(c: ToolCallView) -> RenderableType | None:
    """piview's own body of a call: its content (an edit's diff, a write's content, a long
    command, another tool's arguments), then its results."""
    ctx, msg, view, results, diff, loaded_line = c.own
    expanded, args, a = c.expanded, c.args, c.args
    body: list[RenderableType] = []
    show_result_text = True
    if c.name == "edit":
        limit = MAX_TEXT_LINES if expanded else 16
        lines = diff_lines(diff, limit) if diff is not None else args_diff_lines(a, limit)
        if lines:
            shown = lines[:limit]
            body.extend(shown)
            if len(lines) > len(shown):
                # Only the first lines were made: count the rest in the source.
                total = count_lines(diff.strip("\n")) if diff is not None else _args_diff_total(a)
                body.append(more_line(max(1, total - len(shown))))
            # The text result is just "Successfully replaced…": show it only when it failed.
            show_result_text = any(r.is_error for _i, r in results) or expanded
    elif c.name == "write":
        content = a.get("content")
        if isinstance(content, str) and content:
            text, more = prepare(content, None if expanded else view.lines)
            body.append(code(text, view.path))
            if more:
                body.append(more_line(more))
        show_result_text = any(r.is_error for _i, r in results) or expanded
    elif expanded and view.command:
        body.append(code(view.command, "command.sh"))
    elif expanded and view.extra.get("generic") and a:
        body.append(json_renderable(args))

    if not results:
        body.append(_no_result_line(msg))
    for n, (r_i, r) in enumerate(results):
        if len(results) > 1:
            body.append(Text(f"result {n + 1} of {len(results)}", style=style("piview.dim")))
        drawn = _EDIT_KEYS if c.name == "edit" and diff is not None else frozenset()
        body.extend(
            _result_body(
                ctx, r_i, r, view, expanded=expanded, show_text=show_result_text, drawn=drawn
            )
        )
    if loaded_line:
        body.append(Text(loaded_line, style=style("piview.dim")))
    return indent(*body) if body else None


for _name in ("read", "bash", "edit", "write", "grep", "find", "ls"):
    REGISTRY.tool(_name)(_builtin)  # as a plugin's are: one of these may replace them


def _subagent(c: ToolCallView) -> RenderableType | None:
    """pi-subagents' call: a row per child run, then the generic body."""
    parent = c.own.ctx.session.path if c.own else None
    return card(c, _builtin, str(parent) if parent else None)


for _name in SUBAGENT_TOOLS:
    REGISTRY.tool(_name)(_subagent)


def _no_result_line(msg: AssistantMessage | None) -> Text:
    t = Text("no result", style=style("piview.warning"))
    if msg is not None and msg.stop_reason in ("error", "aborted"):
        why = sanitize_line(msg.error_message) or msg.stop_reason
        t.append(f" (the turn {'was aborted' if msg.stop_reason == 'aborted' else 'failed'}: ")
        t.append(why, style("piview.error.text"))
        t.append(")")
    return t


def plain(ctx: Ctx) -> str:
    """Title, arguments and result text of a call, for search."""
    _msg, call = _call(ctx)
    if call is None:
        return "tool"
    parts = [describe(call.name, call.arguments, call.namespace).title.plain]
    if call.arguments:
        parts.append(safe_json(call.arguments))
    for _i, r in _results(ctx):
        d = r.details
        if isinstance(d, dict) and isinstance(d.get("diff"), str):
            parts.append(sanitize(d["diff"]))
        parts.append(blocks_plain(r.content))
    return "\n".join(p for p in parts if p)


# ----------------------------------------------------------------------------- orphans


def render_orphan(ctx: Ctx) -> Rendered:
    """A tool result whose call is not on the path: marked, with its id and output."""
    r = message_as(ctx, ToolResultMessage)
    left = Text(f"{marker(ctx)} ", style=style("piview.marker"))
    left.append("⚠ result without a call", style("piview.warning"))
    if r is None:
        return header(left, ctx.time, ctx.width), None
    name = sanitize_line(r.tool_name) or "?"
    left.append(f" · {name}", style("piview.tool"))
    left.append(f" · id {sanitize_line(r.tool_call_id) or '?'}", style("piview.dim"))
    status = Text("  ")
    status.append_text(_status([(ctx.item.entry, r)], describe(r.tool_name, {})))
    extra, loaded_line = result_extras([r])
    status.append(extra, style("piview.usage"))
    head = header(left, ctx.time, ctx.width, keep=status)
    if ctx.head_only:
        return head, None
    view = describe(r.tool_name, {})
    view.path = None
    body = _result_body(ctx, ctx.item.entry, r, view, expanded=ctx.expanded)
    if loaded_line:
        body.append(Text(loaded_line, style=style("piview.dim")))
    return head, indent(*body) if body else None


def plain_orphan(ctx: Ctx) -> str:
    """Tool name, id and output of an orphan result."""
    r = message_as(ctx, ToolResultMessage)
    if r is None:
        return "result without a call"
    return "\n".join(
        [
            f"result without a call {sanitize_line(r.tool_name)} {sanitize_line(r.tool_call_id)}",
            blocks_plain(r.content),
        ]
    )
