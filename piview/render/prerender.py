"""Provides :func:`start`: the first screen's blocks, rendered in a forked child process.

Starting the viewer is mostly importing Textual, on one core. Rendering the first screen's
blocks needs Rich's Markdown, Pygments lexers and their regular expressions on top. A child
forked before Textual is imported does that rendering on a second core meanwhile, and hands
the rendered lines back through a pipe; the transcript uses them for its first frame when they
match what it would have drawn (same width, same console settings) and renders everything
itself otherwise.

Only where ``os.fork`` is safe and useful: Linux with two or more cores. ``PIVIEW_NO_PRERENDER``
turns it off. The child never touches the terminal or the session file.
"""

from __future__ import annotations

import atexit
import io
import os
import pickle
import select
import signal
import sys
import time
from typing import TYPE_CHECKING

from rich.console import Console
from rich.segment import Segment

from piview.model.forking import fork

if TYPE_CHECKING:
    from piview.model import Session

GUTTER = 2
"""Columns the transcript keeps left of each block (the cursor mark)."""
SCROLLBAR = 2
"""Textual's default vertical scrollbar width (the transcript keeps its gutter stable)."""

Key = tuple[int, int, bool, int]
"""``(entry, part, expanded, width)``: a rendered block, at the width its text is drawn."""
Lines = list[list[Segment]]


def console_signature(console: Console) -> tuple[object, ...]:
    """What, besides the width, decides how a console renders: both sides must agree."""
    o = console.options
    return (
        console.color_system,
        console.no_color,
        console.encoding,
        console.legacy_windows,
        console.is_terminal,
        tuple(console.size),
        o.ascii_only,
        o.max_height,
        o.markup,
        o.highlight,
    )


def _textual_like_console() -> Console:
    # As Textual's App builds its console (textual/app.py, App.__init__): the same options and
    # environment (NO_COLOR is applied by Textual after rendering, not by Rich), no file.
    environ = dict(os.environ)
    environ.pop("NO_COLOR", None)
    return Console(
        color_system=os.environ.get("TEXTUAL_COLOR_SYSTEM", "auto"),  # type: ignore[arg-type]
        file=io.StringIO(),
        markup=True,
        highlight=False,
        emoji=False,
        legacy_windows=False,
        _environ=environ,
        force_terminal=True,
        safe_box=False,
        soft_wrap=False,
    )


class Prerender:
    """The parent's handle on the child: :meth:`take` its blocks once, at the first frame."""

    def __init__(self, pid: int, fd: int, session: Session) -> None:
        self.pid = pid
        self.fd = fd
        self.session = session
        """The session the child rendered from (entry numbers are its own)."""
        self._done = False
        atexit.register(self.close)

    def take(self, timeout: float = 0.5) -> tuple[tuple[object, ...], dict[Key, Lines]] | None:
        """``(console signature, {key: lines})`` from the child, waiting at most ``timeout``
        seconds for it to finish; None if it failed or is late (it is then stopped)."""
        if self._done:
            return None
        chunks: list[bytes] = []
        deadline = time.monotonic() + timeout
        try:
            while True:
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([self.fd], [], [], left)[0]:
                    return None
                chunk = os.read(self.fd, 1 << 16)
                if not chunk:
                    break
                chunks.append(chunk)
            data = pickle.loads(b"".join(chunks))
        except Exception:  # noqa: BLE001 - any failure: the transcript renders as usual
            return None
        finally:
            self.close()
        return data if isinstance(data, tuple) and len(data) == 2 else None

    def close(self) -> None:
        """Stop the child if it still runs, and reap it."""
        if self._done:
            return
        self._done = True
        atexit.unregister(self.close)
        try:
            os.close(self.fd)
        except OSError:
            pass
        try:
            if os.waitpid(self.pid, os.WNOHANG) == (0, 0):
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
        except (OSError, ChildProcessError):
            pass


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def start(
    session: Session, leaf: int | None, *, size: os.terminal_size | None = None
) -> Prerender | None:
    """Fork a child that renders the blocks at both ends of the branch to ``leaf``, for a
    terminal of ``size`` (default: the one on standard output).

    Call it before importing Textual (the child must not inherit threads). None where it does
    not apply: no fork (or a thread already runs), one core, no terminal, an empty branch, or
    ``PIVIEW_NO_PRERENDER``.
    """
    if (
        leaf is None
        or not sys.platform.startswith("linux")
        or os.environ.get("PIVIEW_NO_PRERENDER")
        or _cores() < 2
    ):
        return None
    if size is None:
        try:
            size = os.get_terminal_size(sys.__stdout__.fileno())  # type: ignore[union-attr]
        except (AttributeError, OSError, ValueError):
            return None
    r, w = os.pipe()
    pid = fork()
    if pid is None:
        os.close(r)
        os.close(w)
        return None
    if pid == 0:  # the child: render, write, and leave without running any exit handler
        status = 1
        try:
            os.close(r)
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            payload = pickle.dumps(_render(session, leaf, size.columns, size.lines), protocol=5)
            view = memoryview(payload)
            while view:
                view = view[os.write(w, view) :]
            status = 0
        finally:
            os._exit(status)
    os.close(w)
    return Prerender(pid, r, session)


def _render(
    session: Session, leaf: int, columns: int, rows: int
) -> tuple[tuple[object, ...], dict[Key, Lines]]:
    from piview.render.itemlines import item_lines
    from piview.render.items import build_items

    console = _textual_like_console()
    width = max(20, columns - SCROLLBAR - GUTTER)
    items = build_items(session, session.tree.path(leaf), show_hidden=False)
    out: dict[Key, Lines] = {}
    # The end (the first frame) first, then the top (measured just after it, for the scrollbar).
    # Twice a screen at the end: the transcript settles from estimates, which run short.
    for order, want in ((range(len(items) - 1, -1, -1), 2 * rows), (range(len(items)), rows)):
        filled = 0
        for k in order:
            item = items[k]
            key = (item.entry, item.part, item.expanded, width)
            if key not in out:
                out[key] = item_lines(
                    session, item, expanded=item.expanded, width=width, console=console
                )
            filled += len(out[key]) + 1
            if filled >= want:
                break
    return console_signature(console), out
