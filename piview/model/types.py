"""Provides the strict, typed shapes of everything a Pi session file can hold.

Every field has a default so that a file missing a key still decodes; what the spec does not
know is kept whole as ``Unknown*``. Shared shapes live in :mod:`piview.model.types_base`,
oh-my-pi's in :mod:`piview.model.types_omp`; both are re-exported here.
"""

from __future__ import annotations

from typing import Any

import msgspec

from piview.model.types_base import (
    NUMBER_LIMIT,
    UNKNOWN_TAG,
    AnthropicServerToolContent,
    AnyBlock,
    Cost,
    FallbackContent,
    ImageContent,
    Number,
    RedactedThinkingContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    UnknownBlock,
    Usage,
    number,
)
from piview.model.types_base import EntryBase as _EntryBase
from piview.model.types_base import StructBase as _Base
from piview.model.types_omp import (
    OMP_ENTRY_TYPES,
    OMP_SETTINGS_TYPES,
    ArchiveEntry,
    CredentialPinEntry,
    DeveloperMessage,
    FileMention,
    FileMentionMessage,
    ModeChangeEntry,
    ModelUsageEntry,
    PythonExecutionMessage,
    ResetBoundaryEntry,
    ServiceTierChangeEntry,
    SessionInitEntry,
    TitleChangeEntry,
    TitleSlot,
    TtsrInjectionEntry,
)

__all__ = [
    "NUMBER_LIMIT",
    "Number",
    "UNKNOWN_TAG",
    "TtsrInjectionEntry",
    "TitleSlot",
    "TitleChangeEntry",
    "SessionInitEntry",
    "ServiceTierChangeEntry",
    "ResetBoundaryEntry",
    "RedactedThinkingContent",
    "PythonExecutionMessage",
    "OMP_ENTRY_TYPES",
    "OMP_SETTINGS_TYPES",
    "ModelUsageEntry",
    "ModeChangeEntry",
    "HookMessage",
    "FileMentionMessage",
    "FileMention",
    "FallbackContent",
    "DeveloperMessage",
    "CredentialPinEntry",
    "ArchiveEntry",
    "AnthropicServerToolContent",
    "AnyBlock",
    "AgentMessage",
    "AssistantMessage",
    "BashExecutionMessage",
    "BranchSummaryEntry",
    "BranchSummaryMessage",
    "CompactionEntry",
    "CompactionSummaryMessage",
    "Cost",
    "CustomEntry",
    "CustomMessage",
    "CustomMessageEntry",
    "DeferredHandle",
    "Diagnostic",
    "DiagnosticError",
    "Entry",
    "ImageContent",
    "LabelEntry",
    "MessageEntry",
    "ModelChangeEntry",
    "SessionHeader",
    "SessionInfoEntry",
    "SystemMessage",
    "TextContent",
    "ThinkingContent",
    "ThinkingLevelChangeEntry",
    "ToolCall",
    "ToolRef",
    "ToolResultMessage",
    "ToolSpec",
    "UnknownBlock",
    "UnknownEntry",
    "UnknownMessage",
    "Usage",
    "UserMessage",
    "number",
]

# --------------------------------------------------------------------------- messages


class ToolSpec(_Base):
    """A tool declared by a system message."""

    name: str = ""
    description: str | None = None
    parameters: Any = None


class ToolRef(_Base):
    """A reference to a tool by name (``toolsRemoved``)."""

    name: str = ""


class SystemMessage(_Base, tag="system", tag_field="role"):
    """System prompt declaration or change (newer than any released Pi)."""

    content: str | list[AnyBlock] = ""
    sections: dict[str, str | None] | None = None
    """Named sections set (string) or removed (``None``)."""
    tools_added: list[ToolSpec] | None = None
    tools_removed: list[ToolRef] | None = None
    replace: bool | None = None
    """True: discard the earlier state and start a new baseline."""
    timestamp: Number | None = None


class UserMessage(_Base, tag="user", tag_field="role"):
    """A user prompt."""

    content: str | list[AnyBlock] = ""
    attribution: str | None = None
    """oh-my-pi: who initiated it, ``user`` or ``agent``."""
    synthetic: bool | None = None
    """oh-my-pi: written by the host, not typed by the user."""
    timestamp: Number | None = None


class DiagnosticError(_Base):
    """The error of an assistant diagnostic."""

    name: str | None = None
    message: str = ""
    stack: str | None = None
    code: Any = None


