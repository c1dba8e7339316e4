"""Summaries: the file lists Pi's summarizer appends are taken apart, never dropped."""

from __future__ import annotations

import json

import pytest

from piview.model.summary import split_summary
from tests.conftest import CORPUS

PI_SUMMARY = (
    "## Goal\nAdd rate limiting.\n\n## Next Steps\n1. Wire it in\n\n"
    "<read-files>\nsrc/client.js\nREADME.md\n</read-files>\n\n"
    "<modified-files>\nsrc/rate-limiter.js\n</modified-files>"
)


def test_split_summary() -> None:
    parts = split_summary(PI_SUMMARY)
    assert parts.text == "## Goal\nAdd rate limiting.\n\n## Next Steps\n1. Wire it in"
    assert parts.read == ["src/client.js", "README.md"]
    assert parts.modified == ["src/rate-limiter.js"]
    plain = split_summary("no files here <b>")
    assert plain.text == "no files here <b>" and plain.read == plain.modified == []


@pytest.mark.corpus
def test_corpus_branch_summary_lists_its_files() -> None:
    path = CORPUS / "pi-0.73" / "branches.jsonl"
    if not path.exists():
        pytest.skip("corpus absent")
    summaries = [
        json.loads(ln)["summary"]
        for ln in path.read_text().splitlines()
        if '"branch_summary"' in ln and "-files>" in ln
    ]
    assert summaries
    parts = split_summary(summaries[0])
    assert parts.modified == ["src/rate-limiter.js"]
    assert "<" not in parts.text


@pytest.mark.corpus
def test_corpus_summary_files_in_viewer_print_and_export(tmp_path) -> None:
    from piview.export import export_branch
    from piview.model import load_session
    from piview.render.items import build_items
    from tests.render.helpers import render

    path = CORPUS / "pi-0.73" / "branches.jsonl"
    if not path.exists():
        pytest.skip("corpus absent")
    s = load_session(path)
    # The branch whose summary lists a modified file: the one through that summary entry.
    entry = next(
        i
        for i in range(len(s))
        if s.nodes[i].type == "branch_summary" and "-files>" in (s.entry(i).summary or "")  # type: ignore[union-attr]
    )
    leaf = s.tree.newest_leaf(entry)
    items = build_items(s, s.tree.path(leaf))
    item = next(it for it in items if it.entry == entry)
    for expanded in (False, True):
        out = render(s, item, expanded=expanded)
        assert "modified: src/rate-limiter.js" in out and "-files>" not in out
    for fmt in ("md", "html"):
        out = export_branch(
            s, leaf, fmt=fmt, tools="preview", thinking=False, out=tmp_path / f"b.{fmt}"
        )
        text = out.read_text()
        assert "modified: src/rate-limiter.js" in text and "modified-files" not in text
