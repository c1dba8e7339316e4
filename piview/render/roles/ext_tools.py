"""Provides the cards of the popular extensions' tools (issue #30): pi-mcp-adapter's ``mcp``,
pi-web-access's ``web_search`` and ``fetch_content``, and the ``todo`` tool of Pi's example
extension.

Each is a built-in renderer of :data:`~piview.render.plugins.REGISTRY` (registered when
:mod:`piview.render.roles.tool` is imported, so when the first tool block is drawn), with a
header title for :func:`piview.render.roles.tool.describe` (:func:`title`). Each knows the
arguments and ``details`` of the versions in ``tests/fixtures/extensions/`` and returns None
(the generic rendering) for any other shape: a newer extension may write another. None of
them may raise on what a file holds; the registry falls back to the generic body if one does.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from rich.console import RenderableType
from rich.text import Text

from piview.model.types import ImageContent, TextContent, ToolResultMessage
from piview.render.plugins import REGISTRY, ToolCallView
from piview.render.roles._common import (
    MAX_TEXT_LINES,
    Ctx,
    ToolOwn,
    blocks_renderables,
    indent,
    more_line,
    prepare,
)
from piview.render.roles._json import json_plain, json_renderable
from piview.render.sanitize import sanitize_line
from piview.render.theme import style

COLLAPSED_LINES = 8
"""Lines of a card's body shown while its block is collapsed."""

Card = Callable[[ToolCallView], "RenderableType | None"]


# ----------------------------------------------------------------------------- helpers


def _s(v: object) -> str:
    """A string field as one sanitised line; anything else is ``""``."""
    return sanitize_line(v) if isinstance(v, str) else ""


def _n(v: object) -> int | None:
    """An integer field (a bool or a float with a fraction is not one)."""
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e15:
        return int(v)
    return None


def _dict(v: object) -> dict[str, Any]:
    return v if isinstance(v, dict) else {}


def _strs(v: object) -> list[str]:
    """A list field's strings as lines (the rest left out)."""
    return [s for s in (_s(x) for x in v) if s] if isinstance(v, list) else []


def _raw_text(r: ToolResultMessage) -> str:
    return "\n".join(b.text for b in r.content if isinstance(b, TextContent)).strip("\n")


def _label(k: str, v: str, st: str = "piview.tool.args") -> Text:
    """``key  value``, the key dim and padded so that the values line up."""
    t = Text(f"{k:<7} ", style=style("piview.dim"), no_wrap=True, overflow="ellipsis")
    t.append(v, style(st))
    return t


def _results(c: ToolCallView) -> tuple[Ctx | None, list[tuple[int, ToolResultMessage]]]:
    """The block's context and its results with their entry indices, from what the tool
    renderer hands over in ``c.own`` (none when a card is called without it, as in tests)."""
    own = c.own
    if isinstance(own, ToolOwn):
        return own.ctx, own.results
    return None, [(-1, r) for r in c.results]


def _loaded_line(c: ToolCallView) -> Text | None:
    """The tools a result loaded (Pi 0.81.0), as the generic body ends with it."""
    own = c.own
    if isinstance(own, ToolOwn) and own.loaded_line:
        return Text(own.loaded_line, style=style("piview.dim"))
    return None


def _text_lines(
    raw: str, c: ToolCallView, *, error: bool = False, n: int = COLLAPSED_LINES
) -> list[RenderableType]:
    """A result's text, its first ``n`` lines while collapsed, with the count of the rest."""
    text, more = prepare(raw, None if c.expanded else n)
    if not text:
        return []
    st = "piview.error.text" if error else "piview.tool.output"
    out: list[RenderableType] = [Text(text, style=style(st))]
    if more:
        out.append(more_line(more))
    return out


def _images(c: ToolCallView) -> list[RenderableType]:
    """A result's images, as the generic rendering draws them: a preview when expanded,
    one ``▣`` line when collapsed (keyed alike, so the preview cache is shared)."""
    ctx, results = _results(c)
    out: list[RenderableType] = []
    for r_index, r in results:
        for k, b in enumerate(r.content):
            if not isinstance(b, ImageContent):
                continue
            if ctx is None:
                out.append(Text(f"▣ image {_s(b.mime_type)}", style=style("piview.image")))
            else:
                key = ("r", r_index, k)
                out.extend(blocks_renderables(ctx, [b], key=key, images=c.expanded))
    return out


def _cut(lines: list[Text], c: ToolCallView, n: int = COLLAPSED_LINES) -> list[RenderableType]:
    """``lines`` (one Text a line), the first ``n`` while collapsed, with the count of the
    rest; at most :data:`MAX_TEXT_LINES` when expanded."""
    limit = MAX_TEXT_LINES if c.expanded else n
    if len(lines) <= limit + (0 if c.expanded else 1):
        return list(lines)
    return [*lines[:limit], more_line(len(lines) - limit)]


