"""Provides the shapes only oh-my-pi writes: its title slot, roles and entry types, joined to
the unions of :mod:`piview.model.types`, which re-exports them."""

from __future__ import annotations

from typing import Any

import msgspec

from piview.model.types_base import AnyBlock, Number, Usage
from piview.model.types_base import EntryBase as _EntryBase
from piview.model.types_base import StructBase as _Base


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


class TitleSlot(_Base, tag="title", tag_field="type"):
    """Line 1 of an oh-my-pi file: the current title, rewritten in place (256 bytes)."""

    v: int | None = None
    title: str | None = None
    source: str | None = None
    updated_at: str | None = None
    pad: str | None = None


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


OMP_SETTINGS_TYPES: frozenset[str] = frozenset(
    str(t.__struct_config__.tag)
    for t in (
        TitleChangeEntry,
        ModeChangeEntry,
        ModelUsageEntry,
        ServiceTierChangeEntry,
        TtsrInjectionEntry,
        CredentialPinEntry,
    )
)
"""oh-my-pi's bookkeeping entries: one-line dividers, filtered as Pi's settings entries are."""

OMP_ENTRY_TYPES = OMP_SETTINGS_TYPES | {
    str(t.__struct_config__.tag) for t in (SessionInitEntry, ResetBoundaryEntry, ArchiveEntry)
}
"""Entry types that only oh-my-pi writes."""
