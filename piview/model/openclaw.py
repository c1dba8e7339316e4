"""Provides what OpenClaw adds to Pi's session format, as the model reads it.

- Assistant messages with ``provider: "openclaw"`` and model ``delivery-mirror``,
  ``cli-mirror`` or ``gateway-injected`` were delivered or injected by the gateway, not
  written by a model (:func:`gateway_origin`).
- A ``leaf`` entry (``targetId``) makes that entry the active leaf, not the last line; an entry
  with ``appendMode: "side"`` is a side note, which does not move the leaf either
  (:func:`active_leaf`, :func:`side_line`; ``Session.is_side_note``).
- A ``reset`` entry (``reason``, optional ``firstKeptEntryId``) starts the conversation afresh.

Only the lines that need it are read back, so the cost stays linear in what is read.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

__all__ = [
    "GATEWAY_MODELS",
    "SIDE_KEY",
    "active_leaf",
    "gateway_origin",
    "side_line",
]

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
    """True when the raw line is an entry with ``appendMode: "side"``."""
    if SIDE_KEY not in line:
        return False
    try:
        obj = msgspec.json.decode(line)
    except msgspec.DecodeError:
        return False
    return isinstance(obj, dict) and obj.get("appendMode") == "side"


def active_leaf(
    count: int,
    etype: Callable[[int], str | None],
    read_line: Callable[[int], bytes],
    id_index: dict[str, int],
) -> int | None:
    """The active leaf when OpenClaw's entries move it, else None (the last entry is).

    From the end of the file: a ``leaf`` entry names the active leaf (when its ``targetId``
    is an entry of the file); side notes and unresolvable ``leaf`` entries are passed over;
    any other entry is the leaf itself. Only the trailing entries are read.
    """
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
