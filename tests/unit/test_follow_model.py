"""Following a file in steps (:mod:`piview.model.follow`): an append read in pieces gives the
same session as loading the whole file, whether the tree was extended (a plain append) or
rebuilt; the step that reads the file changes nothing; a plain append never rebuilds.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import piview.model.follow as follow
import piview.model.session as session_module
from piview.model import Session, load_session
from tests.conftest import corpus_files, fixture

FILES = [
    fixture(name)
    for name in (
        "linear.jsonl",
        "tool_pairing.jsonl",
        "tree_branches.jsonl",
        "tree_pathological.jsonl",
        "entry_types.jsonl",
        "roles_all.jsonl",
        "bad_lines.jsonl",
        "no_header.jsonl",
        "v1.jsonl",
        "v2_hookmessage.jsonl",
        "crlf_bom.jsonl",
        "compaction_context.jsonl",
    )
] + corpus_files()


def same(a: Session, b: Session) -> None:
    """Two sessions of one file hold the same index, tree, pairing and labels."""
    assert len(a) == len(b)
    assert a.ids == b.ids
    assert list(a.nodes) == list(b.nodes)
    assert list(a.index.lines) == list(b.index.lines)
    assert list(a.index.offsets) == list(b.index.offsets)
    # A torn last line is a bad line only once loaded (a poll waits for the rest of it).
    assert [x for x in a.bad_lines if not x.torn] == [x for x in b.bad_lines if not x.torn]
    assert a.header == b.header
    ta, tb = a.tree, b.tree
    assert ta.parents == tb.parents
    assert ta.children.start == tb.children.start and ta.children.items == tb.children.items
    assert ta.roots == tb.roots and ta.id_index == tb.id_index
    assert (ta.orphans, ta.self_parents, ta.cycles) == (tb.orphans, tb.self_parents, tb.cycles)
    assert ta.duplicate_ids == tb.duplicate_ids
    assert ta.leaves() == tb.leaves() and ta.leaf == tb.leaf
    if ta.leaf is not None:
        assert ta.path(ta.leaf) == tb.path(tb.leaf)  # the cached path too
    pa, pb = a.pairing, b.pairing
    assert pa.call_codes == pb.call_codes and pa.results == pb.results
    assert dict(pa.result_call) == dict(pb.result_call)
    assert dict(pa.call_results) == dict(pb.call_results)
    assert pa.errors == pb.errors
    assert a.labels == b.labels


def _cuts(data: bytes) -> list[int]:
    """Byte offsets to cut ``data`` at: after each of the first lines, then in steps."""
    ends = [k + 1 for k, c in enumerate(data) if c == 0x0A]
    picked = ends[:6] + ends[6::7] + [len(data)]
    return sorted(set(picked))


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_appending_a_file_piece_by_piece_gives_the_whole_file(path: Path, tmp_path: Path) -> None:
    data = path.read_bytes()
    live = tmp_path / path.name
    cuts = _cuts(data)
    live.write_bytes(data[: cuts[0]])
    s = load_session(live)
    s.pairing  # noqa: B018 - as the viewer: the pairing and labels exist, and are extended
    s.labels  # noqa: B018
    for cut in cuts[1:]:
        with open(live, "ab") as f:
            f.write(data[len(live.read_bytes()) : cut])
        s.poll()
        same(s, load_session(live))
    # A torn last line, completed later.
    line = json.dumps({"type": "custom", "id": "zz-torn", "parentId": s.ids[-1] if s.ids else None})
    with open(live, "ab") as f:
        f.write(line[:10].encode())
    s.poll()
    with open(live, "ab") as f:
        f.write(line[10:].encode() + b"\n")
    s.poll()
    same(s, load_session(live))


def _user(eid: str, parent: str | None, text: str = "hi") -> bytes:
    entry = {
        "type": "message",
        "id": eid,
        "parentId": parent,
        "timestamp": "2026-05-11T08:10:00.000Z",
        "message": {"role": "user", "content": [{"type": "text", "text": text}]},
    }
    return json.dumps(entry).encode() + b"\n"


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Names of the whole-file steps called (tree build, pairing)."""
    calls: list[str] = []
    build = session_module.Session.build
    pair = follow.pair_tool_calls

    def counting_build(self: Session) -> follow.Built:
        calls.append("build")
        return build(self)

    def counting_pair(*args: object) -> object:
        calls.append("pair")
        return pair(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(session_module.Session, "build", counting_build)
    monkeypatch.setattr(follow, "pair_tool_calls", counting_pair)
    return calls


def test_a_plain_append_extends_and_anything_else_rebuilds(
    tmp_path: Path, counted: list[str]
) -> None:
    live = tmp_path / "s.jsonl"
    live.write_bytes(fixture("tool_pairing.jsonl").read_bytes())
    s = load_session(live)
    s.pairing  # noqa: B018
    s.labels  # noqa: B018
    counted.clear()
    leaf = s.ids[s.tree.leaf]
    with open(live, "ab") as f:
        f.write(_user("p1", leaf) + _user("p2", "p1"))
    assert s.poll() == "appended"
    assert counted == [], "a plain append rebuilt the tree or the pairing"
    same(s, load_session(live))
    label = {
        "type": "label",
        "id": "l1",
        "parentId": "o1",
        "timestamp": "2026-05-11T08:10:00.000Z",
        "targetId": "later-y",
        "label": "waiting",
    }
    for data, what, rebuilds in [
        (_user("b1", s.ids[1]), "a new branch", False),
        (_user("b2", None), "a new root", True),
        (_user("b1", "b2"), "a repeated id", True),
        (_user("o1", "later-x"), "an orphan", True),
        (json.dumps(label).encode() + b"\n", "a label for a missing id", False),
        (_user("later-x", "l1"), "the orphan's parent arrives", True),
        (_user("z1", "later-x"), "a plain append again", False),
        (_user("later-y", "z1"), "the label's target arrives", True),
    ]:
        counted.clear()
        with open(live, "ab") as f:
            f.write(data)
        assert s.poll() == "appended"
        assert ("build" in counted) == rebuilds, what
        same(s, load_session(live))


def test_look_changes_nothing(tmp_path: Path) -> None:
    live = tmp_path / "s.jsonl"
    live.write_bytes(fixture("linear.jsonl").read_bytes())
    s = load_session(live)
    tree, ids, n = s.tree, list(s.ids), len(s)
    with open(live, "ab") as f:
        f.write(_user("p1", s.ids[-1]))
    found = follow.look(s)
    assert found.change == "grown" and found.added == 1 and found.extension is not None
    assert s.tree is tree and s.ids == ids and len(s) == n and s.find("p1") is None
    assert follow.absorb(s, found)
    assert s.find("p1") == n and s.tree.leaf == n
    assert tree.leaf == n - 1  # the old tree is left as it was
