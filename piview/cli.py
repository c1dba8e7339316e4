"""Provides the ``piview`` command line: the viewer and its scriptable subcommands.

Textual is imported only when the viewer starts, so ``piview info`` and friends stay fast.
Errors the user can fix (a missing file, an unknown id) are one line on stderr and exit
status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
from collections.abc import Sequence
from typing import Any

from piview import __version__

__all__ = ["main"]

SUBCOMMANDS = ("info", "print", "tools", "export")


class CliError(Exception):
    """An error to report as one line on stderr."""


def _fail(message: str) -> int:
    print(f"piview: {message}", file=sys.stderr)
    return 2


_LOADED: list[Any] = []
"""Sessions loaded by a subcommand: their index is cached when the command ends."""


def _load(path: str) -> Any:
    import os

    from piview.model import SessionOpenError, load_session
    from piview.model.index_cache import IndexCache

    cache = None if os.environ.get("PIVIEW_NO_CACHE") else IndexCache()
    try:
        session = load_session(path, index_cache=cache)
    except SessionOpenError as exc:
        raise CliError(str(exc)) from None
    _LOADED.append(session)
    return session


def _save_indexes() -> None:
    while _LOADED:
        try:
            _LOADED.pop().save_index()
        except OSError:
            pass


# --------------------------------------------------------------------------- info


def _info_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="piview info",
        description="Summarise a session file: entries, tree, tool calls and usage.",
    )
    p.add_argument("file", help="a Pi session file (.jsonl)")
    p.add_argument("--json", action="store_true", help="print one JSON object (for scripts)")
    return p


def cmd_info(argv: Sequence[str]) -> int:
    """``piview info FILE [--json]``."""
    args = _info_parser().parse_args(argv)
    from piview.model import session_info

    session = _load(args.file)
    info = session_info(session)
    if args.json:
        sys.stdout.write(json.dumps(info, ensure_ascii=False) + "\n")
        return 0
    from piview.render.info import print_info

    print_info(info, path=args.file)
    return 0


def resolve_branch(session: Any, ref: str | None, path: str) -> tuple[int | None, int | None]:
    """``(leaf, entry)`` for ``--leaf ref``: the branch through ``entry`` down to its newest
    leaf. Without a ref: the current leaf. Raises :class:`CliError` when ``ref`` is unknown."""
    if not ref:
        return session.tree.leaf, None
    entry = session.find(ref)
    if entry is None:
        matches = session.find_all(ref)
        if matches:
            shown = ", ".join(matches[:8]) + (" …" if len(matches) > 8 else "")
            raise CliError(f"--leaf {ref} is ambiguous: {shown}")
        raise CliError(f"no entry with id {ref!r} in {path}")
    return session.tree.newest_leaf(entry), entry


def cmd_tools(argv: Sequence[str]) -> int:
    """``piview tools FILE [--leaf ID] [--json]``."""
    p = argparse.ArgumentParser(
        prog="piview tools", description="List every tool call on a branch, with its result."
    )
    p.add_argument("file", help="a Pi session file (.jsonl)")
    p.add_argument("--leaf", metavar="ID", help="the branch through this entry (id prefix)")
    p.add_argument("--json", action="store_true", help="print a JSON list (for scripts)")
    args = p.parse_args(argv)
    from piview.model.tools import tool_rows

    session = _load(args.file)
    leaf, _entry = resolve_branch(session, args.leaf, args.file)
    rows = tool_rows(session, session.tree.path(leaf) if leaf is not None else [])
    if args.json:
        out = [r.as_json(session) for r in rows]
        sys.stdout.write(json.dumps(out, ensure_ascii=False) + "\n")
        return 0
    from piview.render.pipe import PipeConsole
    from piview.render.tooltable import tools_table

    PipeConsole().print(tools_table(session, rows))
    return 0


def _cmd_export(argv: Sequence[str]) -> int:
    from piview.export import cmd_export

    return cmd_export(list(argv))


def _cmd_print(argv: Sequence[str]) -> int:
    from piview.printer import cmd_print

    return cmd_print(argv)


# --------------------------------------------------------------------------- main


def _viewer_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="piview",
        description="A terminal viewer for Pi coding-agent session files.",
        epilog=(
            "subcommands: piview info FILE [--json] | piview print FILE | "
            "piview tools FILE | piview export FILE  (each has --help)"
        ),
    )
    p.add_argument(
        "file",
        nargs="?",
        help="a Pi session file (.jsonl), or a session id prefix; none: pick a session",
    )
    p.add_argument("--leaf", metavar="ID", help="open the branch through this entry (id prefix)")
    p.add_argument("--demo", action="store_true", help="open the bundled demo session")
    p.add_argument(
        "--no-follow", action="store_true", help="do not watch the file for entries Pi appends"
    )
    p.add_argument(
        "--sessions",
        metavar="DIR",
        help="Pi's session folder (default: $PI_CODING_AGENT_DIR/sessions or ~/.pi/agent/sessions)",
    )
    p.add_argument("--version", action="version", version=f"piview {__version__}")
    return p


def cmd_view(argv: Sequence[str]) -> int:
    """``piview FILE`` (the viewer)."""
    args = _viewer_parser().parse_args(argv)
    # No cyclic garbage collection until the first screen is up (the app turns it back on):
    # importing Textual and building the first screen make many objects and little garbage,
    # and the collector's passes over them cost tens of milliseconds of the start.
    gc.disable()
    try:
        return _view(args)
    finally:
        gc.enable()


def _view(args: argparse.Namespace) -> int:
    from piview.model.discovery import resolve_session_id, sessions_dir

    root = sessions_dir(args.sessions)
    if args.demo:
        from piview.demo import demo_path

        path = str(demo_path())
    elif args.file:
        path = args.file
        if not _looks_like_path(path):
            matches = resolve_session_id(path, root)
            if not matches:
                raise CliError(
                    f"no session file {path!r}, and no session id starting with it in {root}"
                )
            if len(matches) > 1:
                listing = "; ".join(str(m) for m in matches[:5])
                raise CliError(
                    f"session id {path!r} is ambiguous ({len(matches)} sessions): {listing}"
                )
            path = str(matches[0])
    else:
        if not root.is_dir():
            raise CliError(
                f"no Pi session folder at {root} (set --sessions DIR, or try: piview --demo)"
            )
        from piview.app import run_app

        return run_app(None, sessions_root=root)
    import os

    try:
        size = os.path.getsize(path)
    except OSError:
        size = 0
    if size >= TAIL_FIRST_BYTES and not args.leaf:
        # A big file: show its last entries at once, load the whole file in a worker.
        from piview.model import SessionOpenError
        from piview.model.session import load_tail

        try:
            tail = load_tail(path)
        except SessionOpenError as exc:
            raise CliError(str(exc)) from None
        prerender = _prerender(tail, tail.tree.leaf)
        from piview.app import run_app

        def load_full() -> Any:
            session = _load(path)
            _LOADED.clear()
            return session

        return run_app(tail, follow=not args.no_follow, full_loader=load_full, prerender=prerender)
    session = _load(path)
    _LOADED.clear()  # the viewer saves the index itself, in a worker after the first screen
    branch, leaf = resolve_branch(session, args.leaf, path)
    prerender = _prerender(session, branch) if leaf is None else None
    from piview.app import run_app

    return run_app(session, leaf=leaf, follow=not args.no_follow, prerender=prerender)


def _prerender(session: Any, leaf: int | None) -> Any:
    # Before Textual is imported: the forked child renders the first frame meanwhile.
    from piview.render.prerender import start

    return start(session, leaf)


TAIL_FIRST_BYTES = 4 * 1024 * 1024
"""Files at least this big open on their last entries while the whole file loads."""


def _looks_like_path(arg: str) -> bool:
    """As Pi decides: a separator or a .jsonl suffix makes a path; so does an existing file."""
    import os

    return "/" in arg or "\\" in arg or arg.endswith(".jsonl") or os.path.exists(arg)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``piview`` command."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        if args and args[0] in SUBCOMMANDS:
            name = args.pop(0)
            handler = {
                "info": cmd_info,
                "print": _cmd_print,
                "tools": cmd_tools,
                "export": _cmd_export,
            }.get(name)
            if handler is None:
                raise CliError(f"'piview {name}' is not available yet")
            try:
                return handler(args)
            finally:
                _save_indexes()
        return cmd_view(args)
    except CliError as exc:
        return _fail(str(exc))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
