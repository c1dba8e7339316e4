"""Faults of the viewer (issue #26): no search freezes it, escape stops a search, a pager that
fails brings it back, odd input at the prompts is a notice. Pilot tests, no timing."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from piview.app import make_app
from piview.model import load_session
from piview.model.query import parse_query
from piview.widgets.transcript import Transcript

pytestmark = pytest.mark.faults

SIZE = (100, 30)
H = '{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}'
# Python's re needs about 2**n steps for (a+)+$ on n a's and a mismatch: 80 never ends.
CATASTROPHIC = "a" * 80 + "!"


def _session_file(tmp_path: Path, texts: list[str]) -> Path:
    lines = [H]
    for i, text in enumerate(texts):
        lines.append(
            json.dumps(
                {
                    "type": "message",
                    "id": f"e{i}",
                    "parentId": f"e{i - 1}" if i else None,
                    "timestamp": "2026-01-01T00:00:01.000Z",
                    "message": {"role": "user", "content": [{"type": "text", "text": text}]},
                }
            )
        )
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


async def _wait(pilot, done) -> None:  # type: ignore[no-untyped-def]
    for _ in range(500):
        await pilot.pause(0.02)
        if done():
            return
    raise AssertionError("timed out")


def _notices(app) -> list[str]:  # type: ignore[no-untyped-def]
    return [str(n.message) for n in app._notifications]  # noqa: SLF001


# --------------------------------------------------------------------------- the regex engine


def test_a_catastrophic_regex_ends_at_once() -> None:
    """(a+)+$ over a's and a mismatch backtracks for ever in Python's re; RE2 is linear."""
    q = parse_query("re:(a+)+$")
    assert q.error is None
    assert not q.matches(CATASTROPHIC * 1000)
    assert q.matches("x\n" + "a" * 10_000)  # $ at a line's end, as before
    assert q.spans("b aaa") == [(2, 5)]


@pytest.mark.parametrize("pattern", [r"(a)\1", "(?<=a)b", "a(?=b)", "a(?!b)"])
def test_backtracking_only_syntax_is_a_one_line_error(pattern: str) -> None:
    q = parse_query("re:" + pattern)
    assert q.blank and q.error is not None
    assert "not supported" in q.error and "\n" not in q.error


def test_regex_keeps_smart_case_and_character_offsets() -> None:
    assert parse_query("re:héllo").spans("xx HÉLLO") == [(3, 8)]
    assert parse_query("re:Héllo").spans("xx HÉLLO héllo Héllo") == [(15, 20)]
    assert parse_query(r"re:^\d+$").spans("12\nab\n345") == [(0, 2), (6, 9)]


async def test_a_catastrophic_regex_search_in_the_viewer_ends(tmp_path: Path) -> None:
    path = _session_file(tmp_path, [CATASTROPHIC * 200, "hello", CATASTROPHIC])
    app = make_app(load_session(path), follow=False)
    async with app.run_test(size=SIZE) as pilot:
        t = app.screen.query_one(Transcript)
        await pilot.press("slash", *"re:(a+)+$", "enter")
        await _wait(pilot, lambda: not t.searching)
        assert t.search_state is not None and t.search_state[2] == 0


async def test_a_bad_regex_is_a_notice(tmp_path: Path) -> None:
    path = _session_file(tmp_path, ["hello"])
    app = make_app(load_session(path), follow=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("slash", *r"re:(a)\1", "enter")
        await pilot.pause()
        assert any("not supported" in n for n in _notices(app))


# --------------------------------------------------------------------------- escape and q


@pytest.fixture
def slow_search(monkeypatch: pytest.MonkeyPatch) -> Iterator[threading.Event]:
    """Every block's test waits until the event is set: the search runs until cancelled."""
    import piview.render.search as search

    release = threading.Event()

    def slow(*_args: object) -> bool:
        release.wait(0.01)
        return False

    monkeypatch.setattr(search, "item_matches", slow)
    yield release
    release.set()


