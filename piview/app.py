"""Provides :class:`PiviewApp` and :func:`make_app`, the one way the CLI and tests build it."""

from __future__ import annotations

import asyncio
import gc
import os
import shutil
import signal
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from piview.widgets.offthread import DaemonExecutor

if TYPE_CHECKING:
    from piview.model import Session
    from piview.render.prerender import Prerender
    from piview.screens.picker import PickerScreen
    from piview.screens.session import SessionScreen
    from piview.widgets.branch_panel import BranchPanel

DEFAULT_THEME = "textual-dark"
_THEME_ALIASES = {"dark": "textual-dark", "light": "textual-light"}


def resolve_theme(theme: str | None) -> str:
    """The Textual theme to use: ``theme`` (``light`` and ``dark`` stand for Textual's own),
    else ``$PIVIEW_THEME``, else the default (dark). The palette's "Theme" changes it too."""
    name = (theme or os.environ.get("PIVIEW_THEME") or DEFAULT_THEME).strip()
    return _THEME_ALIASES.get(name, name)


class PiviewApp(App[None]):
    """The piview application: wiring only; behaviour lives in screens and widgets."""

    TITLE = "piview"
    HELP_TITLE = "Everywhere"
    """The heading of this part's keys in the help screen."""

    BINDINGS = [
        Binding("q", "quit", "Quit", tooltip="quit"),
        Binding("question_mark", "help", "Help", tooltip="this help"),
    ]

    def __init__(
        self,
        session: Session | None = None,
        *,
        leaf: int | None = None,
        follow: bool = True,
        sessions_root: Path | None = None,
        full_loader: Callable[[], Session] | None = None,
        prerender: Prerender | None = None,
        theme: str | None = None,
        fifo: str | None = None,
        fifo_leaf: str | None = None,
    ) -> None:
        super().__init__()
        self.session = session
        self._fifo = fifo
        """A FIFO to read (the session screen shows its copy once the writer closes it)."""
        self._fifo_leaf = fifo_leaf
        """``--leaf`` for the FIFO's session: an id (prefix), resolved once it is read."""
        self._temp_folders: list[str] = []
        self._full_loader = full_loader
        self._prerender = prerender
        self._first_screen: SessionScreen | None = None
        self._leaf = leaf
        self._follow = follow
        self._root = sessions_root
        self._unknown_theme: str | None = None
        name = resolve_theme(theme)
        if name not in self.available_themes:
            self._unknown_theme, name = name, DEFAULT_THEME
        self.theme = name
        self.executor: DaemonExecutor | None = None
        """Where the thread workers run (set when the app starts)."""
        self.exit_at_once = False
        """Set by :func:`run_app` (a real terminal): quitting restores the terminal and ends
        the process there and then (:meth:`action_quit`)."""

    def on_load(self) -> None:
        """Run thread workers in daemon threads, before any starts: quitting never waits for
        one (a whole-file load, a pairing) to finish."""
        self.executor = DaemonExecutor()
        loop = asyncio.get_running_loop()
        loop.set_default_executor(self.executor)
        if self.exit_at_once:
            _quit_on_signals(self, loop)

    def on_ready(self) -> None:
        """The start-up batch is over: the first session screen's next paint is written."""
        if self._first_screen is not None:
            self._first_screen.startup_over()

    def on_mount(self) -> None:
        """Open the session, or the picker when no session was given."""
        # Each first screen imports only its own screen: the picker's first rows never wait
        # for the session screen's widgets and renderers, nor the session for the picker's.
        if self._fifo is not None:
            from piview.screens.fifo_wait import FifoScreen

            leaf = self._fifo_leaf
            self.push_screen(FifoScreen(self._fifo, follow=self._follow, leaf=leaf))
        elif self.session is not None:
            from piview.screens.session import SessionScreen

            self._first_screen = SessionScreen(
                self.session,
                leaf=self._leaf,
                follow=self._follow,
                full_loader=self._full_loader,
                prerender=self._prerender,
                first=True,
            )
            self.push_screen(self._first_screen)
        else:
            from piview.screens.picker import PickerScreen

            # No folder given: the folders of every host (Pi, oh-my-pi, OpenClaw).
            self.push_screen(PickerScreen(self._root))
        if self._unknown_theme is not None:
            known = ", ".join(sorted(self.available_themes))
            self.notify(
                f"No theme {self._unknown_theme!r}: using {DEFAULT_THEME}. Themes: {known}",
                severity="warning",
                timeout=8,
                markup=False,
            )
        # The CLI pauses the cyclic GC while it starts up: resume it once the screen is shown.
        self.call_after_refresh(gc.enable)

    async def action_quit(self) -> None:
        """Quit. In a real terminal (:attr:`exit_at_once`), at once: the terminal is restored
        and the process ends here, whatever runs.

        Textual's own exit closes every screen and widget, one message queue after another,
        and waits for its input thread; while a worker computes over a big session, each of
        those steps waits for the interpreter lock as well (``q`` was slow to answer). Nothing
        needs that shutdown: files are only read, and the index cache is
        written by renaming a finished copy into place.
        """
        self.quit_now(0)

    def remove_at_exit(self, folder: str) -> None:
        """Remove ``folder``, a temporary one piview made (a FIFO's copy), when the app ends:
        at :meth:`quit_now` and after :func:`run_app` (both end the process with
        ``os._exit``, which runs no ``atexit``), else at the interpreter's exit."""
        import atexit

        self._temp_folders.append(folder)
        atexit.register(shutil.rmtree, folder, ignore_errors=True)

    def remove_temp_folders(self) -> None:
        """Remove the folders of :meth:`remove_at_exit` now."""
        while self._temp_folders:
            shutil.rmtree(self._temp_folders.pop(), ignore_errors=True)

    def quit_now(self, status: int) -> None:
        """End the app with exit ``status``: in a real terminal (:attr:`exit_at_once`) the
        terminal is restored and the process ends here; otherwise (tests) the app exits."""
        if not self.exit_at_once:
            self.exit(return_code=status)
            return
        _restore_terminal(self._driver)
        self.remove_temp_folders()
        prerender = self._prerender
        if prerender is not None:
            prerender.close()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)

    def on_picker_screen_session_chosen(self, message: PickerScreen.SessionChosen) -> None:
        """Show the session chosen in the picker, above it (escape there goes back to it):
        for a full-text hit, on the branch of its entry, with the entry in view and the
        match highlighted."""
        from piview.screens.session import SessionScreen

        self.push_screen(
            SessionScreen(
                message.session, leaf=message.entry, search=message.search, from_picker=True
            )
        )

    def on_branch_panel_compare_requested(self, message: BranchPanel.CompareRequested) -> None:
        """Open the comparison of the two branches a session screen's panel names (``m`` then
        ``=``). Opened here, not by the session screen: the comparison's BranchScreen is a
        session screen, and the session screen does not import it back."""
        session: Session = message.panel.screen.session  # type: ignore[attr-defined]
        if session.partial:
            self.notify("The whole file is still loading: compare once it is loaded", timeout=4)
            return
        from piview.screens.compare import CompareScreen

        self.push_screen(CompareScreen(session, message.leaf_a, message.leaf_b))

    def action_help(self) -> None:
        """Show every key."""
        from piview.screens.help import HelpScreen  # imported here: only needed on "?"

        if not isinstance(self.screen, HelpScreen):
            from piview.widgets.keymap import screen_keys

            legend = getattr(self.screen, "help_legend", None)
            self.push_screen(
                HelpScreen(screen_keys(self.screen), legend() if callable(legend) else None)
            )

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        """The palette: Textual's commands that work here, then every key of the screen,
        by its description and key (the actions a check refuses now are left out)."""
        for command in super().get_system_commands(screen):
            if command.title not in ("Maximize", "Minimize", "Keys"):
                yield command
        from piview.widgets.keymap import screen_keys

        seen: set[str] = set()
        for group in screen_keys(screen):
            node = group.node
            for k in group.keys:
                if k.action in seen or k.action == "command_palette" or not k.what:
                    continue
                action, _sep, _args = k.action.partition("(")
                check = getattr(node, "check_action", None)
                if check is not None and check(action, ()) is False:
                    continue
                seen.add(k.action)
                yield SystemCommand(
                    f"{k.what[:1].upper()}{k.what[1:]}",
                    f"{group.title} · key {' '.join(k.keys)}",
                    lambda n=node, a=k.action: self.call_later(n.run_action, a),
                )


