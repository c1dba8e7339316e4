"""Provides Pi's own estimate of a message's tokens (``estimateTokens``), exactly as Pi counts.

Pi 0.85.1 (``core/compaction/compaction.js``) estimates a message as ``ceil(chars / 4)``:

- ``user``, ``custom``, ``toolResult``: the text blocks' lengths (or the string content's),
  and :data:`ESTIMATED_IMAGE_CHARS` per image block;
- ``assistant``: text, thinking, and each tool call's name and ``JSON.stringify(arguments)``;
- ``bashExecution``: the command and the output;
- ``branchSummary``, ``compactionSummary``: the summary (as Pi builds these messages from
  their entries: the summary alone, not the wrapper ``convertToLlm`` sends);
- any other role: 0 (``system``, oh-my-pi's own roles, a version-3 ``hookMessage``, unknown
  roles: the messages ``convertToLlm`` does not send).

A length is JavaScript's ``String.length``: UTF-16 code units (a character outside the BMP
counts 2), and ``JSON.stringify`` writes no spaces, so both are reproduced here rather than
taken from the file's bytes. Pi 0.73.1 differs in one place: it counts no image in a
``user`` message (it does in ``custom`` and ``toolResult`` ones); this follows 0.85.1.
"""

from __future__ import annotations

import math
from json.encoder import encode_basestring
from typing import Any

from piview.model.types import (
    AssistantMessage,
    BashExecutionMessage,
    BranchSummaryEntry,
    BranchSummaryMessage,
    CompactionEntry,
    CompactionSummaryMessage,
    CustomMessage,
    CustomMessageEntry,
    HookMessage,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)

ESTIMATED_IMAGE_CHARS = 4800
"""What Pi counts for an image block (``ESTIMATED_IMAGE_CHARS``; 1,200 tokens)."""

_SAFE_INT = 2**53


def js_length(text: str) -> int:
    """JavaScript's ``text.length``: UTF-16 code units."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def js_number(value: float) -> str:
    """JavaScript's ``String(value)`` (and ``JSON.stringify``'s, but ``null`` for NaN and
    the infinities) of a double, from Python's shortest round-trip digits."""
    if not math.isfinite(value):
        return "null"
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    mantissa, _, e = repr(abs(value)).partition("e")
    whole, _, frac = mantissa.partition(".")
    digits = whole + frac
    n = len(whole) + (int(e) if e else 0)  # the point sits after n digits
    stripped = digits.lstrip("0")
    n -= len(digits) - len(stripped)
    digits = stripped.rstrip("0")
    k = len(digits)
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * -n + digits
    exp = n - 1
    head = digits[0] + ("." + digits[1:] if k > 1 else "")
    return f"{sign}{head}e{'+' if exp >= 0 else '-'}{abs(exp)}"


def _str_json_length(text: str) -> int:
    # Python escapes exactly what JSON.stringify escapes (quote, backslash, controls); only
    # the count of a character outside the BMP differs.
    n = len(encode_basestring(text))
    return n if text.isascii() else n + js_length(text) - len(text)


def js_json_length(value: Any) -> int:
    """``JSON.stringify(value).length`` of a decoded JSON value (no spaces; key order does not
    change the length). A whole number beyond 2**53 is a double in JavaScript."""
    t = type(value)
    if t is str:
        return _str_json_length(value)
    if t is dict:
        # A tool call's arguments: mostly strings and small numbers, counted inline.
        n = 1 + len(value) if value else 2
        for k, v in value.items():
            n += _str_json_length(k) + 1
            tv = type(v)
            if tv is str:
                n += _str_json_length(v)
            elif tv is int and -_SAFE_INT < v < _SAFE_INT:
                n += len(str(v))
            else:
                n += js_json_length(v)
        return n
    if t is list:
        n = 1 + len(value) if value else 2
        for v in value:
            n += js_json_length(v)
        return n
    if value is None or value is True:
        return 4
    if value is False:
        return 5
    if isinstance(value, int):
        if -_SAFE_INT < value < _SAFE_INT:
            return len(str(value))
        try:
            return len(js_number(float(value)))
        except OverflowError:
            return 4  # Infinity: null
    if isinstance(value, float):
        return len(js_number(value))
    return 4  # not JSON: counted as null


def content_chars(content: object) -> int:
    """Pi's ``estimateTextAndImageContentChars``: text lengths and a fixed size per image."""
    if isinstance(content, str):
        return js_length(content)
    chars = 0
    if isinstance(content, list):
        for block in content:
            if isinstance(block, TextContent):
                chars += js_length(block.text)
            elif isinstance(block, ImageContent):
                chars += ESTIMATED_IMAGE_CHARS
    return chars


def estimate_split(message: object) -> tuple[int, int]:
    """``(estimate, thinking)``: Pi's ``estimateTokens`` of a message, and the part of it
    that is thinking: ``floor(thinking chars / 4)``, the rest of the ceil'd estimate being
    the text and tool calls' (so the two parts sum to the estimate; 0 but for assistant
    messages)."""
    if isinstance(message, AssistantMessage):
        chars = thinking = 0
        for block in message.content:
            if isinstance(block, TextContent):
                chars += js_length(block.text)
            elif isinstance(block, ThinkingContent):
                thinking += js_length(block.thinking)
            elif isinstance(block, ToolCall):
                chars += js_length(block.name) + js_json_length(block.arguments)
        return -(-(chars + thinking) // 4), thinking // 4
    if isinstance(message, HookMessage):
        return 0, 0  # a role Pi 0.85 does not know (version 3: custom is its name)
    if isinstance(message, UserMessage | ToolResultMessage | CustomMessage):
        chars = content_chars(message.content)
    elif isinstance(message, BashExecutionMessage):
        chars = js_length(message.command) + js_length(message.output)
    elif isinstance(message, BranchSummaryMessage | CompactionSummaryMessage):
        chars = js_length(message.summary)
    else:
        return 0, 0  # system, oh-my-pi's own roles, unknown roles: Pi counts 0
    return -(-chars // 4), 0


def estimate_tokens(message: object) -> int:
    """Pi's ``estimateTokens`` of a message (see the module's docstring)."""
    return estimate_split(message)[0]


def entry_estimate(entry: object) -> int:
    """Pi's estimate of the message Pi builds from a non-message context entry
    (``sessionEntryToContextMessages``): a custom message's content, a branch summary's or a
    compaction's summary; 0 for any other entry."""
    if isinstance(entry, CustomMessageEntry):
        return -(-content_chars(entry.content) // 4)
    if isinstance(entry, BranchSummaryEntry | CompactionEntry):
        return -(-js_length(entry.summary) // 4)
    return 0
