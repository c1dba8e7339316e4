"""Provides ``piview timeline FILE [--leaf ID] [--json]``: where a branch's time and context
went, run by run and turn by turn (issue 31).

A user prompt starts a run; each assistant message and the tool calls it makes are one turn.
``--json`` prints :meth:`piview.model.timeline.Timeline.to_json`; without it, the totals, a
table by tool and one line per run.
"""

from __future__ import annotations

import argparse
import json
import sys

from piview.commands.common import load, resolve_branch
from piview.model.timeline import build_timeline


def run(args: argparse.Namespace) -> int:
    """Print the timeline of the branch through ``args.leaf`` (default: the current leaf).

    Raises:
        CliError: the file cannot be read, or ``--leaf`` matches no entry or several.
    """
    session = load(args.file)
    leaf, _entry = resolve_branch(session, args.leaf, args.file)
    data = build_timeline(session, leaf).to_json(session)
    if args.json:
        sys.stdout.write(json.dumps(data, ensure_ascii=False) + "\n")
        return 0
    from piview.render.timeline import print_timeline

    print_timeline(data)
    return 0
