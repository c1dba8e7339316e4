"""The branch panel rows: Pi's /tree layout, filters, folds, row texts and search."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from piview.catalog.demo import demo_path
from piview.model import load_session
from piview.model.session import Session
from piview.model.treefilter import FILTER_MODES, FilterMode, next_filter
from piview.model.treesearch import search
from piview.model.treetext import row_kind, row_text
from piview.model.treeview import Folds, Row, flatten
from tests.conftest import corpus_files, fixture

BRANCHES = next((p for p in corpus_files() if p.name == "branches.jsonl"), None)
needs_corpus = pytest.mark.skipif(BRANCHES is None, reason="no ../shared/corpus")

H = '{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}'


def msg(i: str, parent: str | None, role: str = "user", ms: int = 0, **extra: object) -> str:
    """A message entry line; ``ms`` orders siblings."""
    m: dict[str, object] = {"role": role, "content": [{"type": "text", "text": f"text {i}"}]}
    if role == "assistant":
        m["stopReason"] = "stop"
    m.update(extra)
    ts = f"2026-01-01T00:00:{ms // 1000 % 60:02d}.{ms % 1000:03d}Z"
    return json.dumps(
        {"type": "message", "id": i, "parentId": parent, "timestamp": ts, "message": m}
    )


def all_open(s: Session) -> Folds:
    return Folds(opened=set(range(len(s))))


def ids(s: Session, rows: list[Row]) -> list[str]:
    return [s.ids[r.entry] for r in rows]


def art(s: Session, rows: list[Row]) -> list[str]:
    """Rows drawn as the panel draws them, without colours."""
    out = []
    for r in rows:
        mark = "• " if r.on_path else ""
        label = f"[{r.label}] " if r.label else ""
        out.append(f"{r.prefix()}{mark}{label}{s.ids[r.entry]}")
    return out


# --------------------------------------------------------------------------- layout


def test_linear_chain_is_flat() -> None:
    s = load_session(fixture("linear.jsonl"))
    tr = flatten(s)
    assert [r.entry for r in tr.rows] == [0, 1, 2, 3]
    assert all(r.indent == 0 and r.connector == "" and r.prefix() == "" for r in tr.rows)
    assert all(r.on_path for r in tr.rows)
    assert [r.is_leaf for r in tr.rows] == [False, False, False, True]


def test_branch_point_indents_children_and_active_child_first(write_session) -> None:
    s = load_session(
        write_session(
            [
                H,
                msg("u1", None, ms=1),
                msg("a1", "u1", "assistant", ms=2),
                msg("old", "a1", ms=3),
                msg("old-a", "old", "assistant", ms=4),
                msg("new", "a1", ms=5),
                msg("new-a", "new", "assistant", ms=6),
                msg("new-u", "new-a", ms=7),
                msg("mid", "a1", ms=8),
            ]
        )
    )
    leaf = s.tree.id_index["new-u"]
    tr = flatten(s, leaf, folds=all_open(s))
    assert art(s, tr.rows) == [
        "• u1",
        "• a1",
        "├⊟ • new",
        "│     • new-a",
        "│     • new-u",
        "├⊟ old",
        "│     old-a",
        "└─ mid",
    ]
    assert tr.rows[1].is_branch_point and not tr.rows[0].is_branch_point
    assert [r.indent for r in tr.rows] == [0, 0, 1, 2, 2, 1, 2, 1]


def test_nested_branch_points_keep_guides(write_session) -> None:
    s = load_session(
        write_session(
            [
                H,
                msg("r", None, ms=1),
                msg("a", "r", ms=2),
                msg("a1", "a", ms=3),
                msg("a2", "a", ms=4),
                msg("b", "r", ms=5),
            ]
        )
    )
    tr = flatten(s, s.tree.id_index["b"], folds=all_open(s))
    assert art(s, tr.rows) == [
        "• r",
        "├─ • b",
        "└⊟ a",
        "   ├─ a1",
        "   └─ a2",
    ]
    tr = flatten(s, s.tree.id_index["a1"], folds=all_open(s))
    assert art(s, tr.rows) == [
        "• r",
        "├⊟ • a",
        "│  ├─ • a1",
        "│  └─ a2",
        "└─ b",
    ]


def test_multiple_roots_hang_under_a_virtual_root() -> None:
    s = load_session(fixture("tree_pathological.jsonl"))
    tr = flatten(s, folds=all_open(s))
    roots = [r for r in tr.rows if s.tree.parents[r.entry] < 0]
    assert len(roots) == 5
    assert all(r.indent == 0 and r.connector == "" for r in roots)
    assert tr.rows[0].entry == s.tree.path(s.tree.leaf)[0]  # the active root comes first


def test_active_path_and_leaf_marks() -> None:
    s = load_session(fixture("tree_branches.jsonl"))
    leaf = s.tree.leaf
    assert leaf is not None
    tr = flatten(s, folds=all_open(s), mode="all")
    path = set(s.tree.path(leaf))
    assert {r.entry for r in tr.rows if r.on_path} == path
    assert [r.entry for r in tr.rows if r.is_leaf] == [leaf]
    # Another leaf: the marks follow it and its branch comes first at the fork.
    other = s.tree.id_index["a5d544a8"]
    tr = flatten(s, other, folds=all_open(s))
    assert {r.entry for r in tr.rows if r.on_path} <= set(s.tree.path(other))
    assert [r.entry for r in tr.rows if r.is_leaf] == [other]
    fork = tr.row_of[s.tree.id_index["d7783140"]]
    assert s.ids[tr.rows[fork + 1].entry] == "0239e327"


def test_labels_on_rows() -> None:
    s = load_session(fixture("tree_branches.jsonl"))
    tr = flatten(s, folds=all_open(s))
    labelled = {s.ids[r.entry]: r.label for r in tr.rows if r.label}
    # "backoff" was cleared later; the second label on 22b90c96 wins.
    assert labelled == {"22b90c96": "decorrelated-jitter"}


@pytest.mark.corpus
@needs_corpus
def test_corpus_branches_layout() -> None:
    assert BRANCHES is not None
    s = load_session(BRANCHES)
    tr = flatten(s)
    assert [r.label for r in tr.rows if r.label] == ["after-options"]
    assert sum(r.folded for r in tr.rows) == 2
    assert all(r.on_path for r in tr.rows if not r.connector or r.entry == 28)
    text = [row_text(s, r.entry) for r in tr.rows]
    assert text[0].startswith("user: I need client-side rate limiting")
    assert "[write: src/rate-limiter.js]" in text
    opened = flatten(s, folds=all_open(s))
    assert len(opened) == opened.shown == 25
    assert {r.label for r in opened.rows if r.label} == {"after-options", "memory-comparison"}


# --------------------------------------------------------------------------- filters


def test_filters_on_tree_branches() -> None:
    s = load_session(fixture("tree_branches.jsonl"))
    leaf = s.tree.leaf
    types = {
        mode: {s.nodes[r.entry].type for r in flatten(s, mode=mode, folds=all_open(s)).rows}
        for mode in FILTER_MODES
    }
    # The leaf (a session_info entry) is shown whatever the filter.
    assert types["default"] == {"message", "branch_summary", "session_info"}
    assert types["all"] >= {"label", "model_change", "thinking_level_change", "session_info"}
    user_only = flatten(s, mode="user-only", folds=all_open(s)).rows
    assert all(s.nodes[r.entry].role == "user" or r.entry == leaf for r in user_only)
    labelled = flatten(s, mode="labeled-only", folds=all_open(s)).rows
    assert [r.entry for r in labelled] == [leaf, 13]  # the active branch comes first


def test_no_tools_hides_tool_results() -> None:
    s = load_session(fixture("tool_pairing.jsonl"))
    default = flatten(s, folds=all_open(s)).rows
    no_tools = flatten(s, mode="no-tools", folds=all_open(s)).rows
    roles = lambda rows: [s.nodes[r.entry].role for r in rows]  # noqa: E731
    assert "toolResult" in roles(default)
    assert "toolResult" not in roles(no_tools)
    assert "model_change" not in {s.nodes[r.entry].type for r in no_tools}


def test_tool_only_assistants_hidden_unless_error_or_leaf() -> None:
    s = load_session(fixture("stop_reasons.jsonl"))
    tr = flatten(s, mode="all", folds=all_open(s))
    shown = {r.entry for r in tr.rows}
    assert 5 not in shown  # toolUse with no text
    assert {7, 9, 11} <= shown  # error, aborted and deferred stay
    assert row_text(s, 9) == "assistant: (aborted)"
    assert row_text(s, 7).startswith("assistant: 529")
    # The current leaf is shown even when it is a text-less tool call.
    tr = flatten(s, leaf=5, mode="user-only", folds=all_open(s))
    assert [r.entry for r in tr.rows if r.is_leaf] == [5]


def test_hidden_entries_do_not_break_the_structure(write_session) -> None:
    # user-only: the branch sits on a hidden assistant, the rows still fork under the user.
    s = load_session(
        write_session(
            [
                H,
                msg("u1", None, ms=1),
                msg("a1", "u1", "assistant", ms=2),
                msg("x", "a1", ms=3),
                msg("y", "a1", ms=4),
                msg("y-a", "y", "assistant", ms=5),
                msg("z", "y-a", ms=6),
            ]
        )
    )
    tr = flatten(s, mode="user-only", folds=all_open(s))
    assert art(s, tr.rows) == ["• u1", "├⊟ • y", "│     • z", "└─ x"]


# --------------------------------------------------------------------------- folds


def test_off_path_segments_start_folded() -> None:
    s = load_session(fixture("tree_branches.jsonl"))
    tr = flatten(s)
    folded = [r for r in tr.rows if r.folded]
    assert [s.ids[r.entry] for r in folded] == ["0239e327", "c98b8ce5"]
    assert [r.hidden for r in folded] == [7, 2]
    assert tr.shown == 16 and len(tr) == 7
    assert all(r.expanded for r in tr.rows if r.foldable and r.on_path)
    assert folded[0].prefix() == "├⊞ "


def test_fold_choices_override_the_default() -> None:
    s = load_session(fixture("tree_branches.jsonl"))
    folds = Folds()
    folds.set(4, False)
    tr = flatten(s, folds=folds)
    assert len(tr) == 12
    assert tr.rows[tr.row_of[10]].folded  # nested segments off the path stay folded
    assert tr.rows[tr.row_of[12]].folded
    folds.set(19, True)  # fold the active segment
    tr = flatten(s, folds=folds)
    assert tr.rows[tr.row_of[19]].folded and tr.row_of.get(22) is None
    assert tr.nearest_row(22) == tr.row_of[19]
    folds.open_path(s.tree.path(22))
    assert not flatten(s, folds=folds).rows[tr.row_of[19]].folded


def test_segment_start_and_nearest_row() -> None:
    s = load_session(fixture("tree_branches.jsonl"))
    tr = flatten(s, folds=all_open(s))
    leaf_row = tr.row_of[22]
    assert tr.segment_start(leaf_row) == tr.row_of[19]
    assert tr.segment_start(tr.row_of[19]) == 0  # the root segment
    assert tr.nearest_row(21) == tr.row_of[20]  # a hidden label: its visible parent


# --------------------------------------------------------------------------- scale


def _write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join([H, *lines]) + "\n")
    return path


def test_deep_chain_without_recursion(tmp_path: Path) -> None:
    n = 100_000
    line = (
        '{{"type":"message","id":"e{i}","parentId":{p},"timestamp":"2026-01-01T00:00:00.000Z",'
        '"message":{{"role":"user","content":"text e{i}"}}}}'
    )
    lines = [line.format(i=i, p=f'"e{i - 1}"' if i else "null") for i in range(n)]
    s = load_session(_write_lines(tmp_path / "deep.jsonl", lines))
    tr = flatten(s)
    assert len(tr) == n
    assert tr.rows[-1].is_leaf and all(r.indent == 0 for r in tr.rows[::997])
    assert search(s, tr.rows[-3:], "text e99999") == [tr.rows[-1]]


def test_many_siblings(tmp_path: Path) -> None:
    n = 5_000
    lines = [msg("root", None)] + [msg(f"c{i}", "root", ms=i + 1) for i in range(n)]
    s = load_session(_write_lines(tmp_path / "wide.jsonl", lines))
    tr = flatten(s)
    assert len(tr) == n + 1
    assert tr.rows[0].is_branch_point
    assert tr.rows[1].entry == n  # the leaf's branch first
    assert [r.connector for r in tr.rows[-2:]] == ["├", "└"]


def test_deep_fork_comb_is_collapsed(tmp_path: Path) -> None:
    # Every entry forks: the active path goes deep, each dead end is one folded row.
    lines = [msg("m0", None, ms=0)]
    for i in range(1, 3000):
        lines.append(msg(f"m{i}", f"m{i - 1}", ms=2 * i))
        lines.append(msg(f"d{i}", f"m{i - 1}", ms=2 * i + 1))
        lines.append(msg(f"dd{i}", f"d{i}", ms=2 * i + 1))
    lines.append(msg("tail", "m2999", ms=10_000))
    s = load_session(_write_lines(tmp_path / "comb.jsonl", lines))
    tr = flatten(s, s.tree.id_index["tail"])
    assert len(tr) == 1 + 2 * 2999 + 1
    assert sum(r.folded for r in tr.rows) == 2999
    deepest = tr.rows[tr.row_of[s.tree.id_index["tail"]]]
    assert deepest.indent > 2000 and len(deepest.prefix()) == 3 * deepest.indent


# --------------------------------------------------------------------------- texts


def test_row_texts_of_every_entry_type() -> None:
    s = load_session(fixture("entry_types.jsonl"))
    texts = [row_text(s, i) for i in range(len(s))]
    assert texts[0] == "[model: claude-sonnet-4-5]"
    assert texts[1] == "[thinking: medium]"
    assert texts[2].startswith("user: Summarise")
    assert texts[3].startswith("assistant: It maps")
    assert texts[4] == "[compaction: 5k tokens]"
    assert texts[5].startswith("[branch summary]: ")
    assert texts[6] == "[custom: todo-state]"
    assert texts[7].startswith("[git-context]: ")
    assert texts[9] == "[label: router-question]"
    assert texts[10] == "[title: Router walkthrough]"
    assert all(len(t) <= 100 and "\n" not in t for t in texts)


def test_row_texts_of_tools_and_roles() -> None:
    s = load_session(fixture("edit_tools.jsonl"))
    texts = {row_text(s, i) for i in range(len(s))}
    assert {
        "[read: src/tinyhttp/config.py]",
        "[ls: src/tinyhttp]",
        "[find: **/test_*.py in .]",
    } <= texts
    assert "[grep: /load_config/ in .]" in texts and "[write: tests/test_config.py]" in texts
    assert any(t.startswith("[todo: {") and t.endswith("...]") for t in texts)
    roles = load_session(fixture("roles_all.jsonl"))
    assert row_text(roles, 7) == "[bash]: git status --short"
    assert row_text(roles, 8).startswith("[review-checklist]: ")
    assert row_kind(roles.nodes[7]) == "bash" and row_kind(roles.nodes[3]) == "user"
    pairing = load_session(fixture("tool_pairing.jsonl"))
    assert row_text(pairing, 11) == "[ls]"  # no call found: the tool name


def test_row_text_is_one_capped_line(write_session) -> None:
    long = "word\n\t" * 100
    s = load_session(write_session([H, msg("u", None, content=long)]))
    text = row_text(s, 0)
    assert text.startswith("user: word word") and len(text) == 100 and text.endswith("…")


def test_search_tokens_match_label_and_text() -> None:
    s = load_session(fixture("tree_branches.jsonl"))
    rows = flatten(s, folds=all_open(s)).rows
    hits = search(s, rows, "decorrelated   keep")
    assert [r.entry for r in hits] == [13]
    assert [r.entry for r in search(s, rows, "decorrelated-jitter")] == [13]  # by label
    assert search(s, rows, "jitter nothing-like-this") == []
    assert search(s, rows, "  ") == list(rows)


def test_search_entries_looks_at_folded_entries_and_follows_the_filter() -> None:
    from piview.model.treesearch import search_entries

    s = load_session(fixture("tree_branches.jsonl"))
    # Entry 13 sits on a side branch, folded away by default.
    assert 13 not in flatten(s).row_of
    assert search_entries(s, "decorrelated   keep") == [13]
    assert search_entries(s, "decorrelated-jitter") == [13]  # by label
    assert search_entries(s, "   ") == []
    everything = search_entries(s, "a", "all")
    assert everything == sorted(everything)  # file order
    users = search_entries(s, "a", "user-only")
    assert users and set(users) <= set(everything)
    assert all(row_kind(s.nodes[i]) == "user" for i in users)


def test_tree_search_follows_the_query_rule_smart_case_and_regex() -> None:
    """The panel's search is the transcript's: smart case, ``re:``, quoted phrases."""
    from piview.model.treesearch import search_entries

    s = load_session(fixture("tree_branches.jsonl"))
    rows = flatten(s, folds=all_open(s)).rows
    # Smart case: a capital asks for that case; all lower case ignores case.
    assert search_entries(s, "Decorrelated keep") == [13]
    assert search_entries(s, "DECORRELATED keep") == []
    assert [r.entry for r in search(s, rows, "DECORRELATED")] == []
    # A regular expression, and a quoted phrase as one word.
    assert search_entries(s, r"re:decorrel\w+ jit+er") == [12, 13]  # one pattern, not words
    assert search_entries(s, r"re:^\S+-jitter") == [13]  # the label, at the start
    assert search_entries(s, '"jitter: keep"') == [13]
    assert search_entries(s, '"keep jitter"') == []
    assert search_entries(s, "re:(unclosed") == []  # a bad expression finds nothing
    assert search_entries(s, "all:decorrelated keep") == [13]  # the panel looks at all anyway


def test_next_filter_cycles() -> None:
    seen = ["default"]
    for _ in range(5):
        seen.append(next_filter(seen[-1]))  # type: ignore[arg-type]
    assert seen == ["default", "no-tools", "user-only", "labeled-only", "all", "default"]
    assert next_filter("default", -1) == "all"


@pytest.mark.parametrize(
    "path",
    [*sorted(fixture("").glob("*.jsonl")), *corpus_files()],
    ids=lambda p: p.name,
)
def test_column_visibility_agrees_with_entry_visible(path: Path) -> None:
    # The panel filters from the node store's columns; entry_visible reads one skeleton.
    from piview.model.treefilter import entry_visible, visibility

    s = load_session(path)
    for mode in FILTER_MODES:
        fast = visibility(s.nodes, mode, s.labels)
        slow = [entry_visible(s.nodes[i], mode, i in s.labels) for i in range(len(s))]
        assert [bool(v) for v in fast] == slow, mode


def test_kept_filters_are_dropped_when_the_file_grows(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join([H, msg("a", None), msg("b", "a", "assistant")]) + "\n")
    s = load_session(path)
    # user-only: the users, and the leaf whatever it is.
    assert [r.entry for r in flatten(s, mode="user-only").rows] == [0, 1]
    with path.open("a") as f:
        f.write(msg("c", "b") + "\n" + msg("d", "c", "assistant") + "\n")
    assert s.poll() == "appended"
    assert [r.entry for r in flatten(s, mode="user-only").rows] == [0, 2, 3]


@pytest.mark.parametrize(
    "path",
    [
        *[fixture(n) for n in ("tree_branches.jsonl", "tree_pathological.jsonl", "linear.jsonl")],
        *corpus_files(),
        demo_path(),
    ],
    ids=lambda p: p.name,
)
@pytest.mark.parametrize("mode", FILTER_MODES)
def test_refold_equals_a_new_flatten(path: Path, mode: FilterMode) -> None:
    import random

    from piview.model.treeview import refold

    s = load_session(path)
    rnd = random.Random(f"{path.name}{mode}")
    folds = Folds()
    current = flatten(s, mode=mode, folds=folds)
    for _ in range(25):
        foldable = [k for k, r in enumerate(current.rows) if r.foldable]
        if not foldable:
            break
        k = rnd.choice(foldable)
        folds.set(current.rows[k].entry, not current.rows[k].folded)
        current = refold(current, k, folds)
        fresh = flatten(s, mode=mode, folds=folds)
        assert current.rows == fresh.rows
        assert current.row_of == fresh.row_of
