"""build_items' fast path (the columns written straight into the list's arrays, one run of
items per assistant block list) gives exactly the items of the per-item loop it replaced, on
every fixture, corpus file and generated shape, for every branch, hidden entries shown or not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.gen_shapes import SHAPES, write_shape
from piview.model import load_session
from piview.model.session import Session
from piview.render.items import build_items, kept_from
from tests.conftest import corpus_files, fixture
from tests.render.items_reference import build_items_reference, kept_from_reference

FILES = sorted(fixture("").glob("*.jsonl"))


def _same_for_every_branch(s: Session, most: int = 200) -> int:
    leaves = list(s.tree.leaves()) or [None]
    for leaf in leaves[:most]:
        path = s.tree.path(leaf) if leaf is not None else []
        for hidden in (False, True):
            new = build_items(s, path, show_hidden=hidden)
            old = build_items_reference(s, path, show_hidden=hidden)
            assert new.columns() == old.columns(), (leaf, hidden)
            assert list(new) == list(old)
            assert kept_from(s, new) == kept_from_reference(s, old), (leaf, hidden)
    return len(leaves)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_fixtures(path: Path) -> None:
    _same_for_every_branch(load_session(path))


@pytest.mark.parametrize("path", corpus_files(), ids=lambda p: p.name)
def test_corpus(path: Path) -> None:
    _same_for_every_branch(load_session(path))


@pytest.mark.parametrize("shape", [s for s in SHAPES if s != "copies"])
def test_generated_shapes(shape: str, tmp_path: Path) -> None:
    path = tmp_path / f"{shape}.jsonl"
    write_shape(path, shape, 800)
    _same_for_every_branch(load_session(path))


def _line(own: str, parent: str | None, message: dict, etype: str = "message") -> str:
    return json.dumps(
        {
            "type": etype,
            "id": own,
            "parentId": parent,
            "timestamp": "2026-01-01T00:00:00.000Z",
            "message": message,
        }
    )


def _users(parent: str) -> list[str]:
    """User messages with block lists that fold or not: long text with and without an
    image, a file wrapper, many lines, a short one."""
    image = {"type": "image", "data": "QUFB" * 2000, "mimeType": "image/png"}
    texts = [
        [{"type": "text", "text": "x" * 5000}],
        [{"type": "text", "text": "x" * 5000}, image],
        [{"type": "text", "text": "see <file name=a.py>"}, image],
        [{"type": "text", "text": "line\n" * 30}, image],
        [{"type": "text", "text": "short"}, image],
        [{"type": "text", "text": "short " * 60}],
    ]
    out = []
    for k, content in enumerate(texts):
        out.append(_line(f"user{k}", parent, {"role": "user", "content": content}))
        parent = f"user{k}"
    return out


def test_errors_redactions_stops_and_odd_results(write_session) -> None:
    """What the fast path decides per item: a tool call's error (one of two parallel calls),
    a redacted thinking block, an assistant stopped by an error, a result whose call is off
    the path or missing, a result kept whole, a result that is not a message entry, and
    user messages that fold or not."""
    header = json.dumps({"type": "session", "version": 3, "id": "s", "timestamp": "t", "cwd": "/"})
    calls = [
        {"type": "thinking", "thinking": "", "redacted": True},
        {"type": "thinking", "thinking": "hm"},
        {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {}},
        {"type": "toolCall", "id": "c2", "name": "bash", "arguments": {}},
    ]
    result = {"role": "toolResult", "toolCallId": "c2", "toolName": "bash", "content": []}
    lines = [
        header,
        _line("u", None, {"role": "user", "content": "hi"}),
        _line("a", "u", {"role": "assistant", "content": calls, "stopReason": "toolUse"}),
        _line("r1", "a", {**result, "toolCallId": "c1", "isError": False}),
        _line("r2", "r1", {**result, "isError": True}),
        _line("r3", "r2", {**result, "toolCallId": "nope"}),
        _line("r4", "r3", {**result, "toolCallId": "c1", "details": {"x": 1}}),
        _line("r5", "r4", {**result, "toolCallId": "c1"}, etype="custom_message"),
        _line("a2", "r5", {"role": "assistant", "content": "oops", "stopReason": "error"}),
        _line("b", "u", {"role": "assistant", "content": calls}),
        _line("rb", "b", {**result, "isError": True}),
        _line("x", "rb", {"role": None, "content": "?"}),
        *_users("x"),
    ]
    s = load_session(write_session(lines))
    assert _same_for_every_branch(s) == 2
    items = build_items(s, s.tree.path(s.find("a2")))
    users = [it.collapsible for it in build_items(s, s.tree.path(s.find("user5")))]
    assert users[-6:] == [True, False, True, True, False, False]
    assert [(it.kind, it.error) for it in items if it.kind == "tool"] == [
        ("tool", False),
        ("tool", True),
    ]


def test_many_compactions_on_one_branch(write_session) -> None:
    """Over 8 compactions on the branch (one pass over the items for all of them): the last
    one's kept entry, whichever branch, hidden entries shown or not."""
    header = json.dumps({"type": "session", "version": 3, "id": "s", "timestamp": "t", "cwd": "/"})
    lines, parent = [header], None
    for k in range(40):
        own = f"u{k}"
        lines.append(_line(own, parent, {"role": "user", "content": f"turn {k}"}))
        parent = own
        if k % 3 == 2:
            lines.append(
                json.dumps(
                    {
                        "type": "compaction",
                        "id": f"c{k}",
                        "parentId": parent,
                        "timestamp": "2026-01-01T00:00:00.000Z",
                        "summary": "so far",
                        "firstKeptEntryId": f"u{k - 1}",
                        "tokensBefore": 10,
                    }
                )
            )
            parent = f"c{k}"
    lines.append(_line("side", "c5", {"role": "user", "content": "a branch"}))
    s = load_session(write_session(lines))
    assert _same_for_every_branch(s) == 2
    items = build_items(s, s.tree.path(s.find("u39")))
    assert items.entry(kept_from(s, items)) == s.find("u37")