class Diagnostic(_Base):
    """A provider or runtime diagnostic attached to an assistant message."""

    type: str = ""
    timestamp: Number | None = None
    error: DiagnosticError | None = None
    details: Any = None


class DeferredHandle(_Base):
    """What is needed to fetch a ``deferred`` response later."""

    provider: str = ""
    model_id: str = ""
    api: str = ""
    id: str = ""
    expires_at: Number | None = None
    poll_after_ms: Number | None = None
    data: Any = None


class AssistantMessage(_Base, tag="assistant", tag_field="role"):
    """A model response."""

    content: list[AnyBlock] = msgspec.field(default_factory=list)
    api: str = ""
    provider: str = ""
    model: str = ""
    response_model: str | None = None
    response_id: str | None = None
    provider_thinking_level: str | None = None
    diagnostics: list[Diagnostic] | None = None
    usage: Usage | None = None
    stop_reason: str = ""
    """stop, length, toolUse, error, aborted, deferred or pending; kept open for new ones."""
    deferred: DeferredHandle | None = None
    error_message: str | None = None
    raw_stop_reason: str | None = None
    end_turn: bool | None = None
    duration: Number | None = None
    """oh-my-pi: milliseconds the response took."""
    ttft: Number | None = None
    """oh-my-pi: milliseconds to the first token."""
    completed_at: Number | None = None
    error_id: str | None = None
    stop_details: Any = None
    context_snapshot: Any = None
    timestamp: Number | None = None


class ToolResultMessage(_Base, tag="toolResult", tag_field="role"):
    """The result of a tool call, paired with its call by ``tool_call_id``."""

    tool_call_id: str = ""
    tool_name: str = ""
    content: list[AnyBlock] = msgspec.field(default_factory=list)
    details: Any = None
    usage: Usage | None = None
    """Nested model work done by the tool: in session totals, not main-model usage."""
    is_error: bool = False
    added_tool_names: list[str] | None = None
    timestamp: Number | None = None


class BashExecutionMessage(_Base, tag="bashExecution", tag_field="role"):
    """A shell command the user ran with ``!`` (or ``!!``: excluded from context)."""

    command: str = ""
    output: str = ""
    exit_code: Number | None = None
    cancelled: bool = False
    truncated: bool = False
    full_output_path: str | None = None
    exclude_from_context: bool | None = None
    timestamp: Number | None = None


class CustomMessage(_Base, tag="custom", tag_field="role"):
    """An extension message (legacy files store it as a ``message`` entry; v2 ``hookMessage``)."""

    custom_type: str = ""
    content: str | list[AnyBlock] = ""
    display: bool = False
    """Pi shows it only when true (a file without the field: hidden, as in Pi's TUI)."""
    details: Any = None
    timestamp: Number | None = None


class HookMessage(CustomMessage, tag="hookMessage"):
    """A hook's message in a version 3 file (oh-my-pi); older files mean ``custom`` by it."""


class BranchSummaryMessage(_Base, tag="branchSummary", tag_field="role"):
    """Summary of an abandoned branch, as a context message."""

    summary: str = ""
    from_id: str | None = None
    timestamp: Number | None = None


class CompactionSummaryMessage(_Base, tag="compactionSummary", tag_field="role"):
    """Summary of compacted history, as a context message."""

    summary: str = ""
    tokens_before: Number = 0
    timestamp: Number | None = None


class UnknownMessage(_Base, tag=UNKNOWN_TAG, tag_field="role"):
    """A message whose role the spec does not know (extensions add roles); ``raw`` is kept whole."""

    raw: Any = None

    @property
    def unknown_role(self) -> str:
        """The message's original ``role``."""
        if isinstance(self.raw, dict):
            return str(self.raw.get("role", "?"))
        return "?"


AgentMessage = (
    SystemMessage
    | UserMessage
    | AssistantMessage
    | ToolResultMessage
    | BashExecutionMessage
    | CustomMessage
    | HookMessage
    | BranchSummaryMessage
    | CompactionSummaryMessage
    | DeveloperMessage
    | FileMentionMessage
    | PythonExecutionMessage
    | UnknownMessage
)
"""Any message stored in a ``message`` entry."""


# --------------------------------------------------------------------------- entries


