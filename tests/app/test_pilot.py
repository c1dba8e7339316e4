"""Pilot tests: every key of the viewer, branch switching, search and --leaf."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from piview.app import make_app
from piview.model import Session, load_session
from piview.screens.help import HelpScreen
from piview.widgets.branch_panel import BranchPanel
from piview.widgets.transcript import Transcript
from piview.widgets.usage_sidebar import UsageSidebar
from tests.conftest import fixture

SIZE = (120, 40)


def demo() -> Path:
    from piview.catalog.demo import demo_path

    return demo_path()


async def _open(path: Path, leaf: str | None = None):
    s = load_session(path)
    idx = s.find(leaf) if leaf else None
    return make_app(s, leaf=idx)


async def test_opens_at_the_end_of_the_current_branch() -> None:
    app = await _open(demo())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        t = app.screen.query_one(Transcript)
        assert t.items and t.cursor == len(t.items) - 1
        assert t.path[-1] == app.session.tree.leaf
        assert t.scroll_y == pytest.approx(t.max_scroll_y, abs=1)


async def test_block_navigation_keys() -> None:
    app = await _open(demo())
    async with app.run_test(size=SIZE) as pilot:
        t = app.screen.query_one(Transcript)
        await pilot.press("g")
        assert t.cursor == 0 and t.scroll_y == 0
        await pilot.press("j", "j", "down")
        assert t.cursor == 3
        await pilot.press("k", "up")
        assert t.cursor == 1
        await pilot.press("G")
        assert t.cursor == len(t.items) - 1
        await pilot.press("g", "right_square_bracket")
        assert t.current_item is not None and t.current_item.user
        first_user = t.cursor
        await pilot.press("right_square_bracket")
        assert t.cursor > first_user and t.current_item.user
        await pilot.press("left_square_bracket")
        assert t.cursor == first_user


async def test_enter_t_and_o_expand_and_collapse() -> None:
    app = await _open(demo())
    async with app.run_test(size=SIZE) as pilot:
        t = app.screen.query_one(Transcript)
        thinking = [it for it in t.items if it.kind == "thinking" and it.collapsible]
        tools = [it for it in t.items if it.kind == "tool" and it.collapsible]
        assert thinking and tools
        assert not any(t.is_expanded(it) for it in thinking)
        await pilot.press("t")
        assert all(t.is_expanded(it) for it in thinking)
        await pilot.press("t")
        assert not any(t.is_expanded(it) for it in thinking)
        await pilot.press("o")
        assert all(t.is_expanded(it) for it in tools)
        await pilot.press("o")
        # enter toggles the focused block only
        k = t.items.index(tools[0])
        t.cursor = k
        await pilot.press("enter")
        assert t.is_expanded(tools[0]) and not t.is_expanded(tools[-1]) or len(tools) == 1
        await pilot.press("enter")
        assert not t.is_expanded(tools[0])


async def test_e_jumps_to_errors() -> None:
    app = await _open(demo())
    async with app.run_test(size=SIZE) as pilot:
        t = app.screen.query_one(Transcript)
        await pilot.press("g", "e")
        assert t.current_item is not None and t.current_item.error


async def test_hidden_entries_toggle() -> None:
    app = await _open(demo())
    async with app.run_test(size=SIZE) as pilot:
        t = app.screen.query_one(Transcript)
        before = len(t.items)
        assert not any(it.hidden for it in t.items)
        await pilot.press("H")
        assert any(it.hidden for it in t.items) and len(t.items) > before
        await pilot.press("H")
        assert len(t.items) == before


async def test_search_and_next_previous_match() -> None:
    app = await _open(fixture("linear.jsonl"))
    async with app.run_test(size=SIZE) as pilot:
        t = app.screen.query_one(Transcript)
        word = app.session.entry(0).message.content
        word = (word if isinstance(word, str) else word[0].text).split()[0]
        await pilot.press("slash")
        await pilot.press(*list(word), "enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert not t.searching
        state = t.search_state
        assert state is not None and state[0] == word and state[2] >= 1
        first = t.cursor
        await pilot.press("n")
        await pilot.press("N")
        assert t.cursor == first
        assert t.current_item is not None and t.items.index(t.current_item) in t._search.hits  # noqa: SLF001


async def test_search_is_cancelled_by_escape_and_by_a_new_search() -> None:
    app = await _open(demo())
    async with app.run_test(size=SIZE) as pilot:
        t = app.screen.query_one(Transcript)
        t.search("gzip")
        t.search("pytest")  # replaces the first one
        for _ in range(100):
            await pilot.pause(0.05)
            if not t.searching:
                break
        assert t.search_state is not None and t.search_state[0] == "pytest"
        assert t.search_state[2] > 0
        await pilot.press("escape")
        assert t.search_state is None


async def test_branch_panel_selects_a_branch() -> None:
    app = await _open(demo())
    async with app.run_test(size=SIZE) as pilot:
        s = app.session
        await pilot.press("b")
        panel = app.screen.query_one(BranchPanel)
        assert panel.has_focus
        other = [leaf for leaf in s.tree.leaves() if leaf != s.tree.leaf][0]
        # an entry of the other branch that is not on the current one
        entry = next(
            i
            for i in reversed(s.tree.path(other))
            if i not in s.tree.path(s.tree.leaf)
            and panel.rows
            and any(r.entry == i for r in panel.rows)
        )
        panel.move_to_entry(entry)
        await pilot.press("enter")
        await pilot.pause()
        t = app.screen.query_one(Transcript)
        assert t.path == s.tree.path(s.tree.newest_leaf(entry))
        assert t.has_focus and t.current_entry is not None
        assert s.tree.is_ancestor(t.path[0], t.current_entry)


async def test_usage_sidebar_toggles() -> None:
    app = await _open(demo())
    async with app.run_test(size=SIZE) as pilot:
        side = app.screen.query_one(UsageSidebar)
        assert not side.display or not side.has_class("-visible")
        await pilot.press("u")
        assert side.has_class("-visible")


async def test_help_and_quit() -> None:
    app = await _open(demo())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)
        await pilot.press("q")
    assert app.return_code in (0, None)


async def test_leaf_option_opens_that_branch() -> None:
    s = load_session(demo())
    other = [leaf for leaf in s.tree.leaves() if leaf != s.tree.leaf][0]
    app = make_app(s, leaf=other)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        t = app.screen.query_one(Transcript)
        assert t.path == s.tree.path(other)


async def test_damaged_file_opens_with_a_notice() -> None:
    app = await _open(fixture("bad_lines.jsonl"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        notes = [n.message for n in app._notifications]  # noqa: SLF001
        assert any("damaged" in m for m in notes)


async def test_big_file_opens_on_its_tail_then_swaps_in_the_whole_file(tmp_path) -> None:
    from piview.model.session_tail import load_tail

    src = demo().read_bytes()
    path = tmp_path / "big.jsonl"
    path.write_bytes(src)
    tail = load_tail(path, max_bytes=len(src) // 4)
    assert tail.partial and 0 < len(tail) < len(load_session(path))
    app = make_app(tail, full_loader=lambda: load_session(path))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        for _ in range(200):
            await pilot.pause(0.05)
            # The whole session is in, and its screen has shown its branch (mounted).
            # (The new screen may not be composed yet: no transcript to ask.)
            shown = app.screen.query(Transcript)
            if not app.screen.session.partial and shown and shown.first().path:
                break
        t = app.screen.query_one(Transcript)
        assert not app.screen.session.partial
        assert t.path == app.screen.session.tree.path(app.screen.session.tree.leaf)
        assert t.cursor == len(t.items) - 1


async def test_branch_panel_search() -> None:
    from piview.model.treetext import row_text

    app = await _open(demo())
    async with app.run_test(size=SIZE) as pilot:
        s = app.session
        await pilot.press("b")
        panel = app.screen.query_one(BranchPanel)
        assert panel.has_focus
        # A word that only entries off the current branch have: they are folded away.
        off = [i for i in range(len(s)) if i not in set(s.tree.path(s.tree.leaf))]
        word = next(
            w
            for i in off
            for w in row_text(s, i).split()
            if len(w) > 6
            and w.isalpha()
            and not any(w.lower() in row_text(s, j).lower() for j in s.tree.path(s.tree.leaf))
        )
        await pilot.press("slash", *word, "enter")
        for _ in range(100):
            await pilot.pause(0.02)
            if not panel.searching:
                break
        state = panel.search_state
        assert state is not None and state[0] == word and state[2] >= 1
        assert panel.has_focus
        entry = panel.cursor_entry
        assert entry is not None and word.lower() in row_text(s, entry).lower()
        first = entry
        await pilot.press("n")
        if state[2] > 1:
            assert panel.cursor_entry != first
        await pilot.press("N")
        assert panel.cursor_entry == first
        # The transcript's own search is untouched.
        assert app.screen.query_one(Transcript).search_state is None
        await pilot.press("slash", *"zzzqqqxxx", "enter")
        for _ in range(100):
            await pilot.pause(0.02)
            if not panel.searching:
                break
        assert panel.search_state == ("zzzqqqxxx", 0, 0)


async def test_the_whole_file_keeps_hidden_entries_and_panels_of_its_tail(tmp_path) -> None:
    from piview.model.session_tail import load_tail
    from piview.screens.session import SessionScreen

    src = demo().read_bytes()
    path = tmp_path / "big.jsonl"
    path.write_bytes(src)
    tail = load_tail(path, max_bytes=len(src) // 4)
    pressed = threading.Event()

    def loader() -> Session:
        pressed.wait(10)  # the keys reach the tail's screen, not the one swapped in
        return load_session(path)

    app = make_app(tail, full_loader=loader)
    async with app.run_test(size=SIZE) as pilot:
        first = app.screen
        await pilot.press("H", "u")
        pressed.set()
        for _ in range(200):
            await pilot.pause(0.05)
            if app.screen is not first and any(t.path for t in app.screen.query(Transcript)):
                break
        screen = app.screen
        assert isinstance(screen, SessionScreen) and not screen.session.partial
        assert screen.query_one(Transcript).show_hidden
        assert screen.query_one(UsageSidebar).has_class("-visible")
        assert not screen.query_one(BranchPanel).has_class("-visible")


async def test_a_screen_swapped_in_takes_no_key_before_its_widgets_are_mounted() -> None:
    # The whole file's screen replaces the tail's: a key reaching it before its mount ran
    # an action on widgets not there yet (NoMatches: 'Transcript', seen in CI).
    from piview.screens.session import SessionScreen

    app = make_app(load_session(fixture("tree_branches.jsonl")))
    async with app.run_test(size=SIZE):
        fresh = SessionScreen(load_session(fixture("tree_branches.jsonl")))
        assert not fresh.check_action("toggle_hidden", ())
        assert app.screen.check_action("toggle_hidden", ())


def _screen_row(t: Transcript) -> int:
    """The screen line the focused block's header is on."""
    return t._layout.offsets[t.cursor] - round(t.scroll_y)  # noqa: SLF001


