"""The index cache's extras: a session reopened from the cache gets the tree, side notes,
pairing and ``piview info``'s usage sums from it (issue #17, row 3), and says exactly what a
cold load says."""

from __future__ import annotations

from array import array
from pathlib import Path

import pytest

import piview.model.index_extras as extras_module
import piview.model.pairing as pairing_module
import piview.model.session as session_module
import piview.model.usage as usage_module
from piview.cli import main
from piview.model import load_session, session_info
from piview.model.index_cache import IndexCache
from tests.conftest import corpus_files, fixture

HEADER = '{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00Z","cwd":"/"}'
FILES = [fixture(p.name) for p in sorted(fixture("").glob("*.jsonl"))] + corpus_files()


@pytest.fixture
def cached(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every file is cached (not only big ones), in a folder of this test's own."""
    monkeypatch.setattr(session_module, "CACHE_MIN_BYTES", 0)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("PIVIEW_NO_CACHE", raising=False)
    return tmp_path / "xdg" / "piview" / "index"


def _info(path: Path, capsys: pytest.CaptureFixture[str], *flags: str) -> str:
    assert main(["info", str(path), *flags]) == 0
    return capsys.readouterr().out


def _forbid_recomputing(monkeypatch: pytest.MonkeyPatch) -> None:
    """What the extras hold may not be computed again on a reopen."""

    def refuse(*_args: object, **_kw: object) -> object:
        raise AssertionError("recomputed what the index cache holds")

    monkeypatch.setattr(session_module.Session, "build", refuse)
    monkeypatch.setattr(session_module, "side_notes", refuse)
    monkeypatch.setattr(session_module, "pair_tool_calls", refuse)
    monkeypatch.setattr(usage_module, "sum_usage", refuse)


@pytest.mark.parametrize("flags", [(), ("--json",)], ids=["table", "json"])
@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_info_from_the_cache_is_the_cold_output_and_recomputes_nothing(
    path: Path,
    flags: tuple[str, ...],
    cached: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with monkeypatch.context() as m:
        m.setenv("PIVIEW_NO_CACHE", "1")
        cold = _info(path, capsys, *flags)
    assert _info(path, capsys, *flags) == cold  # this run writes the cache
    assert list(cached.iterdir())
    _forbid_recomputing(monkeypatch)
    assert _info(path, capsys, *flags) == cold


@pytest.mark.parametrize(
    "name",
    [
        "tree_pathological.jsonl",
        "openclaw_side_notes.jsonl",
        "v1.jsonl",
        "v2_hookmessage.jsonl",
        "tool_pairing.jsonl",
        "no_header.jsonl",
    ],
)
def test_the_adopted_tree_and_pairing_are_the_built_ones(name: str, cached: Path) -> None:
    cache = IndexCache()
    cold = load_session(fixture(name))
    first = load_session(fixture(name), index_cache=cache)
    first.pairing  # noqa: B018 - computed, so that it is saved
    assert first.save_index()
    again = load_session(fixture(name), index_cache=cache)
    assert again.index_from_cache and again.cached_pairing is not None
    a, b = again.tree, cold.tree
    assert again.ids == cold.ids and again.legacy_ids == cold.legacy_ids
    assert a.parents == b.parents and a.roots == b.roots and a.id_index == b.id_index
    assert a.children.start == b.children.start and a.children.items == b.children.items
    assert (a.orphans, a.self_parents, a.cycles) == (b.orphans, b.self_parents, b.cycles)
    assert a.duplicate_ids == b.duplicate_ids and a.side == b.side and a.leaf == b.leaf
    assert a.leaves() == b.leaves() and a.branch_points() == b.branch_points()
    if a.leaf is not None:
        assert a.path(a.leaf) == b.path(b.leaf)
    p, q = again.pairing, cold.pairing
    assert p.calls == q.calls and list(p.results) == list(q.results)
    assert dict(p.result_call.items()) == dict(q.result_call.items())
    assert dict(p.call_results.items()) == dict(q.call_results.items())
    assert p.errors == q.errors and p.unanswered == q.unanswered
    assert session_info(again) == session_info(cold)


def _chain(n: int, start: int = 0) -> list[str]:
    """Assistant turns, each with a tool call and usage, each the child of the one before."""
    out = []
    for i in range(start, start + n):
        parent = f'"e{i - 1}"' if i else "null"
        call = f'{{"type":"toolCall","id":"c{i}","name":"x","arguments":{{}}}}'
        usage = f'{{"input":{i},"output":1,"cost":{{"total":0.1}}}}'
        out.append(
            f'{{"type":"message","id":"e{i}","parentId":{parent},'
            f'"timestamp":"2025-01-01T00:00:{i % 60:02d}Z",'
            f'"message":{{"role":"assistant","content":[{call}],"usage":{usage}}}}}'
        )
    return out


def test_extras_are_ignored_when_the_file_grew(
    write_session, cached: Path, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:
    path = write_session([HEADER, *_chain(30)])
    _info(path, capsys, "--json")  # cached with its extras
    with open(path, "a") as f:
        f.write("\n".join(_chain(5, start=30)) + "\n")
    grown = load_session(path, index_cache=IndexCache())
    assert grown.index_from_cache and len(grown) == 35 and grown.cached_pairing is None
    with monkeypatch.context() as m:
        m.setenv("PIVIEW_NO_CACHE", "1")
        cold = _info(path, capsys, "--json")
    assert _info(path, capsys, "--json") == cold  # the grown index (and its extras) saved
    _forbid_recomputing(monkeypatch)
    assert _info(path, capsys, "--json") == cold


def test_an_old_or_damaged_cache_is_ignored_cleanly(
    write_session, cached: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_session([HEADER, *_chain(20)])
    cold = _info(path, capsys, "--json")
    (file,) = cached.iterdir()
    good = file.read_bytes()
    file.write_bytes(good[:5] + b"\x00\x00\x05" + good[8:])  # the magic of format 5
    assert not load_session(path, index_cache=IndexCache()).index_from_cache
    assert _info(path, capsys, "--json") == cold  # and written again in format 6
    good = file.read_bytes()
    # Only the extras damaged (the last frame): the index is used, the rest computed.
    file.write_bytes(good[:-3])
    s = load_session(path, index_cache=IndexCache())
    assert s.index_from_cache and s.cached_pairing is None
    assert _info(path, capsys, "--json") == cold


def test_the_viewer_child_writes_everything_info_needs(cached: Path) -> None:
    """The viewer saves the index from a forked child, before anything asked for the pairing
    or the sums: the child computes them, so the next reopen computes nothing."""
    path = fixture("tool_pairing.jsonl")
    s = load_session(path, index_cache=IndexCache())
    assert s.cached_pairing is None
    saved = extras_module.capture(s, s.index, complete=True)
    assert saved is not None and saved.pairing is not None and saved.sums
    IndexCache().store(s.index, path, s.file_descriptor(), saved)
    again = load_session(path, index_cache=IndexCache())
    assert again.cached_pairing is not None
    assert (extras_module.SUMS_KEY, again.tree.leaf) in again.derived


def test_a_copy_of_the_index_ahead_of_the_tree_saves_no_extras(cached: Path) -> None:
    s = load_session(fixture("linear.jsonl"))
    bigger = s.index.snapshot()
    bigger.nodes.extend([s.nodes[0]])
    assert extras_module.capture(s, bigger, complete=False) is None


@pytest.mark.parametrize("path", FILES[:12], ids=lambda p: p.name)
def test_pairing_counts_are_the_lengths_of_the_lists(path: Path) -> None:
    p = load_session(path).pairing
    assert p.paired_count == len(p.paired)
    assert p.unanswered_count == len(p.unanswered)
    assert p.unanswered == [c for c in p.calls if c not in p.call_results]
    assert pairing_module.Pairing().unanswered_count == 0


def test_the_leaves_and_the_branch_are_kept_with_the_tree(cached: Path) -> None:
    """``piview info`` lists the leaves and the current branch (400,000 entries at 1 GB):
    kept with the tree, they are not walked again on a reopen."""
    path = fixture("tree_branches.jsonl")
    s = load_session(path, index_cache=IndexCache())
    saved = extras_module.capture(s, s.index, complete=True)
    assert saved is not None and saved.tree.leaves is not None
    ids, tree, _legacy = extras_module.tree_from(saved, s.nodes.ids)
    assert tree._leaves == s.tree.leaves()  # noqa: SLF001
    saved.tree.path_leaf, saved.tree.path = 0, memoryview(b"\0" * 8)
    assert extras_module.tree_from(saved, s.nodes.ids)[1]._last_path is not None  # noqa: SLF001
    saved.tree.path = memoryview(bytes(array("q", [len(ids)])))  # an entry that is not there
    with pytest.raises(ValueError):
        extras_module.tree_from(saved, s.nodes.ids)


def test_result_ids_share_their_calls_strings_in_any_order() -> None:
    from piview.model.decode import SkBlock
    from piview.model.store_lazy import shared_ids

    def fresh(x: str) -> str:
        return (x + ".")[:-1]  # an equal string, not the same object

    calls = [fresh(f"call{k}") for k in range(6)]
    patterns = [(SkBlock("text"),), *((SkBlock("toolCall", c, "x"),) for c in calls)]
    # In order, one call unanswered, then out of order, an orphan, and no id.
    wanted = ["call0", "call2", "call3", "call5", "call4", "orphan", None, "call1"]
    got = shared_ids(patterns, [fresh(x) if x else x for x in wanted])
    assert got == wanted
    assert all(g is c for g in got for c in calls if g == c)


def test_info_from_the_cache_never_makes_the_map_of_ids(cached: Path) -> None:
    """At 1 GB the map of 450,000 ids takes 200 ms to make, and info never reads it: a tree
    reopened from the cache makes it on first use, equal to the one a load makes."""
    path = fixture("tree_branches.jsonl")
    cold = load_session(path)
    load_session(path, index_cache=IndexCache()).save_index()
    s = load_session(path, index_cache=IndexCache())
    info = session_info(s)
    assert not isinstance(extras_module.ids_of(s.tree), dict)  # not made
    assert info == session_info(cold)
    assert s.tree.id_index == cold.tree.id_index and s.find(cold.ids[3]) == 3
    assert extras_module.ids_of(s.tree) is s.tree.id_index  # made once, then kept


def test_a_reopened_session_follows_appends(write_session, cached: Path) -> None:
    """The store resolves the parents of appended entries through the reopened tree's map,
    made on the first look-up."""
    path = write_session([HEADER, *_chain(30)])
    load_session(path, index_cache=IndexCache()).save_index()
    s = load_session(path, index_cache=IndexCache())
    assert not isinstance(extras_module.ids_of(s.tree), dict)  # adopted from the cache
    with open(path, "a") as f:
        f.write("\n".join(_chain(3, start=30)) + "\n")
        # And one that is not a plain append: a branch from an entry of the cache.
        f.write(_chain(1, start=2)[0].replace('"id":"e2"', '"id":"b1"') + "\n")
    assert s.poll() == "appended"
    fresh = load_session(path)
    assert s.ids == fresh.ids and s.tree.parents == fresh.tree.parents
    assert s.tree.children.items == fresh.tree.children.items
    assert session_info(s) == session_info(fresh)


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_entry_types_and_roles_are_the_counts_of_the_code_pairs(path: Path) -> None:
    """info counts the codes at C speed: the same counts as the pairs of codes gave."""
    from collections import Counter

    from piview.model.store import OTHER, ROLE_NAMES, TYPE_NAMES

    s = load_session(path)
    message = TYPE_NAMES.index("message")
    entry_types: Counter[str] = Counter()
    roles: Counter[str] = Counter()
    for (t, r), count in Counter(zip(s.nodes.types, s.nodes.roles, strict=True)).items():
        if t == OTHER or (t == message and r == OTHER):
            continue
        name = TYPE_NAMES[t]
        entry_types[name if isinstance(name, str) else "?"] += count
        if t == message:
            role = ROLE_NAMES[r]
            roles[role if isinstance(role, str) else "?"] += count
    for i, n in s.nodes.whole.items():
        if s.nodes.types[i] == OTHER or (s.nodes.types[i] == message and s.nodes.roles[i] == OTHER):
            entry_types[n.type if isinstance(n.type, str) else "?"] += 1
            if n.type == "message":
                role = n.message.role if n.message is not None else None
                roles[role if isinstance(role, str) else "?"] += 1
    info = session_info(s)
    assert info["entry_types"] == dict(sorted(entry_types.items()))
    assert info["roles"] == dict(sorted(roles.items()))
    assert list(info["entry_types"]) == sorted(entry_types)


def test_code_counts_of_every_kind() -> None:
    from piview.model.info import _code_counts
    from piview.model.store import OTHER, TYPE_NAMES

    m = TYPE_NAMES.index("message")
    a, b = [k for k in range(1, len(TYPE_NAMES)) if k != m][:2]
    types = bytearray([m, m, m, a, OTHER, m, b, m])
    roles = bytearray([1, 0, OTHER, 4, 1, 1, 0, 0])
    by_type, by_role = _code_counts(types, roles)
    assert by_type == {a: 1, OTHER: 1, b: 1}
    assert by_role == {1: 2, 0: 2, OTHER: 1}
    assert _code_counts(bytearray([a, a]), bytearray([0, 5])) == ({a: 2}, {})


def test_tool_names_read_from_the_cache_are_interned(cached: Path) -> None:
    import sys

    path = fixture("tool_pairing.jsonl")
    load_session(path, index_cache=IndexCache()).save_index()
    names = load_session(path, index_cache=IndexCache()).nodes.result_names
    assert any(names) and all(n is None or n is sys.intern(n) for n in names)


def test_block_lists_and_result_ids_are_decoded_on_first_read(cached: Path) -> None:
    """A third of what a reopen decodes at 1 GB, never read by ``piview info``: decoded on
    first read, both at once, and then the store is a plain store again."""
    import threading

    from piview.model.store import NodeStore
    from piview.model.store_lazy import DeferredStore

    path = fixture("tool_pairing.jsonl")
    cold = load_session(path)
    first = load_session(path, index_cache=IndexCache())
    session_info(first)  # the pairing and sums, saved with the index
    first.save_index()
    s = load_session(path, index_cache=IndexCache())
    assert type(s.nodes) is DeferredStore
    assert session_info(s) == session_info(cold)
    assert type(s.nodes) is DeferredStore  # info read neither
    got: list[object] = []
    readers = [threading.Thread(target=lambda: got.append(s.nodes.patterns)) for _ in range(4)]
    for t in readers:
        t.start()
    for t in readers:
        t.join()
    assert type(s.nodes) is NodeStore and all(g is s.nodes.patterns for g in got)
    assert s.nodes.patterns == cold.nodes.patterns
    assert s.nodes.result_ids == cold.nodes.result_ids
    for name in ("result_names", "texts"):
        assert getattr(s.nodes, name) == getattr(cold.nodes, name), name
    strings = {id(b.id) for p in s.nodes.patterns for b in p if b.id is not None}
    values = {b.id for p in s.nodes.patterns for b in p if b.id is not None}
    shared = [x for x in s.nodes.result_ids if x in values]
    assert shared and all(id(x) in strings for x in shared)  # a call's own string
    assert list(s.nodes) == list(cold.nodes) and s.pairing.calls == cold.pairing.calls


def test_frame_counts_from_the_msgpack_header() -> None:
    import msgspec

    from piview.model.store_lazy import frame_count

    for n in (0, 3, 15, 16, 70_000):
        assert frame_count(msgspec.msgpack.encode([None] * n)) == n
        assert frame_count(msgspec.msgpack.encode({k: 0 for k in range(n)})) == n
    for n in (0, 255, 256, 70_000):
        assert frame_count(msgspec.msgpack.encode(b"x" * n)) == n
    for bad in (msgspec.msgpack.encode("text"), b"", b"\xdd\x00"):
        with pytest.raises(ValueError):
            frame_count(bad)


def test_summary_sums_are_kept_and_an_older_cache_is_not_adopted(cached: Path) -> None:
    """The summaries' sum is cached with the others; sums without it (an older piview's
    cache) are computed again, never taken as they are."""
    from tests.pi_reference.pi085 import FILES

    path = FILES[0]
    cold = session_info(load_session(path))
    first = load_session(path, index_cache=IndexCache())
    session_info(first)
    first.save_index()
    again = load_session(path, index_cache=IndexCache())
    assert (extras_module.SUMS_KEY, again.tree.leaf) in again.derived
    assert session_info(again) == cold and cold["usage"]["summaries"]["input"] > 0
    s = load_session(path)
    extras = extras_module.capture(s, s.index, complete=True)
    assert extras is not None
    for by in extras.sums.values():
        del by["summaries"]
    with pytest.raises(ValueError):
        extras_module.sums_from(extras)
