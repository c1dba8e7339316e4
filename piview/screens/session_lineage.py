"""Provides :class:`SessionLineage`: where a session came from, as a mixin of
:class:`piview.screens.session.SessionScreen`.

A fork's header names the file it was forked from (``parentSession``, ``branchedFrom`` in
older files); a subagent's file sits in its parent session's own folder. The header says
"forked from …" (or "subagent of …"), and ``P`` opens that session at the fork point: the
last entry of the copied history, with its branch shown. Escape there comes back.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import work

from piview.catalog.discovery import sessions_dir
from piview.catalog.lineage import find_parent, fork_point
from piview.render.sanitize import sanitize_line

if TYPE_CHECKING:
    from textual.screen import Screen

    from piview.model import Session

    _Screen = Screen[None]
else:
    _Screen = object  # a plain mixin: Textual sees only the screen class itself

__all__ = ["SessionLineage", "parent_label"]


def parent_label(path: Path) -> str:
    """The parent session's name (its latest ``session_info`` in the file's tail), else its
    file name: cheap enough for the header."""
    from piview.catalog.summaries import quick_summary

    try:
        s = quick_summary(path)
    except OSError:
        return path.name
    return s.name or path.name


class SessionLineage(_Screen):
    """The header's "forked from" and the key that opens the parent session."""

    session: Session

    if TYPE_CHECKING:

        def _new_screen(self, session: Session, **kwargs: Any) -> Screen[None]:
            """Provided by the screen: a session screen (this mixin does not import it)."""

    _lineage: tuple[Path | None, str, str | None] | None = None
    _note: tuple[str | None] | None = None

    def _parent_session(self) -> tuple[Path | None, str, str | None]:
        """``(parent file, "fork" or "subagent", what the header names)``, looked up once."""
        if self._lineage is None:
            header = self.session.header
            ref = None
            if header is not None:
                ref = header.parent_session or header.branched_from
            ref = ref.strip() if isinstance(ref, str) and ref.strip() else None
            try:
                path, kind = find_parent(self.session.path, ref, [_root()])
            except (OSError, ValueError):  # an odd path: no lineage, never a broken header
                path, kind = None, ""
            self._lineage = (path, kind or ("fork" if ref else ""), ref)
        return self._lineage

    def fork_note(self) -> str | None:
        """``forked from <name>`` (or ``subagent of …``) for the header, None for a root
        (worked out once: the header is drawn again on every resize)."""
        if self._note is None:
            path, kind, ref = self._parent_session()
            note = None
            if kind:
                what = "subagent of" if kind == "subagent" else "forked from"
                if path is not None:
                    name = parent_label(path)
                else:
                    name = Path(ref or "?").name + " (not found)"
                note = f"⑂ {what} {sanitize_line(name)}"
            self._note = (note,)
        return self._note[0]

    def action_open_parent(self) -> None:
        """Open the session this one was forked from, at the fork point."""
        path, kind, ref = self._parent_session()
        if path is None:
            if ref:
                self.notify(f"The parent session {ref} is not on this machine.", markup=False)
            else:
                self.notify("This session was not forked from another one.")
            return
        self.notify(f"Opening {path.name}…", timeout=2, markup=False)
        self._open_parent(path, kind)

    @work(thread=True, exclusive=True, group="parent", description="Opening the parent")
    def _open_parent(self, path: Path, kind: str) -> None:
        from piview.model import SessionOpenError, load_session

        try:
            parent = load_session(path)
        except SessionOpenError as exc:
            self.app.call_from_thread(self.notify, str(exc), severity="error", markup=False)
            return
        at = None
        if kind == "fork":
            index = parent.tree.id_index
            at = fork_point(self.session.ids, index.get)
        self.app.call_from_thread(self._show_parent, parent, at)

    def _show_parent(self, parent: Session, at: int | None) -> None:
        # "from_picker": escape goes back (here, to the fork), and the parent is closed.
        self.app.push_screen(self._new_screen(parent, leaf=at, follow=False, from_picker=True))
        if at is not None:
            self.notify(f"At the fork point, entry {parent.ids[at][:8]}.", timeout=4)


def _root() -> Path:
    return sessions_dir()
