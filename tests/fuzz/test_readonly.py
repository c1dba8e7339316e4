"""piview never writes, renames, locks or truncates a session file, and runs nothing from it.

A full session of use in the viewer (every key, following the file) on a copy of the demo and
of nasty files; afterwards the file's bytes, size and mtime are what they were and its folder
holds nothing new. Every ``os.open``/``open`` of the file is recorded: none may ask for
writing, and none of the shell commands or scripts written in its messages may have run.
"""

from __future__ import annotations

import builtins
import fcntl
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from piview.app import make_app
from piview.model import load_session
from piview.screens.help import HelpScreen
from piview.widgets.branch_panel import BranchPanel
from piview.widgets.transcript import Transcript
from tests.fuzz.nasty import PWNED, build
from tests.fuzz.pipeline import hang_guard

pytestmark = pytest.mark.fuzz

SIZE = (120, 40)
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_TRUNC | os.O_CREAT
_PAST = 1_700_000_000  # an mtime in the past: any touch would move it


class Recorder:
    """Records how the session file is opened, and every process started."""

    def __init__(self, path: Path) -> None:
        self.path = os.path.realpath(path)
        self.os_opens: list[int] = []
        self.opens: list[str] = []
        self.processes: list[Any] = []
        self.changes: list[tuple[str, tuple[Any, ...]]] = []

    def _is_session(self, file: object) -> bool:
        try:
            return os.path.realpath(os.fspath(file)) == self.path  # type: ignore[arg-type]
        except TypeError:
            return False  # a file descriptor: not a path

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Wrap ``os.open``, ``open``, what renames, truncates, deletes or locks files, and
        ``subprocess.Popen``, ``os.system`` and ``os.exec*``."""
        real_os_open, real_open = os.open, builtins.open
        real_popen_init = subprocess.Popen.__init__

        def os_open(file: Any, flags: int, *args: Any, **kwargs: Any) -> int:
            if self._is_session(file):
                self.os_opens.append(flags)
            return real_os_open(file, flags, *args, **kwargs)

        def open_(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
            if self._is_session(file):
                self.opens.append(mode)
            return real_open(file, mode, *args, **kwargs)

        def popen_init(popen: Any, args: Any, *a: Any, **k: Any) -> None:
            self.processes.append(args)
            real_popen_init(popen, args, *a, **k)

        def refuse(*args: Any, **kwargs: Any) -> Any:
            self.processes.append(args)
            raise AssertionError(f"piview tried to run {args!r}")

        def watch(module: Any, name: str, *, any_call: bool = False) -> None:
            real = getattr(module, name, None)
            if real is None:
                return

            def wrapper(*args: Any, **kwargs: Any) -> Any:
                if any_call or any(self._is_session(a) for a in args if isinstance(a, str | Path)):
                    self.changes.append((name, args))
                return real(*args, **kwargs)

            monkeypatch.setattr(module, name, wrapper)

        for name in ("rename", "replace", "truncate", "unlink", "remove", "chmod", "utime"):
            watch(os, name)
        watch(os, "ftruncate", any_call=True)
        watch(fcntl, "flock", any_call=True)
        watch(fcntl, "lockf", any_call=True)
        monkeypatch.setattr(os, "open", os_open)
        monkeypatch.setattr(builtins, "open", open_)
        monkeypatch.setattr(subprocess.Popen, "__init__", popen_init)
        monkeypatch.setattr(os, "system", refuse)
        for name in ("execv", "execve", "execvp", "execvpe", "spawnv", "posix_spawn"):
            if hasattr(os, name):
                monkeypatch.setattr(os, name, refuse)


def _snapshot(path: Path) -> tuple[bytes, int, int, list[str]]:
    st = os.stat(path)
    return path.read_bytes(), st.st_size, st.st_mtime_ns, sorted(os.listdir(path.parent))


def _session_file(kind: str, folder: Path) -> Path:
    """A copy of the demo, or a nasty file, alone in ``folder``, with an mtime in the past."""
    if kind == "demo":
        from piview.catalog.demo import demo_path

        path = folder / "demo.jsonl"
        shutil.copyfile(demo_path(), path)
    else:
        path = build(kind, folder)
    os.chmod(path, 0o644)
    os.utime(path, (_PAST, _PAST))
    return path


_KEY_NAMES = {"[": "left_square_bracket", "]": "right_square_bracket", "/": "slash", " ": "space"}


def _keys(text: str) -> list[str]:
    """Key names that type ``text``."""
    return [_KEY_NAMES.get(c, c) for c in text]


async def _use_everything(path: Path, query: str) -> None:
    """Open the viewer (following the file) and press every key it has."""
    app = make_app(load_session(path), follow=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        t = app.screen.query_one(Transcript)
        await pilot.press("j", "k", "g", "G", "right_square_bracket", "left_square_bracket")
        await pilot.press("enter", "t", "o", "e")
        await pilot.press("slash", *_keys(query), "enter", "n", "N")
        await pilot.press("H", "b", "j", "k", "f", "enter", "u")
        tools = [k for k, it in enumerate(t.items) if it.kind in ("tool", "orphan_result")]
        if tools:
            t.focus_item(tools[0])
        await pilot.press("i")
        await pilot.pause()
        await pilot.press("escape", "T")
        await pilot.pause()
        await pilot.press("escape", "c")
        await pilot.pause()
        await pilot.press("escape", "question_mark")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape", "b")
        panel = app.screen.query_one(BranchPanel)
        await pilot.press("G", "enter", "escape")
        assert panel is not None
        await pilot.pause(1.2)  # two follow polls of the file
        await pilot.press("q")
    assert app.return_code in (0, None)


@pytest.mark.parametrize(
    ("kind", "query"),
    [
        ("demo", "gzip"),
        ("ansi_everywhere", "red"),
        ("control_ids", "[/]"),
    ],
)
async def test_a_full_session_of_use_leaves_the_file_untouched(
    kind: str, query: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bytes, size, mtime and folder are unchanged; the file was only ever opened for
    reading; the commands written in it did not run."""
    Path(PWNED).unlink(missing_ok=True)
    folder = tmp_path / "sessions"
    folder.mkdir()
    path = _session_file(kind, folder)
    before = _snapshot(path)
    rec = Recorder(path)
    rec.install(monkeypatch)
    with hang_guard(120, f"viewer on {kind}"):
        await _use_everything(path, query)
    monkeypatch.undo()
    after = _snapshot(path)
    assert after[1:] == before[1:], "size, mtime or the folder's listing changed"
    assert after[0] == before[0], "the file's bytes changed"
    assert rec.os_opens, "the file was never opened through os.open (recorder not working?)"
    for flags in rec.os_opens:
        assert not flags & _WRITE_FLAGS, f"opened with write flags {flags:#o}"
    for mode in rec.opens:
        assert set(mode) <= set("rbt"), f"opened with mode {mode!r}"
    assert not rec.changes, f"renamed, truncated, deleted or locked: {rec.changes}"
    assert not Path(PWNED).exists(), "a command from the session file was executed"
    texts = " ".join(map(str, rec.processes))
    assert "touch" not in texts and "script" not in texts, rec.processes


