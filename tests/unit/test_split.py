"""A big file read on two cores (``model/split.py``) makes the very index one pass makes.

Every comparison is against the single pass (``FileIndex.consume``): the store's columns and
tables as the index cache writes them, the line numbers, offsets and bad lines, and the
session built on them (tree, pairing, labels).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from array import array
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import msgspec
import pytest

from benchmarks.gen_shapes import SHAPES, write_shape
from piview.model import load_session
from piview.model import split as split_module
from piview.model.fileindex import FileIndex
from piview.model.session import Session
from piview.model.split import consume_split, join, second_half
from piview.model.store_state import store_state
from tests.conftest import FIXTURES, ROOT, corpus_files

FILES = sorted(FIXTURES.rglob("*.jsonl"))


def index_state(ix: FileIndex) -> tuple[Any, ...]:
    """Everything an index holds, comparable with ``==``."""
    return (
        msgspec.msgpack.encode(store_state(ix.nodes)),
        ix.lines.tolist(),
        ix.offsets.tolist(),
        ix.lengths.tolist(),
        ix.bad_lines,
        ix.header,
        ix.header_line,
        ix.size,
        ix.line_no,
        ix.seen,
        ix.tail,
        ix.tail_entry,
        ix.title_slot,
        ix.slot_bytes,
        None if ix.side_at is None else ix.side_at.tolist(),
    )


def session_state(s: Session) -> tuple[Any, ...]:
    """What a session built from its index shows, comparable with ``==``."""
    t, p = s.tree, s.pairing
    return (
        index_state(s.index),
        s.ids,
        t.parents.tolist(),
        [list(t.children[i]) for i in range(len(s))],
        t.roots,
        t.orphans,
        t.self_parents,
        t.cycles,
        t.duplicate_ids,
        t.leaf,
        t.side,
        p.calls,
        p.paired,
        p.orphan_results,
        p.unanswered,
        s.labels,
        [s.nodes[i] for i in range(len(s))],
    )


@contextmanager
def opened(path: Path) -> Iterator[int]:
    fd = os.open(path, os.O_RDONLY)
    try:
        yield fd
    finally:
        os.close(fd)


def single_pass(path: Path) -> FileIndex:
    with opened(path) as fd:
        ix = FileIndex(side_at=array("q"))
        ix.consume(fd, final=True)
        return ix


def boundaries(path: Path) -> list[int]:
    """Every byte just after a newline, but the end."""
    data = path.read_bytes()
    out, pos = [], data.find(b"\n")
    while 0 <= pos < len(data) - 1:
        out.append(pos + 1)
        pos = data.find(b"\n", pos + 1)
    return out


def joined_at(path: Path, split: int) -> FileIndex | None:
    """The index read in two halves at ``split`` (no fork), or None where ``consume_split``
    would not split there (no header nor entry before it)."""
    with opened(path) as fd:
        ix = FileIndex(side_at=array("q"))
        ix.consume(fd, final=False, end=split)
        if ix.header is None and not len(ix.nodes) or ix.size != split:
            return None
        join(ix, second_half(ix, fd, split))
        return ix


@pytest.fixture(scope="module")
def shapes(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    d = tmp_path_factory.mktemp("shapes")
    out = []
    for shape in SHAPES:
        if shape == "copies" and not corpus_files():
            continue
        path = d / f"{shape}.jsonl"
        write_shape(path, shape, 600)
        out.append(path)
    return out


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_join_at_every_line_equals_one_pass(path: Path) -> None:
    want = index_state(single_pass(path))
    tried = 0
    for split in boundaries(path):
        got = joined_at(path, split)
        if got is not None:
            tried += 1
            assert index_state(got) == want, f"split at byte {split}"
    assert tried or len(boundaries(path)) <= 1


@pytest.mark.corpus
def test_join_of_generated_shapes_equals_one_pass(shapes: list[Path]) -> None:
    for path in shapes:
        want = index_state(single_pass(path))
        cuts = boundaries(path)
        for split in cuts[1 :: max(1, len(cuts) // 7)]:
            got = joined_at(path, split)
            assert got is not None
            assert index_state(got) == want, f"{path.name} split at byte {split}"


def _split_index(path: Path) -> FileIndex:
    with opened(path) as fd:
        ix = FileIndex(side_at=array("q"))
        added = consume_split(ix, fd, min_bytes=0)
        if added is None:
            ix.consume(fd, final=True)
        return ix


@pytest.mark.parametrize("path", FILES + corpus_files(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_forked_split_equals_one_pass(path: Path) -> None:
    assert index_state(_split_index(path)) == index_state(single_pass(path))


def test_forked_split_of_shapes_equals_one_pass(shapes: list[Path]) -> None:
    for path in shapes:
        with opened(path) as fd:
            ix = FileIndex(side_at=array("q"))
            assert consume_split(ix, fd, min_bytes=0) is not None
        assert index_state(ix) == index_state(single_pass(path)), path.name


@pytest.mark.corpus
def test_sessions_equal_with_and_without_the_split(
    shapes: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = [*shapes, *corpus_files(), *FILES]
    monkeypatch.setenv("PIVIEW_NO_SPLIT", "1")
    want = [session_state(load_session(p)) for p in paths]
    monkeypatch.delenv("PIVIEW_NO_SPLIT")
    monkeypatch.setattr(split_module, "SPLIT_MIN_BYTES", 0)
    forks = []
    real_fork = os.fork

    def fork() -> int:
        pid = real_fork()
        forks.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", fork)
    got = [session_state(load_session(p)) for p in paths]
    assert len(forks) >= len(shapes)
    for p, w, g in zip(paths, want, got, strict=True):
        assert g == w, p.name


def test_small_files_and_no_split_read_in_one_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = FIXTURES / "tool_pairing.jsonl"
    with opened(path) as fd:
        assert consume_split(FileIndex(), fd) is None  # far below SPLIT_MIN_BYTES
        monkeypatch.setenv("PIVIEW_NO_SPLIT", "1")
        assert consume_split(FileIndex(), fd, min_bytes=0) is None


def test_a_failing_child_falls_back_to_one_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*_args: object) -> None:
        raise RuntimeError("child failed")

    monkeypatch.setattr(split_module, "second_half", fail)
    path = FIXTURES / "tool_pairing.jsonl"
    with opened(path) as fd:
        ix = FileIndex(side_at=array("q"))
        assert consume_split(ix, fd, min_bytes=0) is None
        ix.consume(fd, final=True)  # what the session does then: read on
    assert index_state(ix) == index_state(single_pass(path))


def test_one_huge_line_is_not_split(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    head = json.dumps({"type": "session", "version": 3, "id": "s", "cwd": "/"})
    path.write_text(head + "\n" + json.dumps({"type": "custom", "data": "x" * 200_000}))
    with opened(path) as fd:
        ix = FileIndex(side_at=array("q"))
        assert consume_split(ix, fd, min_bytes=0) is None
        ix.consume(fd, final=True)
    assert index_state(ix) == index_state(single_pass(path))


_ORPHAN = textwrap.dedent(
    """
    import os, sys, threading, time
    from piview.model import split
    real_fork = os.fork
    def fork():
        pid = real_fork()
        if pid:
            print(pid, flush=True)
            threading.Timer(0.3, os._exit, (0,)).start()  # q while loading
        return pid
    os.fork = fork
    split._STEP = 4096  # look for the parent often, and take long enough to be seen
    def slow(*a, **k):
        time.sleep(0.01)
        return real_consume(*a, **k)
    real_consume = split.FileIndex.consume
    split.FileIndex.consume = slow
    fd = os.open(sys.argv[1], os.O_RDONLY)
    split.consume_split(split.FileIndex(), fd, min_bytes=0)
    time.sleep(60)
    """
)


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


@pytest.mark.skipif(not hasattr(os, "memfd_create"), reason="needs Linux")
def test_the_child_stops_when_the_viewer_quits(shapes: list[Path]) -> None:
    path = max(shapes, key=lambda p: p.stat().st_size)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-c", _ORPHAN, str(path)], stdout=subprocess.PIPE, text=True, env=env
    )
    assert proc.stdout is not None
    child = int(proc.stdout.readline())
    assert proc.wait(timeout=10) == 0  # the parent ended at once, the child still reading
    deadline = time.monotonic() + 5
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not _alive(child)


@pytest.mark.parametrize("chunk", [64, 200, 1000])
def test_one_pass_does_not_depend_on_where_its_blocks_start(
    chunk: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A CRLF line was trimmed in a block holding the header but not in later blocks.
    from piview.model import fileindex

    for path in FILES:
        want = index_state(single_pass(path))
        monkeypatch.setattr(fileindex, "_CHUNK", chunk)
        assert index_state(single_pass(path)) == want, path.name
        monkeypatch.undo()


@pytest.mark.parametrize("step", [1, 37, 500])
def test_reading_up_to_any_byte_then_on_equals_one_pass(
    step: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    from piview.model import fileindex

    monkeypatch.setattr(fileindex, "_CHUNK", 128)  # lines longer than a block, too
    for path in FILES:
        want = index_state(single_pass(path))
        size = path.stat().st_size
        with opened(path) as fd:
            ix = FileIndex(side_at=array("q"))
            for end in range(step, size, step):
                ix.consume(fd, final=False, end=end)
                assert ix.size <= max(end, ix.slot_bytes)  # the title slot is read whole
            ix.consume(fd, final=True)
        assert index_state(ix) == want, path.name


def _side_note_lines(torn: bool) -> bytes:
    h = {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00.000Z"}
    rows = [json.dumps(h)]
    parent = None
    for k in range(40):
        e: dict[str, Any] = {"type": "custom", "id": f"e{k}", "parentId": parent}
        e["timestamp"] = "2026-01-01T00:00:01.000Z"
        if k % 7 == 3:
            e["appendMode"] = "side"
        elif k % 11 == 5:
            e["note"] = 'text naming "appendMode" only'
        else:
            parent = f"e{k}"
        rows.append(json.dumps(e))
    rows.append('{"type": "custom", "appendMode": "side", bad json')
    data = "\n".join(rows) + "\n"
    if torn:
        data += json.dumps({"type": "custom", "id": "t", "parentId": parent, "appendMode": "side"})
    return data.encode()


@pytest.mark.corpus
@pytest.mark.parametrize("torn", [False, True])
def test_side_notes_found_as_the_file_is_read_equal_a_search(
    torn: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from piview.model import fileindex
    from piview.model.openclaw import side_notes

    path = tmp_path / "side.jsonl"
    path.write_bytes(_side_note_lines(torn))
    monkeypatch.setattr(fileindex, "_CHUNK", 300)
    for p in [path, *FILES, *corpus_files()]:
        s = load_session(p)
        assert s.index.side_at is not None
        searched = side_notes(s.pread, s.index.offsets, s.index.lengths)
        assert s.tree.side == frozenset(searched), p.name
        if p == path:
            assert len(searched) == 6 + torn
        for cut in boundaries(p)[1::5]:
            got = joined_at(p, cut)
            assert got is None or got.side_at == s.index.side_at


def test_read_all_counts_every_entry_whichever_way_it_reads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from piview.model.split import read_all

    path = FIXTURES / "tool_pairing.jsonl"
    want = len(single_pass(path).nodes)
    monkeypatch.setattr(split_module, "SPLIT_MIN_BYTES", 0)
    with opened(path) as fd:
        assert read_all(FileIndex(), fd, fresh=True) == want  # split
        monkeypatch.setattr(split_module, "second_half", lambda *a, **k: 1 / 0)
        assert read_all(FileIndex(), fd, fresh=True) == want  # the child failed: read on
        monkeypatch.setenv("PIVIEW_NO_SPLIT", "1")
        assert read_all(FileIndex(), fd, fresh=True) == want  # one pass


def test_free_memory_is_handed_back_on_linux() -> None:
    from piview.model.memory import release_free_memory

    assert release_free_memory() is sys.platform.startswith("linux")


def test_a_busy_machine_reads_in_one_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    from piview.model.split import spare_core

    monkeypatch.setattr(split_module, "_cores", lambda: 2)
    monkeypatch.setattr(os, "getloadavg", lambda: (1.2, 0.0, 0.0))  # one core taken
    assert spare_core()
    monkeypatch.setattr(os, "getloadavg", lambda: (2.5, 0.0, 0.0))  # both cores taken
    assert not spare_core()
    path = FIXTURES / "tool_pairing.jsonl"
    monkeypatch.setattr(split_module, "SPLIT_MIN_BYTES", 1)
    with opened(path) as fd:
        assert consume_split(FileIndex(), fd) is None
    monkeypatch.setattr(split_module, "_cores", lambda: 1)
    monkeypatch.setattr(os, "getloadavg", lambda: (0.0, 0.0, 0.0))
    assert not spare_core()
