"""Provides :func:`item_lines` and :func:`fast_item_lines`: the transcript's lines of one block,
laid out by :mod:`piview.render.fastlayout` instead of Rich's chain of generators.

``console.render_lines`` of :func:`~piview.render.items.render_item` laid the content out,
then split, styled and padded the lines again. Here the content is laid out once by
:func:`~piview.render.fastlayout.layout`, then styled and padded as ``render_lines`` does: the
same segments, which the tests compare with :func:`rich_item_lines`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Group
from rich.segment import Segment
from rich.style import Style

from piview.render.items import _failure, _parts, _roles, render_item

if TYPE_CHECKING:
    from rich.console import Console

    from piview.model.session import Session
    from piview.render.item import Item

_DIM = Style(dim=True)


def item_lines(
    session: Session, item: Item, *, expanded: bool, width: int, console: Console
) -> list[list[Segment]]:
    """The lines of one item at ``width``, as the transcript draws them (hidden ones dim),
    laid out by :func:`fast_item_lines` (Rich's lines of :func:`render_item`, faster).

    It lives here, not in :mod:`piview.render.items`, so that items does not import this
    module back (no import cycle)."""
    return fast_item_lines(session, item, expanded=expanded, width=width, console=console)


def fast_item_lines(
    session: Session, item: Item, *, expanded: bool, width: int, console: Console
) -> list[list[Segment]]:
    """The lines of one item at ``width``, as the transcript draws them (hidden ones dim):
    :func:`rich_item_lines`' segments, laid out faster."""
    layout = _roles().layout
    options = console.options.update_width(width)
    inner = options.reset_height()
    w = max(20, int(width))
    try:
        head, body = _parts(session, item, expanded, w)
    except Exception as exc:  # noqa: BLE001 - a bad entry must never break the view
        lines = layout(console, _failure(item, exc, w), inner)
    else:
        content = Group(head, body) if body is not None else Group(head)
        try:
            lines = layout(console, content, inner)
        except Exception as exc:  # noqa: BLE001 - as render_item's _Safe: a one-line notice
            lines = layout(console, _failure(item, exc, options.max_width), inner)
    base = _DIM if item.hidden else None
    if base is not None:
        # Segment.apply_style: the style under every segment but a control code.
        add = base.__add__
        lines = [[Segment(t, None if c else add(s), c) for t, s, c in line] for line in lines]
    adjust = Segment.adjust_line_length
    max_width = options.max_width
    return [adjust(line, max_width, base, pad=True) for line in lines]


def rich_item_lines(
    session: Session, item: Item, *, expanded: bool, width: int, console: Console
) -> list[list[Segment]]:
    """The lines of one item as Rich lays out :func:`render_item`'s renderable (the
    reference :func:`fast_item_lines` is compared with)."""
    renderable = render_item(session, item, expanded=expanded, width=width)
    base = _DIM if item.hidden else None
    return console.render_lines(
        renderable, console.options.update_width(width), style=base, pad=True
    )
