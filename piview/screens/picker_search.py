"""Provides the picker's full-text hits as it shows them: :func:`hit_text` a hit's snippet in
the session column, :func:`hit_query` the words a hit highlights in the transcript (the
search itself is :class:`piview.screens.picker.PickerScreen`'s).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

from piview.render.sanitize import sanitize_line

if TYPE_CHECKING:
    from piview.catalog.fts import Hit
    from piview.model.query import Query


def hit_query(text: str) -> Query:
    """The transcript search (piview's own rule) that highlights an FTS query's words."""
    from piview.catalog.fts_query import parse_fts_query
    from piview.model.query import parse_query

    fq = parse_fts_query(text)
    words = [f'"{t}"' if " " in t else t for t, _prefix in fq.terms]
    return parse_query(" ".join(words))


def hit_text(hit: Hit, width: int = 0) -> Text:
    """A hit's snippet, its matched words highlighted, as the session column shows it:
    in ``width`` cells (0: any), cut so that the first match shows."""
    line = sanitize_line(hit.snippet)
    spans = list(hit.spans) if len(line) == len(hit.snippet) else []
    room = width - 2
    if room > 0 and spans and spans[0][1] > room:
        # Cut the lead: the first match a fifth of the way in, from a word's start.
        cut = max(0, spans[0][0] - room // 5)
        space = line.rfind(" ", 0, cut + 1)
        cut = space + 1 if space >= 0 and cut - space < 12 else cut
        line = "…" + line[cut:]
        spans = [(a - cut + 1, b - cut + 1) for a, b in spans if a >= cut]
    out = Text("» ", style="dim", overflow="ellipsis", no_wrap=True)
    out.append(line)
    for a, b in spans:
        out.stylize("bold reverse", a + 2, b + 2)
    return out
