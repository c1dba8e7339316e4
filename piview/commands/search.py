"""Provides ``piview search QUERY``: full-text search over every session, from the catalog.

The search index (:mod:`piview.catalog.fts`) is brought up to date first (only new and changed
files are read; progress goes to stderr on a terminal), then searched: best matches first, one
line each, or a JSON list with ``--json``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from datetime import UTC, datetime

from piview.catalog.discovery import find_session_files, sessions_dir
from piview.catalog.fts import Progress
from piview.catalog.fts_db import IndexRefusedError
from piview.catalog.fts_query import parse_fts_query
from piview.catalog.fts_safe import search_updated
from piview.commands.common import CliError


def since_key(value: str) -> str:
    """``--since`` as the ISO text entry timestamps compare with (UTC).

    Raises:
        CliError: ``value`` is not an ISO date or time.
    """
    try:
        when = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        raise CliError(f"--since {value!r}: give a date (2026-05-01) or an ISO time") from None
    if len(value.strip()) <= 10:
        return f"{when:%Y-%m-%d}"
    if when.tzinfo is not None:
        when = when.astimezone(UTC)
    return f"{when:%Y-%m-%dT%H:%M:%S}"


def run(args: argparse.Namespace) -> int:
    """Update the index, search it, print the hits; exit status 1 when nothing matches."""
    if args.limit <= 0:
        raise CliError("--limit must be at least 1")
    since = since_key(args.since) if args.since else None
    root = sessions_dir(args.sessions)
    if not root.is_dir():
        raise CliError(f"no Pi session folder at {root} (set --sessions DIR)")
    query = parse_fts_query(args.query, tools=args.tools)
    if query.problem:
        raise CliError(f"search: {query.problem}")
    tty = sys.stderr.isatty()

    def progress(p: Progress) -> None:
        if tty and p.files_total:
            sys.stderr.write(f"\rindexing {p.files_done}/{p.files_total} sessions…")
            sys.stderr.flush()

    try:
        hits, notes = search_updated(
            find_session_files(root),
            query,
            roots=[root],
            progress=progress,
            since=since,
            limit=args.limit,
            under=root,
        )
    except IndexRefusedError as exc:
        raise CliError(str(exc)) from None
    finally:
        if tty:
            sys.stderr.write("\r\x1b[K")
    for note in notes:
        print(f"piview: {note}", file=sys.stderr)
    if args.json:
        out = [
            {
                "session_path": h.session_path,
                "session_id": h.session_id,
                "entry_id": h.entry_id,
                "role": h.role,
                "snippet": h.snippet,
                "timestamp": h.timestamp,
            }
            for h in hits
        ]
        sys.stdout.write(json.dumps(out, ensure_ascii=False) + "\n")
        return 0 if hits else 1
    color = sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    from piview.render.sanitize import sanitize_line

    for h in hits:
        where = f"{h.session_path}  {h.entry_id or '-'}  {h.role}  {h.timestamp or ''}"
        text = sanitize_line(h.snippet)
        if color and len(text) == len(h.snippet):
            marked, last = [], 0
            for a, b in h.spans:
                marked += [text[last:a], "\x1b[1;33m", text[a:b], "\x1b[0m"]
                last = b
            text = "".join(marked) + text[last:]
            where = f"\x1b[2m{where}\x1b[0m"
        sys.stdout.write(f"{where}\n    {text}\n")
    if not hits:
        print(f"piview: no session matches {args.query!r}", file=sys.stderr)
    return 0 if hits else 1
