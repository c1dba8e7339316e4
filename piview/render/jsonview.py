"""Provides JSON drawn for reading: indented, highlighted, bounded, sanitised."""

from __future__ import annotations

import json
from typing import Any

from rich.syntax import Syntax

from piview.render.sanitize import sanitize

MAX_JSON_CHARS = 200_000
"""Characters of JSON drawn at most (a base64 image alone can be megabytes)."""


def json_syntax(value: Any, *, max_chars: int = MAX_JSON_CHARS) -> Syntax:
    """``value`` as indented, highlighted JSON, cut after ``max_chars`` with a note."""
    try:
        text = json.dumps(value, indent=2, ensure_ascii=False, default=str)
    except (TypeError, ValueError, RecursionError):
        text = repr(value)
    if len(text) > max_chars:
        text = text[:max_chars] + f"\n… ({len(text) - max_chars:,} more characters)"
    # No background_color: "default" painted the terminal's own background (black bands)
    # behind the tokens on a modal's surface; the ANSI theme has none of its own.
    return Syntax(sanitize(text, tabs=False), "json", theme="ansi_dark", word_wrap=True)
