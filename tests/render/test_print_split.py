"""piview print with its second half drawn by a forked process: the same output, in order."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

import piview.export.text as text_writer
from piview.export.forked import can_fork
from piview.export.text import print_branch
from piview.model import load_session
from piview.render.fastlayout import FastConsole
from piview.render.linewriter import LineWriter
from tests.conftest import corpus_files, fixture

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")


def _printed(path: Path, processes: int, colour: bool = False, **kw: object) -> str:
    session = load_session(path)
    extra: dict[str, object] = (
        {"color_system": "truecolor", "force_terminal": True} if colour else {"color_system": None}
    )
    c = FastConsole(width=90, file=io.StringIO(), **extra)  # type: ignore[arg-type]
    opts: dict[str, object] = {"thinking": True, "tools": "full", "hidden": True, **kw}
    print_branch(session, None, console=c, processes=processes, **opts)  # type: ignore[arg-type]
    return c.file.getvalue()  # type: ignore[attr-defined]


_FILES = [fixture(n) for n in ("edit_tools.jsonl", "roles_all.jsonl", "tree_branches.jsonl")]


@pytest.mark.parametrize("colour", [False, True], ids=["plain", "colour"])
@pytest.mark.parametrize("path", [pytest.param(p, id=p.name) for p in _FILES + corpus_files()[:2]])
def test_two_processes_print_what_one_prints(path: Path, colour: bool) -> None:
    one = _printed(path, 1, colour)
    assert _printed(path, 2, colour) == one
    assert "\n\n" in one


def test_a_child_that_stops_early_is_made_up_for(monkeypatch: pytest.MonkeyPatch) -> None:
    """The child writes two items and fails (or dies): the parent draws the rest itself."""
    path = fixture("edit_tools.jsonl")
    one = _printed(path, 1)

    def failing(self, items, start, sink):  # type: ignore[no-untyped-def]
        out = LineWriter(self.console, chunk=1, sink=sink)  # a frame per item
        self.draw(items, start, start + 2, out)
        out.close()
        raise RuntimeError("child broke")

    monkeypatch.setattr(text_writer._Printer, "_draw_to", failing)
    assert _printed(path, 2) == one

    def dying(self, items, start, sink):  # type: ignore[no-untyped-def]
        out = LineWriter(self.console, chunk=1, sink=sink)
        self.draw(items, start, start + 1, out)
        out.close()
        os.write(sink.__self__._fd, b"\x40\x00\x00")  # a torn frame: its write never ended
        os._exit(3)

    monkeypatch.setattr(text_writer._Printer, "_draw_to", dying)
    assert _printed(path, 2) == one


def test_small_branches_stay_in_one_process(monkeypatch: pytest.MonkeyPatch) -> None:
    forks: list[int] = []
    real = os.fork

    def counting() -> int:
        forks.append(1)
        return real()

    monkeypatch.setattr(os, "fork", counting)
    _printed(fixture("edit_tools.jsonl"), None)  # type: ignore[arg-type]
    assert forks == []
    _printed(fixture("edit_tools.jsonl"), 2)
    assert forks == [1]


def test_can_fork_only_with_an_idle_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    import piview.export.forked as forked

    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0, 1}, raising=False)
    monkeypatch.setattr(forked, "busy_cpus", lambda: 0)
    assert can_fork()
    monkeypatch.setattr(forked, "busy_cpus", lambda: 1)
    assert not can_fork()  # the other core is busy: a second process would only compete
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0}, raising=False)
    monkeypatch.setattr(forked, "busy_cpus", lambda: 0)
    assert not can_fork()


def test_busy_cpus_is_a_count() -> None:
    from piview.export.forked import busy_cpus

    assert busy_cpus() >= 0
