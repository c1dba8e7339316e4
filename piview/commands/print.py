"""Provides ``piview print FILE``: one branch written out with the viewer's rendering.

Output goes to the terminal with colour, or as plain text when piped.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from piview.commands.common import load, resolve_branch
from piview.export.text import print_branch
from piview.render.fastlayout import FastConsole

if TYPE_CHECKING:
    from rich.console import Console


def run(args: argparse.Namespace, console: Console | None = None) -> int:
    """Print the branch through ``args.leaf`` (default: the current leaf) to ``console``.

    Raises:
        CliError: the file cannot be read, or ``--leaf`` matches no entry or several.
    """
    session = load(args.file, keep_index=False, use_cache=False)
    # Same --leaf rule as the other commands: the branch through that entry, down to its
    # newest leaf (errors for unknown or ambiguous ids are raised there).
    leaf, _entry = resolve_branch(session, args.leaf, args.file)
    if console is None:
        color = getattr(args, "color", "auto")
        console = FastConsole(
            highlight=False,
            force_terminal=True if color == "always" else None,
            color_system=None if color == "never" else "auto",
        )
        # Pinned once: Rich would otherwise ask the terminal its size at every item.
        console.size = console.size
    print_branch(
        session,
        leaf,
        thinking=args.thinking,
        tools=args.tools,
        hidden=args.hidden,
        system=args.system,
        console=console,
    )
    return 0
