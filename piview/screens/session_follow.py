"""Provides :class:`Follower`: how the session screen keeps up with its file.

It loads the whole of a big file whose tail is shown, polls the file for what Pi appends (or
reloads it when truncated or replaced), pauses and resumes, and caches a big file's index.
Reading and the tree are done in workers (:mod:`piview.model.follow`); the UI thread only adds
the new entries.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from textual.timer import Timer

from piview.model.memory import release_free_memory
from piview.render.items import ItemList, build_items
from piview.render.items_follow import branch_items, extend_items
from piview.widgets.branch_panel import BranchPanel
from piview.widgets.offthread import compute_off_thread
from piview.widgets.transcript import Transcript

if TYPE_CHECKING:
    from piview.model import Session
    from piview.model.follow import Found, Update
    from piview.screens.session import SessionScreen

POLL_INTERVAL = 0.25
"""Seconds between two looks at the file while following it (one ``stat`` each)."""

_now = time.time
"""The wall clock of "last entry … ago" (tests pin it)."""


def age_text(seconds: float) -> str:
    """How long ago, in words that stay put for a while: ``just now``, ``12 s ago``, ``2 d ago``."""
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


class Follower:
    """Loading the whole file of ``screen``'s session, following it, caching its index; the
    screen hands it its ``p`` and its resume. The screen is replaced by ``new_screen(session,
    **options)`` when the whole file is loaded, or the file read again."""

    def __init__(self, screen: SessionScreen, new_screen: Callable[..., SessionScreen]) -> None:
        self._screen = screen
        self._new_screen = new_screen
        self._timer: Timer | None = None
        self._shown_age: str | None = None
        self._shown_live: str | None = None
        self._on_top: Callable[[], None] | None = None
        """A replacement of the screen waiting for the view over it to close."""
        self._polling = False
        """True from a look at the file until what it found is shown (one look at a time)."""
        self._reloading = False
        self._panes_generation = 0
        """Counts the panes' refreshes: a branch panel's growth put off by a newer one is moot."""

    def load_full(self) -> None:
        """Load the whole file in a worker, then swap it in for the tail shown."""
        self._screen.run_worker(
            self._load_full,
            name="_load_full",
            group="load",
            description="Loading the whole session",
            exit_on_error=False,
            exclusive=True,
            thread=True,
        )

    def _load_full(self) -> None:
        screen = self._screen
        assert screen.full_loader is not None
        try:
            full = screen.full_loader()
            # The whole index lives as long as the screen: keep the cyclic GC from rescanning
            # it while the pairing and the blocks below allocate, as make_app does.
            gc.freeze()
            # Computed once per session; here, not on the UI thread when the screen swaps.
            full.pairing  # noqa: B018
            full.labels  # noqa: B018
            # What each step freed goes back to the system before the next (a lower peak).
            release_free_memory()
            leaf = full.tree.leaf
            prebuilt = None
            if leaf is not None:
                # The path as an array: a list's int per entry raised the peak.
                prebuilt = (leaf, build_items(full, full.tree.path_array(leaf)))
                release_free_memory()
        except OSError as exc:
            screen.app.call_from_thread(
                screen.notify,
                f"Cannot load the whole file: {exc}",
                severity="error",
                markup=False,
            )
            return
        screen.app.call_from_thread(self._when_on_top, partial(self._swap_in, full, prebuilt))

    def _when_on_top(self, replace: Callable[[], None]) -> None:
        """Run ``replace`` (which switches this screen for a new one) now if this screen is
        the one shown, else once it is shown again (``switch_screen`` replaces the top
        screen); never once the app is quitting."""
        screen = self._screen
        self._on_top = None
        if not screen.is_attached:  # the app is exiting (or this screen was removed)
            return
        if screen.is_active:
            replace()
        else:
            self._on_top = replace

    def _reopen(
        self,
        session: Session,
        *,
        leaf: int | None = None,
        prebuilt: tuple[int, ItemList] | None = None,
        show_hidden: bool = False,
        panels: tuple[str, ...] = (),
    ) -> None:
        """Replace the screen with one on ``session`` (the whole file, or the file read
        again), following it and going back to the picker as this one does."""
        old = self._screen
        screen = self._new_screen(
            session,
            leaf=leaf,
            follow=old.follow,
            from_picker=old.from_picker,
            prebuilt=prebuilt,
            show_hidden=show_hidden,
            panels=panels,
        )
        screen.follow_shown = old.follow_shown
        screen.last_entry_at = old.last_entry_at
        old.app.switch_screen(screen)

    def resumed(self) -> None:
        """Back on top (a view over this screen closed): a replacement waiting runs now."""
        if self._on_top is not None:
            self._when_on_top(self._on_top)

    def _swap_in(self, full: Session, prebuilt: tuple[int, ItemList] | None = None) -> None:
        """Replace the tail-only view with the whole session, keeping the place in view."""
        screen = self._screen
        gc.freeze()  # as make_app does for the first index
        transcript = screen.query_one(Transcript)
        entry = transcript.current_entry
        ref = None
        if entry is not None and not transcript.following_end:
            ref = full.find(screen.session.ids[entry])
        screen.session.close()
        self._reopen(
            full,
            leaf=ref,
            prebuilt=prebuilt,
            show_hidden=transcript.show_hidden,
            panels=tuple(
                p for p in ("branches", "usage") if screen.query_one(f"#{p}").has_class("-visible")
            ),
        )

    def save_index(self) -> None:
        """Cache a big file's index for the next start, in a worker, from a copy."""
        screen = self._screen
        s = screen.session
        if not s.index_unsaved:
            return
        snapshot = s.index_snapshot()  # the poll adds to the index meanwhile
        screen.run_worker(
            partial(s.save_index, snapshot),
            thread=True,
            group="index",
            description="Caching the session index",
            exit_on_error=False,
        )

    # ------------------------------------------------------------------ follow

    def start(self) -> None:
        """Start (or resume) polling the file, and the status line's clock."""
        screen = self._screen
        if screen.last_entry_at is None:
            # The file's time, or a database session's newest event's.
            screen.last_entry_at = screen.session.modified() or _now()
        if screen.session.partial:
            return  # the whole file's screen follows it, once loaded
        if self._timer is None:
            self._timer = screen.set_interval(POLL_INTERVAL, self._poll, name="follow")
            screen.set_interval(1.0, self._tick_age, name="follow-age")
        else:
            self._timer.resume()

    def status(self, short: bool = False) -> str | None:
        """``following, last entry 4 s ago`` or ``paused, …`` (``following 4 s ago`` when
        ``short``); None when the file was never followed."""
        screen = self._screen
        stream = screen.session.stream_source
        live = stream.status() if stream is not None else None
        self._shown_live = live
        if live is not None and stream is not None and stream.live:
            return live if screen.follow else f"paused · {live}"  # piview - : the pipe's state
        if not screen.follow_shown:
            return live
        state = live or ("following" if screen.follow else "paused")
        if screen.last_entry_at is None:
            return state
        self._shown_age = age_text(_now() - screen.last_entry_at)
        return f"{state} {self._shown_age}" if short else f"{state}, last entry {self._shown_age}"

    def _tick_age(self) -> None:
        # Redraw the status line only when "… ago" reads differently.
        screen = self._screen
        at = screen.last_entry_at
        if at is not None and screen.follow_shown and age_text(_now() - at) != self._shown_age:
            screen.update_status()

    def toggle(self) -> None:
        """Pause following the file, or resume it (and read what arrived meanwhile)."""
        screen = self._screen
        screen.follow = not screen.follow
        screen.follow_shown = True
        if screen.follow:
            self.start()
            if not screen.session.partial:
                self._poll()
            screen.notify("Following the file", timeout=2)
        else:
            if self._timer is not None:
                self._timer.pause()
            screen.notify("Paused: the file is not read until p is pressed again", timeout=3)
        screen.update_status()

    def _poll(self) -> None:
        """Look at the file for what Pi appended: one ``stat`` here; reading, decoding and
        extending the tree in a worker (an OpenClaw database's session: all in the worker)."""
        screen = self._screen
        if not screen.follow or self._polling:
            return
        s = screen.session
        if s.retitle():  # oh-my-pi rewrote its title slot in place (256 bytes read)
            screen.refresh_title()
        if s.sqlite_ref is None:  # an OpenClaw database is asked by the worker, never here
            change = s.stat_change()
            stream = s.stream_source
            if stream is not None and stream.status() != self._shown_live:
                screen.update_status()  # a live pipe: a message streaming, a tool running
            if change == "none":
                return
            if change == "replaced":
                self._polling = True
                self._reload()
                return
        self._polling = True
        compute_off_thread(
            screen,
            partial(_look, s),
            partial(self._looked, s),
            group="follow",
            description="Reading what Pi appended",
        )

    def _looked(self, s: Session, found: Found | None) -> None:
        """Add what the worker read (linear in it); rebuild the tree in another worker when
        it is not a plain append to the last entry."""
        screen = self._screen
        if s is not screen.session or found is None or not screen.follow:
            # Another session, a failed read or paused meanwhile: the next look reads it.
            self._polling = False
            return
        if found.change == "replaced":
            self._reload()
            return
        if found.change != "grown":
            self._polling = False
            return
        from piview.model.follow import absorb, rebuild  # imported by the look (_look)

        old_latest, old_count = s.tree.leaf, len(s)
        extended = found.plain  # the branch shown may grow at its end
        grown = found.extension is not None  # the tree grew: the old entries stay as they were
        try:
            done = absorb(s, found)
        except (ValueError, BufferError):  # changed under the worker: read it all again
            self._reload()
            return
        if done:
            self._polling = False
            if found.shows_more:
                self._show_appended(old_latest, old_count, extended=extended, grown=grown)
            return
        compute_off_thread(
            screen,
            partial(rebuild, s),
            partial(self._rebuilt, s, old_latest, old_count),
            group="follow",
            description="Rebuilding the session tree",
        )

    def _rebuilt(
        self, s: Session, old_latest: int | None, old_count: int, update: Update | None
    ) -> None:
        if s is not self._screen.session:
            self._polling = False
            return
        if update is None:  # the worker failed (logged): the entries read have no tree yet
            self._reload()
            return
        from piview.model.follow import install

        install(s, update)
        self._polling = False
        self._show_appended(old_latest, old_count, extended=False)

    def _show_appended(
        self, old_latest: int | None, old_count: int, *, extended: bool, grown: bool = False
    ) -> None:
        """Show the entries from ``old_count`` on: move the view to the new leaf when it was on
        the latest one, else say where they went. ``extended``: a plain append; ``grown``: the
        tree was extended, not rebuilt."""
        screen = self._screen
        s = screen.session
        screen.last_entry_at = _now()
        new = len(s) - old_count
        latest = s.tree.leaf
        transcript = screen.query_one(Transcript)
        if screen.leaf == old_latest and latest is not None:
            # A plain append continues the branch shown; else Pi may have moved to another.
            added = range(old_count, len(s))
            items = transcript.items
            # The leaf is the newest entry, unless an OpenClaw leaf entry moved it.
            grows = extended and transcript.path[-1:] == [old_latest] and latest == len(s) - 1
            # A list of pointers copied (a path of ints built again costs ten times more).
            path = transcript.path + list(added) if grows else s.tree.path(latest)
            continues = grows or old_latest is None or old_latest in path  # at C speed
            at_end = transcript.following_end
            fresh = None
            if grows and isinstance(items, ItemList):
                fresh = extend_items(s, items, added, show_hidden=transcript.show_hidden)
            elif isinstance(items, ItemList):
                # A new branch under an entry shown: the blocks up to the fork are kept.
                fresh = branch_items(
                    s, items, transcript.path, path, old_count, show_hidden=transcript.show_hidden
                )
            grown_from = old_count if grown else None
            if fresh is not None:
                self._show_path(latest, path, added, fresh, grown_from)
            elif len(path) >= _ITEMS_IN_WORKER:
                self._polling = True  # no look at the file until this branch shows
                compute_off_thread(
                    screen,
                    partial(build_items, s, path, show_hidden=transcript.show_hidden),
                    partial(self._items_built, s, latest, path, added, grown_from),
                    group="follow",
                    description="Building the branch's blocks",
                )
            else:
                self._show_path(latest, path, added, None, grown_from)
            if not continues:
                screen.notify("Pi moved to another branch: following its new leaf", timeout=5)
            elif not at_end and new:
                screen.notify(
                    f"{new} new entr{'y' if new == 1 else 'ies'} below (G to jump)", timeout=4
                )
            return  # the panes follow the transcript (_show_path)
        if new:
            screen.notify(
                f"{new} new entr{'y' if new == 1 else 'ies'} on another branch (b to browse)",
                timeout=4,
            )
        self._refresh_panes()

    def _items_built(
        self,
        s: Session,
        leaf: int,
        path: list[int],
        added: range,
        grown_from: int | None,
        items: ItemList | None,
    ) -> None:
        self._polling = False
        if s is self._screen.session:
            self._show_path(leaf, path, added, items, grown_from)

    def _show_path(
        self,
        leaf: int,
        path: list[int],
        added: range,
        items: ItemList | None,
        grown_from: int | None = None,
    ) -> None:
        """Show the branch to ``leaf`` (grown by ``added``), then the panes around it."""
        screen = self._screen
        screen.leaf = leaf
        screen.query_one(Transcript).update_path(path, added=added, items=items)
        self._refresh_panes(grown_from)

    def _refresh_panes(self, grown_from: int | None = None) -> None:
        """Bring the panes up to date; ``grown_from``: the tree was extended by the entries
        from there on (the branch panel grows its rows after the transcript's paint)."""
        screen = self._screen
        s = screen.session
        self._panes_generation += 1
        if grown_from is None or screen.leaf is None:
            screen.query_one(BranchPanel).set_session(s, screen.leaf)
        else:
            screen.call_after_refresh(self._grow_panel, s, self._panes_generation)
        screen.refresh_usage()
        screen.refresh_title()  # a session_info, a new model, the first user message
        screen.update_status()

    def _grow_panel(self, s: Session, generation: int) -> None:
        """Grow the branch panel's rows with what the file gained, else lay them out anew."""
        screen = self._screen
        if s is not screen.session or generation != self._panes_generation:
            return  # a newer refresh of the panes grows the panel, or sets it anew
        panel = screen.query_one(BranchPanel)
        if screen.leaf is None or not panel.grow(s, screen.leaf):
            panel.set_session(s, screen.leaf)

    def _reload(self) -> None:
        """Read the file again from the start, in a worker (it was truncated or replaced);
        the screen is replaced once it is read."""
        screen = self._screen
        self._polling = True  # no look at the file meanwhile
        if self._reloading:
            return
        self._reloading = True
        path = screen.session.path
        compute_off_thread(
            screen,
            partial(_load_again, path),
            self._reloaded,
            group="follow",
            description="Reading the file again",
        )

    def _reloaded(self, loaded: tuple[Session, tuple[int, ItemList] | None] | str | None) -> None:
        self._reloading = False
        if not isinstance(loaded, tuple):
            self._polling = False
            self._screen.notify(
                f"The file changed and cannot be read again: {loaded or 'see the log'}",
                severity="error",
                markup=False,
            )
            return
        # No look at the file meanwhile (it would read it again while a view is over this).
        self._when_on_top(partial(self._reopen_reloaded, *loaded))

    def _reopen_reloaded(self, fresh: Session, prebuilt: tuple[int, ItemList] | None) -> None:
        screen = self._screen
        screen.session.close()
        screen.last_entry_at = _now()  # the file changed: what it holds now arrived now
        self._reopen(fresh, prebuilt=prebuilt)
        screen.app.notify("The file was truncated or replaced: reloaded", timeout=5)


_ITEMS_IN_WORKER = 20_000
"""A branch this long, when not extended, has its blocks built in a worker after a poll."""


def _load_again(path: Path) -> tuple[Session, tuple[int, ItemList] | None] | str:
    """The file read again with what the screen needs computed (in a worker), or why not."""
    from piview.model import SessionOpenError, load_session

    try:
        fresh = load_session(path)
    except SessionOpenError as exc:
        return str(exc)
    fresh.pairing  # noqa: B018 - here, not on the UI thread
    fresh.labels  # noqa: B018
    leaf = fresh.tree.leaf
    prebuilt = None if leaf is None else (leaf, build_items(fresh, fresh.tree.path(leaf)))
    return fresh, prebuilt


def _look(s: Session) -> Found:
    """:func:`piview.model.follow.look`, imported in the worker at the first look."""

    from piview.model.follow import look

    return look(s)
