"""Provides a model's context window: the user's ``models.json`` first, then the built-in
models as Pi 0.85.1's pi-ai lists them (``piview/data/context_windows.json``, written by
``tests/pi_reference/context_windows.py``). Session files do not record it."""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

_TABLE = Path(__file__).resolve().parent.parent / "data" / "context_windows.json"


@cache
def builtin_windows() -> dict[str, int]:
    """``{"provider/model": window}`` of Pi's built-in models (empty if the table is gone)."""
    try:
        doc = json.loads(_TABLE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    table = doc.get("windows") if isinstance(doc, dict) else None
    return {k: v for k, v in table.items() if isinstance(v, int)} if isinstance(table, dict) else {}


def user_windows(models_json: Any) -> dict[str, int]:
    """``{"provider/model": window}`` from the parsed ``models.json`` of Pi (its providers'
    ``models[].contextWindow`` and ``modelOverrides.<id>.contextWindow``); ``{}`` for another
    shape."""
    out: dict[str, int] = {}
    providers = models_json.get("providers") if isinstance(models_json, Mapping) else None
    if not isinstance(providers, Mapping):
        return out
    for name, p in providers.items():
        if not isinstance(p, Mapping):
            continue
        for m in p.get("models") or []:
            if isinstance(m, Mapping) and isinstance(m.get("id"), str):
                w = m.get("contextWindow")
                if isinstance(w, int) and not isinstance(w, bool) and w > 0:
                    out[f"{name}/{m['id']}"] = w
        overrides = p.get("modelOverrides")
        if isinstance(overrides, Mapping):
            for mid, o in overrides.items():
                w = o.get("contextWindow") if isinstance(o, Mapping) else None
                if isinstance(w, int) and not isinstance(w, bool) and w > 0:
                    out[f"{name}/{mid}"] = w
    return out


def context_window(model: str | None, user: Mapping[str, int] | None = None) -> int | None:
    """The window of ``provider/model``: the user's, else the built-in one, else the one every
    built-in provider of that model id agrees on; None when unknown."""
    if not model:
        return None
    if user and model in user:
        return user[model]
    table = builtin_windows()
    if model in table:
        return table[model]
    found = _by_id().get(model.partition("/")[2] or model, set())
    return next(iter(found)) if len(found) == 1 else None


@cache
def _by_id() -> dict[str, set[int]]:
    """The built-in windows by model id (without its provider)."""
    out: dict[str, set[int]] = {}
    for key, w in builtin_windows().items():
        out.setdefault(key.partition("/")[2], set()).add(w)
    return out