@pytest.mark.parametrize("start", ["middle", "top"])
async def test_usage_sidebar_keeps_the_focused_block_in_place(start: str) -> None:
    # Opening or closing the sidebar changes the transcript's width, hence every height: the
    # block the reader is on must stay on the same screen line.
    app = await _open(demo())
    async with app.run_test(size=(100, 30)) as pilot:
        t = app.screen.query_one(Transcript)
        await pilot.press("g")
        await pilot.press(*["j"] * 12)
        if start == "middle":
            t.scroll_to(y=t._layout.offsets[t.cursor] - 8, animate=False)  # noqa: SLF001
        await pilot.pause()
        row = _screen_row(t)
        cursor = t.cursor
        for _ in range(2):
            await pilot.press("u")
            await pilot.pause()
            await pilot.pause()
            assert t.cursor == cursor
            assert _screen_row(t) == row


async def test_label_keys_jump_between_labelled_entries() -> None:
    app = await _open(demo())
    async with app.run_test(size=SIZE) as pilot:
        t = app.screen.query_one(Transcript)
        labels = app.session.labels
        spots = sorted(k for k, it in enumerate(t.items) if it.entry in labels)
        assert len(spots) >= 2
        await pilot.press("g", "apostrophe")
        assert t.cursor == spots[0]
        await pilot.press("apostrophe")
        assert t.cursor == spots[1]
        await pilot.press("quotation_mark")
        assert t.cursor == spots[0]
        await pilot.press("quotation_mark")  # wraps to the last one
        assert t.cursor == spots[-1]


