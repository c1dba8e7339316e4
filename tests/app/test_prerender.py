"""The first frame's blocks rendered in a forked child (piview.render.prerender)."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from piview.app import make_app
from piview.model import load_session
from piview.render import prerender
from piview.render.itemlines import item_lines
from piview.render.items import build_items
from piview.widgets.transcript import Transcript
from tests.conftest import fixture

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the prerender child is forked on Linux only"
)

SIZE = (120, 40)


@pytest.fixture(autouse=True)
def _two_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    # CI may run on one core, where start() rightly declines.
    monkeypatch.setattr(prerender, "_cores", lambda: 2)
    monkeypatch.delenv("PIVIEW_NO_PRERENDER", raising=False)


def demo() -> Path:
    from piview.catalog.demo import demo_path

    return demo_path()


def _spy_take(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    got: list[object] = []
    take = prerender.Prerender.take

    def spy(self: prerender.Prerender, timeout: float = 0.5) -> object:
        result = take(self, timeout)
        # A copy: the transcript pops the blocks it uses.
        got.append(None if result is None else (result[0], dict(result[1])))
        return result

    monkeypatch.setattr(prerender.Prerender, "take", spy)
    return got


def _own_renders(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    import piview.widgets.transcript_strips as strips_module

    calls: list[tuple[int, int]] = []
    real = strips_module.item_lines

    def spy(session, item, **kw):  # type: ignore[no-untyped-def]
        calls.append((item.entry, item.part))
        return real(session, item, **kw)

    monkeypatch.setattr(strips_module, "item_lines", spy)
    return calls


@pytest.mark.parametrize("name", ["demo", "roles_all.jsonl", "images.jsonl", "tool_pairing.jsonl"])
async def test_child_blocks_equal_the_transcripts_own(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = demo() if name == "demo" else fixture(name)
    session = load_session(path)
    got = _spy_take(monkeypatch)
    pre = prerender.start(session, session.tree.leaf, size=os.terminal_size(SIZE))
    assert pre is not None
    own = _own_renders(monkeypatch)
    app = make_app(session, prerender=pre)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        t = app.screen.query_one(Transcript)
        assert got and got[0] is not None, "the child's blocks did not arrive"
        signature, blocks = got[0]  # type: ignore[misc]
        assert signature == prerender.console_signature(app.console)
        assert blocks
        # Every block on the first screen came from the child, none from the app itself.
        on_screen = {
            (t.items[k].entry, t.items[k].part)
            for k in range(t._item_at_line(round(t.scroll_y)), len(t.items))
        }
        assert not on_screen & set(own)
        # And what the child drew is exactly what the app draws.
        width = max(20, t._width - prerender.GUTTER)
        items = {(it.entry, it.part): it for it in build_items(session, t.path)}
        for (entry, part, expanded, w), lines in blocks.items():
            assert w == width
            mine = item_lines(
                session, items[entry, part], expanded=expanded, width=w, console=app.console
            )
            assert lines == mine, (entry, part)


async def test_a_child_for_another_width_is_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    session = load_session(demo())
    pre = prerender.start(session, session.tree.leaf, size=os.terminal_size((90, 40)))
    assert pre is not None
    own = _own_renders(monkeypatch)
    app = make_app(session, prerender=pre)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        t = app.screen.query_one(Transcript)
        assert (t.items[-1].entry, t.items[-1].part) in own
    assert pre._done


async def test_a_failing_child_changes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*args: object) -> object:
        raise RuntimeError("child failed")

    monkeypatch.setattr(prerender, "_render", boom)
    session = load_session(demo())
    pre = prerender.start(session, session.tree.leaf, size=os.terminal_size(SIZE))
    assert pre is not None
    assert pre.take() is None
    with pytest.raises(ChildProcessError):
        os.waitpid(pre.pid, os.WNOHANG)  # reaped
    app = make_app(session, prerender=None)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.screen.query_one(Transcript).items


def test_a_late_child_is_stopped(monkeypatch: pytest.MonkeyPatch) -> None:
    def slow(*args: object) -> object:
        time.sleep(30)
        return None

    monkeypatch.setattr(prerender, "_render", slow)
    session = load_session(demo())
    pre = prerender.start(session, session.tree.leaf, size=os.terminal_size(SIZE))
    assert pre is not None
    t0 = time.monotonic()
    assert pre.take(timeout=0.2) is None
    assert time.monotonic() - t0 < 5
    with pytest.raises(ChildProcessError):
        os.waitpid(pre.pid, os.WNOHANG)


def test_when_it_declines(monkeypatch: pytest.MonkeyPatch) -> None:
    session = load_session(demo())
    size = os.terminal_size(SIZE)
    assert prerender.start(session, None, size=size) is None
    monkeypatch.setenv("PIVIEW_NO_PRERENDER", "1")
    assert prerender.start(session, session.tree.leaf, size=size) is None
    monkeypatch.delenv("PIVIEW_NO_PRERENDER")
    monkeypatch.setattr(prerender, "_cores", lambda: 1)
    assert prerender.start(session, session.tree.leaf, size=size) is None
