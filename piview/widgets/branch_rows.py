"""Provides :func:`row_strip`: one row of the branch panel's tree, drawn, each part styled by
one of the panel's component classes."""

from __future__ import annotations

from collections.abc import Callable

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from piview.model.treeview import Row

StyleOf = Callable[[str], Style]
"""The style of a component class (``"branch-panel--guide"``, …), as the panel resolves it."""

_ROLE_PREFIXES = ("user: ", "assistant: ")
_TEXT_KEPT = 6
"""Cells of row text a figure never takes (it is left out instead)."""


def row_strip(
    row: Row,
    text: str,
    kind: str,
    *,
    width: int,
    base: Style,
    style_of: StyleOf,
    cursor: Style | None,
    figure: str = "",
) -> Strip:
    """Draw ``row`` (its entry's one-line ``text`` of row kind ``kind``) on ``width`` cells
    over ``base``; ``cursor``: the cursor's style on the cursor's row; ``figure``: the row's
    usage figure, right-aligned."""

    path_style = style_of("branch-panel--path")
    head: list[Segment] = [Segment("› " if cursor is not None else "  ", path_style)]
    prefix = row.prefix()
    limit = max(6, width // 2)
    if len(prefix) > limit:
        prefix = "…" + prefix[-(limit - 1) :]
    guide = style_of("branch-panel--guide")
    fold = style_of("branch-panel--fold")
    run = ""
    for ch in prefix:
        if ch in "⊞⊟":
            if run:
                head.append(Segment(run, guide))
                run = ""
            head.append(Segment(ch, fold))
        else:
            run += ch
    if run:
        head.append(Segment(run, guide))
    if row.on_path:
        head.append(Segment("• ", path_style))
    if row.label:
        head.append(Segment(f"[{row.label}] ", style_of("branch-panel--label")))
    tail: list[Segment] = []
    if row.inside_count:
        # A fold never hides a label: the row names the labels inside it.
        more = row.inside_count - len(row.inside)
        names = ", ".join(row.inside) + (f" +{more}" if more else "")
        limit = max(8, width // 3)
        if cell_len(names) > limit:
            names = set_cell_size(names, limit - 1) + "…"
        tail.append(Segment(f" [{names}]", style_of("branch-panel--label")))
    if row.folded and row.hidden:
        tail.append(Segment(f" +{row.hidden}", style_of("branch-panel--count")))
    if row.is_leaf:
        tail.append(Segment(" ◀ leaf", style_of("branch-panel--leaf")))
    if figure:
        name = "branch-panel--figure-path" if row.on_path else "branch-panel--figure"
        end = [Segment(" " + figure, style_of(name))]
    else:
        end = []
    used = sum(s.cell_length for s in (*head, *tail, *end))
    keep = min(cell_len(text), _TEXT_KEPT)
    if end and width - used < keep <= width - used + 5 and row.is_leaf:
        # The active leaf's figure (its branch's total) matters most: "◀" alone makes room.
        tail[-1] = Segment(" ◀", tail[-1].style)
        used -= 5
    if end and width - used < keep:
        # Too narrow (deep in the tree, at 80 columns): the figure gives way whole rather
        # than squeeze the text out or show cut (wrong) digits.
        used -= end[0].cell_length
        end = []
    body = _body_segments(text, kind, max(0, width - used), style_of)
    if end:
        # Right-aligned: the figures of all rows make one column.
        gap = width - used - sum(s.cell_length for s in body)
        end.insert(0, Segment(" " * max(0, gap)))
    # Padding is unstyled so that the cursor background covers the whole line.
    strip = Strip([*head, *body, *tail, *end]).crop_extend(0, width, None)
    return strip.apply_style(base + cursor if cursor is not None else base)


def _body_segments(text: str, kind: str, room: int, style_of: StyleOf) -> list[Segment]:
    if cell_len(text) > room:
        text = set_cell_size(text, max(0, room - 1)) + "…" if room > 0 else ""
    style = style_of(f"branch-panel--{_KIND_CLASS[kind]}")
    for p in _ROLE_PREFIXES:
        if kind in ("user", "assistant") and text.startswith(p):
            # The role is coloured; the message text keeps the normal colour.
            return [Segment(p, style), Segment(text[len(p) :])]
    return [Segment(text, style)]


_KIND_CLASS = {
    "user": "user",
    "assistant": "assistant",
    "error": "error",
    "tool": "tool",
    "tool-error": "error",
    "bash": "tool",
    "custom": "custom",
    "summary": "summary",
    "compaction": "summary",
    "meta": "meta",
}
"""Component class of each :func:`~piview.model.treeview.row_kind`."""
