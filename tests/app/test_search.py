"""Pilot tests of search: lines stay whole, smart case, regex, and the search over all branches."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from piview.app import make_app
from piview.model import load_session
from piview.model.query import parse_query
from piview.screens.search_results import SearchResultsScreen
from piview.widgets.keybar import KeyBar
from piview.widgets.search_field import SearchField
from piview.widgets.search_results import SearchResults
from piview.widgets.transcript import Transcript
from piview.widgets.transcript_search import highlight
from tests.conftest import corpus_files, fixture

SIZE = (100, 40)
TOOLS = next((p for p in corpus_files() if p.name == "tools.jsonl"), None)

H = '{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}'


def _user(i: int, text: str, parent: int | None) -> str:
    return json.dumps(
        {
            "type": "message",
            "id": f"e{i}",
            "parentId": f"e{parent}" if parent is not None else None,
            "timestamp": f"2026-01-01T00:00:{i:02d}.000Z",
            "message": {"role": "user", "content": [{"type": "text", "text": text}]},
        }
    )


async def _wait(pilot, done) -> None:
    for _ in range(200):
        await pilot.pause(0.02)
        if done():
            return
    raise AssertionError("timed out")


def _screen_lines(t: Transcript) -> list[Strip]:
    return [t.render_line(y) for y in range(t.scrollable_content_region.height)]


def _reversed_text(strips: list[Strip]) -> list[str]:
    return [seg.text for s in strips for seg in s if seg.style is not None and seg.style.reverse]


async def _search(pilot, t: Transcript, text: str) -> None:
    await pilot.press("slash", *text, "enter")
    await _wait(pilot, lambda: not t.searching)
    await pilot.pause()


# --------------------------------------------------------------------------- whole lines


@pytest.mark.parametrize(
    "path",
    [
        pytest.param(fixture("images.jsonl"), id="images-fixture"),
        pytest.param(
            TOOLS,
            id="corpus-tools",
            marks=[
                pytest.mark.corpus,
                pytest.mark.skipif(TOOLS is None, reason="no ../shared/corpus"),
            ],
        ),
    ],
)
async def test_search_highlights_inside_the_whole_unchanged_line(path: Path) -> None:
    """/logo used to cut every matching line right after the match."""
    app = make_app(load_session(path))
    async with app.run_test(size=SIZE) as pilot:
        t = app.screen.query_one(Transcript)
        await _search(pilot, t, "logo")
        state = t.search_state
        assert state is not None and state[2] >= 1
        seen = 0
        for _ in range(state[2]):
            await pilot.pause()
            with_search = _screen_lines(t)
            marked = _reversed_text(with_search)
            assert marked and all(m.lower() == "logo" for m in marked)
            hits = t._search.hits  # noqa: SLF001
            t._search.hits = set()  # noqa: SLF001 - the same view, nothing marked
            plain = _screen_lines(t)
            t._search.hits = hits  # noqa: SLF001
            assert [s.text for s in with_search] == [s.text for s in plain]
            assert [s.cell_length for s in with_search] == [s.cell_length for s in plain]
            # Lines where text follows the match: those the old highlight cut.
            seen += sum(bool(re.search(r"logo\S*\s+\S", s.text, re.IGNORECASE)) for s in plain)
            await pilot.press("n")
        assert seen  # a line with text after the match was checked


def test_highlight_keeps_text_styles_and_wide_characters() -> None:
    red = Style(color="red")
    strip = Strip([Segment("画像 logo", red), Segment(".png 32×32", None)])
    out = highlight(strip, parse_query("LOGO.png"))  # smart case: no match
    assert out is strip
    out = highlight(strip, parse_query("logo.png 画"))
    assert out.text == strip.text and out.cell_length == strip.cell_length
    marked = [seg.text for seg in out if seg.style is not None and seg.style.reverse]
    assert marked == ["画", "logo", ".png"]
    assert all(seg.style.color == red.color for seg in out if seg.text in ("画", "logo"))
    # A match at the very end, and a regular expression.
    tail = highlight(strip, parse_query(r"re:\d+×\d+$"))
    assert tail.text == strip.text and [s.text for s in tail][-1] == "32×32"


# --------------------------------------------------------------------------- rules


async def test_transcript_search_uses_smart_case_and_regex(write_session) -> None:
    path = write_session(
        [H, _user(1, "the Logo is blue", None), _user(2, "a logo again", 1), _user(3, "LOG0", 2)]
    )
    app = make_app(load_session(path))
    async with app.run_test(size=SIZE) as pilot:
        t = app.screen.query_one(Transcript)
        await _search(pilot, t, "logo")
        assert t.search_state == ("logo", 1, 2)  # from the end, wrapped to the first
        await pilot.press("escape")
        await _search(pilot, t, "Logo")
        assert t.search_state is not None and t.search_state[2] == 1
        assert t.current_entry == 0
        await pilot.press("escape")
        await _search(pilot, t, r"re:log[o0]\b")
        assert t.search_state is not None and t.search_state[2] == 3
        assert _reversed_text(_screen_lines(t))
        await pilot.press("escape")
        await _search(pilot, t, "re:(bad")
        assert t.search_state == ("re:(bad", 0, 0) and not t.searching


async def test_field_keys_toggle_scope_and_regex_and_show_in_the_footer() -> None:
    app = make_app(load_session(fixture("tree_branches.jsonl")))
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("slash", *"jitter")
        await pilot.pause()
        field = app.screen.query_one(SearchField)
        line = app.screen.query_one(KeyBar).render().plain
        assert "tab All branches" in line and "^r Regex" in line
        await pilot.press("tab")
        assert field.value == "all:jitter" and field.has_focus
        await pilot.press("ctrl+r")
        assert field.value == "all:re:jitter"
        await pilot.press("tab", "ctrl+r")
        assert field.value == "jitter"


# --------------------------------------------------------------------------- all branches


async def test_search_over_all_branches_lists_branches_and_enter_switches() -> None:
    app = make_app(load_session(fixture("tree_branches.jsonl")))
    async with app.run_test(size=SIZE) as pilot:
        s = app.session
        t = app.screen.query_one(Transcript)
        shown = set(t.path)
        shown_leaf = app.screen.leaf
        await _search(pilot, t, "jitter")
        on_branch = t.search_state[2] if t.search_state else 0
        await pilot.press("escape")
        await pilot.press("slash", "ctrl+u", "tab", *"jitter", "enter")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SearchResultsScreen)
        results = screen.query_one(SearchResults)
        await _wait(pilot, lambda: not results.running)
        hits = results.hits
        assert len(hits) > on_branch
        for h in hits:  # shown on the branch shown when they are on it
            assert (h.leaf == shown_leaf) if h.entry in shown else (h.leaf != shown_leaf)
        assert len({h.leaf for h in hits}) >= 2  # the full-jitter and decorrelated branches
        for h in hits:
            assert s.tree.is_ancestor(h.entry, h.leaf)
        lines = [results.render_line(y).text for y in range(len(results._rows))]  # noqa: SLF001
        # The branch is named: leaf id, label, first words of its own part.
        decorrelated = s.find("cbcbd688")
        assert any(
            s.ids[decorrelated][:8] in ln and "[decorrelated-jitter]" in ln and "Decorrelated" in ln
            for ln in lines
        )
        assert "/all:jitter:" in str(screen.query_one("#summary").render())
        # A branch named again later in the list (results come in file order) says so.
        heads = [ln for ln in lines if ln.startswith("⑂")]
        named: set[str] = set()
        for ln in heads:
            leaf = ln.split()[1]
            assert ("(continued)" in ln) == (leaf in named), ln
            named.add(leaf)
        # Choose the result on the full-jitter branch.
        k = next(k for k, h in enumerate(hits) if s.ids[h.entry] == "a5d544a8")
        for _ in range(k):
            await pilot.press("j")
        await pilot.press("enter")
        await _wait(pilot, lambda: not t.searching and t.search_state is not None)
        await pilot.pause()
        assert not isinstance(app.screen, SearchResultsScreen)
        assert app.screen.leaf == hits[k].leaf == s.find("a5d544a8")
        assert t.current_entry == hits[k].entry
        state = t.search_state
        assert state is not None and state[0] == "jitter" and state[2] >= 1
        assert app.screen.query_one(Transcript).has_focus


async def test_search_over_all_branches_quits_and_closes() -> None:
    app = make_app(load_session(fixture("tree_branches.jsonl")))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("slash", *"all:jitter", "enter")
        await pilot.pause()
        assert isinstance(app.screen, SearchResultsScreen)
        await pilot.press("escape")
        assert not isinstance(app.screen, SearchResultsScreen)
        await pilot.press("slash", "enter")  # the field keeps the query
        await pilot.pause()
        assert isinstance(app.screen, SearchResultsScreen)
        await pilot.press("question_mark")  # the help lists the keys of the results
        await pilot.pause()
        from piview.screens.help import HelpScreen

        assert isinstance(app.screen, HelpScreen)
        titles = {g.title: {k for h in g.keys for k in h.keys} for g in app.screen.groups}
        assert {"⏎", "j", "k"} <= titles["Search results"] and "q" in titles["Search all branches"]
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, SearchResultsScreen)
        await pilot.press("q")
        await pilot.pause()
        assert app.return_code == 0  # q quits from the results too


async def test_blank_query_over_all_branches_is_no_search() -> None:
    app = make_app(load_session(fixture("tree_branches.jsonl")))
    async with app.run_test(size=SIZE) as pilot:
        t = app.screen.query_one(Transcript)
        await pilot.press("slash", "tab", "enter")
        await pilot.pause()
        assert not isinstance(app.screen, SearchResultsScreen)
        assert t.search_state is None
        assert "no match" not in str(app.screen.query_one("#status").render())


async def test_search_over_all_branches_waits_for_the_whole_file(tmp_path) -> None:
    """Only the tail of a big file is loaded at first: its results would be incomplete."""
    from piview.catalog.demo import demo_path
    from piview.model.session_tail import load_tail

    src = demo_path().read_bytes()
    path = tmp_path / "big.jsonl"
    path.write_bytes(src)
    app = make_app(load_tail(path, max_bytes=len(src) // 4))  # no loader: stays partial
    async with app.run_test(size=SIZE) as pilot:
        assert app.screen.session.partial
        await pilot.press("slash", *"all:the", "enter")
        await pilot.pause()
        assert not isinstance(app.screen, SearchResultsScreen)
        assert any("still loading" in str(n.message) for n in app._notifications)  # noqa: SLF001
