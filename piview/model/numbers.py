"""Provides :func:`number`, the one rule for a token count or cost read from a file (apart
from :mod:`piview.model.types_base` so that formatting numbers needs no msgspec)."""

from __future__ import annotations

Number = int | float
"""Token counts and costs: Pi writes ints for tokens and floats for costs; accept both."""


NUMBER_LIMIT = 1e18
"""Larger token counts or costs are not real: :func:`number` reads them as 0."""


def number(value: object) -> float:
    """A token count or cost to compute with: ``value`` when it is an int or float within
    ±:data:`NUMBER_LIMIT`, else 0 (booleans, strings, NaN, infinities: files are hand-edited)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0
    return value if -NUMBER_LIMIT <= value <= NUMBER_LIMIT else 0
