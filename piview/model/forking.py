"""Provides :func:`fork`, the one place piview forks a child process, and :func:`can_fork`.

A child forked while another thread runs inherits the locks that thread held, for ever; so
piview forks only while the process has one thread, and otherwise the caller does the work.
"""

from __future__ import annotations

import os
import threading


def can_fork() -> bool:
    """Whether :func:`fork` would fork: ``os.fork`` exists and no other thread runs."""
    return hasattr(os, "fork") and threading.active_count() == 1


def fork() -> int | None:
    """``os.fork()``: 0 in the child, the child's pid in the parent; None, and nothing
    forked, when another thread runs or the fork fails."""
    if not can_fork():
        return None
    try:
        return os.fork()
    except OSError:
        return None
