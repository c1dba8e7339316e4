"""What a big load keeps and makes at its peak: the usage rows without msgspec's spare half, a
branch's path as an array (no int object per entry), and the blocks built from it the same."""

from __future__ import annotations

import json
import sys
from array import array
from pathlib import Path

import pytest

from benchmarks.gen_session import generate
from benchmarks.gen_shapes import write_shape
from piview.model import load_session
from piview.model.tree import build_tree
from piview.render.items import build_items


def _usage_lines(n: int) -> list[str]:
    lines = [json.dumps({"type": "session", "version": 3, "id": "s", "timestamp": "t", "cwd": "/"})]
    parent = None
    for k in range(n):
        usage = {
            "input": 1000 + k,
            "output": 200 + k % 7,
            "cacheRead": 50_000 + 3 * k,
            "cacheWrite": k % 11,
            "totalTokens": 51_200 + 4 * k,
            "cost": {"input": 0.003, "output": 0.015, "cacheRead": 0.0003, "total": 0.02},
        }
        entry = {
            "type": "message",
            "id": f"a{k:07x}",
            "parentId": parent,
            "timestamp": "2026-01-01T00:00:00.000Z",
            "message": {"role": "assistant", "content": [], "usage": usage, "stopReason": "stop"},
        }
        parent = entry["id"]
        lines.append(json.dumps(entry))
    return lines


@pytest.mark.parametrize("pure", [False, True])
@pytest.mark.parametrize("n", [3000, 5000, 8000])
def test_the_usage_rows_keep_no_spare_half(write_session, monkeypatch, pure: bool, n: int) -> None:
    """msgspec's encode_into grows the buffer it writes into to 1.5 times what it needs: the
    usage rows, written straight into their blob, kept up to half of it spare (13 MB at 1 GB).
    They are appended, as a bytearray grows (an eighth spare at most)."""
    import piview.model.store as store_mod

    if pure:
        monkeypatch.setattr(store_mod, "_fill", None)
    path = write_session(_usage_lines(n))
    s = load_session(path)
    blob = s.nodes.usage_blob
    assert len(s.nodes.usage_end) == n
    spare = sys.getsizeof(blob) - sys.getsizeof(bytearray()) - len(blob)
    assert spare <= len(blob) // 8 + 64
    # The rows read back as they were written.
    assert s.nodes.usage_of_row(n - 1).cache_read == 50_000 + 3 * (n - 1)


def _tree_of(parents: list[int]):  # type: ignore[no-untyped-def]
    ids = [f"e{k}" for k in range(len(parents))]
    refs = [None if p < 0 else ids[p] for p in parents]
    return build_tree(ids, refs, [None] * len(ids))


def test_path_array_is_path_as_an_array_shared_with_the_cache() -> None:
    n = 5000
    # A chain with a side branch off entry 10, and a second root.
    parents = [-1, *range(n - 1), 10, n, -1]
    tree = _tree_of(parents)
    for leaf in (n - 1, n + 1, n + 2, 10, 0):
        assert tree.path_array(leaf) == array("q", tree.path(leaf))
    long_path = tree.path_array(n - 1)
    assert tree.path_array(n - 1) is long_path  # the cache, not a copy
    assert tree.path(n - 1) == long_path.tolist()
    assert tree.path_array(n + 1).tolist() == [*range(11), n, n + 1]


def test_a_long_path_as_an_array_holds_no_int_per_entry() -> None:
    import tracemalloc

    n = 100_000
    tree = _tree_of([-1, *range(n - 1)])
    tree.int_pool()  # made once per tree (a list of the map's ints), looked at below
    tracemalloc.start()
    try:
        path = tree.path_array(n - 1)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        listed = tree.path(n - 1)
        kept, peak_list = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(path) == n
    assert peak < 12 * n  # 8 bytes an entry; a list of new ints is 40
    # The list shares the map of ids' int objects: 8 bytes an entry, not 40.
    assert listed == list(range(n))
    assert peak_list < 24 * n  # the list grown as it fills; new ints were 48 bytes an entry
    index = tree.id_index
    assert all(k is index[f"e{k}"] for k in listed[300:])


