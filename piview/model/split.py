"""Provides :func:`consume_split`: a big file's index read on both cores, its two halves joined.

A forked child reads the second half of the file into an index of its own, handed back through
a ``memfd``, and :func:`join` renumbers it after the first half, equal to a single pass. Without
fork or ``memfd``, a spare core, or for small files, the caller reads the file in one pass.
"""

from __future__ import annotations

import os
import pickle
import signal
import sys
from array import array
from collections.abc import Callable
from dataclasses import fields, replace
from typing import Any

from piview.model import forking
from piview.model.fileindex import FileIndex
from piview.model.store import NodeStore

SPLIT_MIN_BYTES = 48 * 1024 * 1024
"""Files smaller than this are read in one pass (a fork and a join cost more than they save)."""
_HEAD = 64 * 1024
"""Bytes read before forking, so that the child knows the header (and the file's version)."""
_STEP = 16 * 1024 * 1024
"""The child reads in steps of this many bytes, checking between them for its parent."""
_PEEK = 1024 * 1024
_SHARE = 0.60
"""The share of the bytes the first half (this process) reads: more than half, as the child
then hands its half over (``benchmarks/bench_split_share.py`` measures it)."""
_STORE_FIELDS = tuple(name for name in NodeStore.__slots__ if not name.startswith("_"))
"""The store's columns and tables a child hands back (the lookups beside them are rebuilt)."""


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def applies(fd: int, index: FileIndex, min_bytes: int) -> bool:
    """Whether :func:`consume_split` would read this file on two cores."""
    return (
        index.size == 0
        and index.line_no == 0
        and not len(index.nodes)
        and type(index.nodes) is NodeStore
        and forking.can_fork()  # not in the viewer's load worker: one pass there
        and hasattr(os, "memfd_create")
        and not os.environ.get("PIVIEW_NO_SPLIT")
        and (min_bytes == 0 or spare_core())
        and os.fstat(fd).st_size >= min_bytes
    )


def spare_core() -> bool:
    """Whether there are two cores and the load average is below their number (on a busy
    machine the two halves would only take turns)."""
    cores = _cores()
    if cores < 2:
        return False
    try:
        return os.getloadavg()[0] < cores
    except OSError:
        return True


def split_point(fd: int, start: int, size: int) -> int | None:
    """The byte just after the first newline at or after the middle of ``[start, size)``;
    None when there is none before the end (one huge line)."""
    pos = max(start, start + int((size - start) * _SHARE))
    while pos < size:
        peek = os.pread(fd, _PEEK, pos)
        if not peek:
            return None
        nl = peek.find(b"\n")
        if nl >= 0:
            split = pos + nl + 1
            return split if split < size else None
        pos += len(peek)
    return None


def read_all(index: FileIndex, fd: int, *, fresh: bool) -> int:
    """Index the whole file; return how many entries were added. A ``fresh`` big file is read
    on two cores (:func:`consume_split`), side notes looked for as it is read."""
    before = len(index.nodes)
    if fresh:
        index.side_at = array("q")
        if consume_split(index, fd) is not None:
            return len(index.nodes) - before
    index.consume(fd, final=True)  # a small file, no second core, or a cached index
    return len(index.nodes) - before


def consume_split(index: FileIndex, fd: int, *, min_bytes: int | None = None) -> int | None:
    """Index the whole file as ``index.consume(fd, final=True)`` does, the second half in a
    forked child (files from ``min_bytes`` on); return how many entries were added, or None
    when the split does not apply (``consume`` then reads on from where ``index`` stopped)."""
    if not applies(fd, index, SPLIT_MIN_BYTES if min_bytes is None else min_bytes):
        return None
    size = os.fstat(fd).st_size
    # The header first: the child needs the file's version (old roles) and whether it had one.
    index.consume(fd, final=False, end=min(_HEAD, size))
    if index.header is None and not len(index.nodes):
        return None  # no complete line in the head (or only bad ones): read in one pass
    split = split_point(fd, index.size, size)
    if split is None:
        return None
    second = _fork(lambda: second_half(index, fd, split, parent=os.getppid()))
    if second is None:
        return None
    index.consume(fd, final=False, end=split)  # the first half, meanwhile
    part = _collect(*second)
    if part is None or index.size != split:
        return None  # the child failed: the caller reads on from where this half stopped
    join(index, part)
    return len(index.nodes)


