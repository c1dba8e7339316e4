"""End to end, on real Pi files: search leaves every line whole; search over all branches.

The real ``piview`` command in tmux, on the corpus written by Pi 0.73 (skipped without it).
"""

from __future__ import annotations

import re
import time

import pytest

from tests.conftest import corpus_files
from tests.e2e.conftest import Tmux, status_line

pytestmark = pytest.mark.e2e

_CORPUS = {p.name: p for p in corpus_files() if p.parent.name == "pi-0.73"}
needs_corpus = pytest.mark.skipif(
    not {"tools.jsonl", "branches.jsonl"} <= set(_CORPUS), reason="no ../shared/corpus/pi-0.73"
)


def _body(screen: str) -> list[str]:
    """The transcript's lines: the screen between the title and the status line."""
    lines = screen.splitlines()
    end = next(k for k, line in enumerate(lines) if re.search(r"\bblock \d+/\d+", line))
    return lines[1:end]


def _settled(tmux: Tmux) -> str:
    """The screen once two captures 100 ms apart agree (a scroll has finished)."""
    last = tmux.screen()
    for _ in range(50):
        time.sleep(0.1)
        now = tmux.screen()
        if now == last:
            return now
        last = now
    return last


@needs_corpus
def test_search_keeps_the_matching_lines_whole(tmux: Tmux) -> None:
    """/logo on tools.jsonl once showed '▸ read assets/logo' for the whole header line."""
    tmux.start(str(_CORPUS["tools.jsonl"]))
    tmux.wait_for(r"block \d+/\d+", regex=True, timeout=20)
    tmux.send("/")
    tmux.wait_for("search this branch")
    tmux.type("logo")
    tmux.send("Enter")
    screen = tmux.wait_for(r"/logo: \d+/\d+", regex=True)
    m = re.search(r"/logo: \d+/(\d+)", screen)
    assert m and int(m.group(1)) >= 3, screen
    for k in range(1, int(m.group(1)) + 1):
        tmux.wait_for(rf"/logo: {k}/", regex=True)
        with_search = _body(_settled(tmux))
        tmux.send("Escape")  # clears the search: the same view, nothing marked
        tmux.wait_until(lambda s: "/logo" not in status_line(s), what="cleared")
        plain = _body(_settled(tmux))
        assert with_search == plain
        tmux.send("/")
        tmux.wait_for("⏎ Find")
        tmux.send("Enter")  # the same query again: it focuses the match after the cursor
    assert any(re.search(r"logo\.png", line) for line in plain), "\n".join(plain)


@needs_corpus
def test_search_all_branches_and_show_a_match_on_its_branch(tmux: Tmux) -> None:
    """tab in the field asks for all branches; the list names the branches; enter shows the
    chosen match on its branch, with that branch's search running."""
    tmux.start(str(_CORPUS["branches.jsonl"]))
    screen = tmux.wait_for(r"block \d+/\d+", regex=True, timeout=20)
    before = re.search(r"branch to (\S+)", status_line(screen))
    assert before, screen
    tmux.send("/")
    tmux.wait_for("search this branch")
    tmux.send("Tab")
    tmux.type("bucket")
    tmux.wait_for("all:bucket")
    tmux.send("Enter")
    screen = tmux.wait_for(r"/all:bucket: \d+ matches on [2-9] branches", regex=True)
    assert "(shown)" in screen and "⑂" in screen
    # Down to the first result of another branch than the one shown.
    lines = screen.splitlines()
    heads = [k for k, line in enumerate(lines) if "⑂" in line]
    other = next(k for k in heads if "(shown)" not in lines[k])
    leaf = re.search(r"⑂ (\S+)", lines[other])
    assert leaf
    results_before = sum(
        1 for line in lines[heads[0] + 1 : other] if "⑂" not in line and line.strip("│ ")
    )
    for _ in range(results_before):
        tmux.send("j")
    tmux.send("Enter")
    screen = tmux.wait_for(rf"branch to {leaf.group(1)}", regex=True)
    tmux.wait_for("/bucket")  # the status line may be cut before the count
    assert "search all branches" not in tmux.screen()
