"""An extension's own data, shown wherever its author looks (issue 29): a tool result's
``details``, a ``custom`` entry's ``data`` and a custom message's ``details``.

The fixture ``ext_details.jsonl`` was written by Pi 0.73.1's SessionManager
(``tests/pi_reference/ext_details.mjs``): a custom tool ``deploy`` whose result has ``details``,
a ``deploy-state`` custom entry, a shown and a hidden custom message with ``details``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Group

from piview.cli import run_command
from piview.render.items import render_item
from piview.render.roles._json import details_block, safe_json
from tests.conftest import fixture
from tests.render.helpers import assistant, call, items_of, load, only, result, to_str, user

NAME = "ext_details.jsonl"


def printed(capsys: pytest.CaptureFixture[str], *flags: str) -> str:
    capsys.readouterr()
    assert run_command(["print", str(fixture(NAME)), "--color", "never", *flags]) == 0
    return capsys.readouterr().out


def test_print_full_shows_a_results_details_whole(capsys: pytest.CaptureFixture[str]) -> None:
    out = printed(capsys, "--tools", "full")
    assert "details:" in out
    assert '"url": "https://staging.shop.example"' in out
    # Small containers stay on one line, as a reader scans them.
    assert '{"name": "upload", "ms": 3900, "ok": true}' in out
    assert '"warnings": ["cache not warmed"]' in out


def test_print_preview_shows_details_on_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    out = printed(capsys)
    lines = [ln for ln in out.splitlines() if "details:" in ln and '"env"' in ln]
    assert lines and lines[0].strip().startswith('details: {"env": "staging"')
    assert '"migrate"' not in out  # the rest waits for --tools full


def test_state_data_only_with_hidden(capsys: pytest.CaptureFixture[str]) -> None:
    plain = printed(capsys, "--tools", "full")
    assert "deploy-state" not in plain and "deploy-audit" not in plain
    out = printed(capsys, "--tools", "full", "--hidden")
    assert "[custom: deploy-state]" in out
    assert '"history": ["1.4.0", "1.4.1", "1.4.2"]' in out
    # The hidden message's details come with it, in the same form as the shown one's.
    assert "hidden (display: false)" in out
    assert 'details (not sent to the model): {"actor": "agent", "approved": false}' in out
    assert '{"env": "staging", "healthy": true, "checks": {"http": 200, "db": "ok"}}' in out


def test_builtin_details_are_not_drawn_twice(write_session: Any) -> None:
    """An edit's diff and a truncation are drawn already: only the rest of details shows."""
    details = {"diff": "-1 a\n+1 b", "firstChangedLine": 1, "note": "formatted"}
    s = load(
        write_session,
        user("edit it"),
        assistant(call("c1", "edit", {"path": "a.txt", "oldText": "a", "newText": "b"})),
        result("c1", "edit", "Successfully replaced text in a.txt.", details=details),
    )
    item = only(items_of(s), "tool")
    collapsed = to_str(render_item(s, item, expanded=False, width=100))
    assert 'details: {"note": "formatted"}' in collapsed
    expanded = to_str(render_item(s, item, expanded=True, width=100))
    assert '{"note": "formatted"}' in expanded
    assert '"diff"' not in expanded and "firstChangedLine" not in expanded


def test_huge_details_are_cut_with_a_count() -> None:
    value = {"rows": list(range(200_000)), "blob": "x" * 50_000}
    text = to_str(details_block(value, "details", expanded=True)[1], width=100)
    assert "more items" in text and "+" in text
    assert "more chars" not in text or "chars)" in text
    assert len(text.splitlines()) < 6_000
    collapsed = details_block(value, "details", expanded=False)
    line = to_str(Group(*collapsed), width=100)  # as the transcript draws it: not re-joined
    assert len(line.splitlines()) == 1 and line.rstrip().endswith("…")


def test_empty_details_draw_nothing() -> None:
    assert details_block(None, "details", expanded=True) == []
    assert details_block({}, "details", expanded=False) == []


# Control characters are replaced on screen (sanitised): the layout is what is checked here.
_text = st.text(st.characters(blacklist_categories=("Cc", "Cs")), max_size=20)
_json = st.recursive(
    st.none() | st.booleans() | st.integers() | _text,
    lambda kids: st.lists(kids, max_size=6) | st.dictionaries(_text, kids, max_size=6),
    max_leaves=40,
)


@settings(max_examples=200, deadline=None)
@given(_json)
def test_the_compact_layout_is_still_the_same_json(value: Any) -> None:
    assert json.loads(safe_json(value, max_str=10_000)) == value


def test_export_md_has_details_and_with_hidden_the_state(tmp_path: Path) -> None:
    out = tmp_path / "x.md"
    assert run_command(["export", str(fixture(NAME)), "-o", str(out)]) == 0
    md = out.read_text(encoding="utf-8")
    assert "**Details**" in md and '"url": "https://staging.shop.example"' in md
    assert "**Details (not sent to the model)**" in md
    assert "deploy-state" not in md and "1 extension state entry left out." in md
    assert run_command(["export", str(fixture(NAME)), "--hidden", "-o", str(out)]) == 0
    md = out.read_text(encoding="utf-8")
    assert "\\[custom: deploy-state\\]" in md and "**Data**" in md
    assert '"history": ["1.4.0", "1.4.1", "1.4.2"]' in md
    assert "deploy-audit" in md
    assert "extension state entry left out" not in md and "hidden extension message" not in md


def test_export_html_folds_details(tmp_path: Path) -> None:
    out = tmp_path / "x.html"
    assert run_command(["export", str(fixture(NAME)), "--hidden", "-o", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    assert html.count("<details") >= 4  # the result's, the state's, both messages'
    for words in ("Details", "Data", "staging.shop.example", "1.4.1"):
        assert words in html
