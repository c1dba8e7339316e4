"""Provides what the user's Pi knows of models beyond the session files: the context windows
of ``$PI_CODING_AGENT_DIR/models.json`` (custom models and overrides), read-only."""

from __future__ import annotations

import json
import os
from pathlib import Path

from piview.catalog.discovery import agent_dir
from piview.model.windows import context_window, user_windows


def user_context_windows() -> dict[str, int]:
    """``{"provider/model": window}`` of the user's ``models.json`` (``$PIVIEW_MODELS_JSON``
    names another file: the tests' none); ``{}`` when it is absent or unreadable (never
    raises)."""
    path = os.environ.get("PIVIEW_MODELS_JSON") or agent_dir() / "models.json"
    try:
        parsed = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return user_windows(parsed)


def window_of(model: str | None) -> int | None:
    """The context window of ``provider/model``: the user's ``models.json``, else Pi's
    built-in models; None when unknown."""
    return context_window(model, user_context_windows())
