"""Provides the branch panel's search: rows, or every entry, whose label and text match.

Both searches share one rule (:func:`_matches`): every whitespace token of the query is a
case-insensitive substring of the entry's label plus its row text. Nothing here imports
Textual or Rich.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from piview.model.treefilter import FilterMode, session_visibility
from piview.model.treetext import row_text
from piview.model.treeview import Row

if TYPE_CHECKING:
    from piview.model.session import Session

__all__ = ["search", "search_entries"]


def search(
    session: Session,
    rows: Sequence[Row],
    query: str,
    text: Callable[[Session, int], str] = row_text,
) -> list[Row]:
    """The rows matching ``query``: every whitespace token is a case-insensitive substring
    of the row's label plus its text.

    Args:
        session: the session the rows come from.
        rows: the rows to search (flatten with everything unfolded to search all).
        query: the search text; blank matches every row.
        text: the row-text function (pass a cached one to avoid re-reading the file).
    """
    tokens = query.lower().split()
    if not tokens:
        return list(rows)
    return [r for r in rows if _matches(tokens, r.label, text(session, r.entry))]


def _matches(tokens: list[str], label: str | None, text: str) -> bool:
    """Every token is a substring of the label plus the text (tokens are lower case)."""
    hay = f"{label or ''} {text}".lower()
    return all(t in hay for t in tokens)


def search_entries(
    session: Session,
    query: str,
    mode: FilterMode = "default",
    text: Callable[[Session, int], str] = row_text,
) -> list[int]:
    """The entries, in file order, that pass ``mode`` and match ``query`` as :func:`search`
    matches rows: every whitespace token is a case-insensitive substring of the entry's
    label plus its row text. Folded or not, every entry is looked at; blank matches none."""
    tokens = query.lower().split()
    if not tokens:
        return []
    labels = session.labels
    visible = session_visibility(session, mode)
    return [
        i
        for i in range(len(session))
        if visible[i] and _matches(tokens, labels.get(i), text(session, i))
    ]
