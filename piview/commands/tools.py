"""Provides ``piview tools FILE [--leaf ID] [--json]``: every tool call of a branch."""

from __future__ import annotations

import argparse
import json
import os
import sys

from piview.catalog.subagents import call_children
from piview.commands.common import load, resolve_branch
from piview.model.tools import tool_rows


def run(args: argparse.Namespace) -> int:
    """List the calls of the branch with their status, latency and output size."""
    session = load(args.file)
    leaf, _entry = resolve_branch(session, args.leaf, args.file)
    rows = tool_rows(session, session.tree.path(leaf) if leaf is not None else [])
    kids = [call_children(session, r.name, r.arguments, r.result) for r in rows]
    if args.json:
        out = [
            {
                **r.as_json(session),
                "subagent_sessions": [os.path.abspath(p) if p else None for p in k],
            }
            for r, k in zip(rows, kids, strict=True)
        ]
        sys.stdout.write(json.dumps(out, ensure_ascii=False) + "\n")
        return 0
    from piview.render.pipe import PipeConsole
    from piview.render.tooltable import tools_table

    PipeConsole().print(tools_table(session, rows, kids))
    return 0