async def test_e_says_when_it_wraps_to_the_first_error() -> None:
    app = await _open(demo())
    async with app.run_test(size=SIZE) as pilot:
        t = app.screen.query_one(Transcript)
        errors = [k for k, it in enumerate(t.items) if it.error]
        assert errors
        await pilot.press("G")
        notes: list[str] = []
        t.notify = lambda message, **kw: notes.append(message)  # type: ignore[method-assign]
        await pilot.press("e")
        assert t.cursor == errors[0]
        assert notes and "back to the first" in notes[-1]


async def test_theme_from_the_flag_the_environment_or_the_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    s = load_session(demo())
    monkeypatch.delenv("PIVIEW_THEME", raising=False)
    assert make_app(s).theme == "textual-dark"
    assert make_app(s, theme="light").theme == "textual-light"
    monkeypatch.setenv("PIVIEW_THEME", "nord")
    assert make_app(s).theme == "nord"
    assert make_app(s, theme="dark").theme == "textual-dark"  # the flag wins
    app = make_app(s, theme="no-such-theme")
    assert app.theme == "textual-dark"
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert any("No theme 'no-such-theme'" in str(n.message) for n in app._notifications)  # noqa: SLF001


def test_cli_passes_the_theme(monkeypatch: pytest.MonkeyPatch) -> None:
    from piview.cli import main

    seen: dict[str, object] = {}

    def fake_run_app(session: object = None, **kwargs: object) -> int:
        seen.update(kwargs)
        return 0

    monkeypatch.setattr("piview.app.run_app", fake_run_app)
    monkeypatch.setenv("PIVIEW_NO_PRERENDER", "1")
    assert main([str(demo()), "--theme", "light", "--no-follow"]) == 0
    assert seen["theme"] == "light"