def _body(c: ToolCallView, parts: list[RenderableType]) -> RenderableType:
    loaded = _loaded_line(c)
    return indent(*parts, *([loaded] if loaded is not None else []))


# ----------------------------------------------------------------------------- mcp

_MCP_KEYS = frozenset(
    {"tool", "args", "server", "search", "connect", "describe", "instructions", "action", "url"}
)
"""The gateway parameters of pi-mcp-adapter 2.36's ``mcp`` tool."""


def _mcp_title(a: dict[str, Any]) -> Text | None:
    if not a or not (a.keys() & _MCP_KEYS):
        return None
    t = Text("mcp ", style=style("piview.tool"))
    arg = style("piview.tool.args")
    tool, server = _s(a.get("tool")), _s(a.get("server"))
    if tool:
        t.append(f"{server}/{tool}" if server else tool, arg)
    elif isinstance(a.get("search"), str):
        t.append("search ", style("piview.dim"))
        t.append(f'"{_s(a["search"])}"', arg)
        if server:
            t.append(f" in {server}", style("piview.dim"))
    elif _s(a.get("action")):
        t.append(_s(a["action"]), arg)
        rest = _s(a.get("url")) or server
        if rest:
            t.append(" " + rest, style("piview.path"))
    else:
        for mode in ("connect", "describe", "instructions"):
            if _s(a.get(mode)):
                t.append(f"{mode} ", style("piview.dim"))
                t.append(_s(a[mode]), arg)
                break
        else:
            if not server:
                return None
            t.append("list ", style("piview.dim"))
            t.append(server, arg)
    return t


def _mcp_args(v: object, c: ToolCallView) -> list[RenderableType]:
    """The arguments passed on to the MCP tool: a JSON object, or the JSON string the
    adapter also takes."""
    if isinstance(v, str):
        return [_label("args", _s(v))] if v else []
    if not isinstance(v, dict) or not v:
        return []
    if c.expanded and len(json_plain(v)) > 60:
        return [Text("args", style=style("piview.dim")), json_renderable(v)]
    line = _label("args", json_plain(v))
    line.no_wrap, line.overflow = True, "ellipsis"
    return [line]


def mcp(c: ToolCallView) -> RenderableType | None:
    """pi-mcp-adapter's ``mcp`` gateway tool: the server, the tool and its arguments (or the
    search, connect, describe asked), the result's content with its images, the adapter's
    error and suggestions."""
    a, d = c.args, _dict(c.details)
    mode = _s(d.get("mode"))
    if not c.results or (not (a.keys() & _MCP_KEYS) and not mode):
        return None  # no result yet, or lost: the generic body says why
    parts: list[RenderableType] = []
    server = _s(d.get("server")) or _s(a.get("server")) or _s(d.get("hintServer"))
    tool = _s(a.get("tool")) or _s(d.get("requestedTool")) or _s(d.get("tool"))
    if server:
        parts.append(_label("server", server, "piview.path"))
    if tool:
        line = _label("tool", tool)
        canonical = _s(d.get("canonicalTool"))
        if canonical and canonical != tool:
            line.append(f" ({canonical})", style("piview.dim"))
        parts.append(line)
    parts.extend(_mcp_args(a.get("args"), c))
    if isinstance(a.get("search"), str):
        parts.append(_label("search", f'"{_s(a["search"])}"'))
    error = _s(d.get("error"))
    if error:
        line = Text(f"✗ {error}", style=style("piview.error"))
        message = _s(d.get("message"))
        if message:
            line.append(f": {message}", style("piview.error.text"))
        parts.append(line)
    suggestions = _strs(d.get("suggestions"))
    if suggestions:
        parts.append(_label("did you mean", ", ".join(suggestions)))
    if mode == "search" and isinstance(d.get("matches"), list):
        matches = [_dict(m) for m in d["matches"]]
        rows = [Text(f"{_s(m.get('server')) or '?'} · {_s(m.get('tool')) or '?'}") for m in matches]
        parts.append(
            Text(f"{len(rows)} match" + ("" if len(rows) == 1 else "es"), style("piview.dim"))
        )
        parts.extend(_cut(rows, c))
        return _body(c, parts)
    failed = c.is_error or bool(error)
    for _i, r in _results(c)[1]:
        parts.extend(_text_lines(_raw_text(r), c, error=failed))
    parts.extend(_images(c))
    return _body(c, parts)


# ----------------------------------------------------------------------------- web search

