"""Pilot tests of following a file with its heavy work off the UI thread (issue #11, 1 GB):
a poll decodes what Pi appended, extends or rebuilds the tree and builds the branch's blocks in
workers; keys answer while it reads; quitting does not wait for it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest

import piview.model.session as session_module
import piview.screens.session_follow as session_follow
import piview.widgets.transcript as transcript_module
from piview.app import make_app
from piview.model import load_session
from piview.model.fileindex import FileIndex
from tests.app.test_debugging import wait_until
from tests.app.test_follow import (
    TOOLS,
    TOOLS_LEAF,
    _shows,
    append,
    assert_at_end,
    line,
    settle,
    transcript,
    user,
)
from tests.conftest import ROOT

pytestmark = [
    pytest.mark.corpus,
    pytest.mark.skipif(not TOOLS.is_file(), reason="../shared/corpus is absent"),
]

HANG_GUARD = 30.0
"""Seconds after which a process that should have exited is taken to hang (not a timing)."""


@pytest.fixture
def live(tmp_path: Path) -> Path:
    path = tmp_path / "tools.jsonl"
    shutil.copyfile(TOOLS, path)
    path.chmod(0o644)
    return path


def _on_ui_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


@pytest.fixture
def whole_on_ui(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What ran over the whole file on the UI thread: the tree built, the pairing computed,
    the blocks of a whole branch built (more entries than one poll appends)."""
    seen: list[str] = []
    tree = session_module.build_tree_resolved
    pair = session_module.pair_tool_calls
    items = transcript_module.build_items

    def tree_spy(*args: Any, **kwargs: Any) -> Any:
        if _on_ui_thread():
            seen.append("tree")
        return tree(*args, **kwargs)

    def pair_spy(*args: Any, **kwargs: Any) -> Any:
        if _on_ui_thread():
            seen.append("pairing")
        return pair(*args, **kwargs)

    def items_spy(session: Any, path: Any, **kwargs: Any) -> Any:
        if _on_ui_thread() and len(path) > 5:
            seen.append(f"blocks of {len(path)} entries")
        return items(session, path, **kwargs)

    monkeypatch.setattr(session_module, "build_tree_resolved", tree_spy)
    monkeypatch.setattr(session_module, "pair_tool_calls", pair_spy)
    monkeypatch.setattr(transcript_module, "build_items", items_spy)
    try:
        import piview.model.follow as follow_module
    except ImportError:  # before the fix: no such module (everything ran on the UI thread)
        pass
    else:
        monkeypatch.setattr(follow_module, "pair_tool_calls", pair_spy)
    return seen


