"""Take the README's SVG screenshots from the bundled demo session.

Run: ``python screenshots/take.py`` (writes screenshots/*.svg next to this script).
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

os.environ["TEXTUAL_ANIMATIONS"] = "none"
os.environ.pop("NO_COLOR", None)

from piview.app import make_app  # noqa: E402
from piview.catalog.demo import demo_path  # noqa: E402
from piview.model import load_session  # noqa: E402

HERE = Path(__file__).resolve().parent
SIZE = (130, 42)

VIEWS: list[tuple[str, list[str]]] = [
    ("transcript", []),
    ("thinking-and-tools", ["g", "j", "j", "j", "j", "t", "enter"]),
    ("branches", ["b"]),
    ("usage", ["u"]),
    ("hidden", ["H"]),
    ("tools-view", ["T"]),
    ("inspector", ["g", "e", "i"]),
    ("context", ["g", "right_square_bracket", "right_square_bracket", "c"]),
    ("help", ["question_mark"]),
    ("search-all-branches", ["slash", *"all:gzip", "enter"]),
]


async def take(name: str, keys: list[str]) -> Path:
    """Open the demo, press ``keys``, save ``name.svg``."""
    app = make_app(load_session(demo_path()))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        if keys:
            await pilot.press(*keys)
        await pilot.pause()
        path = app.save_screenshot(filename=f"{name}.svg", path=str(HERE))
    return Path(path)


async def take_comparison() -> Path:
    """The comparison of the two branches of tests/fixtures/sessions/branch_edits.jsonl."""
    from piview.screens.compare import CompareScreen

    session = load_session(HERE.parent / "tests" / "fixtures" / "sessions" / "branch_edits.jsonl")
    first, last = session.tree.leaves()
    app = make_app(session)
    async with app.run_test(size=SIZE) as pilot:
        app.push_screen(CompareScreen(session, first, last))
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        path = app.save_screenshot(filename="compare.svg", path=str(HERE))
    return Path(path)


async def take_timeline(name: str, keys: list[str]) -> Path:
    """The timeline screen (``w``) on the demo, once its worker built it, then ``keys``."""
    app = make_app(load_session(demo_path()))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("w")
        await app.workers.wait_for_complete()
        await pilot.pause()
        if keys:
            await pilot.press(*keys)
        await pilot.pause(0.3)  # the context picture lists its largest results once it rests
        await app.workers.wait_for_complete()
        await pilot.pause()
        path = app.save_screenshot(filename=f"{name}.svg", path=str(HERE))
    return Path(path)


async def main() -> None:
    """Take every view."""
    for name, keys in VIEWS:
        print(await take(name, keys))
    print(await take_comparison())
    print(await take_timeline("timeline", ["g", "right", "right"]))
    print(await take_timeline("timeline-context", ["tab", "left", "left", "left"]))


if __name__ == "__main__":
    asyncio.run(main())
