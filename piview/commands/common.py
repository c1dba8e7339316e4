"""Provides what every command shares: loading a session, resolving ``--leaf``, user errors.

Errors the user can fix (a missing file, an unknown id) are raised as :class:`CliError` and
shown by :mod:`piview.cli` as one line on stderr with exit status 2, never a traceback.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from piview.model.session import Session


class CliError(Exception):
    """An error to report as one line on stderr."""


_LOADED: list[Session] = []
"""Sessions loaded by a command: their index is cached when the command ends."""


def load(
    path: str, *, keep_index: bool = True, use_cache: bool = True, strict: bool = True
) -> Session:
    """The session at ``path``, with its index cache (unless ``PIVIEW_NO_CACHE`` is set or
    ``use_cache`` is false). A FIFO is read whole first (saying so on stderr).

    With ``strict``, reading an entry of a file that shrank or was replaced since raises
    :class:`piview.model.fsio.FileChangedError`. With ``keep_index``, :func:`save_indexes`
    saves its index when the command ends; the viewer passes False and saves it itself, in a
    worker after the first screen.

    Raises:
        CliError: the file cannot be opened or read.
    """
    from piview.model import SessionOpenError, load_session
    from piview.model.fsio import is_fifo
    from piview.model.index_cache import IndexCache

    cache = None if os.environ.get("PIVIEW_NO_CACHE") or not use_cache else IndexCache()
    if is_fifo(path):  # a stream: read whole into a file of ours, then read that by offset
        path, cache, keep_index = _read_fifo(path), None, False
    before = _stat(path)
    try:
        session = load_session(path, index_cache=cache)
    except SessionOpenError as exc:
        raise CliError(str(exc)) from None
    after = _stat(path)
    if strict and before is not None and (after is None or _changed(before, after)):
        session.close()
        from piview.model.fsio import FileChangedError

        raise FileChangedError(
            f"{path}: the file changed while it was read (it shrank or was replaced)"
        )
    session.strict = strict  # a command stops when the file changes under it; the viewer follows
    if keep_index:
        _LOADED.append(session)
    return session


def _stat(path: str) -> os.stat_result | None:
    try:
        return os.stat(path)
    except (OSError, ValueError):
        return None  # a DB#ID ref, or gone: load_session says why


def _changed(before: os.stat_result, after: os.stat_result) -> bool:
    """Whether the file shrank or was replaced during the load (Pi only appends to it)."""
    replaced = (before.st_dev, before.st_ino) != (after.st_dev, after.st_ino)
    return replaced or after.st_size < before.st_size  # (an unterminated last line is no change)


def _read_fifo(path: str) -> str:
    """Wait (saying so at once on stderr) for a writer on the FIFO ``path``, read the stream
    until the writer closes it, and return a temporary file holding it (removed at exit).

    Raises:
        CliError: the FIFO cannot be read, or the copy cannot be written.
    """
    import atexit
    import shutil
    import sys
    import tempfile

    print(f"piview: waiting for a writer on the FIFO {path} (Ctrl-C to stop)", file=sys.stderr)
    folder = tempfile.mkdtemp(prefix="piview-fifo-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    copy = os.path.join(folder, os.path.basename(path) or "stream.jsonl")
    try:
        with open(path, "rb") as src, open(copy, "wb") as dst:  # blocks until a writer comes
            shutil.copyfileobj(src, dst, 1 << 20)
    except OSError as exc:
        raise CliError(f"{path}: cannot read the FIFO: {exc.strerror or exc}") from None
    return copy


def save_indexes() -> None:
    """Save the index of every session :func:`load` kept (a cache: errors are ignored)."""
    while _LOADED:
        try:
            _LOADED.pop().save_index()
        except OSError:
            pass


def resolve_entry(session: Session, ref: str, path: str, flag: str = "--leaf") -> int:
    """The entry whose id is ``ref`` or starts with it.

    Raises:
        CliError: no entry matches ``ref``, or several do (``flag`` names the option).
    """
    entry = session.find(ref)
    if entry is None:
        matches = session.find_all(ref)
        if matches:
            shown = ", ".join(matches[:8]) + (" …" if len(matches) > 8 else "")
            raise CliError(f"{flag} {ref} is ambiguous: {shown}")
        raise CliError(f"no entry with id {ref!r} in {path}")
    return entry


def resolve_branch(session: Session, ref: str | None, path: str) -> tuple[int | None, int | None]:
    """``(leaf, entry)`` for ``--leaf ref``: the branch through ``entry`` down to its newest
    leaf. Without a ref: the current leaf. Raises :class:`CliError` when ``ref`` is unknown."""
    if not ref:
        return session.tree.leaf, None
    entry = resolve_entry(session, ref, path)
    return session.tree.newest_leaf(entry), entry
