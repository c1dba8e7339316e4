"""Provides the ``piview`` command line: argument parsing and dispatch to :mod:`piview.commands`.

Each command's module is imported only when it runs, so ``piview info`` and friends never
import Textual. Errors the user can fix (a missing file, an unknown id) are one line on stderr
and exit status 2, never a traceback.
"""

from __future__ import annotations

import errno
import importlib
import os
import sys
from collections.abc import Callable, Sequence
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, cast

from piview import __version__

if TYPE_CHECKING:
    import argparse


def _parser(**kwargs: Any) -> argparse.ArgumentParser:
    """A command's parser (argparse is imported only for a command line that needs it)."""
    import argparse

    return argparse.ArgumentParser(**kwargs)


def _file_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="a Pi session file (.jsonl)")


def _json_arg(p: argparse.ArgumentParser, what: str = "one JSON object") -> None:
    p.add_argument("--json", action="store_true", help=f"print {what} (for scripts)")


def _sessions_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--sessions",
        metavar="DIR",
        help="Pi's session folder (default: $PI_CODING_AGENT_DIR/sessions or ~/.pi/agent/sessions)",
    )


def _branch_args(p: argparse.ArgumentParser, leaf_help: str) -> None:
    _file_arg(p)
    p.add_argument("--leaf", metavar="ID", help=leaf_help)


def _count(text: str) -> int:
    """A ``--limit``: a whole number; a silly big one means "all" (SQLite's integers stop at
    2**63)."""
    import argparse

    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    return min(n, 2**62)  # below 1: the command says so


def _tools_arg(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument(
        "--tools",
        choices=("full", "preview", "none"),
        default="preview",
        help=f"tool output: {what}",
    )


def _info_parser() -> argparse.ArgumentParser:
    p = _parser(
        prog="piview info",
        description="Summarise a session file: entries, tree, tool calls and usage.",
    )
    _file_arg(p)
    _json_arg(p)
    return p


def _tools_parser() -> argparse.ArgumentParser:
    p = _parser(
        prog="piview tools", description="List every tool call on a branch, with its result."
    )
    _branch_args(p, "the branch through this entry (id prefix)")
    _json_arg(p, "a JSON list")
    return p


def _context_parser() -> argparse.ArgumentParser:
    p = _parser(
        prog="piview context",
        description=(
            "Show what Pi would send to the model if the session continued from an entry: "
            "the thinking level, the model, the system prompt and every message."
        ),
    )
    _file_arg(p)
    p.add_argument(
        "--at", metavar="ID", help="the entry (id or unique prefix; default: the current leaf)"
    )
    _json_arg(p)
    return p


def _timeline_parser() -> argparse.ArgumentParser:
    p = _parser(
        prog="piview timeline",
        description=(
            "Where a branch's time and context went: runs (a prompt and its turns), each "
            "turn's streaming time, tool calls and context, and totals by tool."
        ),
    )
    _branch_args(p, "the branch through this entry (id prefix)")
    _json_arg(p)
    return p


def _diff_parser() -> argparse.ArgumentParser:
    p = _parser(
        prog="piview diff",
        description=(
            "Compare two branches from their common ancestor: prompts, tool calls, files, "
            "outcome and totals of each side."
        ),
    )
    _file_arg(p)
    for name in ("a", "b"):
        p.add_argument(
            name,
            metavar=name.upper(),
            help="an entry id (or unique prefix): the branch through it down to its newest "
            "leaf; or leaf for the current one",
        )
    _json_arg(p)
    return p


def _stats_parser() -> argparse.ArgumentParser:
    from piview.catalog.stats import GROUPINGS

    p = _parser(
        prog="piview stats",
        description=(
            "Tokens and cost across all sessions, per group; history that forks copy is "
            "counted once, in the file where it first appeared."
        ),
    )
    p.add_argument("--by", choices=GROUPINGS, default="day", help="one row per (default: day)")
    p.add_argument("--since", metavar="DATE", help="from this day on (YYYY-MM-DD or YYYYMMDD)")
    p.add_argument("--until", metavar="DATE", help="up to this day, inclusive")
    _json_arg(p)
    _sessions_arg(p)
    return p


def _print_parser() -> argparse.ArgumentParser:
    p = _parser(
        prog="piview print",
        description="Print one branch of a session (root to leaf) as text.",
    )
    _branch_args(p, "print the branch through this entry (id or unique prefix)")
    p.add_argument("--thinking", action="store_true", help="show thinking blocks in full")
    _tools_arg(p, "full, a short preview (default), or none (one line per call)")
    p.add_argument(
        "--hidden",
        action="store_true",
        help="include hidden content (display:false messages, extension state)",
    )
    p.add_argument(
        "--system",
        choices=("preview", "full"),
        default="preview",
        help="system messages: their first lines and a line count (default), or whole",
    )
    p.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="colour: on a terminal (default), always (even into a pipe), or never",
    )
    return p