@pytest.mark.parametrize("name", ["compaction_context.jsonl", "entry_types.jsonl"])
async def test_compacted_entries_are_dimmed_and_the_kept_part_marked(name: str) -> None:
    from piview.model import build_context

    s = load_session(fixture(name))
    app = make_app(s)
    async with app.run_test(size=SIZE) as pilot:
        t = app.screen.query_one(Transcript)
        hidden = set(build_context(s).hidden_by_compaction)
        assert hidden
        kept = t._kept_from()  # noqa: SLF001
        assert kept > 0
        assert all(it.entry in hidden for it in t.items[:kept])
        assert all(it.entry not in hidden for it in t.items[kept:])
        await pilot.press("g")
        await pilot.pause()
        first = t.render_line(0)
        assert any(seg.style is not None and seg.style.dim for seg in first)
        t.scroll_to(y=t._layout.offsets[kept], animate=False, immediate=True)  # noqa: SLF001
        await pilot.pause()
        line = t.render_line(t._layout.offsets[kept] - round(t.scroll_y))  # noqa: SLF001
        assert line.text.startswith("✂ ")
        assert not any(seg.style is not None and seg.style.dim for seg in list(line)[1:])


async def test_one_click_expands_a_block() -> None:
    app = await _open(demo())
    async with app.run_test(size=SIZE) as pilot:
        t = app.screen.query_one(Transcript)
        await pilot.press("g")
        await pilot.pause()
        k = next(k for k, it in enumerate(t.items) if it.collapsible and not it.expanded)
        t.scroll_to(y=t._layout.offsets[k], animate=False, immediate=True)  # noqa: SLF001
        await pilot.pause()
        y = t._layout.offsets[k] - round(t.scroll_y)  # noqa: SLF001
        assert await pilot.click(Transcript, offset=(10, y))
        await pilot.pause()
        assert t.cursor == k and t.is_expanded(t.items[k])
        assert await pilot.click(Transcript, offset=(10, y))
        await pilot.pause()
        assert not t.is_expanded(t.items[k])


