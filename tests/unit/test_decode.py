"""Decoding: every role, block and entry type into typed Structs; unknowns kept whole."""

from __future__ import annotations

import json

import pytest

from piview.model import load_session
from piview.model.decode import BadLineError, decode_entry, decode_skeleton
from piview.model.types import (
    AssistantMessage,
    BashExecutionMessage,
    BranchSummaryEntry,
    BranchSummaryMessage,
    CompactionEntry,
    CompactionSummaryMessage,
    CustomEntry,
    CustomMessage,
    CustomMessageEntry,
    ImageContent,
    LabelEntry,
    MessageEntry,
    ModelChangeEntry,
    SessionHeader,
    SessionInfoEntry,
    SystemMessage,
    TextContent,
    ThinkingContent,
    ThinkingLevelChangeEntry,
    ToolCall,
    ToolResultMessage,
    UnknownBlock,
    UnknownEntry,
    UnknownMessage,
    UserMessage,
)
from tests.conftest import fixture


def _msg(role: str, **fields: object) -> bytes:
    entry = {
        "type": "message",
        "id": "a1",
        "parentId": None,
        "timestamp": "2026-01-01T00:00:00.000Z",
        "message": {"role": role, **fields, "timestamp": 1},
    }
    return json.dumps(entry).encode()


def messages_of(name: str) -> list[object]:
    s = load_session(fixture(name))
    return [e.message for e in (s.entry(i) for i in range(len(s))) if isinstance(e, MessageEntry)]


def test_every_role_decodes_to_its_struct() -> None:
    kinds = {type(m) for m in messages_of("roles_all.jsonl")}
    assert {
        SystemMessage,
        UserMessage,
        AssistantMessage,
        ToolResultMessage,
        BashExecutionMessage,
        CustomMessage,
        BranchSummaryMessage,
        CompactionSummaryMessage,
    } <= kinds


def test_every_entry_type_decodes_to_its_struct() -> None:
    s = load_session(fixture("entry_types.jsonl"))
    kinds = {type(s.entry(i)) for i in range(len(s))}
    assert {
        MessageEntry,
        ModelChangeEntry,
        ThinkingLevelChangeEntry,
        CompactionEntry,
        BranchSummaryEntry,
        CustomEntry,
        CustomMessageEntry,
        LabelEntry,
        SessionInfoEntry,
    } <= kinds


def test_assistant_fields_newer_than_any_pi() -> None:
    line = _msg(
        "assistant",
        content=[
            {"type": "text", "text": "hi", "textSignature": "sig-t"},
            {"type": "thinking", "thinking": "", "thinkingSignature": "enc", "redacted": True},
            {
                "type": "toolCall",
                "id": "c1",
                "name": "read",
                "arguments": {"path": "a"},
                "thoughtSignature": "ts",
                "namespace": "fs",
            },
        ],
        api="openai-responses",
        provider="openai",
        model="auto",
        responseModel="gpt-x",
        responseId="resp_1",
        providerThinkingLevel="high",
        diagnostics=[{"type": "retry", "timestamp": 5, "error": {"message": "boom", "code": 429}}],
        usage={
            "input": 10,
            "output": 20,
            "cacheRead": 1,
            "cacheWrite": 2,
            "cacheWrite1h": 1,
            "reasoning": 5,
            "totalTokens": 33,
            "cost": {"input": 0.1, "output": 0.2, "cacheRead": 0, "cacheWrite": 0, "total": 0.3},
        },
        stopReason="deferred",
        deferred={
            "provider": "openai",
            "modelId": "gpt-x",
            "api": "openai-responses",
            "id": "d1",
            "expiresAt": 99,
            "pollAfterMs": 500,
            "data": {"k": [1]},
        },
        errorMessage=None,
        rawStopReason="incomplete",
        endTurn=False,
    )
    entry, notes = decode_entry(line)
    assert notes == []
    m = entry.message
    assert isinstance(m, AssistantMessage)
    text, thinking, call = m.content
    assert isinstance(text, TextContent) and text.text_signature == "sig-t"
    assert isinstance(thinking, ThinkingContent) and thinking.redacted is True
    assert thinking.thinking_signature == "enc"
    assert isinstance(call, ToolCall)
    assert (call.id, call.name, call.namespace, call.thought_signature) == (
        "c1",
        "read",
        "fs",
        "ts",
    )
    assert m.response_model == "gpt-x" and m.response_id == "resp_1"
    assert m.provider_thinking_level == "high"
    assert m.diagnostics and m.diagnostics[0].error and m.diagnostics[0].error.code == 429
    assert m.usage and m.usage.cache_write1h == 1 and m.usage.reasoning == 5
    assert m.stop_reason == "deferred" and m.deferred and m.deferred.poll_after_ms == 500
    assert m.raw_stop_reason == "incomplete" and m.end_turn is False