QUIT_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
"""The signals that end the viewer as ``q`` does (terminal restored), with status 128+signum."""


def _quit_on_signals(app: PiviewApp, loop: asyncio.AbstractEventLoop) -> None:
    """Make SIGTERM and SIGHUP quit ``app`` from its event loop, restoring the terminal
    (Python's default for them ends the process with the alternate screen and the mouse
    reporting still on). A second one while the first waits for a busy loop ends the
    process from the handler itself."""
    pending: set[int] = set()

    def on_signal(signum: int) -> None:
        pending.add(signum)
        app.quit_now(128 + signum)

    def on_raw_signal(signum: int, _frame: object) -> None:
        if signum in pending:  # the loop did not get to the first: end here
            app.quit_now(128 + signum)
        pending.add(signum)
        loop.call_soon_threadsafe(on_signal, signum)

    for signum in QUIT_SIGNALS:
        try:
            # A plain handler, not loop.add_signal_handler: that one runs only when the loop
            # turns, and a second signal could then never cut a stuck loop short.
            signal.signal(signum, on_raw_signal)
        except (ValueError, OSError):  # not the main thread, or not settable here
            pass


def _restore_terminal(driver: object) -> None:
    """Leave the application mode of Textual's terminal driver (mouse off, the screen and the
    terminal's modes as they were), and wait only for its output to be written."""
    if driver is None:
        return
    exit_event = getattr(driver, "exit_event", None)
    disable_mouse = getattr(driver, "_disable_mouse_support", None)
    if exit_event is not None and disable_mouse is not None:
        # What disable_input does first; then setting its event makes it skip the join of
        # the input thread (which polls every 0.1 s, then once more), left to the exit.
        disable_mouse()
        exit_event.set()
    stop = getattr(driver, "stop_application_mode", None)
    if stop is not None:
        stop()
    close = getattr(driver, "close", None)
    if close is not None:
        close()  # the writer thread writes what is queued, then ends


