"""Provides the pure model of Pi session files: decoding, tree, pairing, usage and context.

Nothing here imports Textual or Rich; each name loads its module on first use (PEP 562).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from piview.model.lazy import lazy_exports

if TYPE_CHECKING:
    from piview.model.context import (
        ContextItem,
        SessionContext,
        SystemPromptState,
        build_context,
        system_prompt_state,
    )
    from piview.model.decode import BadLineError, SkEntry, decode_entry, decode_skeleton
    from piview.model.fileindex import BadLine
    from piview.model.info import session_info
    from piview.model.labels import resolve_labels, session_name
    from piview.model.pairing import CallRef, Pairing, pair_tool_calls, tool_calls_of
    from piview.model.session import Session, SessionOpenError, load_session
    from piview.model.tree import Tree, build_tree
    from piview.model.usage import UsageReport, UsageTotals, sum_usage, usage_report

__all__ = [
    "BadLine",
    "BadLineError",
    "CallRef",
    "ContextItem",
    "Pairing",
    "Session",
    "SessionContext",
    "SessionOpenError",
    "SkEntry",
    "SystemPromptState",
    "Tree",
    "UsageReport",
    "UsageTotals",
    "build_context",
    "build_tree",
    "decode_entry",
    "decode_skeleton",
    "load_session",
    "pair_tool_calls",
    "resolve_labels",
    "session_info",
    "session_name",
    "sum_usage",
    "system_prompt_state",
    "tool_calls_of",
    "usage_report",
]

_WHERE = {
    "ContextItem": "context",
    "SessionContext": "context",
    "SystemPromptState": "context",
    "build_context": "context",
    "system_prompt_state": "context",
    "BadLineError": "decode",
    "SkEntry": "decode",
    "decode_entry": "decode",
    "decode_skeleton": "decode",
    "BadLine": "fileindex",
    "session_info": "info",
    "resolve_labels": "labels",
    "session_name": "labels",
    "CallRef": "pairing",
    "Pairing": "pairing",
    "pair_tool_calls": "pairing",
    "tool_calls_of": "pairing",
    "Session": "session",
    "SessionOpenError": "session",
    "load_session": "session",
    "Tree": "tree",
    "build_tree": "tree",
    "UsageReport": "usage",
    "UsageTotals": "usage",
    "sum_usage": "usage",
    "usage_report": "usage",
}


__getattr__, __dir__ = lazy_exports(__name__, _WHERE)