def test_system_message_fields() -> None:
    line = _msg(
        "system",
        content=[{"type": "text", "text": "be brief"}],
        sections={"style": "terse", "old": None},
        toolsAdded=[{"name": "grep", "description": "search", "parameters": {"type": "object"}}],
        toolsRemoved=[{"name": "bash"}],
        replace=True,
    )
    entry, _ = decode_entry(line)
    m = entry.message
    assert isinstance(m, SystemMessage)
    assert m.sections == {"style": "terse", "old": None}
    assert m.tools_added and m.tools_added[0].name == "grep"
    assert m.tools_removed and m.tools_removed[0].name == "bash"
    assert m.replace is True


def test_tool_result_with_details_and_usage() -> None:
    line = _msg(
        "toolResult",
        toolCallId="c1",
        toolName="bash",
        content=[
            {"type": "text", "text": "ok"},
            {"type": "image", "data": "AA==", "mimeType": "image/png"},
        ],
        details={"diff": "+1 x"},
        usage={"input": 3, "output": 4, "cacheRead": 0, "cacheWrite": 0},
        isError=True,
    )
    entry, _ = decode_entry(line)
    m = entry.message
    assert isinstance(m, ToolResultMessage)
    assert m.is_error and m.details == {"diff": "+1 x"} and m.usage and m.usage.output == 4
    assert isinstance(m.content[1], ImageContent) and m.content[1].mime_type == "image/png"


def test_content_string_or_list() -> None:
    a, _ = decode_entry(_msg("user", content="plain"))
    b, _ = decode_entry(_msg("user", content=[{"type": "text", "text": "list"}]))
    assert a.message.content == "plain"
    assert b.message.content[0].text == "list"


def test_unknown_role_is_kept_raw() -> None:
    entry, notes = decode_entry(_msg("telemetry", payload={"x": 1}))
    m = entry.message
    assert isinstance(m, UnknownMessage)
    assert m.unknown_role == "telemetry" and m.raw["payload"] == {"x": 1}
    assert notes == []


def test_unknown_block_kept_next_to_known_ones() -> None:
    line = _msg(
        "assistant",
        content=[{"type": "text", "text": "hi"}, {"type": "audio", "data": "xx", "ms": 3}],
        stopReason="stop",
    )
    entry, _ = decode_entry(line)
    text, audio = entry.message.content
    assert isinstance(text, TextContent) and text.text == "hi"
    assert isinstance(audio, UnknownBlock) and audio.block_type == "audio"
    assert audio.raw == {"type": "audio", "data": "xx", "ms": 3}


def test_unknown_entry_type_is_kept_raw() -> None:
    line = b'{"type":"frobnicate","id":"x","parentId":"y","timestamp":"t","level":3}'
    entry, notes = decode_entry(line)
    assert isinstance(entry, UnknownEntry)
    assert entry.entry_type == "frobnicate" and entry.id == "x" and entry.parent_id == "y"
    assert entry.raw["level"] == 3 and notes == []


