"""Faults at the command line's edges (issue #26): every one is a line on stderr and a
documented exit status, never a traceback, a hang or a half-written file.

Nothing here reads a device: /dev/null is only stat'ed, /dev/full only written to by a child
process; FIFOs are made in ``tmp_path``; session files are copies in ``tmp_path``.
"""

from __future__ import annotations

import errno
import os
import shutil
import socket
import sqlite3
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from piview import cli
from piview.model.fsio import FileChangedError, atomic_write, input_kind
from tests.conftest import ROOT, fixture

pytestmark = pytest.mark.faults

SESSION = "linear.jsonl"


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("PIVIEW_DEBUG", raising=False)


def _copy(tmp_path: Path, name: str = SESSION) -> Path:
    dst = tmp_path / name
    shutil.copyfile(fixture(name), dst)
    return dst


def _one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("piview: "), err
    assert "Traceback" not in err
    return lines[0]


# ---------------------------------------------------------------- what a path is


def test_input_kind_names_what_is_not_a_regular_file(tmp_path: Path) -> None:
    regular = _copy(tmp_path)
    fifo = tmp_path / "p.jsonl"
    os.mkfifo(fifo)
    assert input_kind(os.stat(regular).st_mode) is None
    assert input_kind(os.stat(fifo).st_mode) == "a FIFO"
    assert input_kind(os.stat(tmp_path).st_mode) == "a directory"
    assert input_kind(stat.S_IFCHR | 0o666) == "a character device"
    assert input_kind(stat.S_IFBLK | 0o660) == "a block device"
    sock_path = tmp_path / "s"
    if len(str(sock_path)) < 100:
        with socket.socket(socket.AF_UNIX) as s:
            s.bind(str(sock_path))
            assert input_kind(os.stat(sock_path).st_mode) == "a socket"