def test_print_info_and_tools_leave_the_file_untouched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The scriptable commands open the file read-only too, and run nothing from it."""
    from piview.cli import main

    Path(PWNED).unlink(missing_ok=True)
    path = _session_file("ansi_everywhere", tmp_path)
    before = _snapshot(path)
    rec = Recorder(path)
    rec.install(monkeypatch)
    for argv in (
        ["print", str(path), "--tools", "full", "--thinking", "--hidden"],
        ["info", "--json", str(path)],
        ["info", str(path)],
        ["tools", "--json", str(path)],
        ["tools", str(path)],
    ):
        assert main(argv) == 0, argv
    monkeypatch.undo()
    capsys.readouterr()
    assert _snapshot(path) == before
    assert rec.os_opens and not any(f & _WRITE_FLAGS for f in rec.os_opens)
    assert all(set(m) <= set("rbt") for m in rec.opens)
    assert not rec.changes
    assert not Path(PWNED).exists()


def test_the_recorder_sees_writes_renames_and_locks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The checks above are not vacuous: a write, a rename and a lock are all seen."""
    path = _session_file("demo", tmp_path)
    rec = Recorder(path)
    rec.install(monkeypatch)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    fcntl.flock(fd, fcntl.LOCK_EX)
    os.close(fd)
    with open(path, "a"):
        pass
    os.rename(path, tmp_path / "moved.jsonl")
    monkeypatch.undo()
    assert any(f & _WRITE_FLAGS for f in rec.os_opens)
    assert "a" in rec.opens
    assert [name for name, _args in rec.changes] == ["flock", "rename"]
