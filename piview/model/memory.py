"""Provides :func:`release_free_memory`: the C heap's free pages handed back to the system
(glibc's ``malloc_trim``; elsewhere nothing is done).
"""

from __future__ import annotations

import sys

_trim: object = None


def release_free_memory() -> bool:
    """Hand the C heap's free pages back to the system; True when it could be asked."""
    global _trim
    if not sys.platform.startswith("linux"):
        return False
    if _trim is None:
        try:
            import ctypes  # here: only big files need it

            _trim = ctypes.CDLL(None).malloc_trim
        except (AttributeError, OSError, ImportError):
            _trim = False
    if not _trim:
        return False
    _trim(0)  # type: ignore[operator]
    return True
