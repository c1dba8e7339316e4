"""Provides :class:`SessionFollow`: how the session screen keeps up with its file, as a mixin
of :class:`piview.screens.session.SessionScreen`.

For a big file the screen first shows its tail, then loads the whole file in a worker and
swaps it in; while following, it polls the file for what Pi appends (or reloads it when it was
truncated or replaced); and it caches a big file's index for the next start.
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from typing import TYPE_CHECKING

from textual import work

from piview.render.items import ItemList, build_items
from piview.widgets.branch_panel import BranchPanel
from piview.widgets.transcript import Transcript

if TYPE_CHECKING:
    from textual.screen import Screen

    from piview.model import Session

    _Screen = Screen[None]
else:
    _Screen = object  # a plain mixin: Textual sees only the screen class itself

__all__ = ["SessionFollow"]


class SessionFollow(_Screen):
    """Loading the whole file, following it, caching its index; the screen provides what is
    declared here."""

    session: Session
    leaf: int | None
    follow: bool
    full_loader: Callable[[], Session] | None

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

    def _poll(self) -> None:
        """Read what Pi appended to the file (every 0.5 s while following it)."""
        s = self.session
        old_latest = s.tree.leaf
        old_count = len(s)
        change = s.poll()
        if change == "replaced":
            self._reload()
            return
        if change != "appended":
            return
        new = len(s) - old_count
        latest = s.tree.leaf
        transcript = self.query_one(Transcript)
        watching_latest = self.leaf == old_latest
        if watching_latest and latest is not None:
            continues = old_latest is None or s.tree.is_ancestor(old_latest, latest)
            at_end = transcript.following_end
            self.leaf = latest
            transcript.update_path(s.tree.path(latest))
            if not continues:
                self.notify("Pi moved to another branch: following its new leaf", timeout=5)
            elif not at_end:
                self.notify(
                    f"{new} new entr{'y' if new == 1 else 'ies'} below (G to jump)", timeout=4
                )
        else:
            self.notify(
                f"{new} new entr{'y' if new == 1 else 'ies'} on another branch (b to browse)",
                timeout=4,
            )
        self.query_one(BranchPanel).set_session(s, self.leaf)
        self._refresh_usage()
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
        self._reopen(fresh)
        self.app.notify("The file was truncated or replaced: reloaded", timeout=5)
