"""Session discovery: folders, quick and full summaries, the cache, id prefixes."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from piview.catalog.discovery import find_session_files, resolve_session_id, sessions_dir
from piview.catalog.summaries import SummaryCache, full_summary, quick_summary
from tests.conftest import fixture


def test_sessions_dir_precedence(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("PI_CODING_AGENT_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert sessions_dir() == tmp_path / ".pi" / "agent" / "sessions"
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "agent"))
    assert sessions_dir() == tmp_path / "agent" / "sessions"
    assert sessions_dir(tmp_path / "x") == tmp_path / "x"


def make_tree(root: Path) -> list[Path]:
    proj = root / "--home-dev-src-tinyhttp--"
    proj.mkdir(parents=True)
    out = []
    for name in ("linear.jsonl", "tree_branches.jsonl", "v1.jsonl"):
        dst = proj / name
        shutil.copy(fixture(name), dst)
        out.append(dst)
    return out


def test_find_and_summaries(tmp_path: Path) -> None:
    files = make_tree(tmp_path)
    found = find_session_files(tmp_path)
    assert sorted(found) == sorted(files)
    q = quick_summary(files[1])
    assert q.session_id and q.cwd and q.entries is None and not q.complete
    full = full_summary(files[1])
    assert full.complete and full.entries and full.entries > 0
    assert full.first_message and full.title
    before = files[1].read_bytes()
    full_summary(files[1])
    assert files[1].read_bytes() == before


def test_cache_round_trip(tmp_path: Path) -> None:
    files = make_tree(tmp_path / "s")
    cache = SummaryCache(tmp_path / "cache" / "sessions.json")
    s = full_summary(files[0])
    cache.put(s)
    cache.save()
    again = SummaryCache(tmp_path / "cache" / "sessions.json")
    st = files[0].stat()
    assert again.get(files[0], st.st_size, st.st_mtime) == s
    assert again.get(files[0], st.st_size + 1, st.st_mtime) is None


def test_resolve_id_prefix(tmp_path: Path) -> None:
    files = make_tree(tmp_path)
    sid = quick_summary(files[0]).session_id
    assert sid
    assert resolve_session_id(sid[:12], tmp_path) == [files[0]]
    assert resolve_session_id("zzzz", tmp_path) == []


def test_missing_dir(tmp_path: Path) -> None:
    assert find_session_files(tmp_path / "nope") == []
