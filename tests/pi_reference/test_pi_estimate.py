"""piview's token estimate (``piview/model/estimate.py``) against Pi 0.85.1's own
``estimateTokens``, asked live (estimate_085.mjs; skipped without a Node of 22.19 or newer and
Pi 0.85's package, ``PIVIEW_PI085_NPM``): every message Pi builds from the corpus files and
from the fixtures (images, thinking, bash runs, compactions, custom messages, old versions),
and the whole context (``piview context --json``'s ``estimate``) at a sample of entries.

Also ``JSON.stringify``'s length on awkward values, against Node (any version) itself.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from piview.model import load_session
from piview.model.context_report import context_report
from piview.model.estimate import entry_estimate, estimate_tokens, js_json_length, js_number
from piview.model.session import Session
from piview.model.types import MessageEntry
from tests.conftest import FIXTURES, corpus_files
from tests.pi_reference.pi085 import FILES as PI085_FILES
from tests.pi_reference.pi085 import pi085

HERE = Path(__file__).resolve().parent

live = pytest.mark.skipif(
    pi085() is None, reason="Node >= 22.19 or Pi 0.85's package not found (PIVIEW_PI085_NPM)"
)

FIXTURE_FILES = sorted(FIXTURES.glob("*.jsonl")) + list(PI085_FILES)
"""The hand-written fixtures (among them images, thinking, ``!``/``!!`` bash runs, compactions,
custom and hook messages, versions 1 and 2) and the two files Pi 0.85.1 wrote."""

CONTEXT_DIFFERS = {
    "no_header.jsonl": "ids Pi's migration draws at random",
    "openclaw_entries.jsonl": "OpenClaw's entries, which Pi does not know",
    "openclaw_side_notes.jsonl": "OpenClaw's side notes, not branches to piview",
    "tree_pathological.jsonl": "duplicated ids and cycles, read otherwise by Pi",
}
"""Fixtures whose context piview builds otherwise than Pi on purpose (so the contexts'
totals are not compared there; their messages' estimates are)."""


def _pi(paths: list[Path]) -> dict[str, Any]:
    found = pi085()
    assert found is not None
    node, folder = found
    out = subprocess.run(
        [node, str(HERE / "estimate_085.mjs"), str(folder), *map(str, paths)],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    answer: dict[str, Any] = json.loads(out.stdout)
    return answer


def _mine(session: Session, i: int) -> int:
    entry = session.entry(i)
    if isinstance(entry, MessageEntry):
        return estimate_tokens(entry.message)
    return entry_estimate(entry)


def _compare(path: Path) -> tuple[int, int]:
    """``(messages, contexts)`` compared; asserts every one is Pi's own number."""
    pi = _pi([path])[str(path)]
    session = load_session(path)
    by_line = {session.line_of(i): i for i in range(len(session.ids))}
    messages = 0
    for line, theirs in pi["entries"]:
        if theirs is None:  # Pi's estimateTokens throws on it (a malformed message)
            continue
        i = by_line.get(line)
        assert i is not None, f"line {line}: Pi builds a message piview does not index"
        assert _mine(session, i) == theirs, f"line {line}"
        messages += 1
    contexts = 0
    tree = session.tree
    for case in [] if path.name in CONTEXT_DIFFERS else pi["contexts"]:
        if case["estimate"] is None or "at" not in case:  # no "at": an entry without an id
            continue
        at = tree.leaf if case["at"] is None else session.find(case["at"])
        assert at is not None, case["at"]
        assert context_report(session, at).estimate == case["estimate"], case["at"]
        contexts += 1
    return messages, contexts


@live
@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: p.name)
def test_fixture_estimates_are_pis(path: Path) -> None:
    _compare(path)


@live
@pytest.mark.parametrize("path", corpus_files(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_corpus_estimates_are_pis(path: Path) -> None:
    messages, contexts = _compare(path)
    assert messages and contexts


_AWKWARD: list[Any] = [
    {"a": 1.0, "b": -0.0, "c": 1e21, "d": 1e20, "e": 1.5e-7, "f": 0.000001, "g": 123.456},
    {"big": 123456789012345678901234567890, "edge": 2**53, "neg": -(2**53) + 1},
    {"1": "x", "b": [True, False, None, [], {}], "0": {"nested": "é😀\u2028"}},
    ["\x00\x01\x1f\x7f", '"\\/\b\f\n\r\t', "𝄞 mixed ✓", 5e-324, 1.7976931348623157e308],
    [0.1, 100.0, 1e-7, 1.2345e-6, 9007199254740993.0, 3.0e15, 4.35e16, -2.5e-10],
    "plain",
    "",
    {},
    [],
]


@pytest.mark.skipif(shutil.which("node") is None, reason="node not found")
def test_json_length_is_javascripts() -> None:
    script = (
        "const vs = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "process.stdout.write(JSON.stringify(vs.map((v) => JSON.stringify(v).length)));"
    )
    data = json.dumps(_AWKWARD)
    out = subprocess.run(
        ["node", "-e", script], input=data, capture_output=True, text=True, check=True
    )
    assert [js_json_length(v) for v in json.loads(data)] == json.loads(out.stdout)


@pytest.mark.skipif(shutil.which("node") is None, reason="node not found")
def test_number_form_is_javascripts() -> None:
    values = [1.0, 0.5, 1e21, 1e20, 1.5e-7, 1e-6, 123.456, 5e-324, 1.7976931348623157e308]
    values += [2.5e-10, 4.35e16, 12345678901234567890.0, -0.001, 0.1 + 0.2]
    script = (
        "const vs = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "process.stdout.write(JSON.stringify(vs.map(String)));"
    )
    out = subprocess.run(
        ["node", "-e", script],
        input=json.dumps(values),
        capture_output=True,
        text=True,
        check=True,
    )
    assert [js_number(v) for v in values] == json.loads(out.stdout)
