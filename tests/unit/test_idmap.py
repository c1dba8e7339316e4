"""The tree takes over the store's map of ids (``model/idmap.py``) instead of making its own:
the map must be the very one the old code made, ``dict(zip(ids, range(n)))``, in the same
order, on every fixture, corpus file and generated shape, read in one pass or in two halves,
and for the odd files (empty ids, repeated ids, legacy ids, entries without ids)."""

from __future__ import annotations

import json
import os
from array import array
from pathlib import Path

import pytest

from benchmarks.gen_shapes import SHAPES, write_shape
from piview.model import load_session
from piview.model import split as split_module
from piview.model.fileindex import FileIndex
from piview.model.idmap import take_id_map
from piview.model.session import Session
from piview.model.split import join, second_half
from piview.model.store import NodeStore
from piview.model.tree import build_tree_resolved
from tests.conftest import FIXTURES, corpus_files

FILES = sorted(FIXTURES.rglob("*.jsonl"))
HEADER = {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00Z"}


def old_map(ids: list[str]) -> list[tuple[str, int]]:
    """What the tree made before it took the store's map (items, in order)."""
    return list(dict(zip(ids, range(len(ids)), strict=True)).items())


def _entry(own: object, parent: object, k: int) -> str:
    e: dict[str, object] = {"type": "message", "parentId": parent}
    if own is not ...:
        e["id"] = own
    e["timestamp"] = f"2026-01-01T00:00:{k:02d}.000Z"
    e["message"] = {"role": "user", "content": f"m{k}"}
    return json.dumps(e)


def _write(path: Path, rows: list[tuple[object, object]], version: int = 3) -> Path:
    head = json.dumps({**HEADER, "version": version})
    lines = [head, *(_entry(o, p, k) for k, (o, p) in enumerate(rows))]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture(scope="module")
def odd(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    d = tmp_path_factory.mktemp("odd")
    out = [
        _write(d / "empty-id.jsonl", [("a", None), ("", "a"), ("b", ""), ("", "b"), ("c", "")]),
        _write(d / "repeated.jsonl", [("a", None), ("b", "a"), ("a", "b"), ("c", "a"), ("b", "c")]),
        _write(d / "missing.jsonl", [("a", None), (..., "a"), ("b", "a"), (..., "b")]),
        _write(d / "legacy.jsonl", [("a", None), ("b", "a"), ("c", "b")], version=1),
        _write(d / "forward.jsonl", [("a", "c"), ("b", "a"), ("c", "b"), ("d", "zz")]),
    ]
    for shape in SHAPES:
        if shape == "copies" and not corpus_files():
            continue
        path = d / f"{shape}.jsonl"
        write_shape(path, shape, 600)
        out.append(path)
    return out


def test_build_tree_keeps_the_map_it_is_given() -> None:
    ids = ["a", "b", "a"]
    given = dict(zip(ids, range(3), strict=True))
    tree = build_tree_resolved(ids, array("q", [-1, 0, 1]), {}, [None] * 3, given)
    assert tree.id_index is given
    assert tree.duplicate_ids == {"a": [0, 2]}


def test_the_tree_takes_the_store_map(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[object] = []
    finish = Session._finish

    def watching(self: Session) -> None:
        seen.append(self.nodes._recent)
        finish(self)

    monkeypatch.setattr(Session, "_finish", watching)
    s = load_session(FIXTURES / "tool_pairing.jsonl")
    assert seen and s.tree.id_index is seen[0]
    # The store now resolves parents through the tree's map, not a copy of it.
    assert s.nodes._base is s.tree.id_index and s.nodes._recent == {}


def _all(odd: list[Path]) -> list[Path]:
    return [*FILES, *corpus_files(), *odd]


@pytest.mark.corpus
@pytest.mark.parametrize("split", [False, True])
def test_id_map_is_the_old_one(
    odd: list[Path], split: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if split:
        monkeypatch.setattr(split_module, "SPLIT_MIN_BYTES", 0)
        monkeypatch.setattr(split_module, "spare_core", lambda: True)
    else:
        monkeypatch.setenv("PIVIEW_NO_SPLIT", "1")
    for path in _all(odd):
        s = load_session(path)
        assert list(s.tree.id_index.items()) == old_map(s.ids), path.name


@pytest.mark.corpus
def test_join_keeps_the_map_one_pass_keeps(odd: list[Path]) -> None:
    for path in _all(odd):
        data = path.read_bytes()
        cuts = [i + 1 for i, b in enumerate(data[:-1]) if b == 10]
        for split in cuts[1 :: max(1, len(cuts) // 5)]:
            fd = os.open(path, os.O_RDONLY)
            try:
                ix = FileIndex(side_at=array("q"))
                ix.consume(fd, final=False, end=split)
                if ix.header is None and not len(ix.nodes) or ix.size != split:
                    continue
                join(ix, second_half(ix, fd, split))
            finally:
                os.close(fd)
            store = ix.nodes
            want = [(own, k) for own, k in old_map(store.ids) if own]
            got = take_id_map(store)
            if "" in store.ids:
                assert got is None
            else:
                assert got is not None and list(got.items()) == want, (path.name, split)


def test_a_rebased_store_hands_no_map() -> None:
    store = NodeStore()
    store.rebase({"a": 0})
    assert take_id_map(store) is None
    store.truncate(0)  # a truncated store's map is rebuilt on its next append
    assert take_id_map(store) is None
