"""Provides :class:`Lineage`: the session screen's header and where its session came from.

The header names the session, its folder, its models and its date, and the session a fork was
forked from (or a subagent's parent); ``P`` opens that one at the fork point.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from functools import cached_property, partial
from itertools import compress
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.screen import Screen

from piview.catalog.discovery import sessions_dir
from piview.catalog.lineage import find_parent, fork_point
from piview.model.store import ROLE_NAMES
from piview.model.user_text import session_title
from piview.render.format import fmt_iso_short, header_line
from piview.render.sanitize import sanitize_line

if TYPE_CHECKING:
    from piview.model import Session


def session_models(session: Session) -> list[str]:
    """Distinct ``provider/model`` of the assistant messages, in order of first use (only the
    entries appended since the last call are looked at: the header asks after every poll)."""
    store = session.nodes
    n = len(session)
    done, seen, codes = _models_of.get(session, (0, {}, set()))
    if done > n:
        done, seen, codes = 0, {}, set()
    # The model codes of the new assistant messages in order of first use, at C speed.

    assistant = map(_ASSISTANT.__eq__, store.roles[done:n])
    for code in dict.fromkeys(compress(store.models[done:n], assistant)):
        if code not in codes:
            codes.add(code)
            model = store.model_table[code][1]
            if model:
                seen.setdefault(f"{model}", None)
    _models_of[session] = (n, seen, codes)
    return list(seen)


_ASSISTANT = ROLE_NAMES.index("assistant")
_models_of: weakref.WeakKeyDictionary[Session, tuple[int, dict[str, None], set[int]]] = (
    weakref.WeakKeyDictionary()
)

_STYLES = {"title": "bold", "cwd": "dim", "models": "cyan", "date": "dim"}


class Lineage:
    """The header of ``session`` on ``screen``, with its "forked from", and ``P``, which pushes
    ``open_screen(parent, leaf=…, follow=False, from_picker=True)`` at the fork point."""

    def __init__(
        self, screen: Screen[Any], session: Session, open_screen: Callable[..., Screen[Any]]
    ) -> None:
        self._screen = screen
        self._session = session
        self._open_screen = open_screen

    def header(self, width: int) -> Text:
        """The header line for a screen ``width`` columns wide."""
        s = self._session
        header = s.header
        width = max(20, width - 2)
        fork = self.fork_note
        if fork and width - len(fork) - 5 < 40:
            fork = None  # too narrow: the name and the folder come first
        if fork:
            width -= len(fork) + 5
        pieces = header_line(
            sanitize_line(session_title(s)),
            sanitize_line(header.cwd) if header and header.cwd else None,
            [sanitize_line(m) for m in session_models(s)],
            fmt_iso_short(header.timestamp) if header else None,
            width,
        )
        out = Text(no_wrap=True, overflow="ellipsis")
        for k, (text, kind) in enumerate(pieces):
            if k:
                out.append("  ·  ")
            out.append(text, style=_STYLES[kind])
        if fork:
            out.append("  ·  ")
            out.append(fork, style="magenta")
        return out

    @cached_property
    def _parent(self) -> tuple[Path | None, str, str | None]:
        """``(parent file, "fork" or "subagent", what the header names)``, looked up once."""
        header = self._session.header
        ref = None
        if header is not None:
            ref = header.parent_session or header.branched_from
        ref = ref.strip() if isinstance(ref, str) and ref.strip() else None
        try:
            path, kind = find_parent(self._session.path, ref, [sessions_dir()])
        except (OSError, ValueError):  # an odd path: no lineage, never a broken header
            path, kind = None, ""
        return path, kind or ("fork" if ref else ""), ref

    @cached_property
    def fork_note(self) -> str | None:
        """``forked from <name>`` (or ``subagent of …``) for the header, None for a root
        (worked out once: the header is drawn again on every resize)."""
        path, kind, ref = self._parent
        if not kind:
            return None
        what = "subagent of" if kind == "subagent" else "forked from"
        if path is not None:
            # Its latest session_info in the file's tail, else its first prompt or file name.
            from piview.catalog.summaries import quick_summary

            try:
                name = quick_summary(path).title or path.name  # its name, else first prompt
            except OSError:
                name = path.name
        else:
            name = Path(ref or "?").name + " (not found)"
        return f"⑂ {what} {sanitize_line(name)}"

    def open_parent(self) -> None:
        """Open the session this one was forked from, at the fork point (read in a worker)."""
        path, kind, ref = self._parent
        screen = self._screen
        if path is None:
            if ref:
                screen.notify(f"The parent session {ref} is not on this machine.", markup=False)
            else:
                screen.notify("This session was not forked from another one.")
            return
        below = screen.app.screen_stack[-2] if len(screen.app.screen_stack) > 1 else None
        same = getattr(below, "session", None)
        if kind == "subagent" and same is not None and same.path and _same_file(same.path, path):
            screen.app.pop_screen()  # opened from its call: back there
            return
        screen.notify(f"Opening {path.name}…", timeout=2, markup=False)
        screen.run_worker(
            partial(self._load_parent, path, kind),
            name="_open_parent",
            group="parent",
            description="Opening the parent",
            exclusive=True,
            thread=True,
        )

    def _load_parent(self, path: Path, kind: str) -> None:
        from piview.model import SessionOpenError, load_session

        app = self._screen.app
        try:
            parent = load_session(path)
        except SessionOpenError as exc:
            app.call_from_thread(self._screen.notify, str(exc), severity="error", markup=False)
            return
        at = None
        if kind == "fork":
            index = parent.tree.id_index
            at = fork_point(self._session.ids, index.get)
        elif kind == "subagent":
            at = _call_entry(parent, path, self._session.path)
        app.call_from_thread(self._show_parent, parent, at)

    def _show_parent(self, parent: Session, at: int | None) -> None:
        # "from_picker": escape goes back (here, to the fork), and the parent is closed.
        screen = self._open_screen(parent, leaf=at, follow=False, from_picker=True)
        self._screen.app.push_screen(screen)
        if at is not None:
            what = (
                "At the call that started it"
                if self._parent[1] == "subagent"
                else ("At the fork point")
            )
            self._screen.notify(f"{what}, entry {parent.ids[at][:8]}.", timeout=4)


def _same_file(a: str | Path, b: str | Path) -> bool:
    try:
        return Path(a).resolve() == Path(b).resolve()
    except OSError:
        return False


def _call_entry(parent: Session, parent_path: Path, child: str | Path | None) -> int | None:
    """The parent's entry holding the ``subagent`` call whose result names ``child``."""
    if not child:
        return None
    from piview.catalog.subagents import find_call_site

    site = find_call_site(parent_path, child)
    if site is None or site.result_entry_id is None:
        return None
    result = parent.tree.id_index.get(site.result_entry_id)
    if result is None:
        return None
    ref = parent.pairing.result_call.get(result)
    return ref[0] if ref is not None else result