class SessionHeader(_Base, tag="session", tag_field="type"):
    """Line 1 of a session file."""

    version: int | None = None
    """Absent in version 1 files."""
    id: str | None = None
    timestamp: str | None = None
    cwd: str | None = None
    parent_session: str | None = None
    branched_from: str | None = None
    """v1 alias of ``parent_session``."""
    provider: str | None = None
    model_id: str | None = None
    thinking_level: str | None = None
    title: str | None = None
    """oh-my-pi: the title when the session was created (the title slot has the current one)."""
    title_source: str | None = None
    additional_directories: list[str] | None = None
    previous_session_files: list[str] | None = None
    provider_prompt_cache_key: str | None = None


class MessageEntry(_EntryBase, tag="message", tag_field="type"):
    """An entry wrapping one agent message."""

    message: AgentMessage | None = None


class ModelChangeEntry(_EntryBase, tag="model_change", tag_field="type"):
    """The user switched model (oh-my-pi writes ``model`` as ``provider/id`` instead)."""

    provider: str = ""
    model_id: str = ""
    model: str | None = None
    role: str | None = None
    """oh-my-pi: the model role (``default``, ``smol``, ``fallback``…)."""
    resolved_model_is_fallback: bool | None = None

    def label(self) -> str:
        """``provider/id`` whichever way the file wrote it."""
        if self.model:
            return self.model
        return f"{self.provider}/{self.model_id}" if self.provider else self.model_id


class ThinkingLevelChangeEntry(_EntryBase, tag="thinking_level_change", tag_field="type"):
    """The user switched thinking level."""

    thinking_level: str = ""
    configured: str | None = None
    """oh-my-pi: the selector the user chose (``auto``), when it differs from the level."""


class CompactionEntry(_EntryBase, tag="compaction", tag_field="type"):
    """History before ``first_kept_entry_id`` was replaced by ``summary``."""

    summary: str = ""
    first_kept_entry_id: str | None = None
    first_kept_entry_index: int | None = None
    """v1 only; migrated to ``first_kept_entry_id`` on load."""
    tokens_before: Number = 0
    details: Any = None
    from_hook: bool | None = None
    retained_tail: list[AgentMessage] | None = None
    usage: Usage | None = None
    method: str | None = None
    short_summary: str | None = None
    tokens_after: Number | None = None
    from_extension: bool | None = None
    """oh-my-pi's name for ``from_hook``."""
    preserve_data: Any = None
    warning: str | None = None


class BranchSummaryEntry(_EntryBase, tag="branch_summary", tag_field="type"):
    """Summary of a branch the user navigated away from."""

    from_id: str | None = None
    summary: str = ""
    details: Any = None
    from_hook: bool | None = None
    usage: Usage | None = None


class CustomEntry(_EntryBase, tag="custom", tag_field="type"):
    """Extension state; never in the model's context."""

    custom_type: str = ""
    data: Any = None


class CustomMessageEntry(_EntryBase, tag="custom_message", tag_field="type"):
    """An extension message; in the model's context, shown only when ``display``."""

    custom_type: str = ""
    content: str | list[AnyBlock] = ""
    display: bool = False
    """Pi shows it only when true (a file without the field: hidden, as in Pi's TUI)."""
    details: Any = None


class LabelEntry(_EntryBase, tag="label", tag_field="type"):
    """Sets (or, with no label, clears) the label of ``target_id``."""

    target_id: str = ""
    label: str | None = None


class SessionInfoEntry(_EntryBase, tag="session_info", tag_field="type"):
    """Sets the session's display name; empty clears it."""

    name: str | None = None


class UnknownEntry(_EntryBase, tag=UNKNOWN_TAG, tag_field="type"):
    """An entry of a type the spec does not know; ``raw`` is the whole JSON object."""

    raw: Any = None

    @property
    def entry_type(self) -> str:
        """The entry's original ``type``."""
        if isinstance(self.raw, dict):
            return str(self.raw.get("type", "?"))
        return "?"


Entry = (
    MessageEntry
    | ModelChangeEntry
    | ThinkingLevelChangeEntry
    | CompactionEntry
    | BranchSummaryEntry
    | CustomEntry
    | CustomMessageEntry
    | LabelEntry
    | SessionInfoEntry
    | TitleChangeEntry
    | ModeChangeEntry
    | ModelUsageEntry
    | ServiceTierChangeEntry
    | TtsrInjectionEntry
    | CredentialPinEntry
    | SessionInitEntry
    | ResetBoundaryEntry
    | ArchiveEntry
    | UnknownEntry
)
"""Any non-header line of a session file."""

Line = SessionHeader | Entry
"""Anything one line may decode to."""