def _export_parser() -> argparse.ArgumentParser:
    p = _parser(
        prog="piview export",
        description="Export one branch of a session (root to leaf) as one self-contained "
        "HTML file (default) or as Markdown.",
    )
    _branch_args(p, "the branch through this entry (id prefix)")
    p.add_argument(
        "--format",
        choices=("html", "md"),
        help="output format (default: md for -o x.md, else html)",
    )
    _tools_arg(
        p, "all of it, the first lines (default; in HTML the rest is one click away), or calls only"
    )
    p.add_argument("--thinking", action="store_true", help="include the model's thinking")
    p.add_argument(
        "--hidden",
        action="store_true",
        help="include hidden content (display:false messages, extension state with its data)",
    )
    p.add_argument(
        "-o",
        "--output",
        metavar="OUT",
        help="output file (missing folders are created) or existing directory "
        "(default: <session file name>.<format> here)",
    )
    return p


def _search_parser() -> argparse.ArgumentParser:
    p = _parser(
        prog="piview search",
        description="Search the text of every session (the index is updated first: only new "
        'and changed files are read). FTS5 syntax: words, "phrases", prefix*, OR, NOT.',
    )
    p.add_argument("query", help="what to look for")
    _sessions_arg(p)
    p.add_argument("--tools", action="store_true", help="search tool calls and tool output too")
    p.add_argument("--since", metavar="DATE", help="only entries from this date (ISO) on")
    p.add_argument("--limit", type=_count, default=20, metavar="N", help="at most N hits (20)")
    _json_arg(p, "a JSON list")
    return p


def _view_parser() -> argparse.ArgumentParser:
    p = _parser(
        prog="piview",
        description="A terminal viewer for Pi coding-agent session files.",
        epilog=(
            "subcommands: piview info FILE [--json] | piview print FILE | "
            "piview tools FILE | piview export FILE | piview context FILE | "
            "piview timeline FILE | "
            "piview diff FILE A B | piview stats | piview search QUERY  (each has --help)"
        ),
    )
    p.add_argument(
        "file",
        nargs="?",
        help="a Pi session file (.jsonl), a capture of pi --mode json or rpc, a session id "
        "prefix, or - (a stream piped in, shown live); none: pick a session",
    )
    p.add_argument(
        "--save",
        metavar="FILE",
        help="with -: keep the stream piped in as FILE (piview's capture, each line stamped "
        "with its arrival time; piview FILE reads it back)",
    )
    p.add_argument(
        "--force", action="store_true", help="with --save: replace an earlier capture of piview's"
    )
    p.add_argument("--leaf", metavar="ID", help="open the branch through this entry (id prefix)")
    p.add_argument("--demo", action="store_true", help="open the bundled demo session")
    p.add_argument(
        "--no-follow", action="store_true", help="do not watch the file for entries Pi appends"
    )
    _sessions_arg(p)
    p.add_argument(
        "--theme",
        metavar="NAME",
        help="light, dark, or any Textual theme (default: $PIVIEW_THEME, else dark); "
        "NO_COLOR=1 turns colour off",
    )
    p.add_argument("--version", action="version", version=f"piview {__version__}")
    p.add_argument("--plugins", action="store_true", help="list the renderer plugins and exit")
    return p


_PARSERS: dict[str, Callable[[], argparse.ArgumentParser]] = {
    "info": _info_parser,
    "print": _print_parser,
    "tools": _tools_parser,
    "export": _export_parser,
    "context": _context_parser,
    "timeline": _timeline_parser,
    "diff": _diff_parser,
    "stats": _stats_parser,
    "search": _search_parser,
}
SUBCOMMANDS = tuple(_PARSERS)
"""The subcommands; anything else on the command line is the viewer's (a file, a flag)."""


_VIEW_FLAGS = {"--no-follow": "no_follow", "--demo": "demo"}
"""The viewer's switches :func:`_plain_view_args` reads itself."""


