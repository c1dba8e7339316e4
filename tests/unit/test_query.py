"""The one query rule of every search: words, ``re:``, smart case, ``all:``, the byte test."""

from __future__ import annotations

import json

import pytest

from piview.model.query import compose_query, parse_query, toggle_prefix


def test_words_must_all_match_and_every_occurrence_is_a_span() -> None:
    q = parse_query("logo png")
    assert not q.regex and not q.case_sensitive and not q.all_branches
    assert q.matches("read assets/logo.png")
    assert not q.matches("read assets/logo.jpg")
    assert q.spans("logo.png and LOGO.PNG") == [(0, 4), (5, 8), (13, 17), (18, 21)]


def test_smart_case() -> None:
    assert parse_query("logo").matches("LOGO")
    q = parse_query("Logo")
    assert q.case_sensitive
    assert q.matches("the Logo") and not q.matches("the logo")
    # In a regular expression, escapes are not capitals.
    assert not parse_query(r"re:\Slogo\W").case_sensitive
    assert parse_query(r"re:\SLogo").case_sensitive


def test_regex_is_one_pattern() -> None:
    q = parse_query(r"re:log[o0]\.png")
    assert q.regex and q.body == r"log[o0]\.png"
    assert q.matches("assets/LOG0.PNG")
    assert q.spans("a logo.png b log0.png") == [(2, 10), (13, 21)]
    # Space is part of the pattern, not a word separator.
    assert not parse_query("re:logo png").matches("png logo")
    assert parse_query("re:^two$").matches("one\ntwo\nthree")  # per line


def test_bad_regex_matches_nothing_and_says_why() -> None:
    q = parse_query("re:(unclosed")
    assert q.blank and q.error and not q.matches("(unclosed")
    assert q.spans("(unclosed") == []


def test_empty_matches_are_no_spans() -> None:
    q = parse_query("re:x*")
    assert q.matches("abc")  # it does match (empty), as Python says
    assert q.spans("abc") == []
    assert q.spans("axxb") == [(1, 3)]


def test_quoted_phrase_is_one_word() -> None:
    q = parse_query('"logo renders" site')
    assert q.matches("how the logo renders on the docs site")
    assert not q.matches("logo site renders")


def test_prefixes_combine_and_a_backslash_ends_them() -> None:
    q = parse_query("all:re:L\\w+")
    assert q.all_branches and q.regex and q.body == "L\\w+"
    assert q.on_one_branch().text == "re:L\\w+" and not q.on_one_branch().all_branches
    q = parse_query("\\re: hello")
    assert not q.regex and q.matches("re: hello") and not q.matches("hello")
    assert parse_query(compose_query("re:x", regex=False, all_branches=True)).body == "re:x"


def test_toggle_prefix_keeps_the_rest() -> None:
    assert toggle_prefix("logo", "all:") == "all:logo"
    assert toggle_prefix("all:logo", "all:") == "logo"
    assert toggle_prefix("all:logo", "re:") == "all:re:logo"
    assert toggle_prefix("re:all:x", "re:") == "all:x"
    assert toggle_prefix("re:x", "re:") == "x"


@pytest.mark.parametrize(
    ("query", "text"),
    [
        ("logo", "assets/LOGO.png"),
        ("Logo", "the Logo"),
        ("a/b", "path a/b"),
        ("quote", 'say "quote"'),
        ("kelvin", "\u212aelvin"),  # matches k when case is ignored
        ("tab", "a\ttab"),
        ("café", "Café"),
        ('"x y"', "x y"),
        ("re:lo+go", "looogo"),
    ],
)
def test_the_byte_test_never_rules_out_a_match(query: str, text: str) -> None:
    q = parse_query(query)
    assert q.matches(text)
    for ensure_ascii in (False, True):
        line = json.dumps({"message": {"content": text}}, ensure_ascii=ensure_ascii).encode()
        assert q.may_match_line(line), (query, line)
    escaped_slash = json.dumps({"t": text}).replace("/", "\\/").encode()
    assert q.may_match_line(escaped_slash)


def test_the_byte_test_rules_out_plain_lines_without_the_word() -> None:
    q = parse_query("logo")
    assert not q.may_match_line(b'{"message":{"content":"nothing here"}}')
    assert not parse_query("Logo").may_match_line(b'{"content":"logo"}')  # smart case
