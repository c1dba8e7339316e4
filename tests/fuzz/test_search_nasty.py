"""The search index on nasty files: it never fails, never writes a session file, never runs
anything from one, and a snippet reaches the terminal without an escape sequence."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from piview.catalog.fts import SearchIndex
from tests.fuzz.nasty import NASTY, PWNED
from tests.fuzz.test_readonly import _WRITE_FLAGS, Recorder, _session_file, _snapshot

pytestmark = pytest.mark.fuzz


@pytest.mark.parametrize("kind", sorted(NASTY))
def test_every_nasty_file_indexes_and_searches(kind: str, tmp_path: Path) -> None:
    folder = tmp_path / "s"
    folder.mkdir()
    path = _session_file(kind, folder)
    index = SearchIndex(tmp_path / "search.db")
    index.update([path])
    for query in ("the", "tools:the", '"', "a*", "NOT", "x OR", "é", "\x1b[31m"):
        for hit in index.search(query, tools=True, limit=5):
            assert hit.session_path == str(path)
    index.close()


def test_piview_search_leaves_the_file_untouched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from piview.cli import main

    monkeypatch.setenv("PIVIEW_SEARCH_DB", str(tmp_path / "db" / "search.db"))
    Path(PWNED).unlink(missing_ok=True)
    folder = tmp_path / "sessions" / "proj"
    folder.mkdir(parents=True)
    path = _session_file("ansi_everywhere", folder)
    before = _snapshot(path)
    rec = Recorder(path)
    rec.install(monkeypatch)
    main(["search", "the", "--tools", "--sessions", str(folder.parent)])
    out = capsys.readouterr().out
    main(["search", "the", "--tools", "--json", "--sessions", str(folder.parent)])
    hits = json.loads(capsys.readouterr().out)
    monkeypatch.undo()
    assert _snapshot(path) == before
    assert rec.os_opens and not any(f & _WRITE_FLAGS for f in rec.os_opens)
    assert all(set(m) <= set("rbt") for m in rec.opens)
    assert not rec.changes and not Path(PWNED).exists()
    assert "\x1b" not in out  # sanitised, and no colour into a pipe
    assert hits