_QUERY_HEAD = re.compile(r'^## Query: "(.*)"\s*$', re.MULTILINE)
_SOURCE = re.compile(r"^\d+\.\s+(.+)\n\s+(\S+://\S+)\s*$", re.MULTILINE)
"""A source of pi-web-access's answer: ``1. title`` then the url indented under it."""


def _queries(a: dict[str, Any]) -> list[str]:
    q = a.get("queries")
    if isinstance(q, list):
        return _strs(q)
    return [_s(a["query"])] if _s(a.get("query")) else []


def _search_title(a: dict[str, Any]) -> Text | None:
    queries = _queries(a)
    if not queries:
        return None
    t = Text("web_search ", style=style("piview.tool"))
    t.append(", ".join(f'"{q}"' for q in queries), style("piview.tool.args"))
    provider = a.get("provider")
    if isinstance(provider, str) and provider not in ("", "auto"):
        t.append(f" ({_s(provider)})", style("piview.dim"))
    return t


def _sources(text: str) -> list[tuple[str, list[tuple[str, str]]]]:
    """Each query's sources in the result text: ``[(query, [(title, url)])]``; one query
    named ``""`` when the text has no ``## Query:`` headings (a single query)."""
    heads = list(_QUERY_HEAD.finditer(text))
    if not heads:
        found = [(sanitize_line(t), sanitize_line(u)) for t, u in _SOURCE.findall(text)]
        return [("", found)] if found else []
    out = []
    for k, h in enumerate(heads):
        end = heads[k + 1].start() if k + 1 < len(heads) else len(text)
        found = _SOURCE.findall(text, h.end(), end)
        out.append(
            (sanitize_line(h.group(1)), [(sanitize_line(t), sanitize_line(u)) for t, u in found])
        )
    return out


def web_search(c: ToolCallView) -> RenderableType | None:
    """pi-web-access's ``web_search``: each query and its results as ``title · url`` lines,
    or the error."""
    a, d = c.args, _dict(c.details)
    queries = _queries(a) or _strs(d.get("queries"))
    if not queries or not c.results:
        return None
    raw = "\n".join(_raw_text(r) for r in c.results)
    if raw.startswith("Error:") or c.is_error or _s(d.get("error")):
        return _body(c, _text_lines(raw, c, error=True))
    found = _sources(raw[:200_000])  # a bound on the regex's work, far past any answer
    if not found:
        return None  # an answer without its list of sources: the text as it is
    rows: list[Text] = []
    for k, (query, sources) in enumerate(found):
        q = query or (queries[k] if k < len(queries) else "")
        head = Text(f'"{q}"' if q else "results", style=style("piview.tool.args"))
        head.append(
            f"  {len(sources)} result" + ("" if len(sources) == 1 else "s"), style("piview.dim")
        )
        rows.append(head)
        for title_, url in sources:
            row = Text("  ")
            row.append(title_)
            row.append(" · ", style("piview.dim"))
            row.append(url, style("piview.path"))
            row.no_wrap, row.overflow = True, "ellipsis"
            rows.append(row)
    return _body(c, _cut(rows, c))


# ----------------------------------------------------------------------------- fetch


def _urls(a: dict[str, Any]) -> list[str]:
    if _s(a.get("url")):
        return [_s(a["url"])]
    return _strs(a.get("urls"))


def _fetch_title(a: dict[str, Any]) -> Text | None:
    urls = _urls(a)
    if not urls:
        return None
    t = Text("fetch_content ", style=style("piview.tool"))
    t.append(urls[0], style("piview.path"))
    if len(urls) > 1:
        t.append(f" +{len(urls) - 1} more", style("piview.dim"))
    mode = _s(a.get("mode"))
    if mode and mode != "readable":
        t.append(f" ({mode})", style("piview.dim"))
    return t


def fetch_content(c: ToolCallView) -> RenderableType | None:
    """pi-web-access's ``fetch_content``: the url(s), the status (the page's title and size,
    or the error's first line) and the content's first lines."""
    a, d = c.args, _dict(c.details)
    urls = _urls(a) or _strs(d.get("urls"))
    if not urls or not c.results:
        return None
    parts: list[RenderableType] = [_label("url", u, "piview.path") for u in urls[:20]]
    if len(urls) > 20:
        parts.append(more_line(len(urls) - 20, what="url"))
    raw = "\n".join(_raw_text(r) for r in c.results)
    error = d.get("error")
    failed = c.is_error or isinstance(error, str) or raw.startswith("Error:")
    status = Text()
    if failed:
        why = (error if isinstance(error, str) else raw.removeprefix("Error:")).strip()
        status.append("✗ ", style("piview.error"))
        status.append(sanitize_line(why.split("\n", 1)[0]) or "failed", style("piview.error.text"))
    else:
        status.append("✓ fetched", style("piview.ok"))
        bits = [f'"{_s(d["title"])}"'] if _s(d.get("title")) else []
        code = _n(d.get("status"))
        if code is not None:
            bits.insert(0, f"HTTP {code}")
        lines, chars = _n(d.get("totalLines")), _n(d.get("totalChars"))
        if lines is not None:
            bits.append(f"{lines:,} lines")
        if chars is not None:
            bits.append(f"{chars:,} chars")
        if d.get("truncated") is True:
            bits.append("truncated")
        if bits:
            status.append(" · " + " · ".join(bits), style("piview.dim"))
    parts.append(status)
    if not failed:
        parts.extend(_text_lines(raw, c, n=6))
    elif c.expanded:
        parts.extend(_text_lines(raw, c, error=True))
    parts.extend(_images(c))
    return _body(c, parts)


