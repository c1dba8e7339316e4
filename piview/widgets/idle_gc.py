"""Provides :func:`collect_when_idle`: the cyclic garbage collector's full passes moved from
the keys to the moments the app is idle.

A full pass looks at every object tracked: with a big session open it is long enough to feel,
and CPython starts one in the middle of whatever allocates most (a key that opens a view).
Here full passes are made rarer (:data:`DEFERRED_FULL`) and made when the app is quiet: no
young pass for :data:`QUIET` seconds, :data:`IDLE_FULL` middle passes since the last full one.
"""

from __future__ import annotations

import gc
import weakref
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.app import App

DEFERRED_FULL = 40
"""Middle (generation 1) passes before CPython makes a full pass by itself (default: 10), so
that keys pressed without a pause still get one now and then."""


IDLE_FULL = 10
"""Middle passes after which the app makes a full pass once it is idle."""

QUIET = 0.1
"""Seconds without a young pass that count as idle (the pause between two keys typed)."""

_installed: weakref.WeakSet[App[object]] = weakref.WeakSet()


def collect_when_idle(app: App[object]) -> None:
    """Make full passes rarer while ``app`` runs, and make one whenever it is idle (once per
    app; the threshold stays raised for the process: one app runs in it)."""
    if app in _installed:
        return
    _installed.add(app)
    young, middle, _full = gc.get_threshold()
    gc.set_threshold(young, middle, DEFERRED_FULL)
    last = [gc.get_count()]

    def tick() -> None:
        count = gc.get_count()
        busy = count[1:] != last[0][1:]  # a young pass ran since the last tick
        last[0] = count
        if not busy and count[2] >= IDLE_FULL:
            gc.collect()
            last[0] = gc.get_count()

    app.set_interval(QUIET, tick, name="idle-gc")
