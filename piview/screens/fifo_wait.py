"""Provides :class:`FifoScreen`: ``piview FIFO``, a named pipe, in the viewer (issue #26).

The stream is read whole into a temporary copy (in a worker that can stop at once:
:func:`piview.model.fsio.copy_fifo`), shown once the writer closes the stream.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Static
from textual.worker import get_current_worker

from piview.render.sanitize import sanitize_line
from piview.widgets.keybar import KeyBar

if TYPE_CHECKING:
    from piview.model import Session

_PROGRESS_EVERY = 0.25
"""Seconds between two updates of the "read so far" line while a writer sends."""


class FifoScreen(Screen[None]):
    """Waiting for a writer on a FIFO, then reading it; replaced by the session screen on
    the copy once the stream ends. ``q`` quits at any time."""

    HELP_TITLE = "Waiting for a FIFO"

    DEFAULT_CSS = """
    FifoScreen { layout: vertical; }
    FifoScreen #fifo-title { height: 1; background: $panel; color: $text; padding: 0 1; }
    FifoScreen #fifo-state { height: 1fr; padding: 1 2; }
    """

    def __init__(
        self, path: str | os.PathLike[str], *, follow: bool = False, leaf: str | None = None
    ) -> None:
        super().__init__()
        self.path = Path(path)
        self.leaf = leaf
        """``--leaf``: an entry id (or a prefix of one) to show the branch of."""
        self.follow = follow
        """Passed to the session screen (the copy never grows: nothing to follow)."""
        self.copy: Path | None = None
        """The temporary copy of the stream, once reading starts (removed at exit)."""
        self.state = f"Waiting for a writer on the FIFO {self.path} (q quits)"
        """What the screen says now (also what tests read)."""

    def compose(self) -> ComposeResult:
        """A header, the line saying what is awaited, and the key bar."""
        yield Static(Text(sanitize_line(f"piview · FIFO {self.path}")), id="fifo-title")
        yield Static(Text(sanitize_line(self.state)), id="fifo-state")
        yield KeyBar()

    def on_mount(self) -> None:
        """Start reading the stream in a worker."""
        folder = tempfile.mkdtemp(prefix="piview-fifo-")
        remove_at_exit = getattr(self.app, "remove_at_exit", None)  # piview's app: at its end
        if remove_at_exit is not None:
            remove_at_exit(folder)
        self.copy = Path(folder) / (self.path.name or "stream.jsonl")
        self._read(self.copy)

    def _say(self, state: str, *, error: bool = False) -> None:
        self.state = state
        self.query_one("#fifo-state", Static).update(
            Text(sanitize_line(state), style="bold red" if error else "")
        )

    @work(thread=True, exclusive=True, group="fifo", exit_on_error=False, description="FIFO")
    def _read(self, copy: Path) -> None:
        """Copy the stream, then load the copy (both here, off the UI thread)."""
        from piview.model import SessionOpenError, load_session
        from piview.model.fsio import copy_fifo

        worker = get_current_worker()
        last = 0.0

        def progress(got: int) -> None:
            nonlocal last
            now = time.monotonic()
            if now - last >= _PROGRESS_EVERY:
                last = now
                self.app.call_from_thread(
                    self._say,
                    f"Reading the FIFO {self.path}: {got:,} bytes so far; the session shows"
                    " when the writer closes it (q quits)",
                )

        try:
            if not copy_fifo(self.path, copy, stop=lambda: worker.is_cancelled, progress=progress):
                return  # cancelled: the app is quitting
            size = copy.stat().st_size
            self.app.call_from_thread(
                self._say, f"The writer closed the FIFO {self.path}: loading {size:,} bytes…"
            )
            session = load_session(copy)
            session.pairing  # noqa: B018 - here, not on the UI thread
        except (OSError, SessionOpenError) as exc:
            if not worker.is_cancelled:
                self.app.call_from_thread(
                    self._say, f"Cannot read the FIFO {self.path}: {exc} (q quits)", error=True
                )
            return
        if not worker.is_cancelled:
            self.app.call_from_thread(self._show, session)

    def _show(self, session: Session) -> None:
        """The stream ended: the session screen on its copy takes this screen's place (once
        this screen is on top again, when a view is open over it)."""
        if not self.is_attached:
            return  # the app is quitting
        if not self.is_active:
            self._waiting = session
            return
        from piview.screens.session import SessionScreen

        leaf = None
        if self.leaf is not None:
            leaf = session.find(self.leaf)
            if leaf is None:
                self.app.notify(
                    f"No entry {self.leaf!r} in what the FIFO sent: the newest branch is shown",
                    severity="warning",
                    markup=False,
                )
        self.app.switch_screen(SessionScreen(session, leaf=leaf, follow=self.follow))

    _waiting: Session | None = None

    def on_screen_resume(self) -> None:
        """Back on top (the help closed): a session read meanwhile shows now."""
        if self._waiting is not None:
            session, self._waiting = self._waiting, None
            self._show(session)