# ----------------------------------------------------------------------------- todo

_TODO_ACTIONS = ("list", "add", "toggle", "clear")
_DONE = ("done", "completed", "complete")


def _todo_title(a: dict[str, Any]) -> Text | None:
    action = _s(a.get("action"))
    if action not in _TODO_ACTIONS:
        return None
    t = Text("todo ", style=style("piview.tool"))
    t.append(action, style("piview.tool.args"))
    if _s(a.get("text")):
        t.append(f' "{_s(a["text"])}"', style("piview.dim"))
    if _n(a.get("id")) is not None:
        t.append(f" #{_n(a['id'])}", style("piview.tool.args"))
    return t


def _todo_item(v: object) -> tuple[int | None, str, bool] | None:
    """One item: its id, text and whether it is done (``done``, or a ``status`` such as
    ``completed``); None for what is not an item."""
    if not isinstance(v, dict):
        return None
    text = _s(v.get("text")) or _s(v.get("content")) or _s(v.get("title"))
    done = v.get("done")
    if not isinstance(done, bool):
        done = _s(v.get("status")).lower() in _DONE
    return _n(v.get("id")), text, done


def todo(c: ToolCallView) -> RenderableType | None:
    """The example todo extension's ``todo``: the list after the call, each item ``[x]`` or
    ``[ ]`` with its id, the one the call added or toggled marked; the tool's error."""
    d = _dict(c.details)
    todos = d.get("todos")
    if not isinstance(todos, list):
        return None
    items = [it for it in (_todo_item(v) for v in todos) if it is not None]
    if len(items) != len(todos):
        return None  # items of another shape: the generic JSON says more
    a = c.args
    action = _s(a.get("action")) or _s(d.get("action"))
    touched = _n(a.get("id")) if action == "toggle" else None
    if action == "add" and items and not d.get("error"):
        touched = items[-1][0]
    parts: list[RenderableType] = []
    if _s(d.get("error")):
        parts.append(Text(f"✗ {_s(d['error'])}", style=style("piview.error")))
    done = sum(1 for it in items if it[2])
    summary = f"{done}/{len(items)} done" if items else "no todos"
    parts.append(Text(summary, style=style("piview.dim")))
    rows: list[Text] = []
    for id_, text, is_done in items:
        row = Text(
            "[x] " if is_done else "[ ] ", style=style("piview.ok" if is_done else "piview.dim")
        )
        if id_ is not None:
            row.append(f"#{id_} ", style("piview.tool.args"))
        row.append(text, style("piview.dim") if is_done else None)
        if touched is not None and id_ == touched:
            row.append(f"  ← {'added' if action == 'add' else 'toggled'}", style("piview.notice"))
        rows.append(row)
    parts.extend(_cut(rows, c))
    return _body(c, parts)


# ----------------------------------------------------------------------------- registry

CARDS: dict[str, tuple[Card, Callable[[dict[str, Any]], Text | None]]] = {
    "mcp": (mcp, _mcp_title),
    "web_search": (web_search, _search_title),
    "fetch_content": (fetch_content, _fetch_title),
    "todo": (todo, _todo_title),
}
"""Each tool's card and header title."""


def title(name: str, args: object) -> Text | None:
    """The header's form of a call of one of these tools (``mcp fixture/echo``,
    ``web_search "q"``, ``fetch_content URL``, ``todo add "text"``), or None (the generic
    header) for another tool or arguments of another shape."""
    entry = CARDS.get(name)
    if entry is None or not isinstance(args, dict):
        return None
    try:
        return entry[1](args)
    except Exception:  # noqa: BLE001 - a header never breaks the view: the generic one
        return None


for _name, (_card, _title) in CARDS.items():
    REGISTRY.tool(_name)(_card)  # a plugin's renderer of the same name replaces it