@pytest.mark.parametrize("command", ["info", "print", "tools", "context", "export", "timeline"])
def test_a_device_or_a_folder_is_refused_unread(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """/dev/null is only stat'ed: a device is refused before it is opened."""
    for path in ("/dev/null", str(tmp_path)):
        if not os.path.exists(path):
            continue
        assert cli.main([command, path]) == 2
        line = _one_line(capsys.readouterr().err)
        assert "is a character device" in line or "is a directory" in line


def test_a_fifo_is_waited_for_then_read_whole(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "live.jsonl"
    os.mkfifo(fifo)
    data = fixture(SESSION).read_bytes()

    def writer() -> None:
        with open(fifo, "wb") as f:  # blocks until piview opens it for reading
            f.write(data)

    t = threading.Thread(target=writer, daemon=True)
    t.start()
    assert cli.main(["info", "--json", str(fifo)]) == 0
    t.join(10)
    out = capsys.readouterr()
    assert "waiting for a writer on the FIFO" in out.err
    assert '"entries"' in out.out


# ---------------------------------------------------------------- the error boundary


def test_stdout_on_a_full_device_is_one_line_and_status_3() -> None:
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    for args in (["info", str(fixture(SESSION))], ["print", str(fixture(SESSION))]):
        with open("/dev/full", "w") as full:
            r = subprocess.run(
                [sys.executable, "-m", "piview", *args],
                stdout=full,
                stderr=subprocess.PIPE,
                text=True,
                cwd=ROOT,
                timeout=60,
            )
        assert r.returncode == 3, r.stderr
        assert _one_line(r.stderr) == "piview: cannot write the output: No space left on device"


def test_a_silly_limit_is_no_overflow(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    status = cli.main(["search", "x", "--sessions", str(sessions), "--limit", "9" * 20])
    assert status == 1  # nothing matches, and no OverflowError
    assert "Traceback" not in capsys.readouterr().err
    assert cli.main(["search", "x", "--sessions", str(sessions), "--limit", "0"]) == 2


@pytest.mark.parametrize(
    ("fault", "status"),
    [
        (OSError(errno.EIO, "Input/output error"), 3),
        (sqlite3.OperationalError("disk I/O error"), 3),
        (OverflowError("int too large"), 3),
        (UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"), 3),
        (FileChangedError("x.jsonl: the file changed while it was read (it shrank)"), 2),
    ],
)
def test_what_the_outside_world_throws_is_one_line(
    fault: Exception,
    status: int,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    def boom(argv: object) -> int:
        raise fault

    monkeypatch.setattr(cli, "run_command", boom)
    assert cli.main(["info", "x"]) == status
    _one_line(capsys.readouterr().err)
    monkeypatch.setenv("PIVIEW_DEBUG", "1")
    assert cli.main(["info", "x"]) == status
    assert "Traceback" in capsys.readouterr().err


def test_a_bug_keeps_its_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(argv: object) -> int:
        raise RuntimeError("a bug")

    monkeypatch.setattr(cli, "run_command", boom)
    with pytest.raises(RuntimeError):
        cli.main(["info", "x"])


# ---------------------------------------------------------------- the index cache


def test_a_cache_that_cannot_be_written_is_run_without(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import piview.model.session as session_module

    monkeypatch.setattr(session_module, "CACHE_MIN_BYTES", 0)  # cache even the small fixture
    path = _copy(tmp_path)
    not_a_folder = tmp_path / "cache-file"
    not_a_folder.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(not_a_folder))
    assert cli.main(["info", str(path)]) == 0
    assert capsys.readouterr().err == ""

    # A full cache disk: every write of the cache file fails after a few bytes.
    import piview.model.index_cache as index_cache

    cache = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    monkeypatch.setattr(index_cache, "open", _full_disk_open, raising=False)
    assert cli.main(["info", str(path)]) == 0
    assert capsys.readouterr().err == ""
    assert not [p for p in cache.rglob("*") if p.is_file()]  # no temporary file left


class _FullFile:
    """A file whose writes fail with ENOSPC after 16 bytes."""

    def __init__(self, path: str | os.PathLike[str], mode: str = "rb") -> None:
        self._f = open(path, mode)  # noqa: SIM115
        self._left = 16

    def write(self, data: bytes | bytearray | memoryview) -> int:
        if len(data) > self._left:
            self._f.write(bytes(data)[: self._left])
            self._left = 0
            raise OSError(errno.ENOSPC, "No space left on device")
        self._left -= len(data)
        return self._f.write(data)

    def __enter__(self) -> _FullFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self._f.close()

    def __getattr__(self, name: str) -> object:
        return getattr(self._f, name)


def _full_disk_open(path: str | os.PathLike[str], mode: str = "r", *a: object, **k: object):  # type: ignore[no-untyped-def]
    return _FullFile(path, mode)


# ---------------------------------------------------------------- atomic exports


@pytest.mark.parametrize("fmt", ["html", "md"])
def test_an_export_on_a_full_disk_leaves_the_earlier_one_whole(
    fmt: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import piview.model.fsio as fsio

    path = _copy(tmp_path)
    out = tmp_path / "out" / f"x.{fmt}"
    assert cli.main(["export", str(path), "-o", str(out)]) == 0
    good = out.read_bytes()
    assert good
    capsys.readouterr()
    real_fdopen = os.fdopen
    monkeypatch.setattr(
        fsio.os, "fdopen", lambda fd, mode="r", *a, **k: _FullFd(real_fdopen(fd, mode))
    )
    assert cli.main(["export", str(path), "-o", str(out), "--thinking"]) == 2
    line = _one_line(capsys.readouterr().err)
    assert "No space left on device" in line
    assert out.read_bytes() == good
    assert sorted(p.name for p in out.parent.iterdir()) == [out.name]


class _FullFd(_FullFile):
    def __init__(self, f: object) -> None:  # noqa: D107
        self._f = f  # type: ignore[assignment]
        self._left = 16


def test_atomic_write_replaces_whole(tmp_path: Path) -> None:
    out = tmp_path / "a.txt"
    atomic_write(out, "one")
    atomic_write(out, b"two")
    assert out.read_text() == "two"
    assert [p.name for p in tmp_path.iterdir()] == ["a.txt"]


# ---------------------------------------------------------------- a file changing under a read


def _load_then(change: str, monkeypatch: pytest.MonkeyPatch, path: Path) -> None:
    """Make the commands' load change the file right after it was indexed."""
    import piview.commands.common as common

    real = common.load

    def load(p: str, **kw: bool):  # type: ignore[no-untyped-def]
        session = real(p, **kw)
        if change == "shrink":
            os.truncate(path, 10)
        else:
            other = path.with_name("other.jsonl")
            shutil.copyfile(fixture("branch_edits.jsonl"), other)
            os.replace(other, path)
            session.close()  # the next read opens the path again: the new file
        return session

    monkeypatch.setattr(common, "load", load)
    for name in ("print", "export"):
        mod = __import__(f"piview.commands.{name}", fromlist=["load"])
        monkeypatch.setattr(mod, "load", load)


@pytest.mark.parametrize("change", ["shrink", "replace"])
@pytest.mark.parametrize("command", ["print", "export"])
def test_a_file_changed_while_read_stops_with_one_line(
    change: str,
    command: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = _copy(tmp_path)
    _load_then(change, monkeypatch, path)
    args = [command, str(path), "--tools", "full"]
    if command == "export":
        args += ["-o", str(tmp_path / "x.html")]
    assert cli.main(args) == 2
    line = _one_line(capsys.readouterr().err)
    assert "changed while it was read" in line or "was replaced" in line
    assert not (tmp_path / "x.html").exists()


def test_the_viewer_reads_a_shrunk_file_leniently(tmp_path: Path) -> None:
    """Not strict (the viewer follows the file): an entry gone is a placeholder, no error."""
    from piview.commands.common import load

    path = _copy(tmp_path)
    session = load(str(path), keep_index=False, strict=False)
    os.truncate(path, 10)
    last = len(session) - 1
    assert session.raw(last) is None
    session.entry(last)  # no FileChangedError
    strict = load(str(path), keep_index=False)
    assert len(strict) == 0 or strict.raw(0) is not None
