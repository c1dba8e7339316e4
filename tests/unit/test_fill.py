"""The compiled loop of the node store (``piview/model/_fill.c``) gives what the Python loop
gives: every column and table, the entries, the strings shared, the index cache's bytes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import piview.model.fileindex as fileindex_mod
import piview.model.store as store_mod
from piview.model.decode import SkBlock, SkEntry, SkMessage
from piview.model.fileindex import FileIndex
from piview.model.index_cache import IndexCache
from piview.model.split import consume_split
from piview.model.store import NodeStore
from piview.model.types import Usage
from tests.conftest import FIXTURES, ROOT, corpus_files

FILES = sorted(FIXTURES.parent.rglob("*.jsonl")) + corpus_files()
BUILT = (ROOT / "piview" / "model" / ("_fill" + sysconfig.get_config_var("EXT_SUFFIX"))).exists()
COMPILED = store_mod._fill
needs_c = pytest.mark.skipif(COMPILED is None, reason="piview.model._fill is not built")


@contextmanager
def pure() -> Iterator[None]:
    """The Python loop everywhere (what ``PIVIEW_PURE=1`` gives a new process)."""
    saved = store_mod._fill, fileindex_mod._fill
    store_mod._fill = fileindex_mod._fill = None
    try:
        yield
    finally:
        store_mod._fill, fileindex_mod._fill = saved


def store_fields(store: NodeStore) -> dict[str, Any]:
    """Every column, table and lookup of a store (the base map is the caller's)."""
    return {name: getattr(store, name) for name in NodeStore.__slots__ if name != "_base"}


def sharing(store: NodeStore) -> tuple[list[bool], list[bool], list[bool]]:
    """Which strings are shared: result ids that are their call's id string, names that are
    interned, blocks that are one object in several lists."""
    call_ids = {id(b.id) for p in store.patterns for b in p if b.id is not None}
    ids = [x is not None and id(x) in call_ids for x in store.result_ids]
    names = [x is sys.intern(x) for x in store.result_names if x]
    names += [b.name is sys.intern(b.name) for p in store.patterns for b in p if b.name]
    seen: dict[int, int] = {}
    blocks = []
    for p in store.patterns:
        for b in p:
            blocks.append(id(b) in seen)
            seen[id(b)] = 1
    return ids, names, blocks


def assert_same_store(a: NodeStore, b: NodeStore) -> None:
    fa, fb = store_fields(a), store_fields(b)
    for name in fa:
        assert type(fa[name]) is type(fb[name]), name
        assert fa[name] == fb[name], name
    assert list(a) == list(b)
    assert sharing(a) == sharing(b)
    for i in range(len(a)):
        assert a.message_usage(i) == b.message_usage(i)
        assert list(a.blocks(i)) == list(b.blocks(i))


def assert_same_index(a: FileIndex, b: FileIndex) -> None:
    assert_same_store(a.nodes, b.nodes)
    for name in ("lines", "offsets", "lengths", "header", "header_line", "bad_lines", "size"):
        assert getattr(a, name) == getattr(b, name), name
    assert (a.line_no, a.seen, a.tail, a.tail_entry, a.side_at) == (
        b.line_no,
        b.seen,
        b.tail,
        b.tail_entry,
        b.side_at,
    )


def read(path: Path, *, split: bool = False) -> FileIndex:
    """The file's index, in one pass or (``split``) with its second half read by a child."""
    fd = os.open(path, os.O_RDONLY)
    try:
        index = FileIndex()
        if split:
            index.side_at = fileindex_mod.array("q")
            if consume_split(index, fd, min_bytes=0) is None:
                index.consume(fd, final=True)
        else:
            index.consume(fd, final=True)
        return index
    finally:
        os.close(fd)


def cache_bytes(index: FileIndex, path: Path, directory: Path) -> bytes:
    fd = os.open(path, os.O_RDONLY)
    try:
        cache = IndexCache(directory)
        cache.store(index, path, fd)
        written = cache._file_for(path)
        return written.read_bytes() if written.exists() else b"(none)"
    finally:
        os.close(fd)


def test_the_module_is_used_when_built() -> None:
    """An install that built it (CI's) runs it: the comparisons below are not all skipped."""
    if not BUILT:
        pytest.skip("not built here (no compiler at install time)")
    assert COMPILED is not None
    assert fileindex_mod._fill is not None


def test_pure_env_forces_the_python_loop() -> None:
    code = "import piview.model.store as s, piview.model.fileindex as f; print(s._fill, f._fill)"
    env = {**os.environ, "PIVIEW_PURE": "1", "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["None", "None"]


@needs_c
@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_file_indexes_alike(path: Path, tmp_path: Path) -> None:
    ours = read(path)
    with pure():
        ref = read(path)
    assert_same_index(ours, ref)
    assert cache_bytes(ours, path, tmp_path / "c") == cache_bytes(ref, path, tmp_path / "p")


@needs_c
@pytest.mark.parametrize("path", corpus_files()[:2], ids=lambda p: p.name)
def test_split_read_indexes_alike(path: Path) -> None:
    ours = read(path, split=True)
    with pure():
        ref = read(path, split=True)
    assert_same_index(ours, ref)


@needs_c
@pytest.mark.parametrize(
    "shape",
    ["repeated-ids", "same-timestamps", "backward-timestamps", "fan", "duplicate-ids", "chain"],
)
def test_generated_shapes_index_alike(shape: str, tmp_path: Path) -> None:
    path = tmp_path / f"{shape}.jsonl"
    subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "gen_shapes.py"), str(path), "--shape", shape,
         "--entries", "3000"],
        check=True,
        capture_output=True,
    )  # fmt: skip
    ours = read(path)
    with pure():
        ref = read(path)
    assert_same_index(ours, ref)
    assert cache_bytes(ours, path, tmp_path / "c") == cache_bytes(ref, path, tmp_path / "p")


