"""Tool pairing when every call id is unique (most files): the walk up from a result compares
each step with the one entry holding its id's call, and must pair exactly as the reference
does, whether that entry is an ancestor (near, or past the short walk), on another branch, or
later in the file."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from piview.model import load_session
from tests.unit.test_pairing_scale import H, _check_against_reference, _entry

TS = "2026-01-01T00:00:00.000Z"

specs = st.lists(
    st.tuples(
        st.sampled_from(["call", "result", "result", "user"]),
        st.integers(0, 10**6),  # parent choice
        st.integers(1, 3),  # calls in a turn
        st.integers(0, 10**6),  # which call a result answers
    ),
    min_size=1,
    max_size=90,
)


def _lines(body: list[tuple[str, int, int, int]]) -> list[str]:
    lines = [json.dumps(H)]
    calls: list[str] = []
    for i, (kind, p, n_calls, which) in enumerate(body):
        mode = p % 6
        parent = None if i == 0 or mode == 0 else f"n{(p // 6) % i}" if mode == 1 else f"n{i - 1}"
        if kind == "call":
            own = [f"c{i}_{k}" for k in range(n_calls)]
            calls += own
            content = [{"type": "toolCall", "id": c, "name": "bash", "arguments": {}} for c in own]
            message = {"role": "assistant", "content": content}
        elif kind == "result":
            # Mostly a call made so far; now and then one made later (never an ancestor).
            cid = calls[which % len(calls)] if calls and which % 7 else f"c{i + 1}_0"
            message = {"role": "toolResult", "toolCallId": cid, "toolName": "bash", "content": []}
        else:
            message = {"role": "user", "content": "hi"}
        lines.append(_entry(i, f"n{i}", parent, message, TS))
    return lines


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None
)
@given(specs)
def test_unique_ids_pair_as_the_reference(body: list[tuple[str, int, int, int]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "s.jsonl"
        path.write_text("\n".join(_lines(body)) + "\n")
        _check_against_reference(load_session(path))


def test_a_call_far_up_a_chain_and_one_on_another_branch(tmp_path: Path) -> None:
    call = {"type": "toolCall", "id": "far", "name": "bash", "arguments": {}}
    side = {"type": "toolCall", "id": "side", "name": "bash", "arguments": {}}
    lines = [json.dumps(H), _entry(0, "a", None, {"role": "assistant", "content": [call]}, TS)]
    lines.append(_entry(1, "b", None, {"role": "assistant", "content": [side]}, TS))
    for k in range(60):  # past the short walk: the depth-first pass pairs it
        lines.append(_entry(k + 2, f"u{k}", "a" if k == 0 else f"u{k - 1}", {"role": "user"}, TS))
    result = {"role": "toolResult", "toolName": "bash", "content": []}
    lines.append(_entry(62, "r", "u59", {**result, "toolCallId": "far"}, TS))
    lines.append(_entry(63, "r2", "r", {**result, "toolCallId": "side"}, TS))
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(lines) + "\n")
    s = load_session(path)
    _check_against_reference(s)
    p = s.pairing
    assert p.result_call.get(s.find("r")) == (s.find("a"), 0)
    assert p.result_call.get(s.find("r2")) is None  # its call is on another branch
