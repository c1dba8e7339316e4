"""Provides what OpenClaw adds to Pi's session format, as the model reads it: gateway
messages, ``leaf`` entries moving the active leaf, side notes, and ``reset`` entries."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import msgspec

_CHUNK = 8 * 1024 * 1024

GATEWAY_MODELS: dict[str, str] = {
    "delivery-mirror": "delivered by gateway",
    "cli-mirror": "mirrored from CLI",
    "gateway-injected": "injected by gateway",
}
"""OpenClaw's pseudo-models of the messages its gateway wrote, and what to call them."""

SIDE_KEY = b'"appendMode"'
"""Looked for in a raw line before decoding it."""


def gateway_origin(provider: object, model: object) -> str | None:
    """``delivered by gateway`` (…) for an assistant message OpenClaw's gateway wrote."""
    if provider != "openclaw" or not isinstance(model, str):
        return None
    return GATEWAY_MODELS.get(model)


def side_line(line: bytes) -> bool:
    """True when the raw line is an entry with ``appendMode: "side"``; not a ``leaf`` entry,
    whose ``appendMode`` says how the entries after it are appended (as in OpenClaw)."""
    if SIDE_KEY not in line:
        return False
    try:
        obj = msgspec.json.decode(line)
    except msgspec.DecodeError:
        return False
    return isinstance(obj, dict) and obj.get("appendMode") == "side" and obj.get("type") != "leaf"


def side_notes(
    pread: Callable[[int, int], bytes],
    offsets: Sequence[int],
    lengths: Sequence[int],
    start: int = 0,
) -> set[int]:
    """The side notes among entries ``start ..``, found by looking for :data:`SIDE_KEY` in
    the file's bytes (``pread(n, offset)``, at each entry's ``offsets`` and ``lengths``)."""
    n = len(offsets)
    out: set[int] = set()
    if start >= n:
        return out
    begin, end = offsets[start], offsets[n - 1] + lengths[n - 1]
    keep = len(SIDE_KEY) - 1  # a key cut by a chunk's end is found in the next one
    checked = -1
    pos = begin
    while pos < end:
        size = min(max(_CHUNK, 2 * len(SIDE_KEY)), end - pos)
        data = pread(size, pos)
        if not data:
            break
        hit = data.find(SIDE_KEY)
        while hit >= 0:
            at = pos + hit
            i = bisect_right(offsets, at, start, n) - 1
            if i > checked and i >= start and at < offsets[i] + lengths[i]:
                checked = i
                if side_line(pread(lengths[i], offsets[i])):
                    out.add(i)
            hit = data.find(SIDE_KEY, hit + 1)
        if pos + len(data) >= end:
            break
        pos += max(len(data) - keep, 1)
    return out


def side_notes_at(
    positions: Sequence[int],
    pread: Callable[[int, int], bytes],
    offsets: Sequence[int],
    lengths: Sequence[int],
) -> set[int]:
    """:func:`side_notes` of every entry, from where :data:`SIDE_KEY` is in the file
    (``positions``, ascending: the index finds them as it reads), without reading it again."""
    n = len(offsets)
    out: set[int] = set()
    checked = -1
    for at in positions:
        i = bisect_right(offsets, at, 0, n) - 1
        if i > checked and i >= 0 and at < offsets[i] + lengths[i]:
            checked = i
            if side_line(pread(lengths[i], offsets[i])):
                out.add(i)
    return out


def active_leaf(
    count: int,
    etype: Callable[[int], str | None],
    read_line: Callable[[int], bytes],
    id_index: Mapping[str, int],
) -> int | None:
    """The active leaf when OpenClaw's ``leaf`` entries move it, else None (the last entry
    is); only the trailing entries are read."""
    i = count - 1
    while i >= 0:
        if etype(i) == "leaf":
            target = _target(read_line(i))
            k = id_index.get(target) if target is not None else None
            if k is not None:
                return k if k != count - 1 else None
        elif not side_line(read_line(i)):
            return i if i != count - 1 else None
        i -= 1
    return None


def _target(line: bytes) -> str | None:
    try:
        obj: Any = msgspec.json.decode(line)
    except msgspec.DecodeError:
        return None
    t = obj.get("targetId") if isinstance(obj, dict) else None
    return t if isinstance(t, str) else None