def _entries(path: Path) -> list[SkEntry]:
    with pure():
        return list(read(path).nodes)


def _copy(sks: list[SkEntry]) -> list[SkEntry]:
    """Fresh skeletons (the loops intern block names in place)."""
    return msgspec.json.decode(msgspec.json.encode(sks), type=list[SkEntry])


class _Ids(Mapping[str, int]):
    """A base map that is not a dict (as a tree reopened from the cache hands over)."""

    def __init__(self, ids: dict[str, int]) -> None:
        self._ids = ids

    def __getitem__(self, key: str) -> int:
        return self._ids[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._ids)

    def __len__(self) -> int:
        return len(self._ids)


@needs_c
@pytest.mark.parametrize("base", [None, "dict", "mapping"])
def test_extend_in_pieces_after_truncate_and_rebase(base: str | None) -> None:
    sks = _entries(FIXTURES / "tool_pairing.jsonl") + _entries(FIXTURES / "tree_branches.jsonl")

    def build() -> NodeStore:
        store = NodeStore()
        work = _copy(sks)
        store.extend(work[:5])
        store.extend(iter(work[5:9]))  # not a list: copied to one
        store.extend(tuple(work[9:12]))
        store.truncate(10)
        if base is not None:
            ids = {own: k for k, own in enumerate(store.ids) if own}
            store.rebase(ids if base == "dict" else _Ids(ids))
        for sk in work[10:]:
            store.append(sk)
        store.extend([])
        return store

    ours = build()
    with pure():
        ref = build()
    assert_same_store(ours, ref)


@needs_c
def test_skeletons_of_other_types_take_the_python_loop() -> None:
    """Hand-made skeletons (wrong types, subclasses, tuples of blocks) are left to the Python
    loop one by one; the entries around them still go through the compiled one."""

    class Str(str):
        pass

    odd = [
        SkEntry(type="message", id=Str("x1"), message=SkMessage(role="user", content="hi")),
        SkEntry(type="message", id="x2", parent_id="x1", timestamp=Str("2026-06-05T16:01:45.555Z")),
        SkEntry(type="message", id="x3", message=SkMessage(role="assistant",
                content=(SkBlock(type="text"),))),  # type: ignore[arg-type]
        SkEntry(type="message", id="x4", has_retained_tail=0),  # type: ignore[arg-type]
        SkEntry(type="message", id="x5", message=SkMessage(role="toolResult", tool_call_id="c1",
                tool_name="bash", is_error=1)),  # type: ignore[arg-type]
        SkEntry(type="message", id=7, parent_id=("x",)),  # type: ignore[arg-type]
        SkEntry(type="message", id="x6", message=SkMessage(role="user", content=[
            SkBlock(type="text", redacted=0)])),  # type: ignore[list-item]
    ]  # fmt: skip
    plain = _entries(FIXTURES / "tool_pairing.jsonl")

    def build() -> NodeStore:
        store = NodeStore()
        work = _copy(plain)
        mixed = [x for pair in zip(work, odd, strict=False) for x in pair] + work[len(odd) :]
        store.extend(mixed)
        return store

    ours = build()
    with pure():
        ref = build()
    assert_same_store(ours, ref)


