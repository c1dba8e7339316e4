"""The transcript's lines of a block laid out by the fast layout are Rich's, segment for
segment: every block of every fixture and corpus file, collapsed and expanded, hidden entries
shown (dim) or not, at several widths, with the console Textual draws through."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.console import Console
from textual.app import App

from piview.model import load_session
from piview.render.itemlines import fast_item_lines, item_lines, rich_item_lines
from piview.render.items import build_items
from tests.conftest import FIXTURES, corpus_files

WIDTHS = (20, 58, 118)


def _app_console() -> Console:
    return App().console


def _compare(path: Path, widths: tuple[int, ...], limit: int | None = None) -> int:
    session = load_session(path)
    console = _app_console()
    leaves = session.tree.leaves()
    seen: set[tuple[int, int, bool]] = set()
    compared = 0
    for leaf in list(leaves)[:3]:
        path_ = session.tree.path(leaf) if leaf is not None else []
        for hidden in (False, True):
            items = build_items(session, path_, show_hidden=hidden)
            for item in list(items)[:limit]:
                if (item.entry, item.part, item.hidden) in seen:
                    continue
                seen.add((item.entry, item.part, item.hidden))
                for width in widths:
                    for expanded in (False, True):
                        fast = fast_item_lines(
                            session, item, expanded=expanded, width=width, console=console
                        )
                        rich = rich_item_lines(
                            session, item, expanded=expanded, width=width, console=console
                        )
                        assert fast == rich, (path.name, item, width, expanded)
                        compared += 1
    return compared


@pytest.mark.parametrize("name", sorted(p.name for p in FIXTURES.glob("*.jsonl")))
def test_fixture_blocks_are_rich_lines(name: str) -> None:
    """Every block of each fixture: the fast lines equal Rich's."""
    assert _compare(FIXTURES / name, WIDTHS) > 0


@pytest.mark.parametrize("path", corpus_files(), ids=lambda p: p.name)
def test_corpus_blocks_are_rich_lines(path: Path) -> None:
    """The blocks of the real Pi files (the first 400 of each branch): Rich's lines."""
    assert _compare(path, (78, 118), limit=400) > 0


def test_item_lines_is_the_fast_layout(monkeypatch: pytest.MonkeyPatch) -> None:
    """The transcript's ``item_lines`` lays out through :func:`fast_item_lines`."""
    import piview.render.itemlines as itemlines

    calls: list[object] = []
    real = itemlines.fast_item_lines

    def spy(*a: object, **kw: object) -> object:
        calls.append(a)
        return real(*a, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(itemlines, "fast_item_lines", spy)
    session = load_session(FIXTURES / "tree_branches.jsonl")
    items = build_items(session, session.tree.path(session.tree.leaves()[-1]), show_hidden=False)
    item_lines(session, items[0], expanded=False, width=60, console=_app_console())
    assert calls
