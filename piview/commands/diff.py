"""Provides ``piview diff FILE A B [--json]``: what one branch did that the other did not."""

from __future__ import annotations

import argparse
import json
import sys

from piview.commands.common import CliError, load, resolve_entry
from piview.model.branchdiff import compare_branches


def run(args: argparse.Namespace) -> int:
    """Compare the branches through ``args.a`` and ``args.b`` from their common ancestor.

    Each is an entry id (or a unique prefix), whose branch runs down to its newest leaf, or
    ``leaf`` for the current leaf.
    """
    session = load(args.file)
    leaves = []
    for ref, name in ((args.a, "A"), (args.b, "B")):
        if ref == "leaf":
            leaf = session.tree.leaf
            if leaf is None:
                raise CliError(f"{args.file} has no entries")
        else:
            leaf = session.tree.newest_leaf(resolve_entry(session, ref, args.file, flag=name))
        leaves.append(leaf)
    diff = compare_branches(session, leaves[0], leaves[1])
    if args.json:
        sys.stdout.write(json.dumps(diff.as_json(session), ensure_ascii=False) + "\n")
        return 0
    from piview.render.branchdiff import (
        COLUMNS_MIN_WIDTH,
        comparison_renderable,
        comparison_sections,
        layout_rows,
    )
    from piview.render.pipe import PipeConsole

    console = PipeConsole()  # into a pipe: 80 columns, or $COLUMNS
    columns = console.width >= COLUMNS_MIN_WIDTH
    rows = layout_rows(session, diff, comparison_sections(session, diff), columns=columns)
    console.print(comparison_renderable(rows))
    return 0
