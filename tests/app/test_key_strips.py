"""The drawn blocks a key finds already drawn: ``H`` draws only the blocks it brings in that
were not drawn before (the hidden entries, those further down), ``H`` again none it drew
before; what is shown is what a fresh drawing shows."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from piview.app import make_app
from piview.model import load_session
from piview.widgets.transcript import Transcript
from tests.app.test_key_work import SIZE, _screen, write_turns


def _count_drawn(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    import piview.widgets.transcript_strips as strips

    drawn: list[Any] = []
    draw = strips.item_lines

    def counted(*args: Any, **kwargs: Any) -> Any:
        drawn.append((args[1].entry, args[1].part, args[1].hidden, kwargs["expanded"]))
        return draw(*args, **kwargs)

    monkeypatch.setattr(strips, "item_lines", counted)
    return drawn


async def _fresh(t: Transcript, pilot: Any) -> list[str]:
    """The screen as drawn with no block kept."""
    t._blocks.clear()
    t.refresh()
    await pilot.pause()
    return _screen(t)


async def test_h_and_h_again_draw_no_block_twice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_turns(tmp_path / "hidden.jsonl", 300, custom_every=2)
    drawn = _count_drawn(monkeypatch)
    app = make_app(load_session(path))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        t = app.screen.query_one(Transcript)
        await pilot.press("g", "pagedown", "pagedown", "j")
        await pilot.pause()
        drawn.clear()  # (the first screen's end and top were drawn at another moment)
        await pilot.press("pageup", "pagedown")
        await pilot.pause()
        on_screen = set(drawn)
        await pilot.press("H")
        await pilot.pause()
        assert t.show_hidden
        new = [d for d in drawn if d not in on_screen]
        assert any(d[2] for d in new)  # the hidden entries are drawn
        await pilot.press("H")
        await pilot.pause()
        assert not t.show_hidden
        back = _screen(t)
        twice = [d for d, n in Counter(drawn).items() if n > 1]
        assert twice == []
        assert await _fresh(t, pilot) == back
        await pilot.press("H")
        await pilot.pause()
        shown = _screen(t)  # hidden entries shown, with the blocks kept from before
        assert await _fresh(t, pilot) == shown
