"""Provides ``piview [FILE]``: the viewer on one session, or the picker without a file.

Textual is imported only here, and only after the forked child that renders the first frame
has started (:mod:`piview.render.prerender`), so that the two overlap on two cores.
"""

from __future__ import annotations

import gc
import os
import shutil
import tempfile
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from piview.commands.common import CliError, load, resolve_branch

if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable

    from piview.model.session import Session

TAIL_FIRST_BYTES = 4 * 1024 * 1024
"""Files at least this big open on their last entries while the whole file loads."""


def run(args: argparse.Namespace) -> int:
    """Open the viewer on ``args.file`` (a path or a session id prefix), or the picker."""
    # No cyclic garbage collection until the first screen is up (the app turns it back on):
    # importing Textual and building the first screen make many objects and little garbage,
    # and the collector's passes over them cost tens of milliseconds of the start.
    gc.disable()
    try:
        return _view(args)
    finally:
        gc.enable()


def _view(args: argparse.Namespace) -> int:
    if args.plugins:
        from piview.render.plugins import REGISTRY

        print(REGISTRY.report())
        return 0
    from piview.catalog.discovery import resolve_session_id, sessions_dir

    if args.file == "-":
        return _live(args)
    if args.save or args.force:
        raise CliError("--save and --force go with - (a stream piped in): piview - --save FILE")
    root = sessions_dir(args.sessions)
    if args.demo:
        from piview.catalog.demo import demo_path

        path = str(demo_path())
    elif args.file:
        path = args.file
        if not looks_like_path(path):
            from piview.catalog.hosts import find_by_id, host_roots

            # Without --sessions: the sessions of every host (Pi, oh-my-pi, OpenClaw).
            roots = [] if args.sessions else host_roots()
            if roots:
                matches = find_by_id(path, roots)
            else:
                matches = [str(m) for m in resolve_session_id(path, root)]
            if not matches:
                where = ", ".join(str(r.path) for r in roots) or str(root)
                raise CliError(
                    f"no session file {path!r}, and no session id starting with it in {where}"
                )
            if len(matches) > 1:
                listing = "; ".join(str(m) for m in matches[:5])
                raise CliError(
                    f"session id {path!r} is ambiguous ({len(matches)} sessions): {listing}"
                )
            path = matches[0]
    else:
        from piview.catalog.hosts import host_roots

        # Without --sessions: the folders of every host that has one (Pi, oh-my-pi, OpenClaw).
        picked: Path | None = None
        if args.sessions or not host_roots():
            if not root.is_dir():
                raise CliError(
                    f"no Pi session folder at {root} (set --sessions DIR, or try: piview --demo)"
                )
            picked = root
        from piview.app import run_app

        return run_app(None, sessions_root=picked, theme=args.theme)
    from piview.model.fsio import is_fifo

    if is_fifo(path):
        # A stream: the viewer says at once that it waits for a writer, reads the stream in
        # a worker that q stops, and shows the copy once the writer closes it.
        from piview.app import run_app

        return run_app(None, fifo=path, fifo_leaf=args.leaf, follow=False, theme=args.theme)
    try:
        size = os.path.getsize(path)
    except OSError:
        size = 0
    if size >= TAIL_FIRST_BYTES and not args.leaf:
        # A big file: show its last entries at once, load the whole file in a worker.
        from piview.model import SessionOpenError
        from piview.model.session_tail import load_tail

        try:
            tail = load_tail(path)
        except SessionOpenError as exc:
            raise CliError(str(exc)) from None
        prerender = _prerender(tail, tail.tree.leaf)
        from piview.app import run_app

        def load_full() -> Session:
            full = load(path, keep_index=False, strict=False)
            # Reopened from the index cache, the tree makes its map of ids and the store
            # decodes its block lists on first use: here in the worker, not on the UI thread
            # at the first key or poll needing them.
            full.tree.id_index  # noqa: B018
            full.nodes.patterns  # noqa: B018
            return full

        return run_app(
            tail,
            follow=not args.no_follow,
            full_loader=load_full,
            prerender=prerender,
            theme=args.theme,
        )
    # The viewer saves the index itself, in a worker after the first screen.
    session = load(path, keep_index=False, strict=False)
    branch, leaf = resolve_branch(session, args.leaf, path)
    prerender = _prerender(session, branch) if leaf is None else None
    from piview.app import run_app

    return run_app(
        session, leaf=leaf, follow=not args.no_follow, prerender=prerender, theme=args.theme
    )