async def test_jumps_to_compactions_model_changes_and_shell_commands() -> None:
    s = load_session(demo())
    app = make_app(s)
    async with app.run_test(size=SIZE) as pilot:
        t = app.screen.query_one(Transcript)
        items = list(t.items)
        comps = [k for k, it in enumerate(items) if it.kind == "compaction"]
        models = [
            k for k, it in enumerate(items)
            if it.kind == "divider" and s.nodes[it.entry].type == "model_change"
        ]  # fmt: skip
        shells = [k for k, it in enumerate(items) if it.kind == "bash"]
        assert comps and models and shells
        await pilot.press("g", "right_curly_bracket")
        assert t.cursor == comps[0]
        await pilot.press("left_curly_bracket")  # wraps to the last one
        assert t.cursor == comps[-1]
        await pilot.press("g", "m")
        assert t.cursor == (models[0] if models[0] > 0 else models[min(1, len(models) - 1)])
        await pilot.press("G", "M")
        assert t.cursor == models[-1]
        await pilot.press("g", "exclamation_mark")
        assert t.cursor == shells[0]


async def test_colon_goes_to_an_entry_on_this_branch_or_another() -> None:
    s = load_session(fixture("tree_branches.jsonl"))
    app = make_app(s)
    async with app.run_test(size=SIZE) as pilot:
        t = app.screen.query_one(Transcript)
        on_path = t.path[2]
        await pilot.press("colon", *s.ids[on_path][:6], "enter")
        await pilot.pause()
        assert t.current_entry == on_path
        off = next(
            i for i in range(len(s)) if i not in set(t.path) and s.nodes[i].type == "message"
        )
        await pilot.press("colon", *s.ids[off], "enter")
        await pilot.pause()
        await pilot.pause()
        assert off in t.path and t.current_entry == off
        await pilot.press("colon", "z", "z", "z", "enter")
        await pilot.pause()
        assert any("No entry with id 'zzz'" in str(n.message) for n in app._notifications)  # noqa: SLF001


async def test_y_copies_the_block_and_Y_its_id(monkeypatch: pytest.MonkeyPatch) -> None:
    app = await _open(demo())
    copied: list[str] = []
    monkeypatch.setattr(app, "copy_to_clipboard", copied.append)
    async with app.run_test(size=SIZE) as pilot:
        t = app.screen.query_one(Transcript)
        user = next(k for k, it in enumerate(t.items) if it.kind == "user")
        t.focus_item(user)
        await pilot.press("y")
        s = app.session
        from piview.render.copytext import block_text

        assert copied == [block_text(s, t.items[user]).text] and copied[0]
        await pilot.press("Y")
        assert copied[-1] == s.ids[t.items[user].entry]


