"""build_items: which items a branch is made of, in what order, with what flags."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from piview.model import load_session
from piview.render.items import Item, build_items, item_text, render_item
from tests.conftest import corpus_files, fixture
from tests.render.helpers import (
    assistant,
    call,
    items_of,
    load,
    message,
    render,
    result,
    text,
    to_str,
    user,
)

ALL_FIXTURES = sorted(p.name for p in fixture("").glob("*.jsonl"))


def kinds(items: list[Item]) -> list[str]:
    return [i.kind for i in items]


def test_assistant_header_first_then_blocks_in_order() -> None:
    s = load_session(fixture("roles_all.jsonl"))
    items = items_of(s)
    assert kinds(items)[:3] == ["system", "system", "system"]
    # Blocks: thinking, redacted thinking, text, tool call. The turn's header (the assistant
    # item, with the text) comes first, so the thinking never reads as the previous turn's.
    a = [i for i in items if i.entry == 5]
    assert [(i.kind, i.part) for i in a] == [
        ("assistant", -1),
        ("thinking", 0),
        ("thinking", 1),
        ("tool", 3),
    ]
    assert kinds(items)[-4:] == ["bash", "custom_message", "branch_summary", "compaction"]


def test_assistant_without_text_gets_its_header_first() -> None:
    s = load_session(fixture("usage_extended.jsonl"))
    a = [i for i in items_of(s) if i.entry == 1]
    assert [(i.kind, i.part) for i in a] == [("assistant", -1), ("thinking", 0), ("tool", 1)]


def test_paired_results_fold_into_the_call_and_orphans_stay() -> None:
    s = load_session(fixture("tool_pairing.jsonl"))
    items = items_of(s)
    c = Counter(kinds(items))
    assert c["orphan_result"] == 2
    entries = {i.entry for i in items}
    for r, (call_entry, _part) in s.pairing.result_call.items():
        if call_entry in entries:
            assert r not in entries  # drawn inside its tool item
    errors = [i for i in items if i.error]
    assert [(i.kind, i.entry) for i in errors] == [("tool", 1), ("assistant", 4)]


def test_hidden_content_only_on_request() -> None:
    s = load_session(fixture("entry_types.jsonl"))
    plain = items_of(s)
    assert "custom" not in kinds(plain)
    assert [i.entry for i in plain if i.kind == "custom_message"] == [7]
    shown = items_of(s, show_hidden=True)
    hidden = [(i.kind, i.entry) for i in shown if i.hidden]
    assert hidden == [("custom", 6), ("custom_message", 8)]
    assert kinds(shown).count("divider") == 4


def test_custom_messages_without_display_are_hidden_as_in_pi(write_session) -> None:
    # Pi's TUI draws a custom message only when `display` is true: absent counts as false.
    s = load(
        write_session,
        user("hi"),
        {"type": "custom_message", "customType": "shown", "content": "a", "display": True},
        {"type": "custom_message", "customType": "absent", "content": "b"},
        {"type": "custom_message", "customType": "hidden", "content": "c", "display": False},
        message({"role": "custom", "customType": "role-absent", "content": "d"}),
        message({"role": "custom", "customType": "role-shown", "content": "e", "display": True}),
    )
    plain = [i.entry for i in items_of(s) if i.kind == "custom_message"]
    assert plain == [1, 5]
    shown = [
        (i.entry, i.hidden) for i in items_of(s, show_hidden=True) if i.kind == "custom_message"
    ]
    assert shown == [(1, False), (2, True), (3, True), (4, True), (5, False)]
    assert "hidden" in render(s, items_of(s, show_hidden=True)[2], expanded=True)


def test_unknown_types_and_roles() -> None:
    s = load_session(fixture("unknown.jsonl"))
    unknown = [i for i in items_of(s) if i.kind == "unknown"]
    assert len(unknown) == 2
    assert all(i.collapsible and not i.expanded for i in unknown)


def test_flags_for_errors_and_users(write_session) -> None:
    s = load(
        write_session,
        user("short"),
        user("long line\n" * 60),
        assistant(text("x"), stop="error", errorMessage="boom"),
        {
            "type": "message",
            "message": {
                "role": "bashExecution",
                "command": "false",
                "output": "",
                "exitCode": 1,
                "cancelled": False,
                "truncated": False,
                "timestamp": 1,
            },
        },
    )
    items = items_of(s)
    assert [i.user for i in items] == [True, True, False, False]
    assert [i.collapsible for i in items[:2]] == [False, True]
    assert [i.expanded for i in items[:2]] == [True, False]
    assert [i.error for i in items] == [False, False, True, True]


@pytest.mark.parametrize("name", ALL_FIXTURES)
def test_every_fixture_item_renders_and_searches(name: str) -> None:
    s = load_session(fixture(name))
    leaf = s.tree.leaf
    if leaf is None:
        return
    for item in build_items(s, s.tree.path(leaf), show_hidden=True):
        for expanded in (False, True):
            for width in (20, 100):
                out = to_str(render_item(s, item, expanded=expanded, width=width), width)
                assert out.strip(), item
                assert "cannot render" not in out, out
                assert "\x1b" not in out
        item_text(s, item)


@pytest.mark.corpus
@pytest.mark.skipif(not corpus_files(), reason="no corpus")
@pytest.mark.parametrize("path", corpus_files(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_corpus_items(path: Path) -> None:
    s = load_session(path)
    leaf = s.tree.leaf
    assert leaf is not None
    items = build_items(s, s.tree.path(leaf), show_hidden=True)
    assert items
    # Every result on the path is either inside its call's item or an orphan item.
    on_path = set(s.tree.path(leaf))
    own = {i.entry for i in items if i.kind == "orphan_result"}
    for r in s.pairing.results:
        if r in on_path:
            assert (r in s.pairing.result_call) != (r in own)
    for item in items[:400]:
        out = render(s, item, expanded=True, width=80)
        assert "cannot render" not in out, out
        assert "\x1b" not in out


def test_build_items_is_fast(tmp_path: Path) -> None:
    # 5,000 entries; the budget is loose (shared CI machines), the point is "no full decode".
    lines = [json.dumps({"type": "session", "version": 3, "id": "s", "cwd": "/"})]
    prev = None
    for k in range(1000):
        ents = [
            user([text(f"q{k}")]),
            assistant(text("a"), call(f"c{k}", "read", {"path": "x"}), stop="toolUse"),
            result(f"c{k}", "read", "out\n" * 50),
            assistant(text("done")),
            user([text("next")]),
        ]
        for j, e in enumerate(ents):
            e["id"], e["parentId"] = f"{k}-{j}", prev
            e["timestamp"] = "2026-01-01T00:00:00.000Z"
            prev = e["id"]
            lines.append(json.dumps(e))
    path = tmp_path / "big.jsonl"
    path.write_text("\n".join(lines) + "\n")
    s = load_session(path)
    p = s.tree.path(s.tree.leaf)
    assert s.pairing is not None  # computed once per session, not part of building items
    items = build_items(s, p)
    assert len(items) == 5000
    assert not s._cache  # nothing was fully decoded


def test_rendering_layer_imports_no_textual() -> None:
    import subprocess
    import sys

    from tests.conftest import ROOT

    code = (
        "import sys, piview.render.items, piview.export.text; "
        "bad = [m for m in sys.modules if m.split('.')[0] in ('textual', 'textual_image')]; "
        "print(bad); raise SystemExit(1 if bad else 0)"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stdout + r.stderr


def test_item_list_packs_items_and_estimates_heights() -> None:
    import random
    from array import array

    from piview.render.items import ItemList

    rng = random.Random(7)
    lengths = array("q", [rng.randrange(0, 200_000) for _ in range(50)])
    kinds = ["user", "assistant", "thinking", "tool", "orphan_result", "divider"]
    items = [
        Item(
            rng.choice(kinds),
            rng.randrange(50),
            rng.randrange(-1, 4),
            *(rng.random() < 0.5 for _ in range(5)),
        )  # fmt: skip
        for _ in range(300)
    ]
    packed = ItemList(items)
    assert list(packed) == items and packed == items and packed[5:9] == items[5:9]
    for width in (20, 77, 200):
        want = [
            2
            if it.collapsible and not it.expanded
            else max(2, min(30, 2 + lengths[it.entry] // (width * 2)))
            for it in items
        ]
        assert packed.estimates(lengths, width, 30).tolist() == want


def test_item_list_common_prefix() -> None:
    from piview.render.items import ItemList

    base = [Item("user", k, -1) if k % 3 else Item("tool", k, 1) for k in range(200)]
    a = ItemList(base)
    assert a.common_prefix(ItemList(base)) == 200
    assert a.common_prefix(ItemList([*base, Item("user", 500, -1)])) == 200  # grown
    assert ItemList([*base, Item("user", 500, -1)]).common_prefix(a) == 200
    assert a.common_prefix(ItemList()) == 0
    for cut in (0, 1, 77, 199):
        for changed in (
            Item("thinking", base[cut].entry, base[cut].part),  # another kind
            Item(base[cut].kind, 999, base[cut].part),  # another entry
            Item(base[cut].kind, base[cut].entry, 7),  # another part
        ):
            other = ItemList([*base[:cut], changed, *base[cut + 1 :]])
            assert a.common_prefix(other) == cut, (cut, changed)


def test_compact_numbers_fit_the_sidebar_columns() -> None:
    from piview.render.format import fmt_cost_short, fmt_tokens

    for n in (950, 12_345, 4.56e6, 101.58e6, 15.7e9, 101e9, 3e12):
        assert len(fmt_tokens(n)) <= 6
    for c in (0.0012, 12.34, 999.99, 5724.36, 123_456, 2.5e6):
        assert len(fmt_cost_short(c)) <= 7
    assert fmt_tokens(15_706_900_000) == "15.71B" and fmt_cost_short(5724.36) == "$5.72k"
