"""The help screen and the palette list every key, from the bindings; the README agrees."""

from __future__ import annotations

import re

import pytest

from piview.app import make_app
from piview.model import load_session
from piview.screens.help import HelpScreen
from piview.widgets.keymap import own_bindings, screen_keys
from tests.conftest import ROOT, fixture

SIZE = (120, 40)


def _demo():
    from piview.catalog.demo import demo_path

    return make_app(load_session(demo_path()))


def _help_keys(app) -> set[tuple[str, str]]:
    return {(g.title, k) for g in screen_keys(app.screen) for h in g.keys for k in h.keys}


@pytest.mark.parametrize("opener", ["", "b", "T", "i", "c"])
async def test_help_lists_every_key_of_the_screen_it_opens_from(opener: str) -> None:
    app = make_app(load_session(fixture("edit_tools.jsonl")))
    async with app.run_test(size=SIZE) as pilot:
        if opener == "i":
            await pilot.press("g", *"jjj")  # a tool call
        if opener:
            await pilot.press(opener)
            await pilot.pause()
        screen = app.screen
        groups = screen_keys(screen)
        listed = {(g.node, h.action) for g in groups for h in g.keys}
        nodes = [w for w in screen.walk_children(with_self=False)] + [screen, app]
        for node in nodes:
            if node is app and screen.is_modal:
                continue  # a modal screen stops the app's keys: the help lists its own
            for b in own_bindings(node):
                found = any(n is node or type(n) is type(node) for n, a in listed if a == b.action)
                assert found, f"{type(node).__name__}: {b.key} ({b.action}) missing from the help"
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        assert app.screen.groups == groups or len(app.screen.groups) == len(groups)


async def test_help_names_keys_as_typed_not_as_code() -> None:
    app = _demo()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        keys = {k for _t, k in _help_keys(app)}
        assert {"?", "]", "[", "'", '"', "/", "q", "^p"} <= keys
        assert not any("_" in k for k in keys), keys  # no right_square_bracket


async def test_palette_shows_plain_descriptions_and_only_what_works() -> None:
    app = _demo()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        commands = list(app.get_system_commands(app.screen))
        titles = [c.title for c in commands]
        helps = [c.help for c in commands]
        assert "Maximize" not in titles and "Keys" not in titles
        assert not any(
            "action:" in h or "(" in t and "_" in t for t, h in zip(titles, helps, strict=True)
        )
        assert "Branch panel: every entry of the tree" in titles
        assert any(h.endswith("key b") for h in helps)
        assert not any("Page left" in t or "Page right" in t for t in titles)


_ALIASES = {"⏎": "enter", "esc": "escape", "pgdn": "pagedown", "pgup": "pageup", "^p": "ctrl+p"}


def _norm(key: str) -> str:
    return _ALIASES.get(key, key)


async def test_readme_key_table_and_help_list_the_same_keys() -> None:
    readme = (ROOT / "README.md").read_text()
    table = readme.split("| Key | Action |", 1)[1].split("\n\n", 1)[0]
    documented = set()
    for line in table.splitlines()[2:]:
        cell = line.split("|")[1]
        documented |= {_norm(k) for k in re.findall(r"`([^`]+)`", cell)}
    app = _demo()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        shown = {
            _norm(k)
            for g in screen_keys(app.screen)
            if g.title in ("Transcript", "Viewer", "Everywhere")
            for h in g.keys
            for k in h.keys
        }
    assert shown - documented == set(), "keys missing from README's key table"
    assert documented - shown == set(), "README lists keys the viewer does not have"
