"""The usage sidebar shows oh-my-pi's model_usage entries as their own block (issue #14)."""

from __future__ import annotations

from piview.model import load_session
from piview.model.usage import usage_report
from piview.widgets.usage_sidebar import _tools_block
from tests.conftest import fixture

SESSION = next((fixture("omp") / "agent" / "sessions").glob("*/*.jsonl"))


def test_sidebar_has_an_other_model_work_block() -> None:
    s = load_session(SESSION)
    text = _tools_block(usage_report(s.nodes, s.tree.path(s.tree.leaf))).plain
    assert "Other model work" in text and "128" in text and "$0.06" in text


def test_pi_files_have_no_such_block() -> None:
    s = load_session(fixture("linear.jsonl"))
    assert (
        "Other model work"
        not in _tools_block(usage_report(s.nodes, s.tree.path(s.tree.leaf))).plain
    )
