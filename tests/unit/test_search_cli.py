"""``piview search``: the JSON contract, the options, incremental updates and the errors."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from piview.cli import main
from piview.commands.common import CliError
from piview.commands.search import since_key
from tests.conftest import corpus_files, fixture

KEYS = {"session_path", "session_id", "entry_id", "role", "snippet", "timestamp"}


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PIVIEW_SEARCH_DB", str(tmp_path / "db" / "search.db"))
    proj = tmp_path / "sessions" / "--home-dev-src-tinyhttp--"
    proj.mkdir(parents=True)
    for name in ("linear.jsonl", "tree_branches.jsonl", "v1.jsonl", "edit_tools.jsonl"):
        shutil.copy(fixture(name), proj / name)
    return tmp_path / "sessions"


def search(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[dict]]:
    rc = main(["search", *args, "--json"])
    return rc, json.loads(capsys.readouterr().out)


def test_json_has_exactly_the_contract_keys(root: Path, capsys) -> None:
    rc, hits = search(capsys, "jitter", "--sessions", str(root))
    assert rc == 0 and hits
    assert all(set(h) == KEYS for h in hits)
    assert {h["entry_id"] for h in hits} >= {"2ff4b49b", "2e09b722"}
    assert all(h["session_path"].endswith("tree_branches.jsonl") for h in hits)
    assert all("jitter" in h["snippet"].lower() for h in hits)


def test_limit_tools_since(root: Path, capsys) -> None:
    _rc, hits = search(capsys, "jitter", "--sessions", str(root), "--limit", "2")
    assert len(hits) == 2
    _rc, text_only = search(capsys, "edit", "--sessions", str(root))
    _rc, with_tools = search(capsys, "edit", "--sessions", str(root), "--tools", "--limit", "100")
    assert len(with_tools) > len(text_only)
    assert {h["role"] for h in with_tools} - {h["role"] for h in text_only}
    _rc, all_hits = search(capsys, "jitter", "--sessions", str(root), "--limit", "100")
    stamps = sorted(h["timestamp"] for h in all_hits if h["timestamp"])
    since = stamps[len(stamps) // 2]
    _rc, later = search(capsys, "jitter", "--sessions", str(root), "--since", since)
    assert later and all(h["timestamp"] >= since for h in later)
    assert len(later) < len(all_hits)


def test_nothing_found_and_errors(root: Path, capsys, tmp_path: Path) -> None:
    rc, hits = search(capsys, "zzzqqqnothing", "--sessions", str(root))
    assert rc == 1 and hits == []
    assert main(["search", "x", "--sessions", str(tmp_path / "none")]) == 2
    assert main(["search", "x", "--sessions", str(root), "--since", "yesterday"]) == 2
    assert main(["search", "x", "--sessions", str(root), "--limit", "0"]) == 2
    assert "piview:" in capsys.readouterr().err


def test_second_run_reads_only_what_changed(root: Path, capsys) -> None:
    search(capsys, "jitter", "--sessions", str(root))
    linear = next(root.glob("*/linear.jsonl"))
    linear.unlink()
    rc, hits = search(capsys, "jitter", "--sessions", str(root))
    assert rc == 0 and hits
    from piview.catalog.fts import SearchIndex

    index = SearchIndex()
    assert index.stats()["files"] == 3
    index.close()


def test_human_output(root: Path, capsys) -> None:
    assert main(["search", "decorrelated", "--sessions", str(root)]) == 0
    out = capsys.readouterr().out
    assert "tree_branches.jsonl" in out and "Decorrelated" in out and "\x1b" not in out


def test_since_key() -> None:
    assert since_key("2026-05-01") == "2026-05-01"
    assert since_key("2026-05-01T10:00:00+02:00") == "2026-05-01T08:00:00"
    with pytest.raises(CliError):
        since_key("soon")


@pytest.mark.corpus
def test_the_real_corpus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    files = corpus_files()
    if not files:
        pytest.skip("no corpus")
    monkeypatch.setenv("PIVIEW_SEARCH_DB", str(tmp_path / "search.db"))
    root = tmp_path / "s"
    for k, f in enumerate(files):
        (root / f"p{k}").mkdir(parents=True)
        shutil.copy(f, root / f"p{k}" / f.name)
    rc, hits = search(capsys, "session", "--sessions", str(root), "--tools", "--limit", "50")
    assert rc == 0 and len(hits) == 50
    assert all(set(h) == KEYS for h in hits)


def test_two_folders_share_the_index_and_results_stay_in_their_folder(
    root: Path, tmp_path: Path, capsys
) -> None:
    other = tmp_path / "other" / "proj"
    other.mkdir(parents=True)
    shutil.copy(fixture("tree_branches.jsonl"), other / "copy.jsonl")
    _rc, here = search(capsys, "decorrelated", "--sessions", str(root))
    _rc, there = search(capsys, "decorrelated", "--sessions", str(tmp_path / "other"))
    assert here and all(h["session_path"].startswith(str(root)) for h in here)
    assert there and all(h["session_path"].endswith("copy.jsonl") for h in there)
    from piview.catalog.fts import SearchIndex

    index = SearchIndex()
    assert index.stats()["files"] == 5  # both folders' files
    index.close()
