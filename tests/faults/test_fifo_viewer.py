"""``piview FIFO`` in the viewer (issue #26): it says at once that it waits for a writer, q
quits while it waits (or while a writer holds the FIFO open), and what a writer sends shows
once it closes the stream. Real FIFOs in a temporary folder; no device is touched."""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from piview.app import make_app
from piview.model import load_session
from piview.model.fsio import copy_fifo
from piview.screens.fifo_wait import FifoScreen
from tests.conftest import fixture
from tests.e2e import conftest as e2e_conftest
from tests.e2e.conftest import Tmux, status_line

pytestmark = pytest.mark.faults

SIZE = (100, 30)
SESSION = fixture("roles_all.jsonl")

tmux = e2e_conftest.tmux  # the e2e tests' tmux driver (skips without tmux)


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe.jsonl"
    os.mkfifo(path)
    return path


def _write(path: Path, data: bytes, *, hold: threading.Event | None = None) -> threading.Thread:
    """A writer in a thread: opens the FIFO (blocks until a reader), writes ``data``, and
    closes it (after ``hold`` is set, when given)."""

    def run() -> None:
        with open(path, "wb") as f:
            f.write(data)
            f.flush()
            if hold is not None:
                hold.wait(10)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


async def _until(check: Callable[[], bool], pilot, what: str) -> None:  # type: ignore[no-untyped-def]
    for _ in range(1000):
        if check():
            return
        await pilot.pause(0.01)
    raise AssertionError(f"never: {what}")


def _shown(app) -> bool:  # type: ignore[no-untyped-def]
    """The session screen is up: current and mounted (composed, its Mount handled)."""
    from piview.screens.session import SessionScreen

    return isinstance(app.screen, SessionScreen) and app.screen.is_mounted


def _state(app) -> str:  # type: ignore[no-untyped-def]
    return str(app.screen.query_one("#fifo-state").render())


def test_copy_fifo_stops_while_no_writer_comes(fifo: Path, tmp_path: Path) -> None:
    stop = threading.Event()
    threading.Timer(0.2, stop.set).start()
    assert copy_fifo(fifo, tmp_path / "copy", stop=stop.is_set) is False


def test_copy_fifo_copies_a_stream_whole(fifo: Path, tmp_path: Path) -> None:
    data = SESSION.read_bytes()
    writer = _write(fifo, data)
    assert copy_fifo(fifo, tmp_path / "copy", stop=lambda: False) is True
    writer.join(5)
    assert (tmp_path / "copy").read_bytes() == data


async def test_the_viewer_says_at_once_it_waits_for_a_writer_and_q_quits(fifo: Path) -> None:
    app = make_app(fifo=str(fifo))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, FifoScreen)
        assert f"Waiting for a writer on the FIFO {fifo}" in _state(app)
        (worker,) = [w for w in app.workers if w.group == "fifo"]
        copy = app.screen.copy
        assert copy is not None
        await pilot.press("q")
    assert app.return_code == 0
    # The reading thread stops within a tick (it never blocked in open() or read()).
    await asyncio.wait_for(_finished(worker), 5)
    app.remove_temp_folders()
    assert not copy.parent.exists()


async def _finished(worker) -> None:  # type: ignore[no-untyped-def]
    while not worker.is_finished:
        await asyncio.sleep(0.01)


async def test_what_a_writer_sends_shows_once_it_closes_the_stream(fifo: Path) -> None:
    from piview.screens.session import SessionScreen

    want = load_session(SESSION)
    hold = threading.Event()
    app = make_app(fifo=str(fifo))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        writer = _write(fifo, SESSION.read_bytes(), hold=hold)
        await _until(lambda: "bytes so far" in _state(app), pilot, "the bytes read so far")
        assert isinstance(app.screen, FifoScreen)  # the writer holds the stream open
        hold.set()
        await _until(lambda: _shown(app), pilot, "the session")
        screen = app.screen
        assert isinstance(screen, SessionScreen)
        assert screen.session.ids == want.ids
        assert not screen.follow  # a finished copy: nothing to follow
        status = screen.query_one("#status")
        await _until(lambda: "block " in str(status.render()), pilot, "the status line")
        await pilot.press("j", "b", "q")
    writer.join(5)


async def test_leaf_names_an_entry_of_what_the_fifo_sent(fifo: Path) -> None:
    from piview.widgets.transcript import Transcript

    want = load_session(SESSION)
    entry = len(want) // 2
    app = make_app(fifo=str(fifo), fifo_leaf=want.ids[entry][:8])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        _write(fifo, SESSION.read_bytes())
        await _until(lambda: _shown(app), pilot, "the session")
        transcript = app.screen.query_one(Transcript)
        await _until(lambda: transcript.current_entry is not None, pilot, "the cursor")
        assert transcript.current_entry == entry
        await pilot.press("q")


async def test_q_quits_while_a_writer_holds_the_fifo_open(fifo: Path) -> None:
    hold = threading.Event()
    app = make_app(fifo=str(fifo))
    try:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            _write(fifo, b'{"type":"session"', hold=hold)
            await _until(lambda: "bytes so far" in _state(app), pilot, "the bytes read so far")
            (worker,) = [w for w in app.workers if w.group == "fifo"]
            await pilot.press("q")
        await asyncio.wait_for(_finished(worker), 5)
    finally:
        hold.set()


async def test_a_stream_that_is_no_session_shows_as_a_damaged_file(fifo: Path) -> None:
    # Read tolerantly, as a file would be: an empty session, its bad line counted.

    app = make_app(fifo=str(fifo))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        _write(fifo, b"\x00\x01 not json at all\n")
        await _until(lambda: _shown(app), pilot, "the session")
        session = app.screen.session
        assert len(session) == 0
        assert [b.line for b in session.bad_lines] == [1]
        await pilot.press("q")


# ---------------------------------------------------------------------- the real viewer


@pytest.mark.e2e
def test_the_real_viewer_on_a_fifo_waits_and_q_quits(tmux: Tmux, fifo: Path) -> None:
    tmux.start(str(fifo), size=(80, 24))
    tmux.wait_for("Waiting for a writer on the FIFO")
    tmux.send("q")
    tmux.wait_for("EXIT=0", timeout=5)  # a hang guard, not a timing
    assert "Traceback" not in tmux.screen()


@pytest.mark.e2e
def test_the_real_viewer_shows_what_a_writer_sends(tmux: Tmux, fifo: Path) -> None:
    tmux.start(str(fifo), size=(80, 24))
    tmux.wait_for("Waiting for a writer on the FIFO")
    writer = _write(fifo, SESSION.read_bytes())
    screen = tmux.wait_until(lambda s: bool(status_line(s)), what="the session's status line")
    writer.join(5)
    assert "block " in status_line(screen)
    tmux.send("q")
    tmux.wait_for("EXIT=0", timeout=5)
    assert "Traceback" not in tmux.screen()
