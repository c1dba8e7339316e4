"""Provides the transcript's search (:mod:`piview.model.query`'s rule): :class:`Search`, one
search's matches and where it stands, :func:`find_matches`, the worker's pass over the blocks,
and :func:`highlight`, which marks the matches in a drawn line.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip
from textual.worker import get_current_worker

from piview.render.items import Item

if TYPE_CHECKING:
    from piview.model import Session
    from piview.model.query import Query


@dataclass(slots=True)
class Search:
    """One search over a branch's blocks: the positions of the blocks found so far."""

    query: Query
    target: tuple[int, int] | None = None
    """``(entry, part)`` of the block to focus when found, instead of the first match after
    the cursor (part -1: any of the entry's blocks)."""

    running: bool = False
    matches: list[int] = field(default_factory=list)
    hits: set[int] = field(default_factory=set)
    current: int = -1
    """Which of :attr:`matches` is focused."""

    def add(self, found: list[int], done: bool, items: Sequence[Item], cursor: int) -> int | None:
        """Take the positions ``found`` (the last batch when ``done``); the block to focus
        now, if any: the target, else the first match after ``cursor``."""
        first = not self.matches and bool(found)
        self.matches.extend(found)
        self.hits.update(found)
        if done:
            self.running = False
        if self.target is None:
            return self.step(cursor, 1) if first else None
        entry, part = self.target
        k = next(
            (k for k in found if items[k].entry == entry and part in (items[k].part, -1)), None
        )
        if k is not None:
            self.target = None
            self.current = len(self.matches) - len(found) + found.index(k)
            return k
        if done:
            self.target = None
            return self.step(cursor, 1)
        return None

    def step(self, cursor: int, step: int) -> int | None:
        """The next (or previous) match after ``cursor``, wrapping around, made the current
        one; None without matches."""
        m = self.matches
        if not m:
            return None
        if step > 0:
            self.current = next((j for j, k in enumerate(m) if k > cursor), 0)
        else:
            self.current = next((j for j in range(len(m) - 1, -1, -1) if m[j] < cursor), len(m) - 1)
        return m[self.current]


def find_matches(
    session: Session, items: Sequence[Item], query: Query, send: Callable[[list[int], bool], None]
) -> None:
    """In a thread worker: ``send`` the positions of the blocks of ``items`` that match
    ``query`` in batches, the last with True (none once the worker is cancelled)."""
    from piview.render.search import item_matches

    worker = get_current_worker()
    checked: dict[int, bool] = {}
    batch: list[int] = []
    last = time.monotonic()
    for k, item in enumerate(items):
        if worker.is_cancelled:
            return
        if not item_matches(session, item, query, checked):
            continue
        batch.append(k)
        now = time.monotonic()
        if now - last > 0.1:
            send(batch, False)
            batch, last = [], now
    if not worker.is_cancelled:
        send(batch, True)


def highlight(strip: Strip, query: Query) -> Strip:
    """``strip`` with every match of ``query`` in reverse video; the text, the other styles
    and the length stay as they are."""
    spans = query.spans(strip.text)
    if not spans:
        return strip
    mark = Style(reverse=True, bold=True)
    out: list[Segment] = []
    pos = 0  # character offset of the segment in strip.text
    k = 0
    for seg in strip:
        text, style, control = seg
        end = pos + len(text)
        while k < len(spans) and spans[k][1] <= pos:
            k += 1
        if control or k == len(spans) or spans[k][0] >= end:
            out.append(seg)
            pos = end
            continue
        at = pos
        j = k
        while j < len(spans) and spans[j][0] < end:
            a, b = max(spans[j][0], pos), min(spans[j][1], end)
            if a > at:
                out.append(Segment(text[at - pos : a - pos], style))
            out.append(Segment(text[a - pos : b - pos], style + mark if style else mark))
            at = b
            if spans[j][1] > end:
                break
            j += 1
        if at < end:
            out.append(Segment(text[at - pos :], style))
        pos = end
    return Strip(out, strip.cell_length)
