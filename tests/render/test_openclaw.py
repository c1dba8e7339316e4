"""OpenClaw's additions to Pi's format: gateway messages, model snapshots, prompt errors,
resets, leaf entries choosing the active leaf, and side notes."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from piview.export import export_branch
from piview.export.text import print_branch
from piview.model import load_session
from piview.model.openclaw import active_leaf, gateway_origin
from tests.conftest import fixture
from tests.render.helpers import HEADER, chain, console, message

FILE = fixture("openclaw_entries.jsonl")


def _print(path: Path, leaf: int | None = None, width: int = 80) -> str:
    s = load_session(path)
    c = console(width)
    print_branch(s, leaf, console=c, thinking=False, tools="preview", hidden=False)
    return c.file.getvalue()  # type: ignore[attr-defined]


def test_gateway_origin() -> None:
    assert gateway_origin("openclaw", "delivery-mirror") == "delivered by gateway"
    assert gateway_origin("openclaw", "cli-mirror") == "mirrored from CLI"
    assert gateway_origin("openclaw", "gateway-injected") == "injected by gateway"
    assert gateway_origin("anthropic", "delivery-mirror") is None
    assert gateway_origin("openclaw", "claude") is None


def test_the_leaf_entry_chooses_the_active_leaf() -> None:
    s = load_session(FILE)
    # The last lines: a leaf entry naming m1000003, then a side note under it.
    assert s.ids[s.tree.leaf] == "m1000003"
    assert s.ids[-1] == "s1000001"
    # The side note is no leaf (tests/unit/test_side_notes.py).
    assert sorted(s.ids[i] for i in s.tree.leaves()) == ["l1000001"]


def _lines_with(*tail: dict) -> list[str]:
    base = [
        message({"role": "user", "content": "a"}, id="u1"),
        message({"role": "assistant", "content": [{"type": "text", "text": "b"}]}, id="a1"),
        message({"role": "user", "content": "c"}, id="u2"),
        message({"role": "assistant", "content": [{"type": "text", "text": "d"}]}, id="a2"),
    ]
    return chain(*base, *tail)


@pytest.mark.parametrize(
    ("tail", "leaf"),
    [
        ([], "a2"),  # as Pi: the last entry
        ([{"type": "leaf", "targetId": "a1"}], "a1"),
        ([{"type": "leaf", "targetId": "nope"}], "a2"),  # names nothing: passed over
        ([{"type": "leaf", "targetId": "a1"}, message({"role": "user", "content": "e"})], None),
        ([message({"role": "user", "content": "e"}, appendMode="side")], "a2"),
        ([message({"role": "user", "content": "e"}, appendMode="main")], None),
    ],
)
def test_active_leaf_rules(write_session, tail: list[dict], leaf: str | None) -> None:
    s = load_session(write_session(_lines_with(*tail)))
    want = leaf if leaf is not None else s.ids[-1]
    assert s.ids[s.tree.leaf] == want


def test_active_leaf_reads_only_the_trailing_lines() -> None:
    reads: list[int] = []

    def read(i: int) -> bytes:
        reads.append(i)
        return b'{"type":"message","appendMode":"side"}' if i >= 90 else b'{"type":"message"}'

    assert active_leaf(100, lambda i: "message", read, {}) == 89
    assert reads == list(range(99, 88, -1))


@pytest.mark.scaling  # a ratio of times: the scaling tier, not the default run
def test_active_leaf_is_linear_in_trailing_side_notes(write_session) -> None:
    """A file ending in many side notes: each is read once (ratio of two runs)."""

    def run(n: int) -> float:
        notes = [
            message({"role": "user", "content": f"n{k}"}, appendMode="side", parentId="a2")
            for k in range(n)
        ]
        s = load_session(write_session(_lines_with(*notes), name=f"s{n}.jsonl"))
        assert s.ids[s.tree.leaf] == "a2"
        best = float("inf")
        for _ in range(3):
            t = time.perf_counter()
            active_leaf(len(s), s.nodes.etype, s.read_line, s.tree.id_index)
            best = min(best, time.perf_counter() - t)
        return best

    run(500)
    small, big = run(5_000), run(20_000)
    assert big / small < 8, (small, big)  # linear: about 4


def test_following_a_leaf_entry_moves_the_leaf(write_session) -> None:
    path = write_session(_lines_with())
    s = load_session(path)
    assert s.ids[s.tree.leaf] == "a2"
    with path.open("a") as f:
        f.write(json.dumps({"type": "leaf", "id": "l9", "parentId": "a2", "targetId": "u1"}) + "\n")
    assert s.poll() == "appended"
    assert s.ids[s.tree.leaf] == "u1"


def test_printed_marks() -> None:
    out = _print(FILE)
    assert out.startswith("── model in force: anthropic/claude-sonnet-4-5 ──")
    assert "── prompt error: context overflow: prompt too large ──" in out
    assert "── reset: the conversation starts afresh (new) ──" in out
    assert "● assistant  delivered by gateway" in out
    assert "openclaw/delivery-mirror" not in out and "side note" not in out
    # the model is named once: the mirror in between is not a turn of the model
    assert out.count("anthropic/claude-sonnet-4-5") == 2  # the snapshot and the first turn
    # a Windows path in a tool call's arguments (which also carry partialJson)
    assert "▸ write C:\\Users\\ana\\notes\\booking.md" in out
    s = load_session(FILE)
    side = _print(FILE, s.find("s1000001"))
    assert "● assistant · side note  injected by gateway" in side
    assert all(len(line) <= 80 for line in side.splitlines())
    assert side.splitlines()[-2].endswith("09:01:05")  # the time stays on the header


def test_export_marks_gateway_messages(tmp_path: Path) -> None:
    s = load_session(FILE)
    out = export_branch(
        s, s.tree.leaf, fmt="md", tools="preview", thinking=False, out=tmp_path / "x.md"
    )
    text = out.read_text()
    assert "Assistant · delivered by gateway" in text
    assert "Assistant · delivery-mirror" not in text


def test_header_only_file_has_no_leaf(write_session) -> None:
    s = load_session(write_session([json.dumps(HEADER)]))
    assert s.tree.leaf is None


def test_branch_panel_rows() -> None:
    from piview.model.treetext import row_text

    s = load_session(FILE)
    rows = {s.ids[i]: row_text(s, i) for i in range(len(s))}
    assert rows["r1000001"] == "[reset: new]"
    assert rows["l1000001"] == "[leaf → m1000003]"
    assert rows["s1000001"] == "(side note) assistant: [note] forecast refreshed at 06:00"
    assert rows["m1000003"] == "assistant: Sunny, 24°C."
