"""The whole file's screen and the app's exit (issue #25's third point): no NoMatches, no
MountError, whatever order they come in.

A big file opens on its tail; a worker loads the whole file and the tail screen switches to
a screen on it. Textual mounts no child of a screen that is being closed or pruned (``mount``
returns at once), yet still sends that screen its Mount: ``on_mount``'s ``query_one`` found no
transcript. Each test makes the order deterministic by holding the new screen's compose (or
the loader) until the app has begun to exit.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from piview.app import make_app
from piview.model import Session, load_session
from piview.screens.session import SessionScreen

SIZE = (100, 30)


def _big_tail(tmp_path: Path) -> tuple[Path, Session]:
    """The demo session as a file, and its last quarter as the CLI opens a big file."""
    from piview.catalog.demo import demo_path
    from piview.model.session_tail import load_tail

    path = tmp_path / "big.jsonl"
    path.write_bytes(demo_path().read_bytes())
    return path, load_tail(path, max_bytes=path.stat().st_size // 4)


async def _until(check: Callable[[], bool], pilot, what: str) -> None:  # type: ignore[no-untyped-def]
    # A plain sleep, not pilot.pause: that waits for the current screen to go idle, which a
    # screen held in its compose never does.
    for _ in range(1000):
        if check():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"never: {what}")


async def test_the_whole_files_screen_closed_before_it_composes_raises_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The race of the loaded machine: the swap came just before the exit, and the new screen
    # was pruned before its compose ran (Textual then mounts none of its children).
    path, tail = _big_tail(tmp_path)
    compose = SessionScreen._compose
    held: list[SessionScreen] = []

    async def held_compose(self: SessionScreen) -> None:
        if not self.session.partial:  # the whole file's screen: wait until it is closing
            held.append(self)
            while not (self._pruning or self._closing):  # noqa: SLF001 - the race itself
                await asyncio.sleep(0.005)
        await compose(self)

    monkeypatch.setattr(SessionScreen, "_compose", held_compose)
    app = make_app(tail, full_loader=lambda: load_session(path))
    async with app.run_test(size=SIZE) as pilot:
        await _until(lambda: bool(held), pilot, "the whole file's screen")
        assert app.screen is held[0]
        # q's action (pilot.press would first wait for the held screen to go idle).
        await app.run_action("quit")
    # run_test raises what the app raised (NoMatches('Transcript') from on_mount, before).
    assert app.return_code == 0


async def test_a_whole_file_loaded_after_q_is_not_swapped_in(tmp_path: Path) -> None:
    # The load finishes while the app exits: no new screen is made (it would compose on an
    # app that is going away: MountError, or no children and NoMatches).
    path, tail = _big_tail(tmp_path)
    go = threading.Event()
    loaded: list[Session] = []

    def loader() -> Session:
        go.wait(10)
        full = load_session(path)
        loaded.append(full)
        return full

    made: list[SessionScreen] = []
    init = SessionScreen.__init__

    def spy(self: SessionScreen, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        made.append(self)
        init(self, *args, **kwargs)

    app = make_app(tail, full_loader=loader)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(SessionScreen, "__init__", spy)
        async with app.run_test(size=SIZE) as pilot:
            first = app.screen
            await _until(lambda: bool(app.workers), pilot, "the load started")
            app.exit()  # what q does under a test (in a terminal q ends the process at once)
            go.set()
            for _ in range(200):  # the worker hands the whole file to the UI thread
                if loaded:
                    break
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.05)
            assert loaded
            assert [s for s in made if s is not first] == []


async def test_the_whole_file_waits_for_a_view_over_the_tail_to_close(tmp_path: Path) -> None:
    # A key pressed while a big file opens (? for help): the swap replaced the top screen,
    # which was the help, and left the tail screen under the new one.
    from piview.screens.help import HelpScreen

    path, tail = _big_tail(tmp_path)
    go = threading.Event()
    loaded: list[Session] = []

    def loader() -> Session:
        go.wait(10)
        loaded.append(load_session(path))
        return loaded[0]

    app = make_app(tail, full_loader=loader)
    async with app.run_test(size=SIZE) as pilot:
        tail_screen = app.screen
        await _until(lambda: bool(app.workers), pilot, "the load started")
        await pilot.press("question_mark")
        await _until(lambda: isinstance(app.screen, HelpScreen), pilot, "the help")
        go.set()
        await _until(lambda: bool(loaded), pilot, "the whole file loaded")
        await _until(lambda: all(w.is_finished for w in app.workers), pilot, "the worker done")
        await pilot.pause(0.2)
        assert isinstance(app.screen, HelpScreen)  # the help stays up meanwhile
        await pilot.press("escape")

        def swapped() -> bool:
            s = app.screen
            return isinstance(s, SessionScreen) and s is not tail_screen

        await _until(swapped, pilot, "the whole file's screen")
        assert not app.screen.session.partial
        assert tail_screen not in app.screen_stack
        assert [type(s).__name__ for s in app.screen_stack][-1:] == ["SessionScreen"]
        assert len([s for s in app.screen_stack if isinstance(s, SessionScreen)]) == 1


async def test_a_file_replaced_under_a_view_reloads_once_and_swaps_when_it_closes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The same switch after a truncation: the view stays, the file is read again once (not
    # at every poll while the view is open), and the reloaded screen comes when it closes.
    from piview.screens import session_follow
    from piview.screens.help import HelpScreen
    from tests.conftest import fixture

    path = tmp_path / "live.jsonl"
    lines = fixture("roles_all.jsonl").read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines))
    reads: list[Path] = []
    load_again = session_follow._load_again

    def counted(p: Path):  # type: ignore[no-untyped-def]
        reads.append(p)
        return load_again(p)

    monkeypatch.setattr(session_follow, "_load_again", counted)
    app = make_app(load_session(path), follow=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        first = app.screen
        await pilot.press("question_mark")
        await _until(lambda: isinstance(app.screen, HelpScreen), pilot, "the help")
        path.write_bytes(b"".join(lines[:5]))  # truncated
        await _until(lambda: bool(reads), pilot, "the file read again")
        await pilot.pause(4 * session_follow.POLL_INTERVAL)
        assert isinstance(app.screen, HelpScreen)
        assert len(reads) == 1
        await pilot.press("escape")

        def reloaded() -> bool:
            return isinstance(app.screen, SessionScreen) and app.screen is not first

        await _until(reloaded, pilot, "the reloaded screen")
        assert first not in app.screen_stack
        assert len(app.screen.session) < len(first.session)
