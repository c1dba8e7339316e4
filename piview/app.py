"""Provides :class:`PiviewApp` and :func:`make_app`, the one way the CLI and tests build it."""

from __future__ import annotations

import asyncio
import gc
import os
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from piview.screens.session import SessionScreen
from piview.widgets.offthread import DaemonExecutor

if TYPE_CHECKING:
    from piview.model import Session
    from piview.render.prerender import Prerender
    from piview.screens.picker import PickerScreen

__all__ = ["PiviewApp", "make_app", "run_app"]


class PiviewApp(App[None]):
    """The piview application: wiring only; behaviour lives in screens and widgets."""

    TITLE = "piview"
    BINDINGS = [
        Binding("q", "quit", "Quit"),
        Binding("question_mark", "help", "Help"),
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
    ) -> None:
        super().__init__()
        self.session = session
        self._full_loader = full_loader
        self._prerender = prerender
        self._leaf = leaf
        self._follow = follow
        self._root = sessions_root
        self.theme = "textual-dark"
        self.executor: DaemonExecutor | None = None
        """Where the thread workers run (set when the app starts)."""

    def on_load(self) -> None:
        """Run thread workers in daemon threads, before any starts: quitting never waits for
        one (a whole-file load, a pairing) to finish."""
        self.executor = DaemonExecutor()
        asyncio.get_running_loop().set_default_executor(self.executor)

    def on_mount(self) -> None:
        """Open the session, or the picker when no session was given."""
        if self.session is not None:
            self.push_screen(
                SessionScreen(
                    self.session,
                    leaf=self._leaf,
                    follow=self._follow,
                    full_loader=self._full_loader,
                    prerender=self._prerender,
                )
            )
        else:
            from piview.catalog.discovery import sessions_dir
            from piview.screens.picker import PickerScreen

            self.push_screen(PickerScreen(self._root or sessions_dir()))
        # The CLI pauses the cyclic GC while it starts up: resume it once the screen is shown.
        self.call_after_refresh(gc.enable)

    def on_picker_screen_session_chosen(self, message: PickerScreen.SessionChosen) -> None:
        """Show the session chosen in the picker, above it (escape there goes back to it)."""
        self.push_screen(SessionScreen(message.session, from_picker=True))

    def action_help(self) -> None:
        """Show every key."""
        from piview.screens.help import HelpScreen  # imported here: only needed on "?"

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        """The palette lists every action of the focused widget, the screen and the app."""
        yield from super().get_system_commands(screen)
        seen: set[str] = set()
        nodes = [screen.focused, screen, self] if screen.focused else [screen, self]
        for node in nodes:
            if node is None:
                continue
            for binding in node._bindings.key_to_bindings.values():  # noqa: SLF001
                for b in binding:
                    if not b.description or b.action in seen:
                        continue
                    seen.add(b.action)
                    key = b.key_display or b.key.split(",")[0]
                    yield SystemCommand(
                        f"{b.description} ({key})",
                        b.tooltip or f"action: {b.action}",
                        lambda n=node, a=b.action: self.call_later(n.run_action, a),
                    )


def make_app(
    session: Session | None = None,
    *,
    leaf: int | None = None,
    follow: bool = False,
    sessions_root: Path | None = None,
    full_loader: Callable[[], Session] | None = None,
    prerender: Prerender | None = None,
) -> PiviewApp:
    """Build the app (used by the CLI, tests and scripts). Without a session: the picker.

    Following the file is off by default here (tests, screenshots); the CLI turns it on.
    """
    # The loaded index lives as long as the app: keep the cyclic GC from rescanning its
    # objects on every collection (it doubled the cost of pairing a 50 MB session).
    gc.freeze()
    return PiviewApp(
        session,
        leaf=leaf,
        follow=follow,
        sessions_root=sessions_root,
        full_loader=full_loader,
        prerender=prerender,
    )


def run_app(session: Session | None = None, *, follow: bool = True, **options: Any) -> NoReturn:
    """Run the app in the terminal (``options`` as for :func:`make_app`), then end the
    process (status 0) without waiting for workers. The file is followed unless ``follow``
    is false."""
    prerender: Prerender | None = options.get("prerender")
    app = make_app(session, follow=follow, **options)
    try:
        app.run()
    finally:
        if prerender is not None:
            prerender.close()  # the child, if the first frame never asked for its blocks
    # The terminal is restored; what is left is the interpreter's teardown: it would contend
    # for the interpreter lock with the workers left running (a load, a pairing) and free a
    # whole session's index object by object (0.3 s for 1 GB) before the shell comes back.
    # Nothing needs it: files are only read, the index cache is written by renaming a
    # finished copy into place.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