def test_path_lists_share_no_int_when_ids_repeat_and_the_pool_follows_appends() -> None:
    n = 5000
    ids = [f"e{k}" for k in range(n)]
    ids[7] = ids[3]  # a repeated id: the map holds the last of them, one entry less
    refs = [None, *ids[: n - 1]]
    refs[8] = "e7"  # names no entry now: a second root from there
    tree = build_tree(ids, refs, [None] * n)
    assert tree.int_pool() is None
    assert tree.path(n - 1) == tree.path_array(n - 1).tolist()
    chain = _tree_of([-1, *range(n - 1)])
    chain.path_array(n - 1)
    grown = chain.with_chain(["x1", "x2"])
    assert grown.int_pool() == list(range(n + 2))
    assert grown.path(n + 1) == [*range(n + 2)]


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("gen") / "s.jsonl"
    generate(path, 2 * 2**20, branch_every=40)
    return path


def test_the_blocks_of_an_array_path_are_those_of_the_list(generated: Path, tmp_path: Path) -> None:
    chain = tmp_path / "chain.jsonl"
    write_shape(chain, "chain", 3000)
    for path in (generated, chain):
        s = load_session(path)
        for leaf in s.tree.leaves()[-3:]:
            for hidden in (False, True):
                a = build_items(s, s.tree.path(leaf), show_hidden=hidden)
                b = build_items(s, s.tree.path_array(leaf), show_hidden=hidden)
                assert list(a) == list(b)


def test_the_pairing_takes_its_slots_from_the_trees_ints(tmp_path: Path, monkeypatch) -> None:
    """The pairing's map of call ids held a new int per call at the load's peak (6 MB at
    1 GB): it takes the tree's, and pairs the same."""
    import tracemalloc

    from piview.model.pairing import pair_tool_calls
    from piview.model.tree import Tree

    path = tmp_path / "chain.jsonl"
    write_shape(path, "chain", 20_000)
    s = load_session(path)
    s.tree.int_pool()

    def peak_of_pairing():  # type: ignore[no-untyped-def]
        tracemalloc.start()
        try:
            out = pair_tool_calls(s.nodes, s.tree)
            return out, tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    shared, peak_shared = peak_of_pairing()
    monkeypatch.setattr(Tree, "int_pool", lambda self: None)
    own, peak_own = peak_of_pairing()
    calls = len(own.call_codes)
    assert calls > 5000
    assert peak_shared < peak_own - 20 * calls  # an int is 32 bytes
    assert list(shared.result_call.items()) == list(own.result_call.items())
    assert dict(shared.call_results) == dict(own.call_results)
    assert shared.errors == own.errors


def test_a_reopen_decodes_its_deferred_columns_one_frame_at_a_time(
    generated: Path, tmp_path: Path, monkeypatch
) -> None:
    """A reopen from the index cache held every deferred column's frame (22 MB at 1 GB) and
    the results' new id strings until the last column was decoded: each frame goes once
    decoded, the new strings once shared, and the columns are those of a cold load."""
    import tracemalloc

    import piview.model.session as session_module
    from piview.model.index_cache import IndexCache
    from piview.model.store_lazy import DeferredStore

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(session_module, "CACHE_MIN_BYTES", 0)
    monkeypatch.delenv("PIVIEW_NO_CACHE", raising=False)
    cold = load_session(generated)
    load_session(generated, index_cache=IndexCache()).save_index()
    s = load_session(generated, index_cache=IndexCache())
    assert type(s.nodes) is DeferredStore
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        patterns = s.nodes.patterns
        kept, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert patterns == cold.nodes.patterns
    assert s.nodes.result_ids == cold.nodes.result_ids
    assert s.nodes.texts == cold.nodes.texts
    # What the frames and the results' own strings added on top of the columns kept.
    assert peak - kept < (kept - start) // 2
