"""The first screen of a session (issue #17, row 1): no work before it that it does not need.

Deterministic checks only (never a time): the whole file's load waits for the first frame
written, not the frame Textual renders inside its start-up batch and throws away.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from piview.app import make_app
from piview.model import Session, load_session
from piview.widgets.transcript import Transcript
from tests.conftest import ROOT, fixture

SIZE = (120, 40)


async def test_the_first_resume_does_not_restyle_the_screen_its_mount_just_styled(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Every widget is styled as it is mounted; the resume right after restyled them all.
    from textual import events
    from textual.dom import DOMNode

    from piview.screens.session import SessionScreen

    restyled: list[str] = []
    update = DOMNode.update_node_styles

    def spy(self: DOMNode, animate: bool = True) -> None:
        if isinstance(self, SessionScreen):
            restyled.append(type(self.app.screen).__name__)
        update(self, animate)

    monkeypatch.setattr(DOMNode, "update_node_styles", spy)
    app = make_app(load_session(fixture("roles_all.jsonl")))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert restyled == []
        app.screen.post_message(events.ScreenResume())  # any later resume restyles as before
        await pilot.pause()
        assert restyled == ["SessionScreen"]


async def test_the_hidden_branch_panel_never_has_the_focus_on_the_first_screen(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Textual focused the first focusable widget, the hidden branch panel (restyling it and
    # its row styles), before on_mount moved the focus to the transcript (restyling it again).
    from textual.widget import Widget

    focused: list[str] = []
    watch = Widget.watch_has_focus

    def spy(self: Widget, has_focus: bool) -> None:
        if has_focus:
            focused.append(type(self).__name__)
        watch(self, has_focus)

    monkeypatch.setattr(Widget, "watch_has_focus", spy)
    app = make_app(load_session(fixture("roles_all.jsonl")))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert focused == ["Transcript"]
        assert isinstance(app.screen.focused, Transcript)


async def test_the_header_is_made_once_for_the_first_screen(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The screen's first resizes come at the width it was composed at: the same header.
    from piview.screens.session import SessionScreen

    made: list[int] = []
    title_text = SessionScreen._title_text

    def spy(self: SessionScreen):  # type: ignore[no-untyped-def]
        made.append(self.size.width or self.app.size.width)
        return title_text(self)

    monkeypatch.setattr(SessionScreen, "_title_text", spy)
    app = make_app(load_session(fixture("roles_all.jsonl")))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert made == [SIZE[0]]
        title = str(app.screen.query_one("#title").render())
        await pilot.resize_terminal(90, 30)  # another width: made again, to fit
        await pilot.pause()
        assert made == [SIZE[0], 90]
        assert str(app.screen.query_one("#title").render()) != title


def _big_tail(tmp_path: Path) -> tuple[Path, Session]:
    """The demo session as a file, and its last quarter as the CLI opens a big file."""
    from piview.catalog.demo import demo_path
    from piview.model.session_tail import load_tail

    path = tmp_path / "big.jsonl"
    path.write_bytes(demo_path().read_bytes())
    return path, load_tail(path, max_bytes=path.stat().st_size // 4)


async def test_the_whole_file_starts_loading_after_the_first_frame_is_written(
    tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A big file opens on its tail and loads the whole file in a worker, which shares the
    # interpreter lock with the UI: started after the start-up batch's refresh (which writes
    # nothing), it ran while the first frame was being drawn.
    from textual.screen import Screen

    path, tail = _big_tail(tmp_path)
    painted: list[bool] = []
    paint = Screen._compositor_refresh

    def spy(self: Screen[object]) -> None:
        paint(self)
        if not self.app._batch_count:  # noqa: SLF001 - a frame written, not held back
            painted.append(True)

    monkeypatch.setattr(Screen, "_compositor_refresh", spy)
    painted_at_load: list[bool] = []

    def loader():  # type: ignore[no-untyped-def]
        painted_at_load.append(bool(painted))
        return load_session(path)

    app = make_app(tail, full_loader=loader)
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(100):
            await pilot.pause(0.02)
            if painted_at_load:
                break
    assert painted_at_load == [True]


async def test_the_whole_file_loads_even_when_no_frame_is_written_soon(
    tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The load waits for the first frame written; a screen that writes none (a view pushed
    # over it at once) still loads the whole file, once, a moment later.
    path, tail = _big_tail(tmp_path)
    render_lines = Transcript.render_lines

    def unseen(self: Transcript, crop):  # type: ignore[no-untyped-def]
        hook, self.after_paint = self.after_paint, None  # a paint the screen never hears of
        try:
            return render_lines(self, crop)
        finally:
            self.after_paint = hook

    monkeypatch.setattr(Transcript, "render_lines", unseen)
    loads: list[int] = []

    def loader():  # type: ignore[no-untyped-def]
        loads.append(1)
        return load_session(path)

    app = make_app(tail, full_loader=loader)
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(150):
            await pilot.pause(0.02)
            if loads:
                break
        await pilot.pause(0.3)
    assert loads == [1]


_PROBE = """
import asyncio, os, sys
from piview.app import make_app
from piview.model import load_session
from piview.render import prerender

