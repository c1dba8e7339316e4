"""The usage rows as arrays without field names (piview.model.usage_row): smaller, read back
as the very Usage the file gave, the same bytes from both loops and for entries kept whole."""

from __future__ import annotations

import json

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from piview.catalog.stats import usage_key
from piview.model import load_session
from piview.model.types import Usage
from piview.model.usage_row import encode_row, row_decoder, usage_of
from tests.unit.test_load_memory import _usage_lines


@pytest.mark.parametrize("pure", [False, True])
def test_a_row_holds_no_field_names(write_session, monkeypatch, pure: bool) -> None:
    """A row of Pi's usage (five token counts, four costs) was a map of 130 bytes, more than
    half of them field names; as an array it is under 64."""
    import piview.model.store as store_mod

    if pure:
        monkeypatch.setattr(store_mod, "_fill", None)
    n = 2000
    s = load_session(write_session(_usage_lines(n)))
    store = s.nodes
    assert len(store.usage_end) == n
    assert len(store.usage_blob) / n < 64
    for r in (0, n // 2, n - 1):
        start = store.usage_end[r - 1] if r else 0
        assert store.usage_blob[start] & 0xF0 == 0x90  # a fixarray, not a map (0x8_)


_number = st.integers(-(2**63), 2**64 - 1) | st.floats(allow_nan=False, allow_infinity=False)
_cost = st.fixed_dictionaries(
    {},
    optional={k: _number for k in ("input", "output", "cacheRead", "cacheWrite", "total")},
)
_usage = st.fixed_dictionaries(
    {},
    optional={
        **{
            k: _number
            for k in (
                "input",
                "output",
                "cacheRead",
                "cacheWrite",
                "cacheWrite1h",
                "reasoning",
                "totalTokens",
            )
        },
        "cost": _cost,
        "extra": _number,
    },
)


@settings(max_examples=300, deadline=None)
@given(raw=_usage)
def test_a_row_reads_back_as_the_usage_it_was(raw: dict[str, object]) -> None:
    usage = msgspec.json.decode(json.dumps(raw), type=Usage)
    back = usage_of(row_decoder.decode(encode_row(usage)))
    assert back == usage
    assert msgspec.json.encode(back) == msgspec.json.encode(usage)
    # Trailing fields not set are left out: no nil at the end of a row or of its cost.
    row = msgspec.msgpack.decode(encode_row(usage))
    assert len(row) == 4 or row[-1] is not None
    if usage.cost is not None:
        assert row[5][-1] is not None or len(row[5]) == 4


@pytest.mark.parametrize("pure", [False, True])
def test_loaded_usage_is_the_files(write_session, monkeypatch, pure: bool) -> None:
    """Every field Usage holds (cacheWrite1h and reasoning too) survives its row."""
    import piview.model.store as store_mod

    if pure:
        monkeypatch.setattr(store_mod, "_fill", None)
    lines = _usage_lines(3)
    usages = [
        {"input": 5, "output": 7, "cacheWrite1h": 3, "reasoning": 2.5},
        {"input": 1, "cost": {"input": 0.5, "cacheWrite": 1}, "reasoning": 4},
        {},
    ]
    for k, usage in enumerate(usages):
        entry = json.loads(lines[k + 1])
        entry["message"]["usage"] = usage
        lines[k + 1] = json.dumps(entry)
    s = load_session(write_session(lines))
    for k, usage in enumerate(usages):
        assert s.nodes.usage_at[k] >= 0
        got = s.nodes.message_usage(k)
        assert got == msgspec.json.decode(json.dumps(usage), type=Usage)


def test_whole_entries_key_their_usage_as_rows_do(write_session) -> None:
    """stats dedups records on their usage's bytes: a usage kept in an entry kept whole
    gives the bytes a row of it would hold."""
    lines = _usage_lines(2)
    whole = json.loads(lines[2])
    whole["message"]["customType"] = "x"  # an odd field: the entry is kept whole
    lines[2] = json.dumps(whole)
    s = load_session(write_session(lines))
    store = s.nodes
    assert store.usage_at[0] >= 0 and 1 in store.whole
    row = usage_key(store, 0, store.message_usage(0))  # type: ignore[arg-type]
    assert row == encode_row(store.message_usage(0))  # type: ignore[arg-type]
    usage = store.message_usage(1)
    assert usage is not None
    assert usage_key(store, 1, usage) == encode_row(usage)


def test_a_cache_of_map_rows_is_rebuilt(write_session, tmp_path, monkeypatch) -> None:
    """An index cache written before the rows were arrays (format 6) holds map rows: it is
    not read (they would not decode as arrays), the file is indexed again. A cache of
    this format reads its rows back as the first load had them."""
    import piview.model.session as sess
    from piview.model.index_cache import IndexCache

    monkeypatch.setattr(sess, "CACHE_MIN_BYTES", 0)
    cache = IndexCache(tmp_path / "cache")
    path = write_session(_usage_lines(30))
    first = load_session(path, index_cache=cache)
    assert first.save_index()
    again = load_session(path, index_cache=cache)
    assert again.index_from_cache
    assert bytes(again.nodes.usage_blob) == bytes(first.nodes.usage_blob)
    assert [again.nodes.message_usage(i) for i in range(30)] == [
        first.nodes.message_usage(i) for i in range(30)
    ]
    (cached,) = (tmp_path / "cache").iterdir()
    good = cached.read_bytes()
    assert good.startswith(b"PVIDX\x00\x00")
    cached.write_bytes(b"PVIDX\x00\x00\x06" + good[8:])
    old = load_session(path, index_cache=cache)
    assert not old.index_from_cache
    assert old.nodes.message_usage(29) == first.nodes.message_usage(29)