@pytest.mark.parametrize("key, var, default", [("v", "PAGER", "less -R"), ("V", "EDITOR", "vi")])
async def test_v_and_V_hand_a_copy_to_the_pager_or_editor(
    monkeypatch: pytest.MonkeyPatch, key: str, var: str, default: str
) -> None:
    import contextlib
    import subprocess

    for name in ("PAGER", "EDITOR", "VISUAL"):
        monkeypatch.delenv(name, raising=False)
    app = await _open(demo())
    runs: list[tuple[list[str], str]] = []

    def fake_run(args: list[str], check: bool = False) -> subprocess.CompletedProcess[str]:
        runs.append((args, Path(args[-1]).read_text()))
        return subprocess.CompletedProcess(args, 0)

    monkeypatch.setattr(subprocess, "run", fake_run)
    monkeypatch.setattr(app, "suspend", contextlib.nullcontext)
    async with app.run_test(size=SIZE) as pilot:
        t = app.screen.query_one(Transcript)
        k = next(k for k, it in enumerate(t.items) if it.kind == "assistant")
        t.focus_item(k)
        await pilot.press(key)
        await pilot.pause()
        from piview.render.copytext import block_text

        assert len(runs) == 1
        args, text = runs[0]
        assert args[:-1] == default.split() and text == block_text(app.session, t.items[k]).text
        assert not Path(args[-1]).exists()  # the copy is removed afterwards
        assert args[-1] != str(app.session.path)
        assert t.cursor == k  # back where it was


async def test_panels_share_the_width_and_never_squeeze_the_transcript() -> None:
    from piview.screens.session_layout import MIN_TRANSCRIPT

    for width, both in ((80, False), (140, True), (200, True)):
        app = await _open(demo())
        async with app.run_test(size=(width, 30)) as pilot:
            await pilot.press("b")
            await pilot.pause()
            await pilot.press("u")
            await pilot.pause()
            panel = app.screen.query_one(BranchPanel)
            sidebar = app.screen.query_one(UsageSidebar)
            t = app.screen.query_one(Transcript)
            assert sidebar.display and sidebar.has_class("-visible")
            assert panel.has_class("-visible") == both, width
            assert t.size.width >= MIN_TRANSCRIPT - 2, (width, t.size.width)
            if both:
                assert panel.size.width >= 24 and abs(panel.size.width - int(width * 0.38)) <= 20


async def test_panel_border_moves_with_keys_and_the_mouse() -> None:
    app = await _open(demo())
    async with app.run_test(size=(140, 30)) as pilot:
        await pilot.press("b")
        await pilot.pause()
        panel = app.screen.query_one(BranchPanel)
        w = panel.outer_size.width
        await pilot.press("greater_than_sign")
        await pilot.pause()
        assert panel.outer_size.width == w + 4
        await pilot.press("less_than_sign", "less_than_sign")
        await pilot.pause()
        assert panel.outer_size.width == w - 4
        border = panel.region.right - 1
        await pilot.mouse_down(offset=(border, 10))
        await pilot.hover(offset=(border + 10, 10))
        await pilot.mouse_up(offset=(border + 10, 10))
        await pilot.pause()
        assert panel.outer_size.width == border + 11


async def test_mouse_selection_copies_what_is_under_it() -> None:
    app = await _open(demo())
    async with app.run_test(size=SIZE) as pilot:
        t = app.screen.query_one(Transcript)
        await pilot.press("g")
        await pilot.pause()
        user = next(k for k, it in enumerate(t.items) if it.kind == "user")
        t.scroll_to(y=t._layout.offsets[user], animate=False, immediate=True)  # noqa: SLF001
        await pilot.pause()
        y = t._layout.offsets[user] - round(t.scroll_y) + 1  # noqa: SLF001 - its first text line
        line = t.render_line(y).text
        await pilot.mouse_down(Transcript, offset=(4, y))
        await pilot.hover(Transcript, offset=(30, y))
        await pilot.mouse_up(Transcript, offset=(30, y))
        await pilot.pause()
        selected = app.screen.get_selected_text()
        assert selected and selected.strip() and selected.strip() in line


async def test_an_event_streams_errors_are_found_by_e() -> None:
    from tests.unit.test_stream import STREAMS

    app = await _open(STREAMS / "085" / "rpc.jsonl")
    async with app.run_test(size=SIZE) as pilot:
        t = app.screen.query_one(Transcript)
        await pilot.press("g", "e")
        kinds = []
        for _ in range(8):
            assert t.current_item is not None and t.current_item.error
            kinds.append(app.session.nodes[t.current_item.entry].type)
            await pilot.press("e")
        assert "piview_error" in kinds and "message" in kinds
