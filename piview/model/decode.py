"""Provides tolerant line decoding: strict typed Structs first, repair second, never a crash.

When the strict decode fails, the line is decoded to plain JSON and repaired from msgspec's
error path: unknown types are wrapped as ``Unknown*``, a field of the wrong type is dropped to
its default. Only text that is not a JSON object is a bad line."""

from __future__ import annotations

import re
from functools import cache
from typing import Any, Literal

import msgspec

from piview.model.types import (
    UNKNOWN_TAG,
    AssistantMessage,
    CustomMessage,
    Entry,
    HookMessage,
    Line,
    MessageEntry,
    SessionHeader,
    ToolCall,
    ToolResultMessage,
    UnknownEntry,
    Usage,
)


class BadLineError(ValueError):
    """A line that cannot be read as a JSON object; the message is a short reason."""


# --------------------------------------------------------------------------- skeleton


# Closed sets are declared as Literals: msgspec then hands out one shared string per value
# instead of a new one per entry (a large part of the index's memory). A value outside the
# set fails validation and that line takes the tolerant path, which keeps it as it is.
EntryType = Literal[
    "session",
    "message",
    "model_change",
    "thinking_level_change",
    "compaction",
    "branch_summary",
    "custom",
    "custom_message",
    "label",
    "session_info",
    # oh-my-pi
    "title_change",
    "mode_change",
    "model_usage",
    "service_tier_change",
    "ttsr_injection",
    "credential_pin",
    "session_init",
    "reset_boundary",
    "archive",
]
Role = Literal[
    "user",
    "assistant",
    "toolResult",
    "bashExecution",
    "custom",
    "branchSummary",
    "compactionSummary",
    "system",
    "hookMessage",
    # oh-my-pi
    "developer",
    "fileMention",
    "pythonExecution",
]
BlockType = Literal[
    "text", "image", "thinking", "toolCall", "redactedThinking", "fallback", "anthropicServerTool"
]
StopReason = Literal["stop", "length", "toolUse", "error", "aborted", "deferred", "pending"]


class SkBlock(msgspec.Struct, gc=False):
    """The parts of a content block the index needs: its type and, for tool calls, id and name."""

    type: BlockType | None = None
    id: str | None = None
    name: str | None = None
    redacted: bool | None = None
    """Thinking blocks: the provider redacted the text (only a one-line placeholder shows)."""


class SkMessage(msgspec.Struct, rename="camel", gc=False):
    """The parts of a message the index needs; text and data are skipped by msgspec."""

    role: Role | None = None
    content: str | list[SkBlock] | None = None
    usage: Usage | None = None
    stop_reason: StopReason | None = None
    tool_call_id: str | None = None
    tool_name: str | None = None
    is_error: bool | None = None
    provider: str | None = None
    model: str | None = None
    custom_type: str | None = None
    display: bool | None = None
    exclude_from_context: bool | None = None
    exit_code: int | float | None = None
    response_model: str | None = None


class SkEntry(msgspec.Struct, rename="camel", gc=False):
    """One entry of the index: what the tree, pairing, usage and context need, nothing big."""

    type: EntryType | None = None
    id: str | None = None
    parent_id: str | None = None
    timestamp: str | None = None
    message: SkMessage | None = None
    custom_type: str | None = None
    display: bool | None = None
    first_kept_entry_id: str | None = None
    first_kept_entry_index: int | None = None
    tokens_before: int | float | None = None
    from_id: str | None = None
    summary: str | None = None
    """Compaction and branch summaries (a few KB at most): needed to build the context."""
    target_id: str | None = None
    label: str | None = None
    name: str | None = None
    provider: str | None = None
    model_id: str | None = None
    thinking_level: str | None = None
    usage: Usage | None = None
    has_retained_tail: bool = False
    """Set from the full entry: a compaction carrying ``retainedTail`` (newer Pi)."""
    # oh-my-pi entries (model_change ``model``, model_usage, archive, title_change)
    model: str | None = None
    archived: bool | None = None
    title: str | None = None
    purpose: str | None = None

    @property
    def role(self) -> str | None:
        """The message role, for ``message`` entries."""
        return self.message.role if self.message is not None else None


_sk_decoder = msgspec.json.Decoder(SkEntry)
_header_decoder = msgspec.json.Decoder(SessionHeader)
_any_decoder = msgspec.json.Decoder()


@cache
def _line_decoder() -> msgspec.json.Decoder[Line]:
    # Made on the first full decode: msgspec compiles every entry, message and block type for
    # it (a cost a start that reads only skeletons and the header does not pay).
    return msgspec.json.Decoder(Line)


