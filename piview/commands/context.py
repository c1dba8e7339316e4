"""Provides ``piview context FILE [--at ID] [--json]``: what Pi would send to the model.

The messages Pi's ``buildSessionContext`` builds if the session continued from the entry
(default: the current leaf), with the thinking level, the model and the system prompt in
force there.
"""

from __future__ import annotations

import argparse
import json
import sys

from piview.commands.common import CliError, load, resolve_entry
from piview.model.context_report import context_report, report_json


def run(args: argparse.Namespace) -> int:
    """Print the context at ``args.at``: one JSON object with ``--json``, else a table.

    Raises:
        CliError: the file cannot be read, or ``--at`` matches no entry or several.
    """
    session = load(args.file)
    at = resolve_entry(session, args.at, args.file, "--at") if args.at else session.tree.leaf
    if at is None:
        raise CliError(f"{args.file} has no entries")
    data = report_json(session, context_report(session, at))
    if args.json:
        sys.stdout.write(json.dumps(data, ensure_ascii=False) + "\n")
        return 0
    from piview.render.context import print_context

    print_context(data)
    return 0
