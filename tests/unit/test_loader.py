"""Loading: bad lines with numbers, torn lines, BOM, CRLF, headers, versions, read-only."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from piview.model import SessionOpenError, load_session
from tests.conftest import fixture

HEADER = (
    '{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}'
)


def entry(i: str, parent: str | None, ts: str = "2026-01-01T00:00:00.000Z", **extra: object) -> str:
    e = {
        "type": "message",
        "id": i,
        "parentId": parent,
        "timestamp": ts,
        "message": {"role": "user", "content": f"msg {i}", "timestamp": 1},
    }
    e.update(extra)
    return json.dumps(e)


def test_bad_lines_are_reported_and_skipped(write_session) -> None:
    path = write_session(
        [HEADER, entry("a", None), "{not json", "[1,2]", '"str"', "", "   ", entry("b", "a")],
        name="bad.jsonl",
    )
    s = load_session(path)
    assert [n.id for n in s.nodes] == ["a", "b"]
    assert [(b.line, b.reason.split(" ")[0]) for b in s.bad_lines] == [
        (3, "invalid"),
        (4, "not"),
        (5, "not"),
    ]
    assert s.tree.parents.tolist() == [-1, 0]


def test_torn_last_line(write_session) -> None:
    data = (HEADER + "\n" + entry("a", None) + "\n" + entry("b", "a")[:40]).encode()
    s = load_session(write_session(data))
    assert [n.id for n in s.nodes] == ["a"]
    assert s.bad_lines[0].line == 3 and "incomplete last line" in s.bad_lines[0].reason
    assert s.size == len((HEADER + "\n" + entry("a", None) + "\n").encode())


def test_complete_last_line_without_newline_is_fine(write_session) -> None:
    data = (HEADER + "\n" + entry("a", None)).encode()
    s = load_session(write_session(data))
    assert len(s) == 1 and s.bad_lines == []


def test_bom_and_crlf() -> None:
    s = load_session(fixture("crlf_bom.jsonl"))
    assert s.header is not None and s.header.id
    assert s.bad_lines == [] and len(s) == 5
    assert all("\r" not in s.ids[i] for i in range(len(s)))


def test_bad_lines_fixture() -> None:
    s = load_session(fixture("bad_lines.jsonl"))
    lines = [b.line for b in s.bad_lines]
    assert lines == [4, 5, 6, 10]
    assert s.bad_lines[-1].reason.startswith("incomplete last line")
    assert len(s) == 4


def test_missing_header_still_loads() -> None:
    s = load_session(fixture("no_header.jsonl"))
    assert s.header is None and len(s) == 4 and s.version == 1
    assert not s.legacy_ids  # entries carry their own ids: nothing to migrate


def test_v1_migration_is_deterministic() -> None:
    s = load_session(fixture("v1.jsonl"))
    assert s.version == 1 and s.legacy_ids
    assert s.ids == [f"L{s.line_of(i)}" for i in range(len(s))]
    assert s.tree.parents.tolist() == [-1] + list(range(len(s) - 1))
    # firstKeptEntryIndex counts the header as 0
    comp = [i for i, n in enumerate(s.nodes) if n.type == "compaction"][0]
    k = s.nodes[comp].first_kept_entry_index
    assert s.nodes[comp].first_kept_entry_id == s.ids[k - 1]
    assert s.entry(comp).first_kept_entry_id == s.ids[k - 1]
    assert load_session(fixture("v1.jsonl")).ids == s.ids


def test_future_version_is_not_migrated(write_session) -> None:
    head = HEADER.replace('"version":3', '"version":7')
    s = load_session(write_session([head, entry("a", None), entry("b", "a")]))
    assert s.version == 7 and s.ids == ["a", "b"]


def test_missing_and_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(SessionOpenError, match="no such file"):
        load_session(tmp_path / "nope.jsonl")
    with pytest.raises(SessionOpenError, match="directory"):
        load_session(tmp_path)


@pytest.mark.skipif(os.geteuid() == 0, reason="root can read anything")
def test_permission_denied(tmp_path: Path) -> None:  # pragma: no cover - CI runs as root
    p = tmp_path / "x.jsonl"
    p.write_text(HEADER)
    p.chmod(0)
    with pytest.raises(SessionOpenError, match="permission"):
        load_session(p)


def test_empty_file(write_session) -> None:
    s = load_session(write_session(b""))
    assert len(s) == 0 and s.tree.leaf is None and s.bad_lines == []


def test_file_is_never_written(write_session) -> None:
    path = write_session([HEADER, entry("a", None), entry("b", "a"), "{torn"])
    before = (path.read_bytes(), path.stat().st_mtime_ns)
    s = load_session(path)
    for i in range(len(s)):
        s.entry(i)
        s.raw(i)
    s.close()
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before


def test_long_lines_across_chunks(write_session, monkeypatch: pytest.MonkeyPatch) -> None:
    import piview.model.fileindex as fileindex

    monkeypatch.setattr(fileindex, "_CHUNK", 64)
    big = entry("b", "a", message={"role": "user", "content": "y" * 1000, "timestamp": 1})
    s = load_session(write_session([HEADER, entry("a", None), big, entry("c", "b")]))
    assert s.ids == ["a", "b", "c"]
    assert s.entry(1).message.content == "y" * 1000


def test_poll_reads_only_new_complete_lines(write_session) -> None:
    path = write_session([HEADER, entry("a", None)])
    s = load_session(path)
    assert s.poll() == "none"
    line = entry("b", "a")
    with open(path, "ab") as f:
        f.write(line[:30].encode())
    assert s.poll() == "none" and len(s) == 1 and s.bad_lines == []
    with open(path, "ab") as f:
        f.write(line[30:].encode() + b"\n" + entry("c", "b").encode() + b"\n")
    assert s.poll() == "appended"
    assert s.ids == ["a", "b", "c"] and s.tree.path(2) == [0, 1, 2]
    assert s.pairing is not None and s.bad_lines == []


def test_poll_torn_line_at_load_is_completed_later(write_session) -> None:
    line = entry("b", "a")
    path = write_session((HEADER + "\n" + entry("a", None) + "\n" + line[:25]).encode())
    s = load_session(path)
    assert len(s) == 1 and s.bad_lines and s.bad_lines[0].torn
    with open(path, "ab") as f:
        f.write(line[25:].encode() + b"\n")
    assert s.poll() == "appended"
    assert s.ids == ["a", "b"] and s.bad_lines == []


def test_poll_unterminated_complete_line_is_not_doubled(write_session) -> None:
    path = write_session((HEADER + "\n" + entry("a", None)).encode())
    s = load_session(path)
    assert s.ids == ["a"]
    with open(path, "ab") as f:
        f.write(b"\n" + entry("b", "a").encode() + b"\n")
    assert s.poll() == "appended" and s.ids == ["a", "b"]


def test_poll_reports_the_header_of_a_file_that_was_empty(write_session) -> None:
    """Pi creates the file, then writes its header line alone: the viewer must hear of it."""
    path = write_session(b"")
    s = load_session(path)
    assert s.header is None and len(s) == 0
    with open(path, "ab") as f:
        f.write(HEADER.encode() + b"\n")
    assert s.poll() == "appended"
    assert s.header is not None and s.header_line == 1 and len(s) == 0
    assert s.poll() == "none"
    with open(path, "ab") as f:
        f.write(entry("a", None).encode() + b"\n")
    assert s.poll() == "appended" and s.ids == ["a"]


def test_poll_detects_truncation_and_replacement(write_session, tmp_path: Path) -> None:
    path = write_session([HEADER, entry("a", None), entry("b", "a")])
    s = load_session(path)
    path.write_bytes((HEADER + "\n").encode())
    assert s.poll() == "replaced"
    other = tmp_path / "other.jsonl"
    other.write_bytes((HEADER + "\n" + entry("z", None) + "\n" * 50).encode())
    s2 = load_session(path)
    os.replace(other, path)
    assert s2.poll() == "replaced"


def test_index_cache_reopen_and_append(write_session, tmp_path: Path, monkeypatch) -> None:
    import piview.model.session as sess
    from piview.model.index_cache import IndexCache

    monkeypatch.setattr(sess, "CACHE_MIN_BYTES", 0)
    cache = IndexCache(tmp_path / "cache")
    lines = [HEADER] + [entry(f"e{i}", f"e{i - 1}" if i else None) for i in range(50)]
    path = write_session(lines + ["{bad"])
    first = load_session(path, index_cache=cache)
    assert not first.index_from_cache and first.save_index()
    assert not first.save_index()  # nothing new to write
    again = load_session(path, index_cache=cache)
    assert again.index_from_cache and again.ids == first.ids
    assert [b.line for b in again.bad_lines] == [52]
    assert again.entry(49).message.content == "msg e49"
    # Pi appends: the cached index is extended, not rebuilt.
    with open(path, "ab") as f:
        f.write((entry("e50", "e49") + "\n").encode())
    grown = load_session(path, index_cache=cache)
    assert grown.index_from_cache and grown.ids[-1] == "e50" and len(grown) == 51
    assert grown.save_index()
    # Rewritten with different bytes: the cache is not trusted.
    path.write_bytes(("\n".join([HEADER, entry("z", None)]) + "\n").encode())
    fresh = load_session(path, index_cache=cache)
    assert not fresh.index_from_cache and fresh.ids == ["z"]


def test_index_cache_never_touches_the_session_folder(
    write_session, tmp_path_factory, monkeypatch
) -> None:
    import piview.model.session as sess
    from piview.model.index_cache import IndexCache

    monkeypatch.setattr(sess, "CACHE_MIN_BYTES", 0)
    path = write_session([HEADER, entry("a", None)])
    before = sorted(p.name for p in path.parent.iterdir())
    s = load_session(path, index_cache=IndexCache(tmp_path_factory.mktemp("cache")))
    s.save_index()
    assert sorted(p.name for p in path.parent.iterdir()) == before


def test_an_index_the_cache_cannot_hold_is_not_cached(
    write_session, tmp_path: Path, monkeypatch
) -> None:
    """An entry kept whole with a usage of 2**64 tokens (hand-edited) cannot be written as
    msgpack: saving the index writes nothing (it used to raise OverflowError)."""
    import piview.model.session as sess
    from piview.model.index_cache import IndexCache

    monkeypatch.setattr(sess, "CACHE_MIN_BYTES", 0)
    cache = IndexCache(tmp_path / "cache")
    path = write_session([HEADER, entry("a", None), '{"usage": {"output": 18446744073709551616}}'])
    s = load_session(path, index_cache=cache)
    s.save_index()
    assert not (tmp_path / "cache").exists() or not list((tmp_path / "cache").iterdir())
    again = load_session(path, index_cache=cache)
    assert not again.index_from_cache and len(again) == 2


def test_a_damaged_index_cache_is_ignored(write_session, tmp_path: Path, monkeypatch) -> None:
    import piview.model.session as sess
    from piview.model.index_cache import IndexCache

    monkeypatch.setattr(sess, "CACHE_MIN_BYTES", 0)
    cache = IndexCache(tmp_path / "cache")
    lines = [HEADER] + [entry(f"e{i}", f"e{i - 1}" if i else None) for i in range(40)]
    path = write_session(lines)
    assert load_session(path, index_cache=cache).save_index()
    (cached,) = (tmp_path / "cache").iterdir()
    good = cached.read_bytes()
    for damaged in (good[: len(good) // 2], good[:9], good[:-1] + b"\xff", b"junk" * 10):
        cached.write_bytes(damaged)
        s = load_session(path, index_cache=cache)
        assert s.ids == [f"e{i}" for i in range(40)] and s.tree.parents[-1] == 38
    # A frame length larger than the file: refused before reading it.
    cached.write_bytes(good[:8] + (2**62).to_bytes(8, "little") + good[16:])
    assert not load_session(path, index_cache=cache).index_from_cache


@pytest.mark.parametrize("name", ["unknown.jsonl", "tool_pairing.jsonl", "roles_all.jsonl"])
def test_index_cache_round_trip_keeps_every_skeleton(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import piview.model.session as sess
    from piview.model.index_cache import IndexCache
    from tests.conftest import fixture

    monkeypatch.setattr(sess, "CACHE_MIN_BYTES", 0)
    cache = IndexCache(tmp_path / "cache")
    first = load_session(fixture(name), index_cache=cache)
    assert first.save_index()
    again = load_session(fixture(name), index_cache=cache)
    assert again.index_from_cache
    assert list(again.nodes) == list(first.nodes) and again.ids == first.ids
    assert dict(again.pairing.result_call.items()) == dict(first.pairing.result_call.items())
