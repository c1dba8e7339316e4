"""Snapshot tests (pytest-textual-snapshot): each renderer and state at a fixed size.

Regenerate on purpose with ``python -m pytest tests/app/test_snapshots.py --snapshot-update``
and look at the SVG diff before committing.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from piview.app import make_app
from piview.catalog.demo import demo_path
from piview.model import load_session
from piview.render.items import Item
from piview.widgets.transcript import Transcript
from tests.conftest import fixture

SIZE = (110, 36)


def app_for(path: Path):
    return make_app(load_session(path))


def focus(pred: Callable[[Item], bool], *keys: str, nth: int = 0):
    """A run_before that focuses the nth block matching ``pred`` then presses ``keys``."""

    async def run_before(pilot) -> None:
        t = pilot.app.screen.query_one(Transcript)
        hits = [k for k, it in enumerate(t.items) if pred(it)]
        assert hits, "no such block"
        t._set_cursor(hits[min(nth, len(hits) - 1)])  # noqa: SLF001
        await pilot.pause()
        if keys:
            await pilot.press(*keys)
        await pilot.pause()

    return run_before


def kind(k: str) -> Callable[[Item], bool]:
    return lambda it: it.kind == k


class TestRoles:
    def test_demo_opens_at_the_end(self, snap_compare) -> None:
        assert snap_compare(app_for(demo_path()), terminal_size=SIZE)

    def test_every_role(self, snap_compare) -> None:
        assert snap_compare(
            app_for(fixture("roles_all.jsonl")),
            terminal_size=SIZE,
            run_before=focus(lambda it: True),
        )

    def test_entry_types_and_dividers(self, snap_compare) -> None:
        assert snap_compare(
            app_for(fixture("entry_types.jsonl")),
            terminal_size=SIZE,
            run_before=focus(lambda it: True),
        )

    def test_stop_reasons(self, snap_compare) -> None:
        assert snap_compare(
            app_for(fixture("stop_reasons.jsonl")),
            terminal_size=SIZE,
            run_before=focus(lambda it: True),
        )

    def test_unknown_expanded(self, snap_compare) -> None:
        assert snap_compare(
            app_for(fixture("unknown.jsonl")),
            terminal_size=SIZE,
            run_before=focus(kind("unknown"), "enter"),
        )


class TestThinking:
    def test_collapsed(self, snap_compare) -> None:
        assert snap_compare(
            app_for(demo_path()), terminal_size=SIZE, run_before=focus(kind("thinking"))
        )

    def test_expanded(self, snap_compare) -> None:
        assert snap_compare(
            app_for(demo_path()), terminal_size=SIZE, run_before=focus(kind("thinking"), "enter")
        )

    def test_redacted(self, snap_compare) -> None:
        assert snap_compare(
            app_for(fixture("roles_all.jsonl")),
            terminal_size=SIZE,
            run_before=focus(lambda it: it.kind == "thinking" and not it.collapsible),
        )


class TestTools:
    def test_collapsed(self, snap_compare) -> None:
        assert snap_compare(
            app_for(fixture("edit_tools.jsonl")), terminal_size=SIZE, run_before=focus(kind("tool"))
        )

    def test_expanded(self, snap_compare) -> None:
        assert snap_compare(
            app_for(fixture("edit_tools.jsonl")),
            terminal_size=SIZE,
            run_before=focus(kind("tool"), "enter", nth=2),
        )

    def test_error(self, snap_compare) -> None:
        assert snap_compare(
            app_for(fixture("tool_pairing.jsonl")),
            terminal_size=SIZE,
            run_before=focus(lambda it: it.kind == "tool" and it.error),
        )

    def test_orphan_and_unanswered(self, snap_compare) -> None:
        assert snap_compare(
            app_for(fixture("tool_pairing.jsonl")),
            terminal_size=SIZE,
            run_before=focus(kind("orphan_result")),
        )


class TestStates:
    def test_hidden_off(self, snap_compare) -> None:
        assert snap_compare(
            app_for(fixture("entry_types.jsonl")),
            terminal_size=SIZE,
            run_before=focus(lambda it: True),
        )

    def test_hidden_on(self, snap_compare) -> None:
        assert snap_compare(
            app_for(fixture("entry_types.jsonl")),
            terminal_size=SIZE,
            run_before=focus(lambda it: True, "H"),
        )

    def test_image_preview(self, snap_compare) -> None:
        assert snap_compare(
            app_for(fixture("images.jsonl")), terminal_size=SIZE, run_before=focus(lambda it: True)
        )

    def test_branch_panel_with_labels(self, snap_compare) -> None:
        assert snap_compare(app_for(demo_path()), terminal_size=SIZE, press=["b"])

    def test_light_theme(self, snap_compare) -> None:
        app = make_app(load_session(demo_path()), theme="light")
        assert snap_compare(app, terminal_size=SIZE, press=["b"])

    def test_usage_sidebar(self, snap_compare) -> None:
        assert snap_compare(app_for(demo_path()), terminal_size=SIZE, press=["u"])

    def test_help_screen(self, snap_compare) -> None:
        assert snap_compare(app_for(demo_path()), terminal_size=SIZE, press=["question_mark"])

    def test_damaged_file(self, snap_compare) -> None:
        assert snap_compare(app_for(fixture("bad_lines.jsonl")), terminal_size=SIZE)

    def test_search_highlight(self, snap_compare) -> None:
        assert snap_compare(
            app_for(demo_path()), terminal_size=SIZE, press=["slash", "t", "e", "s", "t", "enter"]
        )
