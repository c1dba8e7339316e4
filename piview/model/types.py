"""Provides the strict, typed shapes of everything a Pi session file can hold.

Each Struct mirrors one shape of the spec of record (the pi.dev "Message types" page and
Pi's session-manager). Python names are snake_case; the JSON keys are camelCase. Every field
has a default so that a file missing an optional (or even a required) key still decodes:
reading is tolerant, the model is strict. What the spec does not know (entry types, roles,
content blocks) is kept whole as ``Unknown*`` objects holding the raw JSON value.
"""

from __future__ import annotations

from typing import Any

import msgspec

__all__ = [
    "TtsrInjectionEntry",
    "TitleSlot",
    "TitleChangeEntry",
    "SessionInitEntry",
    "ServiceTierChangeEntry",
    "ResetBoundaryEntry",
    "RedactedThinkingContent",
    "PythonExecutionMessage",
    "OMP_ENTRY_TYPES",
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

Number = int | float
"""Token counts and costs: Pi writes ints for tokens and floats for costs; accept both."""

NUMBER_LIMIT = 1e18
"""Larger token counts or costs are not real: :func:`number` reads them as 0."""


def number(value: object) -> float:
    """A token count or cost to compute with: ``value`` when it is an int or float within
    ±:data:`NUMBER_LIMIT`, else 0 (booleans, strings, NaN, infinities, 10**400: files are
    hand-editable, and an int too big for a float would make sums raise)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0
    return value if -NUMBER_LIMIT <= value <= NUMBER_LIMIT else 0


# Tags used for values the spec does not know. They never appear in Pi files: the tolerant
# decoder rewrites an unknown tag to these before converting, keeping the original in ``raw``.
UNKNOWN_TAG = "\x00unknown"


class _Base(msgspec.Struct, kw_only=True, rename="camel", omit_defaults=True):
    """Common options: camelCase JSON keys, keyword-only construction."""


# --------------------------------------------------------------------------- usage


class Cost(_Base):
    """Cost of one model call in dollars, split like the token counts."""

    input: Number = 0
    output: Number = 0
    cache_read: Number = 0
    cache_write: Number = 0
    total: Number | None = None
    """Absent in some old files: then the parts are summed (see :meth:`total_cost`)."""

    def total_cost(self) -> float:
        """``total`` when present, else the sum of the parts."""
        if self.total is not None:
            return float(number(self.total))
        parts = (self.input, self.output, self.cache_read, self.cache_write)
        return float(sum(number(p) for p in parts))


class Usage(_Base):
    """Token usage of a model call (assistant message, or nested work in a tool result)."""

    input: Number = 0
    output: Number = 0
    """Output tokens; ``reasoning`` is already included here."""
    cache_read: Number = 0
    cache_write: Number = 0
    cache_write1h: Number | None = msgspec.field(default=None, name="cacheWrite1h")
    """The part of ``cache_write`` written with a one-hour lifetime (Anthropic only)."""
    reasoning: Number | None = None
    """Reasoning tokens, a subset of ``output``: never add them to it."""
    total_tokens: Number | None = None
    cost: Cost | None = None


# --------------------------------------------------------------------------- content blocks


class TextContent(_Base, tag="text", tag_field="type"):
    """A text block."""

    text: str = ""
    text_signature: str | None = None
    """Opaque provider metadata (OpenAI Responses)."""


class ImageContent(_Base, tag="image", tag_field="type"):
    """An image block: base64 ``data`` without a ``data:`` prefix."""

    data: str = ""
    mime_type: str = ""


class ThinkingContent(_Base, tag="thinking", tag_field="type"):
    """A thinking block; when ``redacted`` the text may be empty and the payload encrypted."""

    thinking: str = ""
    thinking_signature: str | None = None
    redacted: bool | None = None


class ToolCall(_Base, tag="toolCall", tag_field="type"):
    """A tool call made by the assistant."""

    id: str = ""
    name: str = ""
    arguments: Any = msgspec.field(default_factory=dict)
    """Usually an object; may be ``{}`` or partial after an abort."""
    thought_signature: str | None = None
    namespace: str | None = None
    """OpenAI Responses namespace of a dynamically loaded or namespaced tool."""


class RedactedThinkingContent(_Base, tag="redactedThinking", tag_field="type"):
    """Thinking the provider returned encrypted (oh-my-pi): only an opaque payload."""

    data: str = ""


class FallbackContent(_Base, tag="fallback", tag_field="type"):
    """The request was routed to another model (oh-my-pi, Anthropic fallback)."""

    from_: Any = msgspec.field(default=None, name="from")
    to: Any = None


class AnthropicServerToolContent(_Base, tag="anthropicServerTool", tag_field="type"):
    """A tool Anthropic ran on its side (web search, code execution) (oh-my-pi)."""

    id: str | None = None
    name: str | None = None
    input: Any = None
    result: Any = None


class UnknownBlock(_Base, tag=UNKNOWN_TAG, tag_field="type"):
    """A content block of a type the spec does not know; ``raw`` is the whole JSON object."""

    raw: Any = None

    @property
    def block_type(self) -> str:
        """The block's original ``type``."""
        if isinstance(self.raw, dict):
            return str(self.raw.get("type", "?"))
        return "?"


AnyBlock = (
    TextContent
    | ImageContent
    | ThinkingContent
    | ToolCall
    | RedactedThinkingContent
    | FallbackContent
    | AnthropicServerToolContent
    | UnknownBlock
)
"""Any content block."""


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


class DeveloperMessage(_Base, tag="developer", tag_field="role"):
    """Instructions the host injected (oh-my-pi: plan-mode reminders and the like)."""

    content: str | list[AnyBlock] = ""
    attribution: str | None = None
    timestamp: Number | None = None


class FileMention(_Base):
    """One file an ``@mention`` attached (oh-my-pi)."""

    path: str = ""
    content: str | None = None
    line_count: Number | None = None
    byte_size: Number | None = None
    skipped_reason: str | None = None
    image: Any = None


class FileMentionMessage(_Base, tag="fileMention", tag_field="role"):
    """The files an ``@mention`` attached to the next prompt (oh-my-pi)."""

    files: list[FileMention] = msgspec.field(default_factory=list)
    timestamp: Number | None = None


class PythonExecutionMessage(_Base, tag="pythonExecution", tag_field="role"):
    """Python code the user ran in the host's kernel (oh-my-pi), like a ``!`` command."""

    code: str = ""
    output: str = ""
    exit_code: Number | None = None
    cancelled: bool = False
    truncated: bool = False
    full_output_path: str | None = None
    exclude_from_context: bool | None = None
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


class TitleSlot(_Base, tag="title", tag_field="type"):
    """Line 1 of an oh-my-pi file: the current title, rewritten in place (256 bytes)."""

    v: int | None = None
    title: str | None = None
    source: str | None = None
    updated_at: str | None = None
    pad: str | None = None


class _EntryBase(_Base):
    id: str | None = None
    parent_id: str | None = None
    timestamp: str | None = None


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


class TitleChangeEntry(_EntryBase, tag="title_change", tag_field="type"):
    """oh-my-pi: the session's title changed (history; the title slot holds the current one)."""

    title: str = ""
    previous_title: str | None = None
    source: str | None = None
    trigger: str | None = None


class ModeChangeEntry(_EntryBase, tag="mode_change", tag_field="type"):
    """oh-my-pi: the agent entered a mode (plan mode) or left it (``none``)."""

    mode: str = ""
    data: Any = None


class ModelUsageEntry(_EntryBase, tag="model_usage", tag_field="type"):
    """oh-my-pi: a model call outside the conversation (titles, summaries), with its usage."""

    purpose: str = ""
    role: str | None = None
    api: str = ""
    provider: str = ""
    model: str = ""
    usage: Usage | None = None
    stop_reason: str | None = None
    error_message: str | None = None


class ServiceTierChangeEntry(_EntryBase, tag="service_tier_change", tag_field="type"):
    """oh-my-pi: the service tier per provider family changed."""

    service_tier: Any = None


class TtsrInjectionEntry(_EntryBase, tag="ttsr_injection", tag_field="type"):
    """oh-my-pi: rules injected into the conversation."""

    injected_rules: list[str] = msgspec.field(default_factory=list)


class CredentialPinEntry(_EntryBase, tag="credential_pin", tag_field="type"):
    """oh-my-pi: which account (a hash) served a provider's requests."""

    provider: str = ""
    hash: str = ""


class SessionInitEntry(_EntryBase, tag="session_init", tag_field="type"):
    """oh-my-pi: the initial context of a subagent session."""

    system_prompt: str | list[str] = ""
    task: str = ""
    tools: list[str] = msgspec.field(default_factory=list)
    agent: str | None = None
    model_role: str | None = None
    resolved_model: str | None = None


class ResetBoundaryEntry(_EntryBase, tag="reset_boundary", tag_field="type"):
    """oh-my-pi: ``/clear``; the model's context starts again after it."""


class ArchiveEntry(_EntryBase, tag="archive", tag_field="type"):
    """oh-my-pi: hides (or, with ``archived`` false, shows again) the subtree at ``target_id``."""

    target_id: str = ""
    archived: bool = True


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

OMP_ENTRY_TYPES = frozenset(
    t.__struct_config__.tag
    for t in (
        TitleChangeEntry,
        ModeChangeEntry,
        ModelUsageEntry,
        ServiceTierChangeEntry,
        TtsrInjectionEntry,
        CredentialPinEntry,
        SessionInitEntry,
        ResetBoundaryEntry,
        ArchiveEntry,
    )
)
"""Entry types that only oh-my-pi writes."""

Line = SessionHeader | Entry
"""Anything one line may decode to."""
