"""Provides ``piview info FILE [--json]``: a session's entries, tree, tool calls and usage."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from piview.catalog.family import family_of, subagent_of
from piview.commands.common import load
from piview.model import session_info


def _family(session: Any, info: dict[str, Any], path: str) -> None:
    """Add ``subagents``, ``usage.with_subagents`` and ``subagent_of`` (a subagent's parent
    file and call); a database session or an event stream has no folder of children."""
    info["subagents"] = []
    info["usage"]["with_subagents"] = dict(info["usage"]["all"])
    info["subagent_of"] = None
    if "#" in path or session.stream_source is not None or not session.path:
        return
    fam = family_of(session)  # its own usage: the sums session_info made, kept
    info["subagents"] = [c.as_json() for c in fam.children]
    info["usage"]["with_subagents"] = fam.with_subagents.as_json()
    info["subagent_of"] = subagent_of(session.path, info.get("parent_session"))


def run(args: argparse.Namespace) -> int:
    """Print the summary of ``args.file``: one JSON object with ``--json``, else a table."""
    session = load(args.file)
    info = session_info(session)
    _family(session, info, str(args.file))
    if args.json:
        sys.stdout.write(json.dumps(info, ensure_ascii=False) + "\n")
        return 0
    from piview.render.info import print_info

    print_info(info, path=args.file)
    return 0
