"""Provides the shapes every session file's content is built from: numbers, usage, content
blocks, and the base of every entry (see :mod:`piview.model.types`, which re-exports them)."""

from __future__ import annotations

from typing import Any

import msgspec

from piview.model.numbers import NUMBER_LIMIT, Number, number

__all__ = [
    "AnthropicServerToolContent",
    "AnyBlock",
    "Cost",
    "EntryBase",
    "FallbackContent",
    "ImageContent",
    "NUMBER_LIMIT",
    "Number",
    "RedactedThinkingContent",
    "StructBase",
    "TextContent",
    "ThinkingContent",
    "ToolCall",
    "UNKNOWN_TAG",
    "UnknownBlock",
    "Usage",
    "number",
]


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


class _EntryBase(_Base):
    id: str | None = None
    parent_id: str | None = None
    timestamp: str | None = None


StructBase = _Base
"""The common options of every Struct (for the modules beside this one)."""
EntryBase = _EntryBase
"""The fields every entry has (for the modules beside this one)."""