def _plain_view_args(args: list[str]) -> argparse.Namespace | None:
    """The viewer's arguments for the common ``piview [--no-follow] [--demo] [FILE]``, as
    :func:`_view_parser` would parse them, without importing argparse (a few milliseconds of
    the first screen); None for anything else (argparse then parses it, help and errors too)."""
    values: dict[str, object] = {
        "file": None,
        "leaf": None,
        "demo": False,
        "no_follow": False,
        "sessions": None,
        "theme": None,
        "plugins": False,
        "save": None,
        "force": False,
    }
    for arg in args:
        if arg in _VIEW_FLAGS:
            values[_VIEW_FLAGS[arg]] = True
        elif arg and not arg.startswith("-") and values["file"] is None:
            values["file"] = arg
        else:  # an option with a value, an abbreviation, a second file, "--", "": argparse's
            return None
    return cast("argparse.Namespace", SimpleNamespace(**values))


def parse_args(argv: Sequence[str]) -> tuple[str, argparse.Namespace]:
    """``(command, args)``: ``view`` unless the first word is a subcommand's name."""
    args = list(argv)
    if args and args[0] in _PARSERS:
        name = args.pop(0)
        return name, _PARSERS[name]().parse_args(args)
    return "view", _plain_view_args(args) or _view_parser().parse_args(args)


def run_command(argv: Sequence[str]) -> int:
    """Parse ``argv`` and run its command; user errors are raised as ``CliError``."""
    name, args = parse_args(argv)
    module = importlib.import_module(f"piview.commands.{name}")
    if name == "view":
        return int(module.run(args))
    from piview.commands.common import save_indexes

    try:
        return int(module.run(args))
    finally:
        save_indexes()


EXIT_OK, EXIT_NO_MATCH, EXIT_INPUT, EXIT_SYSTEM, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
"""The exit statuses (README, "Exit statuses"): 1 only from ``search`` (nothing matched);
2 a bad argument or input (missing file, a device, an unknown id, a file changed while read);
3 the system failed piview (a full disk, an I/O error, a database error); 130 Ctrl-C."""


def _reason(exc: BaseException) -> str:
    """One line saying why ``exc`` happened, without the traceback."""
    if isinstance(exc, OSError):
        text = exc.strerror or str(exc)
        name = exc.filename
        return f"{name}: {text}" if name and exc.strerror else text
    if isinstance(exc, OverflowError):
        return f"a number too large ({exc})"
    if isinstance(exc, UnicodeError):
        return f"cannot decode text ({exc})"
    return str(exc) or type(exc).__name__


def _quiet_stdout() -> None:
    """Point stdout at /dev/null, so Python's flush at exit cannot fail again on a full or
    closed stdout (Python's docs, "Note on SIGPIPE")."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def _is_sqlite_error(exc: BaseException) -> bool:
    mod = sys.modules.get("sqlite3")  # imported only by the commands that use it
    return mod is not None and isinstance(exc, mod.Error)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``piview`` command: every error is one line on stderr,
    ``piview: <what>: <why>``, with the exit statuses of :data:`EXIT_INPUT` and friends
    (``PIVIEW_DEBUG=1`` shows the traceback too)."""
    from piview.commands.common import CliError

    debug = bool(os.environ.get("PIVIEW_DEBUG"))
    try:
        status = run_command(sys.argv[1:] if argv is None else argv)
        sys.stdout.flush()  # here, not at exit: a full stdout is then one line too
        return status
    except CliError as exc:
        if debug:
            import traceback

            traceback.print_exc()
        print(f"piview: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # piview info X | head: the reader is gone, and wants no more
        _quiet_stdout()
        return EXIT_OK
    except Exception as exc:
        outside = isinstance(exc, OSError | OverflowError | UnicodeError | MemoryError)
        if not (outside or _is_sqlite_error(exc)):
            raise  # a bug: its traceback is what a report needs
        if debug:
            import traceback

            traceback.print_exc()
        from piview.model.fsio import FileChangedError, InputKindError

        if isinstance(exc, OSError) and exc.errno is not None and _on_stdout(exc):
            _quiet_stdout()
            print(f"piview: cannot write the output: {_reason(exc)}", file=sys.stderr)
            return EXIT_SYSTEM
        print(f"piview: {_reason(exc)}", file=sys.stderr)
        return EXIT_INPUT if isinstance(exc, InputKindError | FileChangedError) else EXIT_SYSTEM


_OUTPUT_ERRNOS = frozenset(("ENOSPC", "EDQUOT", "EFBIG", "EIO", "EPIPE"))
"""What a failed write of stdout raises (piview's own files name themselves in the error)."""


def _on_stdout(exc: OSError) -> bool:
    """Whether ``exc`` came from writing stdout: no file name, and a write's errno, or a
    stdout that cannot be flushed now."""
    if exc.filename is not None:
        return False
    if errno.errorcode.get(exc.errno or 0) in _OUTPUT_ERRNOS:
        return True
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        return True
    return False
