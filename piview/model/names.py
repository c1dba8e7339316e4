"""Provides what a session's name tells: a pi-subagents child's agent and run id (standard
library only: the picker's first rows use it, before msgspec is imported)."""

from __future__ import annotations

import re

SUBAGENT_TOOLS = frozenset({"subagent"})
"""Tool names whose calls start subagents (pi-subagents)."""

_SUBAGENT_NAME = re.compile(r"^subagent-(.+)-([0-9a-f]{8}-[0-9a-f-]{27})-\d+$")
"""A pi-subagents child's ``session_info`` name: ``subagent-<agent>-<runId>-<n>``."""


def subagent_name_parts(name: str | None) -> tuple[str | None, str | None]:
    """``(agent, run id)`` of a pi-subagents child's name, else ``(None, None)``."""
    m = _SUBAGENT_NAME.match(name or "") if name and name.startswith("subagent-") else None
    return (m.group(1), m.group(2)) if m else (None, None)
