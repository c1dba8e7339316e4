"""block_text: what y, v and V take away from each kind of block."""

from __future__ import annotations

from piview.model import load_session
from piview.render.copytext import block_text
from tests.conftest import fixture
from tests.render.helpers import items_of


def _by_kind(name: str) -> dict[str, list[tuple[str, str]]]:
    s = load_session(fixture(name))
    out: dict[str, list[tuple[str, str]]] = {}
    for it in items_of(s, show_hidden=True):
        got = block_text(s, it)
        out.setdefault(it.kind, []).append((got.what, got.text))
    return out


def test_each_kind_gives_its_own_text() -> None:
    got = _by_kind("roles_all.jsonl")
    assert got["user"][0] == (
        "the user's message",
        "Review src/tinyhttp/server.py for obvious bugs.",
    )
    what, text = got["assistant"][0]
    assert what == "the assistant's text" and "SO_REUSEADDR" in text
    what, text = got["thinking"][0]
    assert what == "the thinking" and text.startswith("The user wants a review")
    what, text = got["tool"][0]
    assert what == "the call and its result"
    assert text.startswith("web_search {") and "Python docs, socket" in text
    what, text = got["bash"][0]
    assert what == "the command and its output" and text.startswith("$ git status --short")
    assert got["branch_summary"][0][0] == "the summary"
    assert got["compaction"][0][0] == "the summary"
    assert got["system"][0][0] == "the prompt"


def test_dividers_give_the_entry_json() -> None:
    got = _by_kind("entry_types.jsonl")
    what, text = got["divider"][0]
    assert what == "the entry's JSON" and '"type": "model_change"' in text


def test_no_escape_sequence_is_copied(write_session) -> None:
    from tests.render.helpers import chain, user

    s = load_session(write_session(chain(user("red \x1b[31mALERT\x1b[0m \x07bell"))))
    item = items_of(s)[0]
    assert block_text(s, item).text == "red ALERT bell"


def test_a_turn_without_text_gives_its_json() -> None:
    s = load_session(fixture("usage_extended.jsonl"))
    item = next(it for it in items_of(s) if it.kind == "assistant" and it.entry == 1)
    got = block_text(s, item)
    assert got.what == "the entry's JSON" and '"role": "assistant"' in got.text
