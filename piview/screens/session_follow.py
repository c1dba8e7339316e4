"""Provides :class:`SessionFollow`: how the session screen keeps up with its file, as a mixin
of :class:`piview.screens.session.SessionScreen`.

For a big file the screen first shows its tail, then loads the whole file in a worker and
swaps it in; while following, it polls the file for what Pi appends (or reloads it when it was
truncated or replaced), keeps the header and the status line current, and pauses or resumes on
a key; and it caches a big file's index for the next start.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from textual import work
from textual.timer import Timer

from piview.render.items import ItemList, build_items
from piview.widgets.branch_panel import BranchPanel
from piview.widgets.transcript import Transcript

if TYPE_CHECKING:
    from textual.screen import Screen

    from piview.model import Session

    _Screen = Screen[None]
else:
    _Screen = object  # a plain mixin: Textual sees only the screen class itself

__all__ = ["POLL_INTERVAL", "SessionFollow", "age_text"]

POLL_INTERVAL = 0.25
"""Seconds between two looks at the file while following it: an append shows within this,
plus the time to draw it. A look is one ``stat`` when nothing changed."""

_now = time.time
"""The wall clock of "last entry … ago" (tests pin it)."""


def age_text(seconds: float) -> str:
    """How long ago, in words that stay put for a while: ``just now``, ``12 s ago``, ``4 min
    ago``, ``3 h ago``, ``2 d ago``."""
    s = max(0, int(seconds))
    if s < 5:
        return "just now"
    if s < 60:
        return f"{s} s ago"
    if s < 3600:
        return f"{s // 60} min ago"
    if s < 86400:
        return f"{s // 3600} h ago"
    return f"{s // 86400} d ago"


class SessionFollow(_Screen):
    """Loading the whole file, following it, caching its index; the screen provides what is
    declared here."""

    session: Session
    leaf: int | None
    follow: bool
    """True while the file is polled for what Pi appends (``p`` pauses and resumes)."""
    follow_shown = False
    """Whether the status line says "following" or "paused": from the start when the screen
    follows the file, else once the user starts following it."""
    last_entry_at: float | None = None
    """Wall-clock time the last entry arrived (at the start: the file's modification time)."""
    full_loader: Callable[[], Session] | None

    _follow_timer: Timer | None = None
    _shown_age: str | None = None

    if TYPE_CHECKING:

        def _reopen(
            self,
            session: Session,
            *,
            leaf: int | None = None,
            prebuilt: tuple[int, ItemList] | None = None,
            show_hidden: bool = False,
            panels: tuple[str, ...] = (),
        ) -> None: ...
        def _refresh_usage(self) -> None: ...
        def _update_status(self) -> None: ...
        def _refresh_title(self) -> None: ...

    @work(
        thread=True,
        exclusive=True,
        group="load",
        exit_on_error=False,
        description="Loading the whole session",
    )
    def _load_full(self) -> None:
        """Load the whole file in a worker, then swap it in for the tail shown."""
        assert self.full_loader is not None
        try:
            full = self.full_loader()
            # Computed once per session; here, not on the UI thread when the screen swaps.
            full.pairing  # noqa: B018
            full.labels  # noqa: B018
            leaf = full.tree.leaf
            prebuilt = None
            if leaf is not None:
                prebuilt = (leaf, build_items(full, full.tree.path(leaf)))
        except OSError as exc:
            self.app.call_from_thread(
                self.notify, f"Cannot load the whole file: {exc}", severity="error", markup=False
            )
            return
        self.app.call_from_thread(self._swap_in, full, prebuilt)

    def _swap_in(self, full: Session, prebuilt: tuple[int, ItemList] | None = None) -> None:
        """Replace the tail-only view with the whole session, keeping the place in view."""
        gc.freeze()  # as make_app does for the first index
        transcript = self.query_one(Transcript)
        entry = transcript.current_entry
        ref = None
        if entry is not None and not transcript.following_end:
            ref = full.find(self.session.ids[entry])
        self.session.close()
        self._reopen(
            full,
            leaf=ref,
            prebuilt=prebuilt,
            show_hidden=transcript.show_hidden,
            panels=tuple(
                p for p in ("branches", "usage") if self.query_one(f"#{p}").has_class("-visible")
            ),
        )

    def _save_index(self) -> None:
        """Cache a big file's index for the next start, in a worker."""
        self.run_worker(
            self.session.save_index,
            thread=True,
            group="index",
            description="Caching the session index",
            exit_on_error=False,
        )

    # ------------------------------------------------------------------ follow

    def _start_following(self) -> None:
        """Start (or resume) polling the file, and the status line's clock."""
        if self.last_entry_at is None:
            # The file's time, or a database session's newest event's.
            self.last_entry_at = self.session.modified() or _now()
        if self.session.partial:
            return  # the whole file's screen follows it, once loaded
        if self._follow_timer is None:
            self._follow_timer = self.set_interval(POLL_INTERVAL, self._poll, name="follow")
            self.set_interval(1.0, self._tick_age, name="follow-age")
        else:
            self._follow_timer.resume()

    def follow_status(self) -> str | None:
        """The status line's part on following: ``following, last entry 4 s ago``, or
        ``paused, …``; None when the file was never followed."""
        if not self.follow_shown:
            return None
        state = "following" if self.follow else "paused"
        if self.last_entry_at is None:
            return state
        self._shown_age = age_text(_now() - self.last_entry_at)
        return f"{state}, last entry {self._shown_age}"

    def _tick_age(self) -> None:
        # Redraw the status line only when "… ago" reads differently.
        at = self.last_entry_at
        if at is not None and self.follow_shown and age_text(_now() - at) != self._shown_age:
            self._update_status()

    def action_toggle_follow(self) -> None:
        """Pause following the file, or resume it (and read what arrived meanwhile)."""
        self.follow = not self.follow
        self.follow_shown = True
        if self.follow:
            self._start_following()
            if not self.session.partial:
                self._poll()
            self.notify("Following the file", timeout=2)
        else:
            if self._follow_timer is not None:
                self._follow_timer.pause()
            self.notify("Paused: the file is not read until p is pressed again", timeout=3)
        self._update_status()

    def _poll(self) -> None:
        """Read what Pi appended to the file (every :data:`POLL_INTERVAL` s while following)."""
        if not self.follow:
            return
        s = self.session
        old_latest = s.tree.leaf
        old_count = len(s)
        change = s.poll()
        if change == "replaced":
            self._reload()
            return
        if change == "title":  # oh-my-pi rewrote its title slot in place
            self._refresh_title()
            return
        if change != "appended":
            return
        self.last_entry_at = _now()
        new = len(s) - old_count
        latest = s.tree.leaf
        transcript = self.query_one(Transcript)
        watching_latest = self.leaf == old_latest
        if watching_latest and latest is not None:
            continues = old_latest is None or s.tree.is_ancestor(old_latest, latest)
            at_end = transcript.following_end
            self.leaf = latest
            transcript.update_path(s.tree.path(latest), added=range(old_count, len(s)))
            if not continues:
                self.notify("Pi moved to another branch: following its new leaf", timeout=5)
            elif not at_end and new:
                self.notify(
                    f"{new} new entr{'y' if new == 1 else 'ies'} below (G to jump)", timeout=4
                )
        elif new:
            self.notify(
                f"{new} new entr{'y' if new == 1 else 'ies'} on another branch (b to browse)",
                timeout=4,
            )
        self.query_one(BranchPanel).set_session(s, self.leaf)
        self._refresh_usage()
        self._refresh_title()  # a session_info, a new model, the first user message
        self._update_status()

    def _reload(self) -> None:
        """Read the file again from the start (it was truncated or replaced)."""
        from piview.model import SessionOpenError, load_session

        try:
            fresh = load_session(self.session.path)
        except SessionOpenError as exc:
            self.notify(
                f"The file changed and cannot be read again: {exc}", severity="error", markup=False
            )
            return
        self.session.close()
        self.last_entry_at = _now()  # the file changed: what it holds now arrived now
        self._reopen(fresh)
        self.app.notify("The file was truncated or replaced: reloaded", timeout=5)
