"""Timestamps packed as 8 bytes of milliseconds (piview.model.store_ts): the very string read
back, every other form kept aside, both loops alike, and the subtree sums' times unchanged."""

from __future__ import annotations

import json
import math
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from piview.model import load_session
from piview.model.store_ts import TS_LEN, pack_ts, unpack_ts
from piview.model.subtree import _own_times
from piview.model.tree import parse_iso_ms

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _iso(d: datetime) -> str:
    return (
        f"{d.year:04d}-{d.month:02d}-{d.day:02d}T{d.hour:02d}:{d.minute:02d}:"
        f"{d.second:02d}.{d.microsecond // 1000:03d}Z"
    )


@settings(max_examples=500, deadline=None)
@given(d=st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31, 23, 59)))
def test_pi_timestamps_pack_to_their_milliseconds(d: datetime) -> None:
    d = d.replace(tzinfo=UTC, microsecond=d.microsecond // 1000 * 1000)
    t = _iso(d)
    ms = pack_ts(t)
    assert ms == (d - _EPOCH) // timedelta(milliseconds=1)
    assert unpack_ts(ms) == t


_odd_ts = st.text(alphabet="0123456789-T:.Z +z\u00e9", min_size=22, max_size=26) | st.sampled_from(
    [
        "2026-02-29T00:00:00.000Z",
        "2024-02-29T00:00:00.000Z",
        "1900-02-29T00:00:00.000Z",
        "2000-02-29T00:00:00.000Z",
        "0000-01-01T00:00:00.000Z",
        "0001-01-01T00:00:00.000Z",
        "2026-06-05T24:00:00.000Z",
        "2026-06-05T16:01:60.000Z",
        "2026-06-05 16:01:45.555Z",
        "2026-06-05T16:01:45.555+00:00",
        "2026-06-05T16:01:45.555z",
        "+026-06-05T16:01:45.555Z",
        "2026-13-01T00:00:00.000Z",
        "2026-04-31T00:00:00.000Z",
        "\x002026-06-05T16:01:45.55Z",
        "",
    ]
)


@settings(max_examples=300, deadline=None)
@given(t=_odd_ts)
def test_any_string_packs_back_to_itself_or_not_at_all(t: str) -> None:
    ms = pack_ts(t)
    assert ms is None or unpack_ts(ms) == t


def _old_ms(t: object) -> float:
    """What the subtree sums read of a timestamp when the column held its 24 ASCII bytes."""
    if isinstance(t, str) and len(t) == 24 and t.isascii() and t[0] != "\0":
        if t[-1] == "Z":
            try:
                return datetime.fromisoformat(t).timestamp() * 1000.0
            except (ValueError, OverflowError, OSError):
                pass
        v = parse_iso_ms(t)
    else:
        v = parse_iso_ms(t)
    return math.inf if v is None else v


def _session(stamps: list[object]) -> list[str]:
    lines = [json.dumps({"type": "session", "version": 3, "id": "s", "timestamp": "t"})]
    for k, t in enumerate(stamps):
        entry = {"type": "message", "id": f"e{k}", "parentId": f"e{k - 1}" if k else None}
        if t is not None:
            entry["timestamp"] = t
        entry["message"] = {"role": "user", "content": "hi"}
        lines.append(json.dumps(entry))
    return lines


@settings(max_examples=60, deadline=None)
@given(stamps=st.lists(_odd_ts | st.none() | st.just("2026-06-05T16:01:45.555Z"), max_size=12))
def test_both_loops_keep_every_timestamp_as_written(stamps: list[object]) -> None:
    import piview.model.store as store_mod

    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "f.jsonl"
        path.write_text("".join(x + "\n" for x in _session(stamps)), encoding="utf-8")
        ours = load_session(path)
        saved = store_mod._fill
        store_mod._fill = None
        try:
            ref = load_session(path)
        finally:
            store_mod._fill = saved
    for s in (ours, ref):
        assert [s.nodes.timestamp(i) for i in range(len(stamps))] == stamps
        assert len(s.nodes.ts) == TS_LEN * len(stamps)
        low, high = _own_times(s.nodes, len(stamps))
        want = [_old_ms(t) for t in stamps]
        assert list(low) == want
        assert list(high) == [-math.inf if math.isinf(v) else v for v in want]
    assert bytes(ours.nodes.ts) == bytes(ref.nodes.ts)
    assert ours.nodes.ts_other == ref.nodes.ts_other


@pytest.mark.parametrize("pure", [False, True])
def test_a_timestamp_takes_8_bytes(write_session, monkeypatch, pure: bool) -> None:
    """Pi's timestamps were 24 ASCII bytes each in the column (11 MB at 1 GB): 8 now."""
    import piview.model.store as store_mod

    if pure:
        monkeypatch.setattr(store_mod, "_fill", None)
    stamps = [f"2026-06-05T16:{k // 60 % 60:02d}:{k % 60:02d}.{k % 1000:03d}Z" for k in range(500)]
    s = load_session(write_session(_session(stamps)))
    assert len(s.nodes.ts) == 8 * 500
    assert not s.nodes.ts_other
    assert s.nodes.timestamp(499) == stamps[499]


@settings(max_examples=300, deadline=None)
@given(
    d=st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31, 23, 59)),
    gap=st.booleans(),
)
def test_the_compiled_reader_gives_the_same_strings(d: datetime, gap: bool) -> None:
    from piview.model import store as store_mod
    from piview.model.store_ts import TS_GAP, ts_string

    fill = store_mod._fill
    if fill is None:
        pytest.skip("the compiled loop is not built")
    t = _iso(d)
    ms = pack_ts(t)
    assert ms is not None
    column = bytes(TS_GAP) + ms.to_bytes(TS_LEN, "little", signed=True)
    k = 0 if gap else 1
    assert fill.ts_string(column, k) == ts_string(column, k) == (None if gap else t)
    with pytest.raises(IndexError):
        fill.ts_string(column, 2)
