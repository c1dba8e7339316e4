"""Lineage of session files: forks under their parent (parentSession, branchedFrom), subagents
under the session whose folder holds them, cycles cut."""

from __future__ import annotations

import json
from pathlib import Path

from piview.catalog.discovery import find_session_files
from piview.catalog.lineage import (
    find_parent,
    fork_point,
    header_of,
    link_sessions,
    parent_ref,
    subagent_files,
    thread_order,
    with_subagents,
)
from tests.conftest import fixture

FORKS = fixture("forks")


def _session(path: Path, **header: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    head = {"type": "session", "version": 3, "id": path.stem, **header}
    path.write_text(json.dumps(head) + "\n")
    return path


def test_parent_ref_reads_both_spellings() -> None:
    assert parent_ref({"parentSession": "/a/b.jsonl"}) == "/a/b.jsonl"
    assert parent_ref({"branchedFrom": "/a/c.jsonl"}) == "/a/c.jsonl"
    assert parent_ref({"parentSession": " "}) is None
    assert parent_ref({"parentSession": 3}) is None
    assert parent_ref(None) is None


def test_links_by_exact_path_then_by_file_name(tmp_path: Path) -> None:
    a = _session(tmp_path / "p" / "a.jsonl")
    b = _session(tmp_path / "p" / "b.jsonl", parentSession=str(a))
    c = _session(tmp_path / "q" / "c.jsonl", branchedFrom="/elsewhere/machine/b.jsonl")
    d = _session(tmp_path / "q" / "d.jsonl", parentSession="/gone/none.jsonl")
    paths = [str(p) for p in (a, b, c, d)]
    links = link_sessions(paths, {p: parent_ref(header_of(p)) for p in paths})
    assert links[str(a)].parent is None and links[str(a)].kind == ""
    assert links[str(b)].parent == str(a) and links[str(b)].kind == "fork"
    assert links[str(c)].parent == str(b)  # moved folder: matched by name
    assert links[str(d)].parent is None and links[str(d)].declared == "/gone/none.jsonl"


def test_a_file_name_found_twice_is_not_guessed(tmp_path: Path) -> None:
    a1 = _session(tmp_path / "p" / "a.jsonl")
    a2 = _session(tmp_path / "q" / "a.jsonl")
    c = _session(tmp_path / "r" / "c.jsonl", parentSession="/other/a.jsonl")
    paths = [str(p) for p in (a1, a2, c)]
    links = link_sessions(paths, {p: parent_ref(header_of(p)) for p in paths})
    assert links[str(c)].parent is None


def test_subagents_nest_under_the_session_whose_folder_holds_them(tmp_path: Path) -> None:
    parent = _session(tmp_path / "p" / "2026_x.jsonl")
    sub = _session(tmp_path / "p" / "2026_x" / "scout.jsonl")
    deeper = _session(tmp_path / "p" / "2026_x" / "runs" / "worker.jsonl")
    assert subagent_files(parent) == sorted([sub, deeper])
    files = with_subagents(find_session_files(tmp_path))
    assert files == [parent, deeper, sub]
    paths = [str(p) for p in files]
    links = link_sessions(paths, {p: None for p in paths})
    assert links[str(sub)].parent == str(parent) and links[str(sub)].kind == "subagent"
    assert links[str(deeper)].parent == str(parent)


def test_thread_order_puts_children_under_parents_and_cuts_cycles() -> None:
    paths = ["c", "a", "b", "x", "y", "z"]
    parents = {"a": None, "b": "a", "c": "b", "x": "y", "y": "x", "z": "missing"}
    order = thread_order(paths, parents)
    # Roots first (a parent not listed makes a root); the cycle x <-> y is cut at x.
    assert order == [("a", 0), ("b", 1), ("c", 2), ("z", 0), ("x", 0), ("y", 1)]


def test_thread_order_is_linear_on_a_deep_chain() -> None:
    n = 200_000
    paths = [f"f{i}" for i in range(n)]
    parents = {f"f{i}": f"f{i - 1}" if i else None for i in range(n)}
    order = thread_order(list(reversed(paths)), parents)
    assert order[0] == ("f0", 0) and order[-1] == (f"f{n - 1}", n - 1)


def test_the_pi_fixture_links_every_fork() -> None:
    files = with_subagents(find_session_files(FORKS))
    paths = [str(p) for p in files]
    links = link_sessions(paths, {p: parent_ref(header_of(p)) for p in paths})
    kinds = sorted(link.kind for link in links.values())
    assert kinds == ["", "", "fork", "fork", "fork", "subagent"]
    assert all(link.parent in links for link in links.values() if link.kind)


def test_find_parent_tries_the_path_then_the_name_beside_it_then_the_roots(
    tmp_path: Path,
) -> None:
    a = _session(tmp_path / "sessions" / "p" / "a.jsonl")
    fork = _session(tmp_path / "sessions" / "q" / "f.jsonl")
    assert find_parent(fork, str(a)) == (a, "fork")
    assert find_parent(fork, "/moved/p/a.jsonl") == (a, "fork")  # another project folder
    elsewhere = _session(tmp_path / "archive" / "x" / "e.jsonl")
    assert find_parent(fork, "/moved/x/e.jsonl") == (None, "")
    assert find_parent(fork, "/moved/x/e.jsonl", [tmp_path / "archive"]) == (elsewhere, "fork")
    beside = _session(tmp_path / "sessions" / "q" / "b.jsonl")
    assert find_parent(fork, "/moved/q/b.jsonl") == (beside, "fork")
    assert find_parent(fork, "/gone/none.jsonl") == (None, "")
    assert find_parent(fork, str(fork)) == (None, "")  # a header naming the file itself
    sub = _session(tmp_path / "sessions" / "p" / "a" / "scout.jsonl")
    assert find_parent(sub, None) == (a, "subagent")


def test_fork_point_is_the_last_copied_entry() -> None:
    parent = {"r": 0, "a": 1, "b": 5, "c": 9}
    assert fork_point(["r", "a", "b", "new1", "c"], parent.get) == 5
    assert fork_point(["x", "r"], parent.get) is None
    assert fork_point(["r", "a", "b", "c"], parent.get) == 9  # a verbatim copy: the leaf


def test_find_parent_of_a_file_near_the_root_folder() -> None:
    """A session two folders below ``/`` (``/tmp/bench/s.jsonl``): the walk up for an owning
    session stops at the root folder instead of asking ``/`` for its (empty) name."""
    assert find_parent("/tmp/bench/none.jsonl", None) == (None, "")
    assert find_parent("/none.jsonl", None) == (None, "")
