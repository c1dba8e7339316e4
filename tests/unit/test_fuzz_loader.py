"""Property tests: mutated and truncated session files never make the loader raise or hang."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from piview.model import (
    build_context,
    load_session,
    session_info,
    system_prompt_state,
    usage_report,
)
from tests.conftest import fixture

SEEDS = [
    fixture(n).read_bytes()
    for n in (
        "roles_all.jsonl",
        "entry_types.jsonl",
        "v1.jsonl",
        "unknown.jsonl",
        "stop_reasons.jsonl",
    )
]

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False)
    | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=12,
)


def exercise(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "f.jsonl"
        p.write_bytes(data)
        s = load_session(p)
        session_info(s)
        for i in range(len(s)):
            s.entry(i)
            s.raw(i)
        if len(s):
            usage_report(s.nodes, s.tree.path(s.tree.leaf))
            build_context(s)
            system_prompt_state(s)
        s.close()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.sampled_from(SEEDS),
    cut=st.integers(0, 10_000),
    flips=st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 255)), max_size=6),
)
def test_truncated_and_byte_flipped_files(
    seed: bytes, cut: int, flips: list[tuple[int, int]]
) -> None:
    data = bytearray(seed[: cut % (len(seed) + 1)])
    for pos, byte in flips:
        if data:
            data[pos % len(data)] = byte
    exercise(bytes(data))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.sampled_from(SEEDS), data=st.data())
def test_fields_replaced_by_arbitrary_json(seed: bytes, data: st.DataObject) -> None:
    lines = [json.loads(x) for x in seed.splitlines() if x.strip()]
    for obj in lines:
        target = obj.get("message", obj) if isinstance(obj, dict) else obj
        if isinstance(target, dict) and target:
            key = data.draw(st.sampled_from(sorted(target)))
            target[key] = data.draw(json_values)
    out = b"\n".join(json.dumps(x).encode() for x in lines)
    exercise(out)


@settings(max_examples=100, deadline=None)
@given(st.lists(json_values, max_size=8))
def test_arbitrary_json_lines(values: list[object]) -> None:
    exercise(b"\n".join(json.dumps(v).encode() for v in values))


def test_deeply_nested_json_is_a_bad_line_not_a_crash(write_session) -> None:
    deep = (
        '{"type":"message","id":"a","parentId":null,"message":'
        + "[" * 100_000
        + "]" * 100_000
        + "}"
    )
    s = load_session(write_session(['{"type":"session","version":3,"id":"s"}', deep]))
    assert len(s) + len(s.bad_lines) == 1
