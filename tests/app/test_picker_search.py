"""Pilot tests of the picker's full-text search: the index built in the background, hits
ranked after the name matches with their snippet, Enter opening the hit's entry on its branch
with the match highlighted."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable, Static

from piview.app import make_app
from piview.catalog.fts import SearchIndex
from piview.screens.picker import PickerScreen
from piview.screens.session import SessionScreen
from piview.widgets.transcript import Transcript
from tests.app.test_debugging import build_sessions

SIZE = (120, 30)


@pytest.fixture
def sessions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, dict[str, Path]]:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("PIVIEW_SEARCH_DB", raising=False)
    root = tmp_path / "sessions"
    return root, build_sessions(root)


async def _type(pilot, text: str) -> None:
    await pilot.press(*text)
    await pilot.pause(0.3)  # the debounce
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def test_text_hits_come_after_name_matches_and_open_on_their_branch(
    sessions: tuple[Path, dict[str, Path]],
) -> None:
    root, files = sessions
    app = make_app(sessions_root=root)
    async with app.run_test(size=SIZE) as pilot:
        picker = app.screen
        assert isinstance(picker, PickerScreen)
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert picker.fts_ready
        where = str(picker.query_one("#where", Static).render())
        assert "indexing" not in where
        # The words are in a user message off the latest branch of one session, not in a name.
        await _type(pilot, "decorrelated instead")
        assert picker._shown == []  # noqa: SLF001 - no name or folder matches
        assert [(h.session_path, h.entry_id) for h in picker.hits] == [
            (str(files["tree"]), "2e09b722")
        ]
        table = picker.query_one(DataTable)
        assert table.row_count == 1 and not picker.query_one("#empty").display
        cell = table.get_row_at(0)[[str(c.label) for c in table.ordered_columns].index("session")]
        assert "Decorrelated jitter instead." in cell.plain
        marked = [cell.plain[sp.start : sp.end] for sp in cell.spans if "reverse" in str(sp.style)]
        assert marked == ["Decorrelated", "instead"]
        await pilot.press("enter")
        await pilot.pause()
        viewer = app.screen
        assert isinstance(viewer, SessionScreen) and viewer.from_picker
        session = viewer.session
        entry = session.find("2e09b722")
        assert entry is not None and entry in session.tree.path(viewer.leaf)
        assert viewer.leaf != session.tree.leaf  # not the latest branch: the hit's own
        transcript = viewer.query_one(Transcript)
        for _ in range(20):
            await pilot.pause(0.05)
            if transcript.search_state and transcript.search_state[1] > 0:
                break
        assert transcript.search_state is not None and transcript.search_state[2] >= 1
        assert transcript.items[transcript.cursor].entry == entry  # in view, highlighted
        await pilot.press("escape", "escape")  # clear the search, back to the picker
        await pilot.pause()
        assert app.screen is picker


async def test_name_matches_first_then_text_hits_ranked_and_tools_prefix(
    sessions: tuple[Path, dict[str, Path]],
) -> None:
    root, files = sessions
    app = make_app(sessions_root=root)
    async with app.run_test(size=SIZE) as pilot:
        picker = app.screen
        assert isinstance(picker, PickerScreen)
        await app.workers.wait_for_complete()
        # "alpha" is a folder: two sessions by name, and the text hits (the header's cwd).
        await _type(pilot, "alpha")
        assert sorted(picker._shown) == sorted([str(files["linear"]), str(files["tree"])])  # noqa: SLF001
        table = picker.query_one(DataTable)
        assert table.row_count == len(picker._shown) + len(picker.hits)  # noqa: SLF001
        ranks = [h.rank for h in picker.hits]
        assert ranks == sorted(ranks)
        await pilot.press(*["backspace"] * 5)
        await _type(pilot, "jitt")  # the last word is a prefix while typing
        assert {h.entry_id for h in picker.hits} and all(
            h.session_path == str(files["tree"]) for h in picker.hits
        )
        await pilot.press(*["backspace"] * 4)
        await pilot.pause()
        assert picker.hits == [] and table.row_count == 3


async def test_the_picker_indexes_only_what_changed(
    sessions: tuple[Path, dict[str, Path]], tmp_path: Path
) -> None:
    root, files = sessions
    app = make_app(sessions_root=root)
    async with app.run_test(size=SIZE):
        await app.workers.wait_for_complete()
    index = SearchIndex()
    assert index.stats()["files"] == 3
    files["linear"].unlink()
    before = index.bytes_read
    index.update([files["tools"], files["tree"]])
    assert index.bytes_read == before and index.stats()["files"] == 2
    index.close()


def test_a_narrow_session_column_still_shows_the_match() -> None:
    from piview.catalog.fts import Hit
    from piview.screens.picker_search import hit_text

    snippet = "…" + "lead words " * 6 + "the needle here and more after it"
    at = snippet.index("needle")
    hit = Hit("p", None, "e", "user", None, snippet, ((at, at + 6),), -1.0, "text")
    wide = hit_text(hit)
    assert wide.plain == "» " + snippet
    narrow = hit_text(hit, 30)
    marked = [narrow.plain[s.start : s.end] for s in narrow.spans if "reverse" in str(s.style)]
    assert marked == ["needle"]
    assert narrow.plain.index("needle") < 28 and narrow.plain.startswith("» …")


async def test_hits_found_again_keep_the_cursor_on_its_hit(
    sessions: tuple[Path, dict[str, Path]],
) -> None:
    root, _files = sessions
    app = make_app(sessions_root=root)
    async with app.run_test(size=SIZE) as pilot:
        picker = app.screen
        assert isinstance(picker, PickerScreen)
        await app.workers.wait_for_complete()
        await _type(pilot, "and")
        assert len(picker.hits) >= 2
        table = picker.query_one(DataTable)
        last = table.row_count - 1
        await pilot.press(*["down"] * last)
        chosen = picker.hit_at(table.cursor_row)
        assert chosen is not None and table.cursor_row == last
        # The index grew: the same hits come again, in another order.
        picker._fts_found("and", list(reversed(picker.hits)))  # noqa: SLF001
        await pilot.pause()
        assert picker.hit_at(table.cursor_row) == chosen
        assert table.cursor_row == len(picker._shown)  # noqa: SLF001 - now the first hit
