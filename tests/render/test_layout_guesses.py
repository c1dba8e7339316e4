"""The first guesses of a branch's blocks are kept for the last few item lists and widths
(``H`` again, a panel closed again): the same heights as guessed afresh, made again after
the user opens or closes a block."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from piview.model import load_session
from piview.render.item import ItemList
from piview.render.items import build_items
from piview.render.layout import BlockLayout
from tests.app.test_key_work import write_turns


def test_guesses_kept_per_items_width_and_user_state(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = load_session(write_turns(tmp_path / "s.jsonl", 200, custom_every=3))
    path = session.tree.path(session.tree.leaf)
    items, other = build_items(session, path), build_items(session, path, show_hidden=True)
    assert isinstance(items, ItemList) and isinstance(other, ItemList)
    made: list[str] = []
    for name in ("estimates", "estimates_shown"):
        real = getattr(ItemList, name)

        def counted(self: Any, *a: Any, _real: Any = real, _name: str = name) -> Any:
            made.append(_name)
            return _real(self, *a)

        monkeypatch.setattr(ItemList, name, counted)

    lay, fresh = BlockLayout(session), BlockLayout(session)
    lay.reset(items, 100)
    first = lay.heights.tolist()
    lay.measured(0, 17)  # measured heights never leak into the kept guesses
    lay.reset(other, 100)
    lay.reset(items, 80)
    lay.reset(items, 100)
    assert lay.heights.tolist() == first and made == ["estimates"] * 3
    lay.set_kind_expanded(items, "thinking", True, 100)
    fresh.reset(items, 100)
    fresh.set_kind_expanded(items, "thinking", True, 100)
    made.clear()
    lay.reset(items, 100)
    fresh.reset(items, 100)
    assert lay.heights.tolist() == fresh.heights.tolist() != first
    assert made == ["estimates_shown"] * 2
