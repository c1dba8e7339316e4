r"""Provides :func:`parse_query` and :class:`Query`: the one rule every search follows.

Every word (a ``"quoted phrase"`` is one) must match, or ``re:`` one RE2 expression; case is
ignored unless the query has a capital; ``all:`` asks for every branch; a backslash ends the
prefixes."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Protocol

REGEX_PREFIX = "re:"
ALL_PREFIX = "all:"

_WORD = re.compile(r'"([^"]*)"|(\S+)')
_ESCAPE = re.compile(r"\\.", re.DOTALL)
_BACKREF_ERROR = re.compile(r"escape sequence: \\\d")  # RE2's word for \1 (a backreference)

# Letters that match an ASCII letter when case is ignored, yet are not ASCII themselves
# (U+0130, U+0131, U+017F, U+212A): a line holding one is never ruled out by the byte check.
_FOLDS_TO_ASCII = ("\u0130", "\u0131", "\u017f", "\u212a")
_FOLD_BYTES = tuple(c.encode() for c in _FOLDS_TO_ASCII)
_FOLDING = re.compile(rb"[iks]")  # the ASCII letters they fold to (words are lower case)


class Match(Protocol):
    """What a search reads of a match (``re.Match`` and RE2's match alike)."""

    def start(self) -> int: ...  # noqa: D102
    def end(self) -> int: ...  # noqa: D102


class Pattern(Protocol):
    """A compiled term: a Python ``re`` pattern (words) or an RE2 one (``re:``)."""

    def search(self, text: str) -> Match | None: ...  # noqa: D102
    def finditer(self, text: str) -> Iterator[Match]: ...  # noqa: D102


@dataclass(frozen=True, slots=True)
class Query:
    """A parsed search query (made by :func:`parse_query`): immutable, safe to share with a
    worker."""

    text: str
    """The query as typed, prefixes included (what the status line shows)."""
    terms: tuple[Pattern, ...] = ()
    """Every one must match somewhere in a text; empty for a blank or invalid query."""
    regex: bool = False
    """The query is a regular expression (``re:``)."""
    case_sensitive: bool = False
    """Smart case: the query has a capital letter."""
    all_branches: bool = False
    """Search every branch (``all:``), not only the one shown."""
    error: str | None = None
    """Why the regular expression does not compile, if it does not."""
    _literals: tuple[bytes | None, ...] = field(default=(), repr=False)
    """Each term as the bytes it must appear as in a JSON line; None when that is not sure."""

    @property
    def body(self) -> str:
        """The query without its prefixes."""
        return _split_prefixes(self.text)[0]

    def on_one_branch(self) -> Query:
        """This query without ``all:``: the same search, on the branch shown."""
        if not self.all_branches:
            return self
        return parse_query(compose_query(self.body, regex=self.regex, all_branches=False))

    @property
    def blank(self) -> bool:
        """Nothing to look for (blank, or a regular expression that does not compile)."""
        return not self.terms

    def matches(self, text: str) -> bool:
        """True when every term matches somewhere in ``text``."""
        return bool(self.terms) and all(t.search(text) is not None for t in self.terms)

    def spans(self, text: str) -> list[tuple[int, int]]:
        """``(start, end)`` character offsets of every match of every term in ``text``,
        sorted and merged where they overlap; empty matches are left out."""
        found = sorted(
            (m.start(), m.end())
            for t in self.terms
            for m in t.finditer(text)
            if m.end() > m.start()
        )
        merged: list[tuple[int, int]] = []
        for a, b in found:
            if merged and a <= merged[-1][1]:
                if b > merged[-1][1]:
                    merged[-1] = (merged[-1][0], b)
            else:
                merged.append((a, b))
        return merged

    def may_match_line(self, raw: bytes) -> bool:
        """False only when ``raw``, one JSON line of the file, surely holds no match (each
        plain ASCII word must appear in the bytes; anything else is let through)."""
        literals = [lit for lit in self._literals if lit is not None]
        if not literals:
            return bool(self.terms)
        if b"\\u" in raw:
            return True
        hay = raw if self.case_sensitive else raw.lower()
        slash: bool | None = None
        for lit in literals:
            if lit in hay:
                continue
            if b"/" in lit:  # JSON may write "/" as "\\/"
                if slash is None:
                    slash = b"\\/" in raw
                if slash:
                    continue
            # The word is not there as ASCII; it may still be there with a letter that
            # folds to an ASCII one (only i, k and s have such letters).
            if self.case_sensitive or not _FOLDING.search(lit) or raw.isascii():
                return False
            return any(f in raw for f in _FOLD_BYTES)
        return True


def parse_query(text: str) -> Query:
    """Parse ``text`` as typed in a search field into a :class:`Query` (never raises)."""
    body, regex, scope = _split_prefixes(text)
    if regex:
        case = _has_capital(_ESCAPE.sub("", body))
        if not body:
            return Query(text, regex=True, all_branches=scope)
        pattern, error = compile_regex(body, case_sensitive=case)
        if pattern is None:
            return Query(text, regex=True, all_branches=scope, error=error)
        return Query(text, (pattern,), True, case, scope, _literals=(None,))
    words = [m.group(1) if m.group(1) is not None else m.group(2) for m in _WORD.finditer(body)]
    words = [w for w in words if w]
    case = _has_capital(body)
    flags = 0 if case else re.IGNORECASE
    terms = tuple(re.compile(re.escape(w), flags) for w in words)
    literals = tuple(_literal(w if case else w.lower()) for w in words)
    return Query(text, terms, False, case, scope, _literals=literals)


def compile_regex(body: str, *, case_sensitive: bool) -> tuple[Pattern | None, str]:
    """``body`` compiled as a user's regular expression (``^``/``$`` at every line), or
    ``(None, why not)``. RE2 runs in linear time, so no pattern can freeze the viewer; ``re``
    is only the fallback of a broken install.
    """
    try:
        import re2
    except ImportError:  # pragma: no cover - google-re2 is a dependency
        flags = re.MULTILINE | (0 if case_sensitive else re.IGNORECASE)
        try:
            return re.compile(body, flags), ""
        except (re.error, OverflowError, RecursionError) as exc:
            return None, str(exc)
    options = re2.Options()
    options.log_errors = False  # RE2 would write its errors on stderr, over the screen
    options.case_sensitive = case_sensitive
    try:
        compiled: Pattern = re2.compile("(?m)" + body, options)
    except re2.error as exc:
        why = exc.args[0] if exc.args else "invalid"
        why = why.decode("utf-8", "replace") if isinstance(why, bytes) else str(why)
        if "perl operator" in why or _BACKREF_ERROR.search(why):
            why += " (backreferences and lookaround are not supported)"
        return None, why
    except (TypeError, ValueError, OverflowError) as exc:
        return None, str(exc)
    return compiled, ""


def compose_query(body: str, *, regex: bool, all_branches: bool) -> str:
    """The text that :func:`parse_query` reads back as ``body`` with these prefixes."""
    head = (ALL_PREFIX if all_branches else "") + (REGEX_PREFIX if regex else "")
    if not regex and body.startswith((REGEX_PREFIX, ALL_PREFIX, "\\")):
        head += "\\"  # the body's own prefix-like start is text
    return head + body


def toggle_prefix(text: str, prefix: str) -> str:
    """``text`` with ``prefix`` (``re:`` or ``all:``) switched on or off, the rest kept."""
    body, regex, scope = _split_prefixes(text)
    if prefix == REGEX_PREFIX:
        regex = not regex
    elif prefix == ALL_PREFIX:
        scope = not scope
    return compose_query(body, regex=regex, all_branches=scope)


def _split_prefixes(text: str) -> tuple[str, bool, bool]:
    """``(body, regex, all branches)`` of a query as typed."""
    body = text.strip()
    regex = scope = False
    while True:
        if body.startswith(REGEX_PREFIX) and not regex:
            regex, body = True, body[len(REGEX_PREFIX) :]
        elif body.startswith(ALL_PREFIX) and not scope:
            scope, body = True, body[len(ALL_PREFIX) :].lstrip()
        else:
            break
    if body.startswith("\\") and not regex:
        body = body[1:]
    return body, regex, scope


def _has_capital(text: str) -> bool:
    return any(c.isupper() for c in text)


def _literal(word: str) -> bytes | None:
    """``word`` as bytes in a JSON line, when it can only appear as itself there."""
    if word.isascii() and word.isprintable() and '"' not in word and "\\" not in word:
        return word.encode()
    return None