def make_app(
    session: Session | None = None,
    *,
    leaf: int | None = None,
    follow: bool = False,
    sessions_root: Path | None = None,
    full_loader: Callable[[], Session] | None = None,
    prerender: Prerender | None = None,
    theme: str | None = None,
    fifo: str | None = None,
    fifo_leaf: str | None = None,
) -> PiviewApp:
    """Build the app (used by the CLI, tests and scripts). Without a session: the picker.

    Following the file is off by default here (tests, screenshots); the CLI turns it on.
    With ``fifo`` (a named pipe), the app waits for a writer on it, then shows what it sent
    (on the branch of the entry ``fifo_leaf`` names, if given).
    """
    # The loaded index lives as long as the app: keep the cyclic GC from rescanning its
    # objects on every collection (that was a large part of the cost of pairing).
    gc.freeze()
    return PiviewApp(
        session,
        leaf=leaf,
        follow=follow,
        sessions_root=sessions_root,
        full_loader=full_loader,
        prerender=prerender,
        theme=theme,
        fifo=fifo,
        fifo_leaf=fifo_leaf,
    )


def run_app(
    session: Session | None = None,
    *,
    follow: bool = True,
    temp_folders: Sequence[str] = (),
    **options: Any,
) -> NoReturn:
    """Run the app in the terminal (``options`` as for :func:`make_app`), then end the
    process (status 0) without waiting for workers. The file is followed unless ``follow``
    is false; ``temp_folders`` (piview's own) are removed when the app ends."""
    prerender: Prerender | None = options.get("prerender")
    app = make_app(session, follow=follow, **options)
    app.exit_at_once = True
    for folder in temp_folders:
        app.remove_at_exit(folder)
    try:
        app.run()
    finally:
        if prerender is not None:
            prerender.close()  # the child, if the first frame never asked for its blocks
        app.remove_temp_folders()
    # The terminal is restored; what is left is the interpreter's teardown: it would contend
    # for the interpreter lock with the workers left running (a load, a pairing) and free a
    # whole session's index object by object before the shell comes back.
    # Nothing needs it: files are only read, the index cache is written by renaming a
    # finished copy into place.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
