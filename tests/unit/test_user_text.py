"""The text of a user message read without its full decode: what the full decode gives."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from piview.model import load_session
from piview.model.user_text import user_text
from tests.conftest import corpus_files, fixture

HEADER = '{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00Z","cwd":"/"}'


def _full(session, i: int) -> str:  # type: ignore[no-untyped-def]
    # As the session screen's title read it before: the entry decoded in full.
    content = getattr(getattr(session.entry(i), "message", None), "content", "")
    if isinstance(content, str):
        return content
    return " ".join(getattr(b, "text", "") for b in content)


def _users(session) -> list[int]:  # type: ignore[no-untyped-def]
    return [
        i
        for i, node in enumerate(session.nodes)
        if node.message is not None and node.message.role == "user"
    ]


FILES = [*sorted(fixture("").glob("*.jsonl")), *corpus_files()]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_user_message_reads_as_its_full_decode(path: Path) -> None:
    session = load_session(path)
    for i in _users(session):
        assert user_text(session, i) == _full(session, i), (path, i)


ODD = [
    "plain",
    "",
    None,
    7,
    [{"type": "text", "text": "a"}, {"type": "image", "data": "xx", "mimeType": "image/png"}],
    [{"type": "text", "text": "a"}, {"type": "text", "text": " b\n"}],
    [{"type": "text"}, {"type": "text", "text": None}, {"type": "text", "text": 5}],
    [{"type": "audio", "text": "not a text block"}, {"text": "no type"}, "a string", 3],
    [{"type": "text", "text": "kept", "textSignature": 9}],
    {"type": "text", "text": "an object, not a list"},
]


@pytest.mark.parametrize("content", ODD, ids=lambda c: json.dumps(c)[:40])
def test_odd_contents_read_as_their_full_decode(content: object, write_session) -> None:  # type: ignore[no-untyped-def]
    message = {"role": "user", "timestamp": 1}
    if content is not None:
        message["content"] = content
    line = {"type": "message", "id": "u1", "parentId": None, "timestamp": "t", "message": message}
    session = load_session(write_session([HEADER, json.dumps(line)]))
    assert _users(session) == [0]
    assert user_text(session, 0) == _full(session, 0)


def test_a_line_that_is_not_utf8_reads_as_its_full_decode(write_session) -> None:  # type: ignore[no-untyped-def]
    line = b'{"type":"message","id":"u1","message":{"role":"user","content":"caf\xe9"}}'
    session = load_session(write_session([HEADER, line]))
    assert user_text(session, 0) == _full(session, 0)
