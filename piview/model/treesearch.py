"""Provides the branch panel's search: rows, or every entry, whose label and text match
(:mod:`piview.model.query`'s rule).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from piview.model.query import Query, parse_query
from piview.model.treefilter import FilterMode, session_visibility
from piview.model.treetext import row_text
from piview.model.treeview import Row

if TYPE_CHECKING:
    from piview.model.session import Session


def search(
    session: Session,
    rows: Sequence[Row],
    query: str,
    text: Callable[[Session, int], str] = row_text,
) -> list[Row]:
    """The ``rows`` of ``session`` matching ``query`` in their label plus ``text(row)``
    (blank matches every row)."""
    q = parse_query(query)
    if not q.body.strip():
        return list(rows)
    return [r for r in rows if _matches(q, r.label, text(session, r.entry))]


def _matches(query: Query, label: str | None, text: str) -> bool:
    """The query matches the label plus the text."""
    return query.matches(f"{label or ''} {text}")


def search_entries(
    session: Session,
    query: str,
    mode: FilterMode = "default",
    text: Callable[[Session, int], str] = row_text,
) -> list[int]:
    """The entries, in file order, that pass ``mode`` and match ``query`` as :func:`search`
    matches rows, folded or not; blank (or a bad regular expression) matches none."""
    q = parse_query(query)
    if q.blank:
        return []
    labels = session.labels
    visible = session_visibility(session, mode)
    return [
        i
        for i in range(len(session))
        if visible[i] and _matches(q, labels.get(i), text(session, i))
    ]
