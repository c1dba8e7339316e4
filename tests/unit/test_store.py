"""The columnar node store gives back exactly the skeletons it was given."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from piview.model.decode import BadLineError, SkEntry, decode_skeleton
from piview.model.session import load_session
from piview.model.store import NodeStore
from piview.model.store_state import StoreState, store_from_state, store_state
from piview.model.types import SessionHeader
from tests.conftest import FIXTURES, corpus_files

FILES = sorted(FIXTURES.glob("*.jsonl"))


def skeletons(path: Path) -> list[SkEntry]:
    """Every entry's skeleton, decoded line by line on the tolerant path."""
    out: list[SkEntry] = []
    for line in path.read_bytes().splitlines():
        line = line.strip().removeprefix(b"\xef\xbb\xbf")
        if not line:
            continue
        try:
            value = decode_skeleton(line)
        except (BadLineError, RecursionError):
            continue
        if not isinstance(value, SessionHeader):
            out.append(value)
    return out


def build(nodes: list[SkEntry]) -> NodeStore:
    store = NodeStore()
    for n in nodes:
        store.append(msgspec.structs.replace(n))
    return store


@pytest.mark.parametrize("path", FILES + corpus_files(), ids=lambda p: p.name)
def test_views_equal_the_skeletons(path: Path) -> None:
    nodes = skeletons(path)
    store = build(nodes)
    assert len(store) == len(nodes)
    assert list(store) == nodes
    for i, n in enumerate(nodes):
        assert store.etype(i) == n.type
        assert store.role(i) == n.role
        assert store.timestamp(i) == n.timestamp
        assert store.parent_ref(i) == n.parent_id
        assert store.raw_id(i) == n.id


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_state_round_trip(path: Path) -> None:
    nodes = skeletons(path)
    store = build(nodes)
    data = msgspec.msgpack.encode(store_state(store))
    back = store_from_state(msgspec.msgpack.decode(data, type=StoreState))
    assert list(back) == nodes
    # A restored store keeps growing correctly (its lookup tables are rebuilt on demand).
    extra = build(nodes[:3])
    for n in nodes[:3]:
        back.append(msgspec.structs.replace(n))
    assert list(back)[len(nodes) :] == list(extra)


def test_truncate_then_append() -> None:
    nodes = skeletons(FIXTURES / "tool_pairing.jsonl")
    store = build(nodes)
    store.truncate(len(nodes) - 2)
    assert list(store) == nodes[:-2]
    for n in nodes[-2:]:
        store.append(msgspec.structs.replace(n))
    assert list(store) == nodes
    assert store.parent_at.tolist() == build(nodes).parent_at.tolist()


def test_odd_values_are_kept_whole(write_session) -> None:
    path = write_session(
        [
            '{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z"}',
            # a timestamp not in Pi's form, a float message time, a custom stop reason
            '{"type":"message","id":"a","parentId":null,"timestamp":"yesterday",'
            '"message":{"role":"assistant","content":[],"stopReason":"cancelled",'
            '"timestamp":1.5}}',
            '{"type":"message","id":"b","parentId":"zz","timestamp":"2026-01-01T00:00:01.000Z",'
            '"message":{"role":"user","content":"hi","timestamp":1778752812982}}',
            '{"type":"message","parentId":"a","message":{"role":"toolResult","isError":true}}',
        ]
    )
    session = load_session(path)
    nodes = session.nodes
    assert nodes[0].timestamp == "yesterday"
    assert nodes[0].message is not None and nodes[0].message.stop_reason == "cancelled"
    assert nodes[1].parent_id == "zz" and session.tree.orphans == [1]
    assert nodes[2].id is None and nodes[2].message is not None
    assert nodes[2].message.is_error is True
    assert session.tree.parents[2] == 0


def test_usage_msgpack_cannot_hold_keeps_the_entry_whole(write_session) -> None:
    big = "1" + "0" * 30
    path = write_session(
        [
            '{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z",'
            '"message":{"role":"assistant","content":[],"usage":{"input":' + big + ',"output":5}}}',
            '{"type":"message","id":"b","parentId":"a","timestamp":"2026-01-01T00:00:01.000Z",'
            '"message":{"role":"assistant","content":[],"usage":{"input":3,"output":5}}}',
        ]
    )
    nodes = load_session(path).nodes
    assert 0 in nodes.whole and 1 not in nodes.whole
    assert nodes.message_usage(0) is not None and nodes.message_usage(0).input == int(big)
    usage = nodes.message_usage(1)
    assert usage is not None and (usage.input, usage.output) == (3, 5)
