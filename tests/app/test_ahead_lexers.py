"""The lexers of the files a branch's tool calls name are made ahead, in a worker, after a
moment on the branch: the key that first draws such a file compiles no lexer."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from piview.app import make_app
from piview.model import load_session
from piview.render.warmup import ALWAYS, lexer_paths, warm_lexers
from piview.screens.session import SessionScreen
from tests.render.helpers import assistant, call, chain, result, text, user


def _haskell_made() -> bool:
    # Pygments compiles a lexer class's patterns into the class when its first lexer is made.
    from pygments.lexers.haskell import HaskellLexer

    return "_tokens" in HaskellLexer.__dict__


def _session(write_session: Callable[..., Path]) -> Path:
    def turns(n: int) -> list[dict[str, Any]]:
        return [e for k in range(n) for e in (user(f"step {k}"), assistant(text("done\n" * 5)))]

    # The read is far from both ends (the first screen draws the last blocks and the first).
    entries: list[dict[str, Any]] = [
        *turns(60),
        user("read it"),
        assistant(call("c1", "read", {"path": "src/Main.hs"}), stop="toolUse"),
        result("c1", "read", 'main :: IO ()\nmain = putStrLn "hi"'),
        *turns(60),
    ]
    return write_session(chain(*entries))


def test_lexer_paths_one_per_extension() -> None:
    class Row:
        def __init__(self, args: object) -> None:
            self.arguments = args

    rows = [Row({"path": "a/x.py"}), Row({"file_path": "b.rs"}), Row({"path": "y.rs"}), Row("?")]
    assert lexer_paths(rows) == [*ALWAYS, "b.rs"]  # .py: cell.py's already
    assert warm_lexers(["x.nosuchlanguage"]) == 0


async def test_the_branch_lexers_are_made_ahead(
    write_session: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(SessionScreen, "AHEAD_AFTER", 0.05)
    if _haskell_made():
        pytest.skip("another test in this process made the Haskell lexer")
    app = make_app(load_session(_session(write_session)))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause(0.3)
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert _haskell_made()