def _fork(read: Callable[[], FileIndex]) -> tuple[int, int] | None:
    """Fork a child that hands back the index ``read`` returns; ``(pid, memfd)`` or None."""
    memfd = os.memfd_create("piview-split", os.MFD_CLOEXEC)
    pid = forking.fork()
    if pid is None:
        os.close(memfd)
        return None
    if pid == 0:  # the child: read, hand it back, leave without any cleanup
        status = 1
        try:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            payload = _pack(read())
            with memoryview(payload) as view:
                while view:
                    view = view[os.write(memfd, view) :]
            status = 0
        finally:
            os._exit(status)
    return pid, memfd


def second_half(index: FileIndex, fd: int, split: int, *, parent: int | None = None) -> FileIndex:
    """The index of the lines from byte ``split`` (just after a newline) to the end, line
    numbers from ``split``; stops early when ``parent`` is no longer this one's parent."""
    part = FileIndex(
        header=index.header,
        header_line=index.header_line,
        size=split,
        seen=split,
        prior=1,  # a header line here is an extra one, as in a single pass
        side_at=array("q") if index.side_at is not None else None,
    )
    while True:
        size = os.fstat(fd).st_size
        if part.size + _STEP >= size:
            break
        part.consume(fd, final=False, end=part.size + _STEP)
        if parent is not None and os.getppid() != parent:
            os._exit(1)  # the viewer is gone (q while loading): nobody wants this
    part.consume(fd, final=True)
    return part


_INDEX_FIELDS = tuple(f.name for f in fields(FileIndex) if f.name != "nodes")


def _pack(ix: FileIndex) -> bytes:
    store = ix.nodes
    state = {name: getattr(store, name) for name in _STORE_FIELDS}
    state["_open_calls"] = store._open_calls
    state["_pattern_code"] = store._pattern_code
    return pickle.dumps((state, [getattr(ix, name) for name in _INDEX_FIELDS]), protocol=5)


def _collect(pid: int, memfd: int) -> FileIndex | None:
    """The index a child handed back, or None when it failed."""
    try:
        try:
            _, status = os.waitpid(pid, 0)
        except ChildProcessError:
            return None
        if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
            return None
        if not os.fstat(memfd).st_size:
            return None
        # Read as a stream (not mapped whole): the pickled second half is never all in this
        # process at once, only what is made of it.
        with os.fdopen(memfd, "rb", buffering=1 << 20, closefd=False) as stream:
            stream.seek(0)
            state, values = pickle.load(stream)
    finally:
        os.close(memfd)
    store = NodeStore()
    for name, value in state.items():
        setattr(store, name, value)
    store._model_code = {pair: k for k, pair in enumerate(store.model_table)}
    store._recent = None  # rebuilt from every id on the next append
    return FileIndex(store, **dict(zip(_INDEX_FIELDS, values, strict=True)))


def join(index: FileIndex, part: FileIndex) -> None:
    """Add ``part`` (the index of the lines just after ``index``'s, read with line numbers
    counted from there) after ``index``, as one pass over both would have read them."""
    off = index.line_no
    join_store(index.nodes, part.nodes)
    index.lines.extend(map(off.__add__, part.lines))
    index.offsets.extend(part.offsets)
    index.lengths.extend(part.lengths)
    tail = None
    for bad in part.bad_lines:
        moved = replace(bad, line=bad.line + off)
        if bad is part.tail:
            tail = moved
        index.bad_lines.append(moved)
    index.tail = tail
    index.tail_entry = part.tail_entry
    if index.side_at is not None and part.side_at is not None:
        index.side_at.extend(part.side_at)  # file positions already
    else:
        index.side_at = None
    index.size = part.size
    index.line_no = part.line_no + off
    index.seen = part.seen