# A session's entries with odd values anywhere the skeleton reads (hypothesis).
_text = st.text(max_size=30)
_odd_scalar = (
    st.none()
    | st.booleans()
    | st.integers(-(2**80), 2**80)
    | st.floats(allow_nan=False)
    | _text
    | st.sampled_from(["2026-06-05T16:01:45.555Z", "2026-06-05T16:01:45.555\u00e9", "", "x" * 24])
)
_maybe = st.one_of(st.just(None), _odd_scalar)
_usage = st.fixed_dictionaries(
    {},
    optional={
        "input": st.integers(0, 2**70) | _odd_scalar,
        "output": st.integers(0, 2**65),
        "cacheRead": st.integers(-5, 5),
        "totalTokens": st.integers(0, 2**64 + 5),
        "cacheWrite1h": st.integers(0, 9) | st.floats(allow_nan=False),
        "reasoning": st.integers(0, 9),
        "cost": st.fixed_dictionaries(
            {},
            optional={"total": st.floats(allow_nan=False), "cacheWrite": st.integers(0, 3)},
        ),
    },
)
_block = st.fixed_dictionaries(
    {},
    optional={
        "type": st.sampled_from(["text", "toolCall", "thinking", "image", "weird"]) | _maybe,
        "id": st.sampled_from(["c1", "c2", "c3"]) | _maybe,
        "name": st.sampled_from(["bash", "read", ""]) | _maybe,
        "redacted": st.booleans() | _maybe,
        "text": _text,
    },
)
_message = st.fixed_dictionaries(
    {},
    optional={
        "role": st.sampled_from(["user", "assistant", "toolResult", "custom", "alien"]) | _maybe,
        "content": st.lists(_block, max_size=4) | _text | _maybe,
        "usage": _usage | _maybe,
        "stopReason": st.sampled_from(["stop", "toolUse", "error", "odd"]) | _maybe,
        "toolCallId": st.sampled_from(["c1", "c2", "c3", ""]) | _maybe,
        "toolName": st.sampled_from(["bash", "read", ""]) | _maybe,
        "isError": st.booleans() | _maybe,
        "provider": st.sampled_from(["anthropic", "openai", ""]) | _maybe,
        "model": st.sampled_from(["m1", "m2"]) | _maybe,
        "customType": _maybe,
        "exitCode": _maybe,
    },
)
_entry = st.fixed_dictionaries(
    {},
    optional={
        "type": st.sampled_from(["message", "label", "compaction", "session", "strange"]) | _maybe,
        "id": st.sampled_from(["a", "b", "c", "d", ""]) | _maybe,
        "parentId": st.sampled_from(["a", "b", "c", "zz"]) | _maybe,
        "timestamp": _odd_scalar,
        "message": _message | _maybe,
        "summary": _maybe,
        "hasRetainedTail": _maybe,
        "usage": _usage | _maybe,
    },
)
_line = _entry.map(json.dumps) | st.sampled_from(["", "{", "[1]", "null", '{"type":'])


@needs_c
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=st.lists(_line, max_size=25), header=st.booleans())
def test_odd_entries_index_alike(lines: list[str], header: bool) -> None:
    import tempfile

    head = ['{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z"}']
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "f.jsonl"
        path.write_text(
            "".join(x + "\n" for x in (head if header else []) + lines), encoding="utf-8"
        )
        ours = read(path)
        with pure():
            ref = read(path)
        assert_same_index(ours, ref)
        assert cache_bytes(ours, path, Path(d) / "c") == cache_bytes(ref, path, Path(d) / "p")


