"""Provides ``piview export FILE``: one branch as a self-contained HTML file, or Markdown."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from piview.commands.common import CliError, load, resolve_branch
from piview.export import export_branch
from piview.model.fsio import FileChangedError


def run(args: argparse.Namespace) -> int:
    """Write the export and print its absolute path on stdout.

    Raises:
        CliError: the file cannot be read, the id is unknown or the output cannot be written.
    """
    session = load(args.file)
    try:
        leaf, _entry = resolve_branch(session, args.leaf, args.file)
        out = Path(args.output) if args.output else None
        fmt = args.format
        if fmt is None:  # HTML, as the viewer's x writes: it is what people share
            fmt = "md" if out is not None and out.suffix.lower() in (".md", ".markdown") else "html"
        if out is None or out.is_dir():
            out = (out or Path()) / f"{session.stem}.{fmt}"
        try:
            written = export_branch(
                session,
                leaf,
                fmt=fmt,
                tools=args.tools,
                thinking=args.thinking,
                out=out,
                hidden=args.hidden,
            )
        except FileChangedError:
            raise  # the session file's fault, not the output's: the boundary says so
        except (OSError, ValueError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise CliError(f"cannot export to {out}: {reason}") from None
    finally:
        session.close()
    sys.stdout.write(f"{written.resolve()}\n")
    return 0