def decode_json(data: bytes | memoryview) -> Any:
    """Decode one line to plain JSON values, raising :class:`BadLineError` with a short reason;
    bytes that are not UTF-8 are replaced, so one bad byte does not hide the entry."""
    try:
        return _any_decoder.decode(data)
    except msgspec.DecodeError as exc:
        if "UTF-8" not in str(exc):
            raise BadLineError(_short_reason(exc)) from None
    try:
        return _any_decoder.decode(bytes(data).decode("utf-8", "replace").encode())
    except msgspec.DecodeError as exc:
        raise BadLineError(_short_reason(exc)) from None


def _short_reason(exc: Exception) -> str:
    text = str(exc)
    if "truncated" in text or "Input data was truncated" in text:
        return "invalid JSON: truncated"
    return f"invalid JSON: {text.removeprefix('JSON is malformed: ')}"


def decode_skeleton(data: bytes | memoryview, *, legacy: bool = False) -> SkEntry | SessionHeader:
    """Decode the skeleton of one line (no newline); ``legacy``: the file is older than
    version 3 (role ``hookMessage`` means ``custom``). Raises BadLineError on a non-object."""
    try:
        sk = _sk_decoder.decode(data)
    except msgspec.ValidationError:
        # Wrong types somewhere: take the full tolerant path and derive the skeleton from it.
        entry, _notes = decode_entry(data, legacy=legacy)
        return entry if isinstance(entry, SessionHeader) else skeleton_of(entry)
    except msgspec.DecodeError as exc:
        if "UTF-8" not in str(exc):
            raise BadLineError(_short_reason(exc)) from None
        entry, _notes = decode_entry(data, legacy=legacy)
        return entry if isinstance(entry, SessionHeader) else skeleton_of(entry)
    return finish_skeleton(sk, data, legacy=legacy)


def finish_skeleton(
    sk: SkEntry, data: bytes | memoryview, *, legacy: bool = False
) -> SkEntry | SessionHeader:
    """The last step of a strict skeleton decode: a header line is decoded in full."""
    if sk.type == "session":
        try:  # a header as Pi writes it: without the full decoder (the first screen's start)
            return _header_decoder.decode(data)
        except (msgspec.ValidationError, msgspec.DecodeError):
            pass
        entry, _notes = decode_entry(data, legacy=legacy)
        return entry if isinstance(entry, SessionHeader) else skeleton_of(entry)
    if legacy and sk.message is not None and sk.message.role == "hookMessage":
        sk.message.role = "custom"
    return sk


sk_decoder = _sk_decoder
"""The strict skeleton decoder (its ``decode_lines`` reads a whole block of lines at once)."""


def skeleton_of(entry: Any) -> SkEntry:
    """Build the index view of a fully decoded entry (used on the slow, repaired path)."""
    # Types, roles and block types outside the Literal sets are kept as written (the strict
    # decoder would have rejected them: this is the path such lines take).
    sk = SkEntry(
        type=getattr(entry, "entry_type", None) or _tag(entry),  # type: ignore[arg-type]
        id=entry.id if isinstance(entry.id, str) else None,
        parent_id=entry.parent_id if isinstance(entry.parent_id, str) else None,
        timestamp=entry.timestamp if isinstance(entry.timestamp, str) else None,
    )
    for name in (
        "custom_type",
        "display",
        "first_kept_entry_id",
        "first_kept_entry_index",
        "tokens_before",
        "from_id",
        "summary",
        "target_id",
        "label",
        "name",
        "provider",
        "model_id",
        "thinking_level",
        "usage",
        "model",
        "archived",
        "title",
        "purpose",
    ):
        if hasattr(entry, name):
            setattr(sk, name, getattr(entry, name))
    if getattr(entry, "retained_tail", None):
        sk.has_retained_tail = True
    if isinstance(entry, MessageEntry) and entry.message is not None:
        m = entry.message
        role = getattr(m, "unknown_role", None) or _tag(m)
        sm = SkMessage(role=role)  # type: ignore[arg-type]
        for name in (
            "usage",
            "stop_reason",
            "tool_call_id",
            "tool_name",
            "is_error",
            "provider",
            "model",
            "custom_type",
            "display",
            "exclude_from_context",
            "exit_code",
            "response_model",
        ):
            if hasattr(m, name):
                setattr(sm, name, getattr(m, name))
        if isinstance(m, AssistantMessage):
            sm.content = [
                SkBlock(type="toolCall", id=b.id, name=b.name)
                if isinstance(b, ToolCall)
                else SkBlock(type=_tag(b), redacted=getattr(b, "redacted", None))  # type: ignore[arg-type]
                for b in m.content
            ]
        elif isinstance(m, ToolResultMessage):
            sm.content = [SkBlock(type=_tag(b)) for b in m.content]  # type: ignore[arg-type]
        sk.message = sm
    return sk


def _tag(obj: Any) -> str:
    cfg = obj.__struct_config__
    return str(cfg.tag)


# --------------------------------------------------------------------------- full entries

