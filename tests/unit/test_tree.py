"""The tree: ordering, roots, leaves, labels, names, and ids that cannot be trusted."""

from __future__ import annotations

import json

from piview.model import build_tree, load_session


def E(
    i: str,
    parent: str | None,
    ts: str = "2026-01-01T00:00:00.000Z",
    type: str = "message",
    **kw: object,
) -> str:
    e: dict[str, object] = {"type": type, "id": i, "parentId": parent, "timestamp": ts}
    if type == "message":
        e["message"] = {"role": "user", "content": i, "timestamp": 1}
    e.update(kw)
    return json.dumps(e)


H = '{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}'


def test_children_sorted_by_timestamp_then_file_order(write_session) -> None:
    s = load_session(
        write_session(
            [
                H,
                E("r", None),
                E("late", "r", "2026-01-01T00:00:09.000Z"),
                E("early", "r", "2026-01-01T00:00:01.000Z"),
                E("tie1", "r", "2026-01-01T00:00:05.000Z"),
                E("tie2", "r", "2026-01-01T00:00:05.000Z"),
                E("bad", "r", "not a time"),
            ]
        )
    )
    kids = [s.ids[c] for c in s.tree.children[0]]
    assert kids == ["early", "tie1", "tie2", "late", "bad"]
    assert s.tree.branch_points() == [0]
    assert [s.ids[i] for i in s.tree.leaves()] == ["late", "early", "tie1", "tie2", "bad"]


def test_leaf_is_last_entry_in_file_order(write_session) -> None:
    s = load_session(
        write_session(
            [
                H,
                E("a", None),
                E("b", "a"),
                E("c", "a"),
                E("l", "c", type="label", targetId="a", label="x"),
            ]
        )
    )
    assert s.ids[s.tree.leaf] == "l"
    assert [s.ids[i] for i in s.tree.path(s.tree.leaf)] == ["a", "c", "l"]


def test_orphan_self_parent_and_multiple_roots(write_session) -> None:
    s = load_session(write_session([H, E("a", None), E("b", "ghost"), E("c", "c"), E("d", None)]))
    assert [s.ids[i] for i in s.tree.roots] == ["a", "b", "c", "d"]
    assert s.tree.orphans == [1] and s.tree.self_parents == [2]


def test_cycle_through_forward_references_is_broken(write_session) -> None:
    s = load_session(write_session([H, E("a", "b"), E("b", "a"), E("c", "b")]))
    t = s.tree
    assert t.cycles == [0]
    assert t.parents.tolist() == [-1, 0, 1]
    assert t.path(2) == [0, 1, 2]


def test_duplicate_ids_attach_children_to_the_preceding_entry(write_session) -> None:
    s = load_session(
        write_session([H, E("a", None), E("x", "a"), E("k1", "x"), E("a", "k1"), E("k2", "a")])
    )
    t = s.tree
    assert t.parents.tolist() == [-1, 0, 1, 2, 3]
    assert t.duplicate_ids == {"a": [0, 3]}
    assert s.find("a") == 3  # lookups: the last one wins, as in Pi


def test_deep_chain_does_not_recurse() -> None:
    n = 100_000
    ids = [f"e{i}" for i in range(n)]
    parents = [None] + ids[:-1]
    t = build_tree(ids, parents, ["2026-01-01T00:00:00.000Z"] * n)
    assert len(t.path(n - 1)) == n and t.depth(n - 1) == n - 1
    assert t.leaves() == [n - 1]


def test_many_siblings() -> None:
    n = 100_000
    ids = ["root"] + [f"c{i}" for i in range(n)]
    parents = [None] + ["root"] * n
    t = build_tree(ids, parents, [None] * (n + 1))
    assert len(t.children[0]) == n and t.branch_points() == [0]


def test_big_cycle_of_forward_refs() -> None:
    n = 50_000
    ids = [f"e{i}" for i in range(n)]
    parents = [f"e{(i + 1) % n}" for i in range(n)]
    t = build_tree(ids, parents, [None] * n)
    assert len(t.cycles) == 1 and len(t.roots) == 1


def test_labels_latest_wins_and_clear(write_session) -> None:
    s = load_session(
        write_session(
            [
                H,
                E("a", None),
                E("b", "a"),
                E("l1", "b", type="label", targetId="a", label="first"),
                E("l2", "l1", type="label", targetId="a", label="second"),
                E("l3", "l2", type="label", targetId="b", label="gone"),
                E("l4", "l3", type="label", targetId="b"),
                E("l5", "l4", type="label", targetId="missing", label="x"),
                E("n1", "l5", type="session_info", name="First"),
                E("n2", "n1", type="session_info", name="  Second  "),
            ]
        )
    )
    assert s.labels == {0: "second"}
    assert s.name == "Second"


def test_labels_on_a_repeated_id_name_the_last_entry_before_them(write_session) -> None:
    # Issue 11: resolved by bisection in the entries sharing the id (it was a scan of all of
    # them per label, quadratic when one id repeats throughout the file).
    s = load_session(
        write_session(
            [
                H,
                E("d", None),  # 0
                E("l1", "d", type="label", targetId="d", label="on 0"),  # 1
                E("d", "l1"),  # 2
                E("d", "d"),  # 3
                E("l2", "d", type="label", targetId="d", label="on 3"),  # 4
                E("l0", "l2", type="label", targetId="x", label="on the last x"),  # 5
                E("x", "l0"),  # 6
                E("x", "x"),  # 7
            ]
        )
    )
    assert s.labels == {0: "on 0", 3: "on 3", 7: "on the last x"}


def test_empty_session_info_clears_name(write_session) -> None:
    s = load_session(
        write_session(
            [
                H,
                E("a", None),
                E("n1", "a", type="session_info", name="x"),
                E("n2", "n1", type="session_info", name=" "),
            ]
        )
    )
    assert s.name is None


def test_newest_leaf_under_branch_point(write_session) -> None:
    s = load_session(
        write_session(
            [
                H,
                E("a", None),
                E("b", "a", "2026-01-01T00:00:01.000Z"),
                E("c", "a", "2026-01-01T00:00:02.000Z"),
                E("d", "b", "2026-01-01T00:00:03.000Z"),
            ]
        )
    )
    assert s.ids[s.tree.newest_leaf(0)] == "c"