def test_unknown_fields_are_kept_in_raw() -> None:
    s = load_session(fixture("unknown.jsonl"))
    raws = [s.raw(i) for i in range(len(s))]
    # Every line's full JSON, unknown keys included, is available from the file.
    assert all(isinstance(r, dict) for r in raws)
    known = {"type", "id", "parentId", "timestamp", "message"}
    assert any(set(r) - known - {"level", "payload"} for r in raws) or any(
        set(r.get("message", {})) - {"role", "content", "timestamp"} for r in raws
    )


def test_wrong_field_type_is_dropped_with_a_note() -> None:
    line = _msg("user", content=[{"type": "text", "text": 42}, {"type": "text", "text": "ok"}])
    entry, notes = decode_entry(line)
    assert entry.message.content[0].text == ""
    assert entry.message.content[1].text == "ok"
    assert notes and "text" in notes[0]


def test_not_an_object_is_a_bad_line() -> None:
    for bad in (b"[1,2]", b'"s"', b"3", b"null", b"{nope", b'{"type":"message"'):
        with pytest.raises(BadLineError):
            decode_entry(bad)
        with pytest.raises(BadLineError):
            decode_skeleton(bad)


def test_header_decodes() -> None:
    h = decode_skeleton(
        b'{"type":"session","version":3,"id":"abc","timestamp":"t","cwd":"/x","parentSession":"/p"}'
    )
    assert isinstance(h, SessionHeader)
    assert (h.version, h.id, h.cwd, h.parent_session) == (3, "abc", "/x", "/p")


def test_skeleton_skips_big_strings() -> None:
    big = "x" * 100_000
    sk = decode_skeleton(
        _msg("toolResult", toolCallId="c", toolName="t", content=[{"type": "text", "text": big}])
    )
    assert sk.message.tool_call_id == "c"
    assert not hasattr(sk.message.content[0], "text")


def test_legacy_hookmessage_becomes_custom() -> None:
    entry, _ = decode_entry(
        _msg("hookMessage", customType="h", content="c", display=True), legacy=True
    )
    assert isinstance(entry.message, CustomMessage) and entry.message.custom_type == "h"
    s = load_session(fixture("v2_hookmessage.jsonl"))
    roles = [n.message.role for n in s.nodes if n.message is not None]
    assert "hookMessage" not in roles and "custom" in roles
    assert any(
        isinstance(getattr(s.entry(i), "message", None), CustomMessage) for i in range(len(s))
    )


HEADERS = [
    '{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00Z","cwd":"/"}',
    '{"type":"session","id":"s","timestamp":"2025-01-01T00:00:00Z","cwd":"/","extra":[1,2]}',
    '{"type":"session","version":"3","id":"s","cwd":"/"}',  # a wrong type: repaired
    '{"type":"session","version":3,"id":7,"timestamp":null}',
    '{"type":"session","cwd":"/caf\\u00e9","parentSession":"/a.jsonl","title":"T"}',
]


@pytest.mark.parametrize("line", HEADERS)
def test_a_header_skeleton_is_the_header_decoded_in_full(line: str) -> None:
    # The skeleton path decodes a header with a decoder of its own (the full one is made on
    # the first full decode): the same header, repaired the same way when it must be.
    assert decode_skeleton(line.encode()) == decode_entry(line.encode())[0]


@pytest.mark.corpus
def test_the_corpus_headers_decode_alike_both_ways() -> None:
    from tests.conftest import corpus_files, fixture

    files = [*sorted(fixture("").glob("*.jsonl")), *corpus_files()]
    headers = 0
    for path in files:
        first = path.read_bytes().split(b"\n", 1)[0]
        if b'"session"' in first:
            try:
                full = decode_entry(first)[0]
            except BadLineError:
                continue
            if isinstance(full, SessionHeader):
                headers += 1
                assert decode_skeleton(first) == full, path
    assert headers
