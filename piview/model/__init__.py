"""Provides the pure model of Pi session files: decoding, tree, pairing, usage and context.

Nothing here imports Textual or Rich; the viewer imports the model, never the other way round.
"""

from piview.model.context import (
    ContextItem,
    SessionContext,
    SystemPromptState,
    build_context,
    system_prompt_state,
)
from piview.model.decode import BadLineError, SkEntry, decode_entry, decode_skeleton
from piview.model.info import session_info
from piview.model.labels import resolve_labels, session_name
from piview.model.pairing import CallRef, Pairing, pair_tool_calls, tool_calls_of
from piview.model.session import BadLine, Session, SessionOpenError, load_session
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