_PATH_RE = re.compile(r" - at `\$(?P<path>[^`]*)`$")
_STEP_RE = re.compile(r"\.([A-Za-z0-9_]+)|\[(\d+)\]")
_MAX_REPAIRS = 200
_LINE_TAGS = frozenset(
    t.__struct_config__.tag for t in (SessionHeader, *Entry.__args__) if t is not UnknownEntry
)


def decode_entry(data: bytes | memoryview, *, legacy: bool = False) -> tuple[Any, list[str]]:
    """Decode one line completely, repairing what the strict types reject: ``(value, notes)``,
    one short note per repair. Raises BadLineError when the line is not a JSON object."""
    try:
        return _legacy_hook(_line_decoder().decode(data), legacy), []
    except msgspec.ValidationError:
        pass
    except msgspec.DecodeError as exc:
        if "UTF-8" not in str(exc):
            raise BadLineError(_short_reason(exc)) from None
    obj = decode_json(data)
    try:
        return repair(obj, legacy=legacy)
    except RecursionError:
        return _unknown_entry(obj), ["nested too deeply to repair; kept as raw JSON"]


def repair(obj: Any, *, legacy: bool = False) -> tuple[Any, list[str]]:
    """Convert a plain JSON value to a typed line, repairing it from validation errors."""
    if not isinstance(obj, dict):
        raise BadLineError(f"not a JSON object ({_json_kind(obj)})")
    etype = obj.get("type")
    if not isinstance(etype, str) or etype not in _LINE_TAGS:
        return _unknown_entry(obj), []
    notes: list[str] = []
    work = _copy(obj)
    for _ in range(_MAX_REPAIRS):
        try:
            return _legacy_hook(msgspec.convert(work, Line), legacy), notes
        except msgspec.ValidationError as exc:
            if not _apply_fix(work, str(exc), notes, legacy=legacy):
                break
    notes.append("could not repair; kept as raw JSON")
    return _unknown_entry(obj), notes


def _legacy_hook(value: Any, legacy: bool) -> Any:
    """Before version 3, role ``hookMessage`` was the name of ``custom`` (Pi's migration)."""
    if legacy and isinstance(value, MessageEntry) and type(value.message) is HookMessage:
        m = value.message
        value.message = CustomMessage(
            custom_type=m.custom_type,
            content=m.content,
            display=m.display,
            details=m.details,
            timestamp=m.timestamp,
        )
    return value


def _unknown_entry(obj: dict[str, Any]) -> UnknownEntry:
    def s(key: str) -> str | None:
        v = obj.get(key)
        return v if isinstance(v, str) else None

    return UnknownEntry(id=s("id"), parent_id=s("parentId"), timestamp=s("timestamp"), raw=obj)


def _json_kind(obj: Any) -> str:
    if isinstance(obj, list):
        return "array"
    if isinstance(obj, str):
        return "string"
    if obj is None:
        return "null"
    if isinstance(obj, bool):
        return "boolean"
    return "number"


def _copy(value: Any) -> Any:
    # Repairs mutate containers; copy them so the caller's object (the raw value) stays intact.
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def _apply_fix(work: dict[str, Any], error: str, notes: list[str], *, legacy: bool) -> bool:
    m = _PATH_RE.search(error)
    path = m.group("path") if m else ""
    reason = error[: m.start()] if m else error
    steps: list[str | int] = [
        s.group(1) if s.group(1) is not None else int(s.group(2)) for s in _STEP_RE.finditer(path)
    ]
    missing = re.match(r"Object missing required field `(\w+)`", reason)
    if missing:
        # Only tags are required (every other field has a default): a tagless object.
        steps.append(missing.group(1))
    if not steps:
        return False
    parent: Any = work
    for step in steps[:-1]:
        try:
            parent = parent[step]
        except (KeyError, IndexError, TypeError):
            return False
    last = steps[-1]
    where = "$" + path
    if (
        last in ("type", "role")
        and isinstance(parent, dict)
        and (reason.startswith("Invalid value") or missing)
    ):
        if last == "type" and len(steps) == 1:
            return False  # unknown entry type: the caller keeps it as an UnknownEntry
        if last == "role" and legacy and parent.get("role") == "hookMessage":
            parent["role"] = "custom"
            return True
        original = dict(parent)
        parent.clear()
        parent[last] = UNKNOWN_TAG
        parent["raw"] = original
        return True
    try:
        target = parent[last]
    except (KeyError, IndexError, TypeError):
        return False
    if isinstance(parent, list) and isinstance(last, int):
        container = steps[-2] if len(steps) >= 2 else None
        if container == "content" and not isinstance(target, dict):
            parent[last] = {"type": UNKNOWN_TAG, "raw": target}
        elif container == "content":
            parent[last] = {"type": UNKNOWN_TAG, "raw": dict(target)}
        else:
            del parent[last]
            notes.append(f"dropped {where}: {reason}")
        return True
    if isinstance(parent, dict):
        del parent[last]
        notes.append(f"dropped {where}: {reason}")
        return True
    return False