def join_store(dst: NodeStore, src: NodeStore) -> None:
    """Add the entries of ``src`` (the entries just after ``dst``'s, read into a store of
    their own) after those of ``dst``, renumbered as one store reading both would have."""
    n0 = len(dst)
    recent: Any = dst._recent
    if recent is None or dst._base is not None:
        # The nearest preceding entry of each id, among dst's (the last one wins).
        recent = {own: k for k, own in enumerate(dst.ids) if own}
    dst.types += src.types
    dst.roles += src.roles
    dst.stops += src.stops
    dst.flags += src.flags
    dst.ts += src.ts
    dst.ids.extend(src.ids)
    # Parents: src's own shifted; those naming no entry of src may name one of dst.
    parent_at = array("q", [p + n0 if p >= 0 else p for p in src.parent_at])
    get = recent.get
    for i, ref in src.forward_refs.items():
        p = get(ref)
        if p is None:
            dst.forward_refs[i + n0] = ref
        else:
            parent_at[i] = p
    dst.parent_at += parent_at
    del parent_at
    for table in ("ts_other", "texts", "whole"):
        getattr(dst, table).update((k + n0, v) for k, v in getattr(src, table).items())
    dst.missing_ids.extend(k + n0 for k in src.missing_ids)
    # Models: src's codes into dst's table, new pairs added in src's order.
    code = dst._model_code
    models: list[int] = []
    for pair in src.model_table:
        found = code.get(pair)
        if found is None:
            found = code[pair] = len(dst.model_table)
            dst.model_table.append(pair)
        models.append(found)
    dst.models.extend(map(models.__getitem__, src.models))
    # Block lists: those without tool calls are shared with dst's equal ones; the others (most
    # of them: a tool call's id makes its list unique) are added as they are, in runs.
    dst.prepare()
    shared = dst._pattern_code
    assert shared is not None
    own = src._pattern_code
    if own is None:
        src.prepare()
        own = src._pattern_code
        assert own is not None
    patterns = src.patterns
    remap: list[int] = []
    pos = 0
    for key, j in [*sorted(own.items(), key=lambda kv: kv[1]), ((), len(patterns))]:
        if j > pos:
            first = len(dst.patterns)
            dst.patterns.extend(patterns[pos:j])
            remap.extend(range(first, first + j - pos))
        if j < len(patterns):
            found = shared.get(key)
            if found is None:
                found = shared[key] = len(dst.patterns)
                dst.patterns.append(patterns[j])
            remap.append(found)
        pos = j + 1
    dst.content_at.extend([remap[c] if c >= 0 else c for c in src.content_at])
    del remap
    # Usage and result rows follow dst's.
    rows = len(dst.usage_end)
    blob = len(dst.usage_blob)
    dst.usage_blob += src.usage_blob
    dst.usage_end.extend(map(blob.__add__, src.usage_end))
    dst.usage_at.extend([r + rows if r >= 0 else r for r in src.usage_at])
    results = len(dst.result_ids)
    dst.result_at.extend([r + results if r >= 0 else r for r in src.result_at])
    # A result answering a call of dst shares the call's id string, as one pass does.
    open_calls = dst._open_calls
    pop = open_calls.pop
    dst.result_ids.extend([pop(x, x) if x is not None else None for x in src.result_ids])
    dst.result_names.extend([sys.intern(x) if x else x for x in src.result_names])
    open_calls.update(src._open_calls)
    # The map of every id, as one pass keeps it (no empty id): the tree takes it over.
    recent.update(zip(src.ids, range(n0, len(dst.ids)), strict=True))
    recent.pop("", None)
    dst._recent = recent if dst._base is None else None
