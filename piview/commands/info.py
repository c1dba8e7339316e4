"""Provides ``piview info FILE [--json]``: a session's entries, tree, tool calls and usage."""

from __future__ import annotations

import argparse
import json
import sys

from piview.commands.common import load
from piview.model import session_info


def run(args: argparse.Namespace) -> int:
    """Print the summary of ``args.file``: one JSON object with ``--json``, else a table."""
    session = load(args.file)
    info = session_info(session)
    if args.json:
        sys.stdout.write(json.dumps(info, ensure_ascii=False) + "\n")
        return 0
    from piview.render.info import print_info

    print_info(info, path=args.file)
    return 0
