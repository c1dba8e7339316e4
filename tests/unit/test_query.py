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


# --------------------------------------------------------------------------- tree shapes


def _chain_with_a_newer_fork(n: int) -> list[str]:
    """A root, a chain of ``n`` user messages under it, and a newer sibling of the chain
    (the file's leaf): the chain is off the branch shown and ``n`` deep."""
    lines = [
        '{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}'
    ]

    def entry(i: int, parent: int | None, text: str, ts: str) -> str:
        return json.dumps(
            {
                "type": "message",
                "id": f"e{i}",
                "parentId": f"e{parent}" if parent is not None else None,
                "timestamp": ts,
                "message": {"role": "user", "content": [{"type": "text", "text": text}]},
            }
        )

    lines.append(entry(0, None, "root", "2026-01-01T00:00:00.000Z"))
    for i in range(1, n + 1):
        lines.append(entry(i, i - 1, f"needle {i}", "2026-01-01T00:00:01.000Z"))
    lines.append(entry(n + 1, 0, "the branch shown", "2026-01-01T00:00:02.000Z"))
    return lines


@pytest.mark.scaling  # a ratio of times: the scaling tier, not the default run
def test_search_over_all_branches_names_leaves_in_linear_time(write_session) -> None:
    """Each hit of a deep chain needs its newest leaf: walking down from each would be
    quadratic. Timed as a ratio of two runs in this process, never as an absolute time."""
    import time

    from piview.model import load_session
    from piview.render.search import LeafFinder, branch_info, scan_all

    def run(n: int) -> float:
        s = load_session(write_session(_chain_with_a_newer_fork(n), name=f"c{n}.jsonl"))
        shown = s.tree.path(s.tree.leaf)
        best = float("inf")
        for _ in range(3):
            t = time.perf_counter()
            finder = LeafFinder(s)
            leaves = [finder(i) for i in range(len(s))]
            best = min(best, time.perf_counter() - t)
        assert leaves[1] == leaves[n] == n  # every chain entry: the chain's end
        assert leaves[0] == n + 1  # the root: its newest child's leaf
        assert branch_info(s, n).words == "user: needle 1"  # the chain's own part
        if n <= 2000:  # and the scan itself gives each chain entry that leaf
            hits = [
                h
                for _, b in scan_all(
                    s, parse_query("needle"), shown_path=shown, shown_leaf=s.tree.leaf
                )
                for h in b
            ]
            assert len(hits) == n and {h.leaf for h in hits} == {n}
        return best

    run(2000)
    small, big = run(20_000), run(80_000)
    assert big / small < 8, (small, big)  # linear: about 4; walking down each: about 16
