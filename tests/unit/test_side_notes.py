"""OpenClaw's side notes (``appendMode: "side"``) are no leaves and make no branch points:
in the tree, ``piview info --json``, the status line's count and the branch panel."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from piview.cli import main
from piview.model import load_session
from piview.model import openclaw as oc
from piview.model.follow import absorb, look
from piview.model.treeview import Folds, flatten, refold
from tests.conftest import fixture
from tests.render.helpers import chain, message

FILE = fixture("openclaw_side_notes.jsonl")


def _ids(s, entries) -> list[str]:  # type: ignore[no-untyped-def]
    return [s.ids[i] for i in entries]


def test_side_notes_are_found_when_the_file_is_read() -> None:
    s = load_session(FILE)
    assert sorted(_ids(s, s.tree.side)) == ["s0000001", "s0000002", "s0000003", "s0000004"]
    assert s.is_side_note(s.tree.id_index["s0000001"])
    assert not s.is_side_note(s.tree.id_index["a0000001"])


def test_side_notes_are_no_leaves_and_make_no_branch_point() -> None:
    s = load_session(FILE)
    # a0000001 has two real children (u0000002, u0000003) and a side note: one fork.
    assert _ids(s, s.tree.branch_points()) == ["a0000001"]
    # a0000002's only children are side notes (a chain of two): it is a leaf; so is
    # a0000003, the last real entry, under the file's last line (a side note).
    assert _ids(s, s.tree.leaves()) == ["a0000002", "a0000003"]
    assert s.tree.leaf_count() == 2
    assert s.ids[s.tree.leaf] == "a0000003"


def test_the_openclaw_fixture_has_one_leaf_and_no_fork() -> None:
    s = load_session(fixture("openclaw_entries.jsonl"))
    # s1000001 annotates m1000003, which also has u1000003 after it: no fork there.
    assert _ids(s, s.tree.branch_points()) == []
    assert _ids(s, s.tree.leaves()) == ["l1000001"]


def test_info_json_counts_no_side_note(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["info", str(FILE), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["leaves"] == ["a0000002", "a0000003"]
    assert d["branch_points"] == ["a0000001"]


@pytest.mark.parametrize(
    ("line", "side"),
    [
        ({"type": "message", "appendMode": "side"}, True),
        ({"type": "custom", "appendMode": "side"}, True),
        ({"type": "message", "appendMode": "main"}, False),
        # A leaf entry's appendMode is how the entries after it are appended.
        ({"type": "leaf", "targetId": "a", "appendMode": "side"}, False),
        ({"type": "message", "message": {"content": '"appendMode":"side"'}}, False),
    ],
)
def test_side_line(line: dict, side: bool) -> None:
    assert oc.side_line(json.dumps(line).encode()) is side


def test_a_key_cut_by_a_chunk_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    lines = [json.dumps({"type": "message", "k": "x" * k, "appendMode": "side"}) for k in range(40)]
    data = "\n".join(lines).encode() + b"\n"
    offsets, lengths, at = [], [], 0
    for ln in lines:
        offsets.append(at)
        lengths.append(len(ln))
        at += len(ln) + 1
    for chunk in (5, 16, 17, 50, 1 << 20):
        monkeypatch.setattr(oc, "_CHUNK", chunk)
        found = oc.side_notes(lambda n, off: data[off : off + n], offsets, lengths)
        assert found == set(range(40)), chunk
        assert oc.side_notes(lambda n, off: data[off : off + n], offsets, lengths, 30) == set(
            range(30, 40)
        )


def test_panel_rows_put_a_side_note_under_its_entry() -> None:
    s = load_session(FILE)
    rows = flatten(s, folds=Folds(fold_side=False)).rows
    by = {s.ids[r.entry]: r for r in rows}
    order = [s.ids[r.entry] for r in rows]
    # The active branch first (a0000003's), each side note right after its entry.
    assert order == [
        "u0000001",
        "a0000001",
        "s0000001",
        "u0000003",
        "a0000003",
        "s0000004",
        "u0000002",
        "a0000002",
        "s0000002",
        "s0000003",
    ]
    assert by["s0000001"].side and by["s0000001"].prefix() == "   · "
    assert not by["s0000001"].connector and not by["s0000001"].foldable
    assert by["a0000001"].is_branch_point  # its two real children
    assert not by["a0000003"].is_branch_point and not by["a0000002"].is_branch_point
    assert by["a0000003"].is_leaf and not by["s0000004"].is_leaf
    # The fork off a0000001 is drawn for its two children only.
    assert [by[k].connector for k in ("u0000003", "u0000002")] == ["├", "└"]


def test_folding_a_branch_hides_its_side_notes_and_unfolding_shows_them() -> None:
    s = load_session(FILE)
    folds = Folds()
    tree_rows = flatten(s, folds=folds)  # the branch off the active path starts folded
    order = [s.ids[r.entry] for r in tree_rows.rows]
    assert order[-1] == "u0000002" and tree_rows.rows[-1].hidden == 3
    folds.opened.add(s.tree.id_index["u0000002"])
    opened = refold(tree_rows, len(order) - 1, folds)
    assert opened.rows == flatten(s, folds=folds).rows
    assert [s.ids[r.entry] for r in opened.rows][-4:] == [
        "u0000002",
        "a0000002",
        "s0000002",
        "s0000003",
    ]


def test_following_a_side_note_keeps_the_leaves(write_session) -> None:  # type: ignore[no-untyped-def]
    base = [
        message({"role": "user", "content": "a"}, id="u1"),
        message({"role": "assistant", "content": [{"type": "text", "text": "b"}]}, id="a1"),
    ]
    path: Path = write_session(chain(*base))
    s = load_session(path)
    assert _ids(s, s.tree.leaves()) == ["a1"]
    with path.open("a") as f:
        note = message({"role": "user", "content": "n"}, id="n1", parentId="a1", appendMode="side")
        note["timestamp"] = "2026-01-01T00:00:59.000Z"
        f.write(json.dumps(note) + "\n")
    found = look(s)
    assert found.extension is not None  # a plain append, extended in place
    assert absorb(s, found)
    assert _ids(s, s.tree.side) == ["n1"]
    assert _ids(s, s.tree.leaves()) == ["a1"]
    assert s.ids[s.tree.leaf] == "a1"


def _shape(n: int) -> list[str]:
    """A chain of n entries, each with a side note, and a fan of n side notes on the root."""
    out = [message({"role": "user", "content": "r"}, id="r")]
    prev = "r"
    for k in range(n):
        out.append(message({"role": "user", "content": "c"}, id=f"c{k}", parentId=prev))
        out.append(
            message(
                {"role": "user", "content": "s"}, id=f"s{k}", parentId=f"c{k}", appendMode="side"
            )
        )
        out.append(
            message({"role": "user", "content": "f"}, id=f"f{k}", parentId="r", appendMode="side")
        )
        prev = f"c{k}"
    return chain(*out)


@pytest.mark.scaling  # a ratio of times: the scaling tier, not the default run
def test_side_notes_are_linear_on_chains_and_fans(write_session) -> None:  # type: ignore[no-untyped-def]
    """Reading, leaves, branch points and the panel's rows: ratio of two runs."""

    def run(n: int) -> float:
        path = write_session(_shape(n), name=f"s{n}.jsonl")
        best = float("inf")
        for _ in range(3):
            t = time.perf_counter()
            s = load_session(path)
            assert len(s.tree.leaves()) == 1 and s.tree.branch_points() == []
            assert len(flatten(s).rows) == 3 * n + 1
            best = min(best, time.perf_counter() - t)
        return best

    run(300)
    small, big = run(2_000), run(8_000)
    assert big / small < 8, (small, big)  # linear: about 4
