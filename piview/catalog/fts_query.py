"""Provides the search index's queries: what the user typed → an FTS5 ``MATCH`` expression,
and the words to highlight in a snippet.

A query FTS5 cannot parse, or of operators only, is searched as its plain words, so typing
never fails. A query is bounded (:data:`MAX_QUERY_CHARS`, :data:`MAX_PREFIXES`): each prefix
expands to every indexed word it starts, and thousands of them take minutes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_QUERY_CHARS = 1000
"""A longer query is refused (:attr:`FtsQuery.problem`)."""
MAX_PREFIXES = 16
"""At most this many ``prefix*`` terms (each costs a scan of the words it starts)."""

TOOLS_PREFIX = "tools:"
"""A query starting with this searches tool calls and tool output as well."""

_TOKEN = re.compile(r'"([^"]*)"?|([^\s"()]+)')
_OPERATORS = {"AND", "OR", "NOT", "NEAR"}
_WORD = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True, slots=True)
class FtsQuery:
    """A parsed query: the ``MATCH`` expression and the words to highlight."""

    text: str
    """As typed."""
    match: str
    """The FTS5 expression (empty: nothing to search)."""
    fallback: str
    """The same query as plain quoted words, for when FTS5 rejects :attr:`match`."""
    terms: tuple[tuple[str, bool], ...]
    """``(word or phrase, is a prefix)`` to highlight, lower case."""
    tools: bool
    problem: str | None = None
    """Why the query is not searched (too long, too many prefixes); it is then blank."""

    @property
    def blank(self) -> bool:
        """Nothing to search for."""
        return not self.match

    def pattern(self) -> re.Pattern[str] | None:
        """A regular expression finding every term (case ignored), or None."""
        parts = []
        for term, prefix in self.terms:
            words = _WORD.findall(term)
            if not words:
                continue
            body = r"\W+".join(re.escape(w) for w in words)
            parts.append(rf"\b{body}" + (r"\w*" if prefix else r"\b"))
        if not parts:
            return None
        return re.compile("|".join(sorted(parts, key=len, reverse=True)), re.IGNORECASE)


def _quote(word: str) -> str:
    return '"' + word.replace('"', '""') + '"'


def parse_fts_query(text: str, *, tools: bool = False, prefix_last: bool = False) -> FtsQuery:
    """The query typed as ``text``; ``prefix_last`` makes its last bare word a prefix (the
    picker searches as the user types)."""
    body = text.strip()
    if body.lower().startswith(TOOLS_PREFIX):
        body, tools = body[len(TOOLS_PREFIX) :].strip(), True
    if len(body) > MAX_QUERY_CHARS:
        problem = f"the query is {len(body):,} characters long (at most {MAX_QUERY_CHARS:,})"
        return FtsQuery(text, "", "", (), tools, problem)
    terms: list[tuple[str, bool]] = []
    plain: list[str] = []
    tokens = list(_TOKEN.finditer(body))
    for k, m in enumerate(tokens):
        phrase, word = m.group(1), m.group(2)
        if phrase is not None:
            if phrase.strip():
                terms.append((phrase.lower(), False))
                plain.append(_quote(phrase))
            continue
        if word in _OPERATORS:
            continue
        prefix = word.endswith("*")
        bare = word.rstrip("*")
        if ":" in bare:  # a column filter (``text:``), or a word FTS5 would read as one
            bare = bare.rsplit(":", 1)[-1]
        if not _WORD.search(bare):
            continue
        last = k == len(tokens) - 1
        terms.append((bare.lower(), prefix or (prefix_last and last)))
        plain.append(_quote(bare) + ("*" if prefix or (prefix_last and last) else ""))
    match = body
    if prefix_last and tokens and tokens[-1].group(2) and terms:
        tail = tokens[-1].group(2)
        if tail not in _OPERATORS and not tail.endswith("*") and _WORD.fullmatch(tail):
            match = body[: tokens[-1].start()] + tail + "*"
    if not terms and tokens and all(m.group(2) in _OPERATORS for m in tokens):
        # Operators only: FTS5 cannot parse them, so they are the words searched for.
        terms = [(m.group(2).lower(), False) for m in tokens]
        plain = [_quote(m.group(2)) for m in tokens]
        match = " ".join(plain)
    prefixes = sum(1 for _, prefix in terms if prefix)
    if prefixes > MAX_PREFIXES:
        problem = f"the query has {prefixes:,} prefix terms (at most {MAX_PREFIXES})"
        return FtsQuery(text, "", "", (), tools, problem)
    fallback = " ".join(plain)
    if not terms:
        return FtsQuery(text, "", "", (), tools)
    if not tools:
        match, fallback = f"text : ({match})", f"text : ({fallback})"
    return FtsQuery(text, match, fallback, tuple(terms), tools)


def snippet(
    text: str, pattern: re.Pattern[str] | None, width: int = 120
) -> tuple[str, list[tuple[int, int]]]:
    """One line of ``text`` around its first match, and the ``(start, end)`` of every match
    in that line; the start of the text when nothing matches."""
    flat = " ".join(text.split())
    first = pattern.search(flat) if pattern is not None else None
    if first is None:
        line = flat[:width]
        return line + ("…" if len(flat) > width else ""), []
    start = max(0, first.start() - width // 4)
    if start:
        space = flat.rfind(" ", 0, start + 1)
        start = space + 1 if space >= 0 and start - space < 15 else start
    line = flat[start : start + width]
    lead = "…" if start else ""
    tail = "…" if start + width < len(flat) else ""
    spans = [
        (m.start() + len(lead), m.end() + len(lead))
        for m in pattern.finditer(line)  # type: ignore[union-attr]
        if m.end() > m.start()
    ]
    return lead + line + tail, spans
