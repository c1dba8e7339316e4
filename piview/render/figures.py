"""Provides the short forms of the branch figures: ``$0.12``, ``12k``, ``7t``, ``3m``.

At most six cells each, so that they fit a right-aligned column of the narrow branch panel.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from piview.model.types import number

if TYPE_CHECKING:
    from piview.model.subtree import Figure, Figures

FIGURE_WIDTH = 6
"""Cells of the widest short figure."""


def _scaled(v: float, units: tuple[tuple[str, float], ...]) -> str:
    for unit, scale in units:
        x = v / scale
        if x < 9.95:
            return f"{x:.1f}{unit}"
        if x < 999.5 or unit == units[-1][0]:
            return f"{x:.0f}{unit}"
    return f"{v:.0f}"  # not reached


def fmt_cost_tiny(c: float) -> str:
    """Dollars in at most six cells: $0.003, $0.12, $4.50, $12.3, $123, $1.2k, $12M."""
    c = float(number(c))
    if c < 0:
        return "-" + fmt_cost_tiny(-c)[:5]
    if 0 < c < 0.0005:
        return "<$.001"
    if c < 0.0095:
        return f"${c:.3f}"
    if c < 9.995:
        return f"${c:.2f}"
    if c < 99.95:
        return f"${c:.1f}"
    if c < 999.5:
        return f"${c:.0f}"
    return "$" + _scaled(c, (("k", 1e3), ("M", 1e6), ("B", 1e9)))


def fmt_tokens_tiny(n: float) -> str:
    """Tokens in at most five cells: 950, 1.2k, 12k, 123k, 4.6M."""
    n = float(number(n))
    if n < 999.5:
        return f"{n:.0f}"
    return _scaled(n, (("k", 1e3), ("M", 1e6), ("B", 1e9), ("T", 1e12)))


def fmt_turns(n: float) -> str:
    """Assistant turns: 7t, 120t, 1.2kt."""
    if n < 999.5:
        return f"{n:.0f}t"
    return _scaled(n, (("k", 1e3), ("M", 1e6))) + "t"


def fmt_span(ms: float) -> str:
    """Wall time in at most four cells: 42s, 3m, 1.5h, 12h, 3d."""
    s = max(0.0, ms) / 1000
    if 0 < s < 0.5:
        return "<1s"
    if s < 59.5:
        return f"{s:.0f}s"
    if s < 59.5 * 60:
        return f"{s / 60:.0f}m"
    h = s / 3600
    if h < 9.95:
        return f"{h:.1f}h"
    if h < 47.5:
        return f"{h:.0f}h"
    d = h / 24
    return f"{d:.0f}d" if d < 999.5 else f"{d / 365:.0f}y"


def fmt_figure_value(figure: Figure, value: float) -> str:
    """``value`` of ``figure`` in its short form (a duration in milliseconds)."""
    if figure == "cost":
        return fmt_cost_tiny(value)
    if figure == "tokens":
        return fmt_tokens_tiny(value)
    if figure == "turns":
        return fmt_turns(value)
    return fmt_span(value)


def fmt_figure(figure: Figure, figures: Figures) -> str:
    """The short form of ``figure`` of ``figures``; ``""`` when it is zero (nothing spent,
    nothing to show)."""
    value = figures.value(figure)
    return fmt_figure_value(figure, value) if value else ""
