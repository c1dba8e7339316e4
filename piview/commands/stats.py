"""Provides ``piview stats``: token and cost totals across every session, forks counted once."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from piview.catalog.discovery import find_session_files, sessions_dir
from piview.catalog.lineage import with_subagents
from piview.catalog.stats import collect_stats, parse_day, stats_json
from piview.commands.common import CliError
from piview.model.index_cache import IndexCache


def run(args: argparse.Namespace) -> int:
    """Sum usage over the sessions folder per ``--by`` group; one JSON object with ``--json``."""
    # Absolute, as Pi writes parentSession: the lineage matches paths exactly first.
    root = Path(os.path.abspath(sessions_dir(args.sessions)))
    if not root.is_dir():
        raise CliError(f"no session folder {root} (use --sessions DIR)")
    try:
        since = parse_day(args.since) if args.since else None
        until = parse_day(args.until) if args.until else None
    except ValueError as exc:
        raise CliError(f"bad date ({exc}); use YYYY-MM-DD or YYYYMMDD") from None
    if since is not None and until is not None and since > until:
        raise CliError(f"--since {since} is after --until {until}")
    files = with_subagents(find_session_files(root))
    cache = None if os.environ.get("PIVIEW_NO_CACHE") else IndexCache()
    report = collect_stats(files, by=args.by, since=since, until=until, index_cache=cache)
    if args.json:
        sys.stdout.write(json.dumps(stats_json(report), ensure_ascii=False) + "\n")
        return 0
    from piview.render.stats import print_stats

    print_stats(report)
    return 0