def _live(args: argparse.Namespace) -> int:
    """``pi --mode json "…" | piview -``: the stream copied into piview's capture by a
    thread (each line stamped as it arrives), the viewer following the capture, its keys read
    from the terminal (``/dev/tty``) as standard input is the pipe."""
    # Here: the picker's first screen needs no msgspec.
    from piview.model.stream import capture_header, pump, sniff_file

    if os.isatty(0):
        raise CliError(
            "piview -: standard input is a terminal; pipe a stream in: "
            'pi --mode json "…" | piview -'
        )
    path = _capture_path(args.save, force=args.force, sniff=sniff_file)
    temp = [] if args.save else [str(path.parent)]
    try:
        tty = os.open("/dev/tty", os.O_RDWR)
    except OSError as exc:
        why = exc.strerror
        raise CliError(f"piview -: no terminal to show the viewer on (/dev/tty: {why})") from None
    pipe = os.dup(0)
    os.dup2(tty, 0)  # the viewer's keys: from the terminal, not the pipe
    os.close(tty)
    out = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC)
    os.write(out, capture_header())
    # A daemon: q quits at once, and the writer gets EPIPE once the pipe's reader is gone.
    threading.Thread(target=pump, args=(pipe, out), name="piview-stdin", daemon=True).start()
    try:
        session = load(str(path), keep_index=False, strict=False)
    except BaseException:
        for folder in temp:
            shutil.rmtree(folder, ignore_errors=True)
        raise
    from piview.app import run_app

    return run_app(session, follow=True, theme=args.theme, temp_folders=temp)


def _capture_path(save: str | None, *, force: bool, sniff: Callable[[int], object]) -> Path:
    """Where ``piview -`` keeps the stream: ``--save FILE`` (made new; an earlier capture of
    piview's replaced only with ``--force``, anything else never), else a temporary file
    removed at exit."""
    if save is None:
        folder = tempfile.mkdtemp(prefix="piview-stdin-")
        path = Path(folder) / "stdin.jsonl"
        path.touch()
        return path
    path = Path(save).expanduser()
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
    except FileExistsError:
        try:
            probe = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        except OSError as exc:
            raise CliError(f"--save {save}: {exc.strerror}") from None
        try:
            ours = sniff(probe) == "piview"
        finally:
            os.close(probe)
        if not ours:
            why = "the file exists and is not a capture of piview's"
            raise CliError(f"--save {save}: {why}") from None
        if not force:
            raise CliError(f"--save {save}: the file exists (--force replaces it)") from None
        fd = os.open(path, os.O_WRONLY | os.O_TRUNC | os.O_CLOEXEC)
    except OSError as exc:
        raise CliError(f"--save {save}: {exc.strerror}") from None
    os.close(fd)
    return path


def _prerender(session: Session, leaf: int | None) -> Any:
    # Before Textual is imported: the forked child renders the first frame meanwhile.
    from piview.render.prerender import start

    return start(session, leaf)


def looks_like_path(arg: str) -> bool:
    """As Pi decides: a separator or a .jsonl suffix makes a path; so does an existing file,
    and an OpenClaw database's ``DB.sqlite#ID``."""
    from piview.model.source import parse_sqlite_ref

    return (
        "/" in arg
        or "\\" in arg
        or arg.endswith(".jsonl")
        or os.path.exists(arg)
        or parse_sqlite_ref(arg) is not None
    )