async def test_escape_cancels_a_running_search(tmp_path: Path, slow_search) -> None:  # type: ignore[no-untyped-def]
    path = _session_file(tmp_path, [f"line {i}" for i in range(2000)])
    app = make_app(load_session(path), follow=False)
    async with app.run_test(size=SIZE) as pilot:
        t = app.screen.query_one(Transcript)
        await pilot.press("slash", *"line", "enter")
        await pilot.pause()
        assert t.searching
        worker = t._search_worker  # noqa: SLF001
        await pilot.press("escape")
        await pilot.pause()
        assert not t.searching and t.search_state is None
        assert worker is not None and worker.is_cancelled
        assert "Search cancelled" in _notices(app)


async def test_q_quits_during_a_search(tmp_path: Path, slow_search) -> None:  # type: ignore[no-untyped-def]
    path = _session_file(tmp_path, [f"line {i}" for i in range(2000)])
    app = make_app(load_session(path), follow=False)
    async with app.run_test(size=SIZE) as pilot:
        t = app.screen.query_one(Transcript)
        await pilot.press("slash", *"line", "enter")
        await pilot.pause()
        assert t.searching
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 0


async def test_quit_now_gives_the_status(tmp_path: Path) -> None:
    """What SIGTERM and SIGHUP call (tests/faults/test_viewer_signals.py runs them for real)."""
    app = make_app(load_session(_session_file(tmp_path, ["hello"])), follow=False)
    async with app.run_test(size=SIZE) as pilot:
        app.quit_now(143)
        await pilot.pause()
    assert app.return_code == 143


# --------------------------------------------------------------------------- the pager


@pytest.fixture
def suspend_log(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """App.suspend as Textual's: it resumes only when its block ends without raising."""
    from textual.app import App

    log: list[str] = []

    @contextmanager
    def suspend(self: App[object]) -> Iterator[None]:
        log.append("suspended")
        yield
        log.append("resumed")

    monkeypatch.setattr(App, "suspend", suspend)
    return log


@pytest.mark.parametrize(
    ("pager", "notice"),
    [
        ("nosuch-pager-26", "Pager 'nosuch-pager-26' not found"),
        ("false", "The pager 'false' ended with status 1"),
        ("less 'x", "Cannot read the pager's command"),
    ],
)
async def test_a_failing_pager_brings_the_viewer_back(  # type: ignore[no-untyped-def]
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, suspend_log, pager: str, notice: str
) -> None:
    monkeypatch.setenv("PAGER", pager)
    app = make_app(load_session(_session_file(tmp_path, ["hello"])), follow=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("v")
        await pilot.pause()
        assert suspend_log in ([], ["suspended", "resumed"])
        assert any(n.startswith(notice) for n in _notices(app)), _notices(app)


async def test_a_pager_with_arguments_gets_them(  # type: ignore[no-untyped-def]
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, suspend_log
) -> None:
    out = tmp_path / "args.txt"
    script = tmp_path / "pager.sh"
    script.write_text(f'#!/bin/sh\necho "$@" > {out}\n', encoding="utf-8")
    script.chmod(0o755)
    monkeypatch.setenv("PAGER", f"{script} -R --x")
    app = make_app(load_session(_session_file(tmp_path, ["hello"])), follow=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("v")
        await pilot.pause()
        assert suspend_log == ["suspended", "resumed"]
        assert not _notices(app)
    args = out.read_text(encoding="utf-8").split()
    assert args[:2] == ["-R", "--x"] and args[2].endswith(".txt")


# --------------------------------------------------------------------------- the : prompt


@pytest.mark.parametrize("ref", ["[bold]x", "   ", "e", "\\", "é" * 300])
async def test_odd_input_at_the_goto_prompt_is_a_notice(tmp_path: Path, ref: str) -> None:
    path = _session_file(tmp_path, [f"line {i}" for i in range(20)])
    app = make_app(load_session(path), follow=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("colon", *ref, "enter")
        await pilot.pause()
        assert app.screen.query_one(Transcript) is not None
        await pilot.press("q")
    assert app.return_code == 0
