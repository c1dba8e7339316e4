"""piview forks only in :mod:`piview.model.forking`, and only while no other thread runs."""

from __future__ import annotations

import ast
import os
import threading

import pytest

from piview.model import forking
from tests.conftest import ROOT


def test_no_fork_while_another_thread_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    forks: list[int] = []
    monkeypatch.setattr(os, "fork", lambda: forks.append(1) or 1)
    stop = threading.Event()
    worker = threading.Thread(target=stop.wait, daemon=True)
    worker.start()
    try:
        assert not forking.can_fork()
        assert forking.fork() is None
    finally:
        stop.set()
        worker.join()
    assert not forks  # the refused fork never reached os.fork
    monkeypatch.setattr(threading, "active_count", lambda: 1)  # whatever earlier tests left
    assert forking.can_fork()
    assert forking.fork() == 1
    assert forks == [1]


def test_a_failed_fork_is_none(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail() -> int:
        raise OSError("no more processes")

    monkeypatch.setattr(os, "fork", fail)
    assert forking.fork() is None


def test_only_the_forking_module_forks() -> None:
    calls = []
    for path in sorted((ROOT / "piview").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Attribute)
                and node.attr in ("fork", "forkpty")
                and isinstance(node.value, ast.Name)
                and node.value.id == "os"
            ):
                calls.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert calls and all(c.startswith("piview/model/forking.py:") for c in calls), calls