async def test_a_poll_builds_nothing_of_the_whole_file_on_the_ui_thread(
    live: Path, whole_on_ui: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Plain appends extend the tree and the blocks; a new branch is rebuilt in a worker;
    either way the newest block is in view, and the UI thread did nothing over the whole
    file (at 1 GB each of these took 0.3-0.7 s there)."""
    # A branch this short is built on the UI thread after a rebuild: here as a long one is.
    monkeypatch.setattr(session_follow, "_ITEMS_IN_WORKER", 0, raising=False)
    s = load_session(live)
    app = make_app(s, follow=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        whole_on_ui.clear()
        steps = [
            (line(user("e0000001", TOOLS_LEAF, "PLAIN one")), "e0000001"),
            (
                line(user("e0000002", "e0000001", "PLAIN two"))
                + line(user("e0000003", "e0000002", "PLAIN three")),
                "e0000003",
            ),
            (line(user("e0000004", s.ids[s.tree.path(s.tree.leaf)[3]], "A BRANCH")), "e0000004"),
            (line(user("e0000005", "e0000004", "PLAIN after it")), "e0000005"),
        ]
        for data, last in steps:
            append(live, data)
            await wait_until(pilot, _shows(app, last), f"{last} shown")
            await settle(pilot)
            assert_at_end(app, last)
            assert whole_on_ui == [], f"{last}: {whole_on_ui} on the UI thread"
        assert transcript(app).session.tree.leaf_count() == 2


async def test_keys_answer_while_a_poll_reads(live: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The read of what Pi appended is slowed to 1.5 s: a key pressed meanwhile moves the
    cursor before the read ends (before the fix the UI thread read, and the key waited)."""
    consume = FileIndex.consume
    reading = threading.Event()
    read_done = threading.Event()

    def slow_consume(self: FileIndex, fd: int, *, final: bool) -> int:
        if not final:  # a poll (loading reads with final=True)
            reading.set()
            time.sleep(1.5)
            try:
                return consume(self, fd, final=final)
            finally:
                read_done.set()
        return consume(self, fd, final=final)

    monkeypatch.setattr(FileIndex, "consume", slow_consume)
    app = make_app(load_session(live), follow=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        t = transcript(app)
        start = t.cursor
        append(live, line(user("e0000001", TOOLS_LEAF, "SLOW to read")))
        await wait_until(pilot, reading.is_set, "the poll reading")
        await pilot.press("k", "k")
        moved = t.cursor
        assert not read_done.is_set(), "the keys waited for the read"
        assert moved == start - 2
        await wait_until(pilot, _shows(app, "e0000001"), "the appended entry")


_QUIT_SCRIPT = """
import sys, threading
from pathlib import Path
from piview.app import make_app
from piview.model import load_session
from piview.model.fileindex import FileIndex

consume = FileIndex.consume
reading = threading.Event()

def stuck(self, fd, *, final):
    if final:
        return consume(self, fd, final=final)
    print("READING", flush=True)
    reading.set()
    threading.Event().wait()  # a read that never ends (a huge append, a stuck disk)

FileIndex.consume = stuck
path = Path(sys.argv[1])
app = make_app(load_session(path), follow=True)

async def press_q(pilot):
    await pilot.pause(0.3)
    with open(path, "ab") as f:
        f.write(sys.argv[2].encode() + b"\\n")
    while not reading.is_set():
        await pilot.pause(0.05)
    await pilot.pause(0.2)
    await pilot.press("q")

app.run(headless=True, size=(80, 24), auto_pilot=press_q)
print("RETURNED", flush=True)
"""


def test_q_quits_while_a_poll_is_still_reading(live: Path) -> None:
    """Before: the poll read on the UI thread, so a read that never ends meant a viewer that
    never quits."""
    entry = line(user("e0000001", TOOLS_LEAF, "never read")).decode().strip()
    try:
        proc = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(_QUIT_SCRIPT), str(live), entry],
            capture_output=True,
            text=True,
            timeout=HANG_GUARD,
            cwd=ROOT,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise AssertionError(f"q did not quit while the poll read: {exc.stdout!r}") from None
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["READING", "RETURNED"], (proc.stdout, proc.stderr)


async def test_an_append_while_the_index_is_cached_shows(
    live: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A big file's index is cached in a worker a second after the first screen (seconds at
    1 GB). Before, the cache encoded views of the live columns, which cannot grow while
    viewed: an append then failed (the poll raised BufferError and the viewer stopped)."""
    from piview.model.index_cache import IndexCache

    store = IndexCache.store
    caching = threading.Event()

    def slow_store(
        self: IndexCache, index: FileIndex, path: Path, fd: int, extras: Any = None
    ) -> None:
        with memoryview(index.lines), memoryview(index.nodes.types):
            caching.set()
            time.sleep(1.5)  # as the encoding of a 1 GB index takes
        store(self, index, path, fd, extras)

    monkeypatch.setattr(IndexCache, "store", slow_store)
    monkeypatch.setattr(session_module, "CACHE_MIN_BYTES", 0)
    monkeypatch.delattr(os, "fork")  # the cache is written by a worker where there is no fork
    s = load_session(live, index_cache=IndexCache(tmp_path / "cache"))
    assert s.index_cache is not None
    app = make_app(s, follow=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await wait_until(pilot, caching.is_set, "the index being cached")
        append(live, line(user("e0000001", TOOLS_LEAF, "WHILE caching")))
        await wait_until(pilot, _shows(app, "e0000001"), "the entry appended while caching")
        await settle(pilot)
        assert_at_end(app, "while caching")


async def test_the_index_is_cached_in_a_worker(
    live: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Encoding a big index takes long: a worker thread writes it (from a snapshot), never
    the UI thread, and nothing forks the running viewer (``piview.model.forking``)."""
    import threading

    from piview.model.index_cache import IndexCache

    store = IndexCache.store
    threads: list[bool] = []

    def recording_store(
        self: IndexCache, index: FileIndex, path: Path, fd: int, extras: Any = None
    ) -> None:
        threads.append(threading.current_thread() is threading.main_thread())
        store(self, index, path, fd, extras)

    monkeypatch.setattr(IndexCache, "store", recording_store)
    monkeypatch.setattr(session_module, "CACHE_MIN_BYTES", 0)
    cache = IndexCache(tmp_path / "cache")
    s = load_session(live, index_cache=cache)
    app = make_app(s, follow=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await wait_until(
            pilot,
            lambda: cache.restore_with_extras(live, s.file_descriptor()) is not None,
            "the cache",
        )
        assert not s.index_unsaved
    assert threads and not any(threads)


async def test_a_plain_append_keeps_what_was_compacted_away(
    live: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Which blocks a compaction hid is found once per branch (a look for each compaction of
    the file: at 1 GB, ~1,000 of them over 500,000 blocks took 4 s on the UI thread); a
    plain append without a compaction keeps it."""
    calls: list[int] = []
    kept_from = transcript_module.kept_from

    def counting(session: Any, items: Any) -> int:
        calls.append(len(items))
        return kept_from(session, items)

    monkeypatch.setattr(transcript_module, "kept_from", counting)
    app = make_app(load_session(live), follow=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert calls, "drawn once"
        calls.clear()
        for n in range(1, 4):
            eid = f"e000000{n}"
            parent = TOOLS_LEAF if n == 1 else f"e000000{n - 1}"
            append(live, line(user(eid, parent, f"PLAIN {n}")))
            await wait_until(pilot, _shows(app, eid), eid)
            await settle(pilot)
        assert calls == []
