"""Provides the JSON the role renderers show: long strings cut, base64 never included, big
containers cut to their first items, highlighted unless the output is plain."""

from __future__ import annotations

import re
from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text

from piview.render.plain import is_plain
from piview.render.roles._common import clip, more_line
from piview.render.sanitize import sanitize, sanitize_line
from piview.render.theme import style

_B64_RE = re.compile(r"^[A-Za-z0-9+/=\s]{64,}$")


_MAX_NODES = 5_000  # values of one JSON object shown; notes count the rest


def _shrink(value: Any, max_str: int, budget: list[int], depth: int = 0) -> Any:
    """A copy of a JSON value safe to show: long strings cut, base64 never included, and at
    most ``budget[0]`` values in all (a huge object costs no more than a small one)."""
    if depth > 50:
        return "…"
    if isinstance(value, str):
        if len(value) >= 64 and _B64_RE.match(value[:4096]):
            return f"<base64, {len(value):,} chars>"
        if len(value) > max_str:
            return value[:max_str] + f"… (+{len(value) - max_str:,} chars)"
        return value
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for k, v in value.items():
            if budget[0] <= 0:
                out["…"] = f"+{len(value) - len(out):,} more keys"
                break
            budget[0] -= 1
            out[str(k)] = _shrink(v, max_str, budget, depth + 1)
        return out
    if isinstance(value, list | tuple):
        items: list[Any] = []
        for v in value:
            if budget[0] <= 0:
                items.append(f"… +{len(value) - len(items):,} more items")
                break
            budget[0] -= 1
            items.append(_shrink(v, max_str, budget, depth + 1))
        return items
    return value


_WIDTH = 76
"""A container whose JSON fits on one line of this many columns is written on one line."""


def _dumps(dumps: Any, v: Any, indent: int, level: int, used: int) -> str:
    """Pretty JSON that keeps small containers on one line (``{"ms": 6100, "ok": true}``)."""
    one = dumps(v, ensure_ascii=False, default=repr)
    if not isinstance(v, dict | list) or not v or used + len(one) <= _WIDTH:
        return one
    pad = " " * (indent * (level + 1))
    if isinstance(v, dict):
        keys = [dumps(str(k), ensure_ascii=False) + ": " for k in v]
        rows = [
            pad + k + _dumps(dumps, x, indent, level + 1, len(pad) + len(k))
            for k, x in zip(keys, v.values(), strict=True)
        ]
        ends = "{}"
    elif all(not isinstance(x, dict | list) for x in v):  # scalars: as many a row as fit
        rows, row = [], ""
        for x in v:
            cell = dumps(x, ensure_ascii=False, default=repr)
            if row and len(pad) + len(row) + len(cell) + 2 > _WIDTH:
                rows.append(pad + row.removesuffix(" "))
                row = ""
            row += cell + ", "
        rows.append(pad + row.removesuffix(", "))
        return "[\n" + "\n".join(rows) + "\n" + " " * (indent * level) + "]"
    else:
        rows = [pad + _dumps(dumps, x, indent, level + 1, len(pad)) for x in v]
        ends = "[]"
    return ends[0] + "\n" + ",\n".join(rows) + "\n" + " " * (indent * level) + ends[1]


def safe_json(
    value: Any, *, indent: int | None = 2, max_str: int = 400, nodes: int = _MAX_NODES
) -> str:
    """Pretty JSON of ``value`` (at most ``nodes`` values) with long strings cut and base64
    replaced; sanitised."""
    import json  # here: the first screen draws no JSON (json is not needed before it)

    try:
        small = _shrink(value, max_str, [nodes])
        if indent is None:
            text = json.dumps(small, ensure_ascii=False, default=repr)
        else:
            text = _dumps(json.dumps, small, indent, 0, 0)
    except (TypeError, ValueError, RecursionError):
        text = repr(value)[: max_str * 4]
    return sanitize(text)


def json_plain(value: Any) -> str:
    """Compact one-line JSON for headers."""
    return sanitize_line(safe_json(value, indent=None, max_str=120, nodes=60))


def json_renderable(value: Any, *, max_str: int = 400) -> RenderableType:
    """Highlighted pretty JSON (strings cut, no base64)."""
    from rich.highlighter import JSONHighlighter

    plain, more = clip(safe_json(value, max_str=max_str))
    text = Text(plain)
    if not is_plain():
        JSONHighlighter().highlight(text)
    return Group(text, more_line(more)) if more else text


def details_block(value: Any, label: str, *, expanded: bool) -> list[RenderableType]:
    """A result's ``details``, an entry's ``data``: its compact JSON on one line while the item
    is collapsed, pretty and highlighted when it is expanded; nothing for ``None`` or ``{}``."""
    if value is None or value == {}:
        return []
    head = Text(f"{label}:", style=style("piview.dim"))
    if expanded:
        return [head, json_renderable(value)]
    head.append(" ")
    head.append(json_plain(value), style("piview.tool.args"))
    head.no_wrap, head.overflow = True, "ellipsis"
    return [head]
