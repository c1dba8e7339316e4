"""Faults of the picker's caches (issue #26): a ``sessions.json`` with a field of the wrong type,
piview's summary cache or OpenClaw's record, is read tolerantly (its bad records skipped),
never a crash of the picker at start.

Everything is in ``tmp_path``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.widgets import DataTable

from piview.app import make_app
from piview.catalog.hosts import _sessions_json
from piview.catalog.summaries import SessionSummary, SummaryCache
from piview.screens.picker import PickerScreen
from tests.app.test_debugging import build_sessions

pytestmark = pytest.mark.faults


def _record(path: Path, **wrong: object) -> dict[str, object]:
    st = path.stat()
    good = {"path": str(path), "size": st.st_size, "mtime": st.st_mtime, "complete": True}
    return {**good, **wrong}


def _write_cache(cache: Path, sessions: object) -> None:
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps({"version": 4, "sessions": sessions}))


@pytest.mark.parametrize(
    "wrong",
    [{"cwd": 5}, {"models": "openai/gpt"}, {"models": [1, 2]}, {"entries": "many"}, {"name": []}],
)
def test_a_summary_record_of_the_wrong_type_is_indexed_again(
    wrong: dict[str, object], tmp_path: Path
) -> None:
    session = tmp_path / "a.jsonl"
    session.write_text("{}\n")
    cache = tmp_path / "sessions.json"
    _write_cache(cache, {str(session): _record(session, **wrong)})
    st = session.stat()
    assert SummaryCache(cache).get(session, st.st_size, st.st_mtime) is None
    _write_cache(cache, {str(session): _record(session)})
    good = SummaryCache(cache).get(session, st.st_size, st.st_mtime)
    assert isinstance(good, SessionSummary) and good.complete


@pytest.mark.parametrize("sessions", [[], "x", 5, {"p": "not a record"}, {"p": None}])
def test_a_summary_cache_of_the_wrong_shape_is_empty(sessions: object, tmp_path: Path) -> None:
    cache = tmp_path / "sessions.json"
    _write_cache(cache, sessions)
    assert SummaryCache(cache).get("p", 1, 1.0) is None


async def test_the_picker_starts_over_a_cache_of_the_wrong_types(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("PIVIEW_SEARCH_DB", raising=False)
    files = build_sessions(tmp_path / "sessions")
    records = {
        str(p): _record(p, cwd=5, models="x", first_message=7, created=1.5) for p in files.values()
    }
    _write_cache(tmp_path / "cache" / "piview" / "sessions.json", records)
    app = make_app(sessions_root=tmp_path / "sessions")
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        picker = app.screen
        assert isinstance(picker, PickerScreen)
        assert picker.query_one(DataTable).row_count >= 3


def test_openclaws_sessions_json_skips_records_of_the_wrong_type(tmp_path: Path) -> None:
    path = tmp_path / "sessions.json"
    path.write_text(
        '{"agent:main:a": {"sessionId": "a", "label": 5, "updatedAt": "soon"},'
        ' "agent:main:b": {"sessionId": 7},'
        ' "agent:main:c": {"sessionId": "c", "updatedAt": 1e999, "displayName": "C"},'
        ' "agent:main:d": {"sessionId": "d", "updatedAt": NaN, "subject": ["x"]},'
        ' "agent:main:e": "not a record",'
        ' "agent:main:f": {"sessionId": "f", "updatedAt": 1778834716344, "label": " F "}}'
    )
    meta = _sessions_json(path)
    assert meta["a"] == ("a", None)
    assert "7" not in meta and 7 not in meta
    assert meta["c"] == ("C", None)  # an infinite time is no time
    assert meta["d"] == ("d", None)
    assert meta["f"] == ("F", 1778834716.344)
    path.write_text("[1, 2]")
    assert _sessions_json(path) == {}


def test_a_cached_summary_is_decoded_by_its_fields_types() -> None:
    from piview.catalog.summaries import summary_from_record

    good = {"path": "/s.jsonl", "size": 10, "mtime": 1.5, "models": ["a/b"], "complete": True}
    got = summary_from_record(good)
    assert got is not None and got.models == ["a/b"] and got.complete
    assert summary_from_record({**good, "cwd": 5}) is None
    assert summary_from_record({**good, "size": True}) is None  # a bool is no size
    assert summary_from_record({**good, "models": ["a", 1]}) is None
    assert summary_from_record({"path": "/s.jsonl", "size": 10}) is None  # no mtime
    assert summary_from_record({**good, "unknown": 1}) is not None  # a newer piview's field
