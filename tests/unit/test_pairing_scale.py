"""Tool pairing stays exact and linear whatever the tool-call ids repeat (issue 11).

The reference is the rule itself, done the slow way: walk up from each result to the nearest
ancestor holding a call with its id (the first such block of that entry).
"""

from __future__ import annotations

import dataclasses
import json
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, overload
from unittest.mock import patch

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.gen_shapes import CORPUS_TOOLS, write_copies, write_shape
from piview.model import load_session
from piview.model import pairing as pairing_module
from piview.model.pairing import pair_tool_calls, tool_calls_of
from piview.model.session import Session
from piview.model.types import MessageEntry, ToolResultMessage

H = {
    "type": "session",
    "version": 3,
    "id": "s",
    "timestamp": "2026-01-01T00:00:00.000Z",
    "cwd": "/",
}


def reference(s: Session) -> dict[int, tuple[int, int]]:
    """Result → call, by walking up from every result (quadratic; for small files)."""
    parents = s.tree.parents
    out: dict[int, tuple[int, int]] = {}
    for r in range(len(s)):
        entry = s.entry(r)
        if not isinstance(entry, MessageEntry) or not isinstance(entry.message, ToolResultMessage):
            continue
        cid = entry.message.tool_call_id
        if cid is None:
            continue
        j = parents[r]
        while j >= 0:
            hit = [k for k, own, _ in tool_calls_of(s.nodes[j]) if own == cid]
            if hit:
                out[r] = (j, hit[0])
                break
            j = parents[j]
    return out


def _entry(i: int, own: str, parent: str | None, message: dict[str, Any], ts: str) -> str:
    return json.dumps(
        {"type": "message", "id": own, "parentId": parent, "timestamp": ts, "message": message}
    )


Spec = tuple[str, int, list[str], int, int]
"""(kind, parent choice, call ids, id choice, timestamp choice) of one random entry."""

specs = st.lists(
    st.tuples(
        st.sampled_from(["call", "call", "result", "result", "user"]),
        st.integers(0, 10**6),
        st.lists(st.sampled_from(["call_0", "call_1", "call_2", "", "zz"]), min_size=1, max_size=3),
        st.integers(0, 15),
        st.integers(0, 3),
    ),
    min_size=1,
    max_size=90,
)


def _session_lines(body: list[Spec]) -> list[str]:
    """A legal but messy file: repeated call and entry ids, forward and dangling parents,
    several roots, deep chains, equal and backward timestamps."""
    ids: list[str] = []
    for i, (_, _, _, id_choice, _) in enumerate(body):
        ids.append(ids[id_choice % i] if id_choice == 0 and i else f"n{i}")
    lines = [json.dumps(H)]
    for i, (kind, p, cids, _, ts_choice) in enumerate(body):
        mode = p % 10
        if mode == 0 or i == 0 and mode >= 2:
            parent = None
        elif mode == 1:  # forward, possibly past the end (an orphan)
            parent = f"n{i + 1 + (p // 10) % 5}"
        elif mode <= 3:
            parent = ids[(p // 10) % i]
        else:
            parent = ids[i - 1]  # mostly chains: deep paths
        ts = ["2026-01-01T00:00:00.000Z", f"2026-01-01T00:{59 - i % 60:02d}:00.000Z", "bad", ""][
            ts_choice
        ]
        if kind == "call":
            message = {
                "role": "assistant",
                "stopReason": "toolUse",
                "content": [
                    {"type": "toolCall", "id": c, "name": "bash", "arguments": {}} for c in cids
                ],
            }
        elif kind == "result":
            message = {
                "role": "toolResult",
                "toolCallId": cids[0],
                "toolName": "bash",
                "content": [{"type": "text", "text": "out"}],
                "isError": False,
            }
        else:
            message = {"role": "user", "content": "hi"}
        lines.append(_entry(i, ids[i], parent, message, ts))
    return lines


def _check_against_reference(s: Session) -> None:
    want = reference(s)
    for walk in (1, pairing_module._WALK):  # 1: almost every result goes to the deep pass
        with patch.object(pairing_module, "_WALK", walk):
            p = pair_tool_calls(s.nodes, s.tree)
        assert dict(p.result_call) == want
        by_call: dict[tuple[int, int], list[int]] = {}
        for r in sorted(want):
            by_call.setdefault(want[r], []).append(r)
        assert {c: p.call_results[c] for c in p.call_results} == by_call
        assert p.orphan_results == [r for r in p.results if r not in want]


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None
)
@given(specs)
def test_pairing_matches_the_walk_up_reference_on_random_trees(body: list[Spec]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "s.jsonl"
        path.write_text("\n".join(_session_lines(body)) + "\n")
        s = load_session(path)
        _check_against_reference(s)
        s.close()


@pytest.mark.parametrize("shape", ["repeated-ids", "chain", "fan", "duplicate-ids"])
def test_pairing_matches_the_reference_on_the_scaling_shapes(shape: str, tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    write_shape(path, shape, 600)
    _check_against_reference(load_session(path))


class _Budget(Sequence[int]):
    """The tree's parents, counting every read: over ``limit`` reads, the test fails at once
    (quadratic work would otherwise run for minutes before failing)."""

    def __init__(self, parents: Sequence[int], limit: int) -> None:
        self._parents = parents
        self.reads = 0
        self._limit = limit

    def __len__(self) -> int:
        return len(self._parents)

    @overload
    def __getitem__(self, i: int) -> int: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[int]: ...
    def __getitem__(self, i: int | slice) -> int | Sequence[int]:
        self.reads += 1
        if self.reads > self._limit:
            raise AssertionError(f"more than {self._limit} reads of the parents")
        return self._parents[i]

    def __iter__(self) -> Iterator[int]:
        for k in range(len(self._parents)):
            yield self[k]


def _copies_source() -> Path:
    # Always the fixture, never ../shared: the same count of pairs on a fresh clone as in CI.
    return Path(__file__).parents[1] / "fixtures/sessions/tool_pairing.jsonl"


@pytest.mark.parametrize("shape", ["repeated-ids", "copies", "chain"])
def test_pairing_reads_each_parent_a_bounded_number_of_times(shape: str, tmp_path: Path) -> None:
    # Before the fix, 3,000 entries of turns numbering their calls call_0, call_1 cost ~10^8
    # parent reads (each result walked up once per earlier call of its id).
    path = tmp_path / "s.jsonl"
    write_shape(path, shape, 3000, _copies_source())
    s = load_session(path)
    want = dict(s.pairing.result_call)
    budget = _Budget(s.tree.parents, 40 * len(s))
    tree = dataclasses.replace(s.tree, parents=budget)  # type: ignore[arg-type]
    got = pair_tool_calls(s.nodes, tree)
    assert dict(got.result_call) == want
    assert len(want) > 800  # 816 for copies of the fixture


@pytest.mark.corpus
@pytest.mark.skipif(not CORPUS_TOOLS.is_file(), reason="no corpus")
def test_chained_copies_pair_as_one_copy_does(tmp_path: Path) -> None:
    one = load_session(CORPUS_TOOLS)
    n = len(one)
    single = dict(one.pairing.result_call)
    assert single
    path = tmp_path / "copies.jsonl"
    write_copies(path, CORPUS_TOOLS, 5)
    s = load_session(path)
    assert len(s) == 5 * n
    assert s.tree.roots == [0] and s.tree.leaf_count() == 1
    want = {r + k * n: (c + k * n, b) for k in range(5) for r, (c, b) in single.items()}
    assert dict(s.pairing.result_call) == want
