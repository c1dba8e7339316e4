"""``q`` quits at once, whatever runs in a worker: the app's thread workers are daemons that
quitting never waits for (:class:`piview.widgets.offthread.DaemonExecutor`)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
import time

from piview.widgets.offthread import DaemonExecutor
from tests.conftest import ROOT, fixture

HANG_GUARD = 60.0
"""Seconds after which a process that should have exited is taken to hang (not a timing)."""


def test_daemon_executor_runs_tasks_and_never_waits_on_shutdown() -> None:
    pool = DaemonExecutor(name="piview-test")
    assert pool.submit(pow, 2, 10).result(timeout=5) == 1024
    failing = pool.submit(int, "not a number")
    assert isinstance(failing.exception(timeout=5), ValueError)
    release = threading.Event()
    blocked = pool.submit(release.wait)
    try:
        assert pool.running() and all(t.daemon for t in pool.running())
        pool.shutdown(wait=True)  # returns although a task still runs
        assert not blocked.done()
    finally:
        release.set()
    assert blocked.result(timeout=5) is True


_SCRIPT = """
import sys, threading
from piview.app import make_app
from piview.model.session_tail import load_tail

never = threading.Event()

def load_forever():
    print("LOADING", flush=True)
    never.wait()  # a whole-file load that never ends (a 1 GB file, a pathological shape)

tail = load_tail(sys.argv[1], max_bytes=512)
assert tail.partial
app = make_app(tail, full_loader=load_forever, follow=True)

async def press_q(pilot):
    while not any(w.group == "load" for w in app.workers):
        await pilot.pause(0.05)
    await pilot.pause(0.3)
    await pilot.press("q")

app.run(headless=True, size=(80, 24), auto_pilot=press_q)
print("RETURNED", flush=True)
"""


def test_q_quits_while_the_whole_file_is_still_loading() -> None:
    """Before: ``App.run`` waited for the loading worker (asyncio's default executor is joined
    when the loop closes), so a load that never ends meant a viewer that never exits."""
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_SCRIPT), str(fixture("linear.jsonl"))],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        cwd=ROOT,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["LOADING", "RETURNED"], (proc.stdout, proc.stderr)
    assert time.monotonic() - started < HANG_GUARD
