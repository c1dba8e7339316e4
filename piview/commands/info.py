"""Provides ``piview info FILE [--json]``: a session's entries, tree, tool calls and usage."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from piview.catalog.family import family_of, subagent_of
from piview.commands.common import load
from piview.model import session_info
from piview.model.usage import UsageTotals


def _family(session: Any, info: dict[str, Any]) -> None:
    """Add ``subagents``, ``usage.with_subagents`` and, on a child, ``subagent_of``."""
    own = UsageTotals()
    for key, value in info["usage"]["all"].items():
        attr = {"cacheRead": "cache_read", "cacheWrite": "cache_write"}.get(key, key)
        attr = "cache_write1h" if key == "cacheWrite1h" else attr
        setattr(own, attr, value)
    fam = family_of(session, own) if session.stream_source is None else None
    info["subagents"] = [c.as_json() for c in fam.children] if fam else []
    info["usage"]["with_subagents"] = (
        fam.with_subagents.as_json() if fam else dict(info["usage"]["all"])
    )
    if session.path and session.stream_source is None:
        info["subagent_of"] = subagent_of(session.path, info.get("parent_session"))
    else:
        info["subagent_of"] = None


def run(args: argparse.Namespace) -> int:
    """Print the summary of ``args.file``: one JSON object with ``--json``, else a table."""
    session = load(args.file)
    info = session_info(session)
    if "#" not in str(args.file):  # an OpenClaw database session has no folder of children
        _family(session, info)
    if args.json:
        sys.stdout.write(json.dumps(info, ensure_ascii=False) + "\n")
        return 0
    from piview.render.info import print_info

    print_info(info, path=args.file)
    return 0