@needs_c
def test_line_spans_and_find_all_match_the_python_ones() -> None:
    from array import array

    fill = fileindex_mod._fill
    for data in (b"\n\nab\ncd\n\n" + b"x" * 50 + b"\n", b" a\nb\r\nc\n", b"\t\n", b"a\nb"):
        for start in range(len(data)):
            for end in range(start, len(data) + 1):
                count, offsets, lengths, padded = fill.line_spans(data, start, end, 1000)
                ends = fileindex_mod._line_ends(data, start, end)
                assert count == len(ends)
                starts = array("q", [start, *[e + 1 for e in ends[:-1]]])
                assert array("q", offsets).tolist() == [1000 + s for s in starts[:count]]
                assert array("q", lengths).tolist() == [
                    e - s for s, e in zip(starts, ends, strict=False)
                ]
                if count:
                    assert padded == fileindex_mod._padded(data, starts, ends)
                got = array("q")
                got.frombytes(fill.find_all(data, b"\n", end, 7))
                assert got.tolist() == [7 + k for k in range(end) if data[k] == 10]
    key = b'x"appendMode"y"appendMode""appendMode"'
    for end in range(len(key) + 1):
        got, want = array("q"), array("q")
        fileindex_mod._find_all(got, key, end, 5)
        with pure():
            fileindex_mod._find_all(want, key, end, 5)
        assert got == want
    with pytest.raises(ValueError):
        fill.line_spans(b"ab\n", 1, 4, 0)
    with pytest.raises(ValueError):
        fill.find_all(b"ab\n", b"", 3, 0)


def test_usage_struct_is_what_the_loop_reads() -> None:
    """The compiled loop reads the Structs' fields by position: the order it was written for."""
    assert SkEntry.__struct_fields__[:5] == ("type", "id", "parent_id", "timestamp", "message")
    assert SkMessage.__struct_fields__[:9] == (
        "role", "content", "usage", "stop_reason", "tool_call_id", "tool_name", "is_error",
        "provider", "model",
    )  # fmt: skip
    assert SkBlock.__struct_fields__ == ("type", "id", "name", "redacted")
    assert Usage.__struct_config__.gc is not None


@pytest.mark.corpus
@needs_c
def test_no_references_leak() -> None:
    """A store built and dropped again leaves no objects behind (reference counts in C)."""
    import gc

    data = b"".join(p.read_bytes() for p in FILES if "omp" not in p.parts)

    def once() -> int:
        index = FileIndex()
        index._take_lines(data, 0, len(data), 0, 0)
        store = NodeStore()
        store.extend(list(index.nodes))
        return len(store)

    for _ in range(3):
        entries = once()
    gc.collect()
    before = sys.getallocatedblocks()
    for _ in range(20):
        once()
    gc.collect()
    # One object per entry kept by a round would be 20 times the entries; allow some noise.
    assert sys.getallocatedblocks() - before < entries // 2, entries


@needs_c
@settings(max_examples=300, deadline=None)
@given(
    data=st.binary(max_size=90) | st.lists(st.sampled_from([b'"appendMode"', b"M", b'"', b"a\n"]),
                                           max_size=12).map(b"".join),
    needle=st.sampled_from([b'"appendMode"', b"M", b"MM", b'"a', b"aMa", b"\n"]),
    cut=st.integers(0, 90),
)  # fmt: skip
def test_find_all_finds_what_bytes_find_finds(data: bytes, needle: bytes, cut: int) -> None:
    from array import array

    end = min(cut, len(data))
    want = []
    hit = data.find(needle, 0, end)
    while hit >= 0:
        want.append(hit + 3)
        hit = data.find(needle, hit + 1, end)
    got = array("q")
    got.frombytes(fileindex_mod._fill.find_all(data, needle, end, 3))
    assert got.tolist() == want


def test_a_module_built_from_another_source_is_ignored(monkeypatch: pytest.MonkeyPatch) -> None:
    import types

    import piview.model.fill as fill

    sys.path.insert(0, str(ROOT))
    try:
        import hatch_build
    finally:
        sys.path.remove(str(ROOT))
    code = (ROOT / "piview" / "model" / "_fill.c").read_bytes()
    assert hatch_build.source_tag(code) == fill.source_tag(code)
    fake = types.ModuleType("piview.model._fill")
    fake.ABI = fill.ABI  # type: ignore[attr-defined]
    fake.SOURCE = fill.source_tag(code)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "piview.model._fill", fake)
    monkeypatch.setattr(sys.modules["piview.model"], "_fill", fake, raising=False)
    monkeypatch.delenv("PIVIEW_PURE", raising=False)
    assert fill.load() is fake
    fake.SOURCE = fill.source_tag(code + b"\n")  # type: ignore[attr-defined]
    assert fill.load() is None
    fake.SOURCE, fake.ABI = fill.source_tag(code), fill.ABI + 1  # type: ignore[attr-defined]
    assert fill.load() is None