async def main():
    if "tail" in sys.argv[2]:  # as the CLI opens a big file: its tail, the whole file later
        from piview.model.session_tail import load_tail
        session = load_tail(sys.argv[1], max_bytes=os.path.getsize(sys.argv[1]) // 2)
        assert session.partial
    else:
        session = load_session(sys.argv[1])
    pre = None
    if "prerender" in sys.argv[2]:  # as the CLI starts it: the child draws the first frame
        prerender._cores = lambda: 2  # CI may run on one core, where start() declines
        pre = prerender.start(session, session.tree.leaf, size=os.terminal_size((120, 40)))
        assert pre is not None
    app = make_app(session, prerender=pre)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert "block " in str(app.screen.query_one("#status").render())
        print(" ".join(sorted(m for m in sys.argv[3:] if m in sys.modules)))

asyncio.run(main())
"""
_REPORT = 'print(" ".join(sorted(m for m in sys.argv[3:] if m in sys.modules)))'
"""The probe's last line: what another test prints in its place."""

NOT_BEFORE_THE_FIRST_SCREEN = (
    "sqlite3",  # OpenClaw's databases only (model/source.py)
    "statistics",  # under Textual's Sparkline: the usage sidebar, hidden at first
    "textual.widgets._sparkline",
    "json",  # the JSON of tool arguments and unknown entries: none on this screen
    "shlex",  # the editor's command line (V)
    # The searches (/ in either pane), their query parser and the search field.
    "piview.model.query",
    "piview.model.treesearch",
    "piview.render.search",
    "piview.widgets.search_field",
    # The branch panel is hidden: the usage sums of its figures, the text and kind of its
    # rows, and its rows grown by an append.
    "piview.model.subtree",
    "piview.model.treetext",
    "piview.model.treeview_grow",
)
NOT_BEFORE_THE_PRERENDERED_SCREEN = (
    # The child draws the blocks of the first screen: the role renderers, and Rich's
    # Markdown and Pygments under them, are not needed before it is up.
    "piview.render.roles._common",
    "piview.render.roles.user",
    "piview.render.fastlayout",
    "rich.markdown",
    "pygments",
)


def _probe(how: str, *names: str, report: str | None = None) -> str:
    """What a fresh interpreter prints once it shows the first screen of a plain session
    (``how``: tail, prerender or both): the modules of ``names`` it imported, or what the
    code ``report`` prints instead."""
    probe = _PROBE
    if report is not None:
        probe = probe.replace(_REPORT, report)
        assert probe != _PROBE
    done = subprocess.run(
        [sys.executable, "-c", probe, str(fixture("tool_pairing.jsonl")), how, *names],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), "PIVIEW_NO_PRERENDER": ""},
        timeout=60,
        check=True,
    )
    return done.stdout


def _imported(how: str, names: tuple[str, ...]) -> list[str]:
    # What the first screen imports, by name. (The time this saves is measured by
    # benchmarks/bench_startup.py, never asserted here.)
    return _probe(how, *names).split()


def test_the_first_screen_imports_nothing_it_does_not_draw() -> None:
    assert _imported("self", NOT_BEFORE_THE_FIRST_SCREEN) == []


NOT_BEFORE_A_TAILS_FIRST_SCREEN = (
    # A big file's first screen shows its tail; the whole file loads in a worker after it.
    "piview.model.follow",  # following the file, in workers (the first look imports it)
    "piview.model.index_cache",
    "piview.model.index_extras",
    "piview.model.split",
    "piview.model.usage",  # the usage sidebar's report, hidden at first
)


def test_a_big_files_first_screen_imports_nothing_it_does_not_draw() -> None:
    names = NOT_BEFORE_THE_FIRST_SCREEN + NOT_BEFORE_A_TAILS_FIRST_SCREEN
    assert _imported("tail", names) == []


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the child is forked on Linux")
def test_the_prerendered_first_screen_imports_no_renderer() -> None:
    names = NOT_BEFORE_THE_FIRST_SCREEN + NOT_BEFORE_THE_PRERENDERED_SCREEN
    assert _imported("prerender", names) == []


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the child is forked on Linux")
def test_the_first_screen_compiles_no_pattern_for_escapes_it_has_not_met() -> None:
    # The sanitiser's patterns for escapes and control characters (about a millisecond to
    # compile) wait for a text that has some; this session's first screen has none.
    report = (
        "from piview.render import sanitize\n"
        "        print(sanitize._ansi_re.cache_info().currsize, "
        "sanitize._ctrl_re.cache_info().currsize)"
    )
    assert _probe("prerender", report=report).split() == ["0", "0"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the child is forked on Linux")
def test_a_prerendered_first_screen_decodes_no_entry_in_full() -> None:
    # Its blocks come from the child; its header names the session by its first prompt, read
    # without the full decoder (every entry, message and block type compiled: 2 ms) and
    # without oh-my-pi's blobs.
    report = (
        "from piview.model import decode\n"
        "        print(decode._line_decoder.cache_info().currsize, "
        "'piview.model.blobs' in sys.modules, app.screen.query_one('#title').render())"
    )
    made, blobs, title = _probe("tail+prerender", report=report).split(maxsplit=2)
    assert (made, blobs) == ("0", "False"), title
    assert title.strip()
