"""Provides :func:`load`: the compiled loop of :meth:`~piview.model.store.NodeStore.extend`
(``_fill.c``), when it was built and matches this source; the Python loop is the reference.
``PIVIEW_PURE=1`` forces the Python loop.
"""

from __future__ import annotations

import os
import zlib
from pathlib import Path
from types import ModuleType

ABI = 4
"""The ``FILL_ABI`` of ``_fill.c`` this source was written for: a module built for another,
or from another ``_fill.c`` than the one beside it, is ignored."""


def load() -> ModuleType | None:
    """The compiled module, or None (not built, built from another version, or
    ``PIVIEW_PURE`` set)."""
    if os.environ.get("PIVIEW_PURE"):
        return None
    try:
        from piview.model import _fill
    except ImportError:
        return None
    if getattr(_fill, "ABI", None) != ABI:
        return None
    # Built from the source beside it (an edit not built again would run the old loop).
    try:
        code = Path(__file__).with_name("_fill.c").read_bytes()
    except OSError:
        return _fill  # installed without its source: the ABI number is all there is
    return _fill if getattr(_fill, "SOURCE", None) == source_tag(code) else None


def source_tag(code: bytes) -> str:
    """What ``hatch_build.py`` builds into the module from its source ``code``."""
    return f"{zlib.crc32(code):08x}-{len(code)}"
