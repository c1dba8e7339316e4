"""``pi --mode json "…" | piview -`` in a real terminal: a stream piped in through a slow
writer (the genuine capture of Pi 0.85.1 in tests/fixtures/streams, line by line with pauses),
shown live, saved with ``--save`` and read back; ``q`` while the writer still runs."""

from __future__ import annotations

import shlex
import sys
import time
from pathlib import Path

from tests.e2e.conftest import Tmux, status_line

CAPTURE = Path(__file__).resolve().parent.parent / "fixtures" / "streams" / "085" / "json.jsonl"

WRITER = r"""
import sys, time
src, pause, status, forever = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4] == "1"
lines = open(src, "rb").read().splitlines(keepends=True)
try:
    for line in lines:
        sys.stdout.buffer.write(line)
        sys.stdout.flush()
        time.sleep(pause)
    while forever:  # a run that goes on: one more event now and then
        sys.stdout.buffer.write(b'{"type":"turn_start"}\n')
        sys.stdout.flush()
        time.sleep(0.2)
except BrokenPipeError:
    open(status, "w").write("EPIPE")
    sys.exit(0)
open(status, "w").write("done")
"""


def _writer(tmp: Path, pause: float, *, forever: bool = False) -> tuple[str, Path]:
    script = tmp / "writer.py"
    script.write_text(WRITER)
    status = tmp / "writer.status"
    argv = [
        sys.executable,
        str(script),
        str(CAPTURE),
        str(pause),
        str(status),
        "1" if forever else "0",
    ]
    return " ".join(shlex.quote(a) for a in argv), status


def test_a_slow_pipe_is_shown_live_then_saved_and_read_back(tmux: Tmux, tmp_path: Path) -> None:
    cmd, status = _writer(tmp_path, 0.06)
    saved = tmp_path / "run.capture.jsonl"
    tmux.start("-", "--save", str(saved), stdin_from=cmd, size=(80, 24))
    # Messages arrive while the writer still sends: the first one before the stream ends.
    tmux.wait_until(
        lambda s: "live (stdin)" in s and "deploy please" in s, timeout=15, what="live messages"
    )
    screen = tmux.wait_for("stream ended", timeout=30)
    assert status.read_text() == "done"
    assert "EXIT=" not in screen  # the viewer stays open once the stream ends
    assert "Deployed to https://staging.example" in " ".join(screen.split())
    blocks = status_line(screen).split("·")[0].strip()
    tmux.send("q")
    tmux.wait_for("EXIT=0", timeout=5)
    tmux.kill()
    assert saved.read_bytes().startswith(b'{"type":"piview_capture"')
    again = Tmux()
    try:
        again.start(str(saved), size=(80, 24))
        screen = again.wait_for("stream ended", timeout=15)
        assert status_line(screen).split("·")[0].strip() == blocks
    finally:
        again.kill()


def test_q_quits_at_once_while_the_writer_runs(tmux: Tmux, tmp_path: Path) -> None:
    cmd, status = _writer(tmp_path, 0.02, forever=True)
    tmux.start("-", stdin_from=cmd, size=(200, 60))
    tmux.wait_for("live (stdin)", timeout=15)
    time.sleep(1.0)
    started = time.monotonic()
    tmux.send("q")
    tmux.wait_for("EXIT=0", timeout=5)
    assert time.monotonic() - started < 3
    deadline = time.monotonic() + 5
    while not status.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert status.read_text() == "EPIPE"  # the writer learns the reader is gone, and ends


def test_save_never_replaces_a_session_file(tmux: Tmux, tmp_path: Path) -> None:
    from tests.e2e.conftest import run_piview

    session = tmp_path / "s.jsonl"
    session.write_bytes(CAPTURE.with_name("json.session.jsonl").read_bytes())
    before = session.read_bytes()
    proc = run_piview(["-", "--save", str(session), "--force"], input=b"")
    assert proc.returncode == 2 and b"not a capture of piview's" in proc.stderr
    assert session.read_bytes() == before
