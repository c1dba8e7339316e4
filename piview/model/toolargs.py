"""Provides the facts about a tool call's arguments that every view states alike (how many
lines a written file has, which lines a read asked for)."""

from __future__ import annotations

from collections.abc import Mapping


def count_lines(text: str) -> int:
    """Lines in ``text``; a trailing newline ends the last line, it does not start one."""
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def _whole(value: object) -> int | None:
    # bool is an int to Python, never to Pi.
    return value if type(value) is int else None


def read_range(args: Mapping[str, object]) -> str:
    """``:10-29`` for a read of lines 10 to 29 (``offset`` 10, ``limit`` 20), ``:10`` with no
    limit, ``:1-20`` with no offset, ``""`` for the whole file (Pi's own notation)."""
    offset, limit = _whole(args.get("offset")), _whole(args.get("limit"))
    if offset is None and limit is None:
        return ""
    start = offset if offset is not None else 1
    return f":{start}" + (f"-{start + limit - 1}" if limit is not None and limit > 0 else "")
