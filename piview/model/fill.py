"""Provides :func:`load`: the compiled loop of :meth:`~piview.model.store.NodeStore.extend`
(``piview/model/_fill.c``), when it was built and matches this source.

``hatch_build.py`` compiles it at install time (``pip install -e .`` included); when there is
no compiler the install goes on without it and the store runs its Python loop, which is the
reference: the compiled one gives the same columns, tables and strings, entry by entry.
``PIVIEW_PURE=1`` in the environment forces the Python loop.
"""

from __future__ import annotations

import os
from types import ModuleType

__all__ = ["ABI", "load"]

ABI = 1
"""The ``FILL_ABI`` of ``_fill.c`` this source was written for: a module built from an older
file (an editable install not built again) is ignored."""


def load() -> ModuleType | None:
    """The compiled module, or None (not built, built from another version, or
    ``PIVIEW_PURE`` set)."""
    if os.environ.get("PIVIEW_PURE"):
        return None
    try:
        from piview.model import _fill
    except ImportError:
        return None
    return _fill if getattr(_fill, "ABI", None) == ABI else None
