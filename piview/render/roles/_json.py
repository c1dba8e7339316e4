"""Provides the JSON the role renderers show: long strings cut, base64 never included, big
containers cut to their first items, highlighted unless the output is plain."""

from __future__ import annotations

import itertools
import re
from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text

from piview.render.plain import is_plain
from piview.render.roles._common import clip, more_line
from piview.render.sanitize import sanitize, sanitize_line

_B64_RE = re.compile(r"^[A-Za-z0-9+/=\s]{64,}$")


_MAX_ITEMS = 1_000  # keys or items of one JSON container shown; a note counts the rest


def _shrink(value: Any, max_str: int, depth: int = 0) -> Any:
    """A copy of a JSON value safe to show: long strings cut, base64 never included, big
    containers cut to their first items."""
    if depth > 50:
        return "…"
    if isinstance(value, str):
        if len(value) >= 64 and _B64_RE.match(value[:4096]):
            return f"<base64, {len(value):,} chars>"
        if len(value) > max_str:
            return value[:max_str] + f"… (+{len(value) - max_str:,} chars)"
        return value
    if isinstance(value, dict):
        out = {
            str(k): _shrink(v, max_str, depth + 1)
            for k, v in itertools.islice(value.items(), _MAX_ITEMS)
        }
        if len(value) > _MAX_ITEMS:
            out["…"] = f"+{len(value) - _MAX_ITEMS:,} more keys"
        return out
    if isinstance(value, list | tuple):
        items = [_shrink(v, max_str, depth + 1) for v in value[:_MAX_ITEMS]]
        if len(value) > _MAX_ITEMS:
            items.append(f"… +{len(value) - _MAX_ITEMS:,} more items")
        return items
    return value


def safe_json(value: Any, *, indent: int | None = 2, max_str: int = 400) -> str:
    """Pretty JSON of ``value`` with long strings cut and base64 replaced; sanitised."""
    import json  # here: the first screen draws no JSON (json is not needed before it)

    try:
        text = json.dumps(_shrink(value, max_str), indent=indent, ensure_ascii=False, default=repr)
    except (TypeError, ValueError, RecursionError):
        text = repr(value)[: max_str * 4]
    return sanitize(text)


def json_plain(value: Any) -> str:
    """Compact one-line JSON for headers."""
    return sanitize_line(safe_json(value, indent=None, max_str=120))


def json_renderable(value: Any, *, max_str: int = 400) -> RenderableType:
    """Highlighted pretty JSON (strings cut, no base64)."""
    from rich.highlighter import JSONHighlighter

    plain, more = clip(safe_json(value, max_str=max_str))
    text = Text(plain)
    if not is_plain():
        JSONHighlighter().highlight(text)
    return Group(text, more_line(more)) if more else text
