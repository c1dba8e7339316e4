"""Provides :func:`number`, the one rule for a token count or cost read from a file.

It lives apart from :mod:`piview.model.types_base` (which re-exports it) so that what only
formats numbers, the picker's rows among them, needs no msgspec.
"""

from __future__ import annotations

__all__ = ["NUMBER_LIMIT", "Number", "number"]

Number = int | float
"""Token counts and costs: Pi writes ints for tokens and floats for costs; accept both."""


NUMBER_LIMIT = 1e18
"""Larger token counts or costs are not real: :func:`number` reads them as 0."""


def number(value: object) -> float:
    """A token count or cost to compute with: ``value`` when it is an int or float within
    ±:data:`NUMBER_LIMIT`, else 0 (booleans, strings, NaN, infinities, 10**400: files are
    hand-editable, and an int too big for a float would make sums raise)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0
    return value if -NUMBER_LIMIT <= value <= NUMBER_LIMIT else 0
