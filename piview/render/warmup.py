"""Provides :func:`warm_lexers`: the Pygments lexers a branch's blocks will highlight with,
made before the blocks are drawn.

A lexer class compiles its patterns when its first lexer is made, paid by the key that first
brings such a block on screen. Made ahead in a worker, from the paths the branch's tool calls
name (and the shell and Python lexers), they fill the renderers' own caches
(:func:`piview.render.roles._common._lexer_for`, :func:`piview.render.lexers.lexer`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from piview.model.tools import ToolRow

ALWAYS = ("command.sh", "cell.py")
"""The paths the renderers highlight commands (bash, ``!``) and Python cells as."""

MAX_PATHS = 200
"""Distinct paths looked at, at most (a lexer per extension: a few are enough)."""


def lexer_paths(rows: Iterable[ToolRow]) -> list[str]:
    """The file paths named by tool calls (``path`` or ``file_path``), one per extension, in
    order of first use, after :data:`ALWAYS`."""
    out = list(ALWAYS)
    seen = {p.rsplit(".", 1)[-1] for p in out}
    for row in rows:
        args = row.arguments
        if not isinstance(args, dict):
            continue
        for key in ("path", "file_path"):
            path = args.get(key)
            if isinstance(path, str) and path:
                ext = path.rsplit("/", 1)[-1].rpartition(".")[2]
                if ext not in seen:
                    seen.add(ext)
                    out.append(path)
                break
        if len(out) >= MAX_PATHS:
            break
    return out


def warm_lexers(paths: Iterable[str], stop: Callable[[], bool] = lambda: False) -> int:
    """Make the lexers the renderers would pick for ``paths`` (until ``stop()``); how many
    paths had one."""
    from piview.render.lexers import lexer
    from piview.render.roles._common import _lexer_for

    made = 0
    for path in paths:
        if stop():
            break
        name = _lexer_for(path)
        if name is not None:
            lexer(name)
            made += 1
    return made
