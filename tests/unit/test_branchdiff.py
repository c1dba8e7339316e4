"""The comparison of two branches (model/branchdiff.py) and ``piview diff``."""

from __future__ import annotations

import gc
import io
import json
import statistics
import time
from pathlib import Path

import pytest

from piview.cli import main
from piview.model import load_session
from piview.model.branchdiff import compare_branches
from piview.model.usage import sum_usage
from tests.conftest import CORPUS, fixture

BRANCHES = CORPUS / "pi-0.73" / "branches.jsonl"
needs_corpus = pytest.mark.skipif(not BRANCHES.is_file(), reason="no corpus")

SIDE_KEYS = {
    "leaf",
    "entries",
    "prompts",
    "tools",
    "calls_only_here",
    "files",
    "errors",
    "usage",
    "duration_ms",
    "models",
    "last_text",
    "turns",
    "stop_reason",
}
U_KEYS = {"input", "output", "cacheRead", "cacheWrite", "cacheWrite1h", "reasoning", "cost"}


def _edits():
    s = load_session(fixture("branch_edits.jsonl"))
    first, last = s.tree.leaves()
    return s, compare_branches(s, first, last)


def test_fixture_fork_and_prompts() -> None:
    s, d = _edits()
    assert d.ancestor == s.tree.branch_points()[0]
    assert d.ancestor_prompt is not None
    assert d.ancestor_prompt.text == "greet.py should read better. Have a look first."
    assert [p.text for p in d.a.prompts] == [
        "Make greet() enthusiastic: an exclamation mark, and upper-case the name.",
        "Run its test file.",
    ]
    assert [p.text for p in d.b.prompts][-1] == "Carry on."
    assert len(d.a.entries) + len(d.b.entries) + len(s.tree.path(d.ancestor)) == len(s)


def test_fixture_tools_and_calls_only_on_one_side() -> None:
    _s, d = _edits()
    assert d.a.tools == {"edit": 1, "read": 1}
    assert d.b.tools == {"edit": 1, "read": 1, "write": 1}
    only_a = [(c.name, c.arguments.get("path")) for c in d.a.only_here]
    only_b = [(c.name, c.arguments.get("path")) for c in d.b.only_here]
    # The two edits of greet.py differ in their arguments: each is only on its side.
    assert only_a == [("edit", "greet.py"), ("read", "tests/test_greet.py")]
    assert only_b == [("read", "greet.py"), ("edit", "greet.py"), ("write", "CHANGES.md")]
    assert d.a.only_here[1].status == "error"


def test_fixture_files_both_sides_and_the_two_diffs() -> None:
    _s, d = _edits()
    assert d.a.files.edited == ["greet.py"] and d.a.files.read == []  # the failed read: none
    assert d.b.files.read == ["greet.py"] and d.b.files.written == ["CHANGES.md"]
    assert d.both_files == {"greet.py"}
    (fd,) = d.both_edited
    assert fd.path == "greet.py"
    assert fd.a_diff is not None and "name.upper()" in fd.a_diff
    assert fd.b_diff is not None and "Good morning" in fd.b_diff and "sys.argv" in fd.b_diff


def test_fixture_outcome_and_totals() -> None:
    s, d = _edits()
    assert [p.kind for p in d.a.problems] == ["tool_error"]
    assert [p.kind for p in d.b.problems] == ["aborted"]
    assert d.b.problems[0].text == "Request was aborted"
    assert d.a.last_text is not None and d.a.last_text.startswith("There is no")
    assert d.a.stop_reason == d.b.stop_reason == "stop"
    assert d.a.models == ["anthropic/claude-sonnet-4-5"]
    assert d.b.models == ["anthropic/claude-haiku-4-5"]
    assert (d.a.turns, d.b.turns) == (4, 5)
    assert d.a.duration_ms == 46_000
    assert d.b.duration_ms is not None and d.b.duration_ms > 600_000
    assert d.a.usage.cost > 0 and d.a.usage.input > 0


def test_same_branch_has_two_empty_sides() -> None:
    s = load_session(fixture("branch_edits.jsonl"))
    leaf = s.tree.leaf
    d = compare_branches(s, leaf, leaf)
    assert d.ancestor == leaf
    assert d.a.entries == d.b.entries == []
    assert d.a.duration_ms == 0 and d.a.only_here == [] and d.both_edited == []


def test_an_entry_and_its_own_branch_leaf() -> None:
    """One side may be the fork itself: everything is then on the other side."""
    s, d = _edits()
    full = compare_branches(s, d.ancestor, s.tree.leaf)
    assert full.ancestor == d.ancestor and full.a.entries == []
    assert full.b.entries == d.b.entries
    assert [(c.name) for c in full.b.only_here] == ["read", "edit", "write"]


def test_calls_are_matched_one_for_one(write_session) -> None:
    """A call made twice on one side and once on the other leaves one on the first side."""

    def entry(i: str, parent: str | None, ts: str, message: dict) -> str:
        return json.dumps(
            {"type": "message", "id": i, "parentId": parent, "timestamp": ts, "message": message}
        )

    def call(k: str, path: str = "a.py") -> dict:
        return {
            "role": "assistant",
            "content": [{"type": "toolCall", "id": k, "name": "read", "arguments": {"path": path}}],
            "stopReason": "toolUse",
        }

    def result(k: str) -> dict:
        return {"role": "toolResult", "toolCallId": k, "toolName": "read", "content": []}

    lines = [
        json.dumps({"type": "session", "version": 3, "id": "s", "timestamp": "x", "cwd": "/r"}),
        entry("u", None, "2026-01-01T00:00:10Z", {"role": "user", "content": "go"}),
        # Side A: two reads of a.py; timestamps go backwards.
        entry("a1", "u", "2026-01-01T00:00:30Z", call("c1")),
        entry("a2", "a1", "2026-01-01T00:00:20Z", result("c1")),
        entry("a3", "a2", "2026-01-01T00:00:05Z", call("c2")),
        entry("a4", "a3", "2026-01-01T00:00:01Z", result("c2")),
        # Side B: one read of a.py, one of /r/a.py (the same file, the arguments differ).
        entry("b1", "u", "2026-01-01T00:00:11Z", call("c3")),
        entry("b2", "b1", "2026-01-01T00:00:12Z", result("c3")),
        entry("b3", "b2", "2026-01-01T00:00:13Z", call("c4", "/r/a.py")),
        entry("b4", "b3", "2026-01-01T00:00:14Z", result("c4")),
    ]
    s = load_session(write_session(lines))
    d = compare_branches(s, s.find("a4"), s.find("b4"))
    assert d.ancestor == s.find("u")
    assert len(d.a.only_here) == 1 and d.a.only_here[0].entry == s.find("a3")
    assert [c.entry for c in d.b.only_here] == [s.find("b3")]
    assert d.b.files.read == ["a.py"]
    assert d.a.duration_ms == 20_000  # newest (00:30) minus the fork (00:10), not last - first
    assert d.both_files == {"a.py"}  # /r is the session's folder


def test_branches_from_different_roots(write_session) -> None:
    def user(i: str, ts: str) -> str:
        return json.dumps(
            {
                "type": "message",
                "id": i,
                "parentId": None,
                "timestamp": ts,
                "message": {"role": "user", "content": i},
            }
        )

    s = load_session(write_session([user("r1", "bad"), user("r2", "2026-01-01T00:00:00Z")]))
    d = compare_branches(s, 0, 1)
    assert d.ancestor is None and d.ancestor_prompt is None
    assert [p.text for p in d.a.prompts] == ["r1"] and d.a.duration_ms is None
    assert d.b.duration_ms == 0


# ----------------------------------------------------------------------------- piview diff


def diff_json(capsys, *args: str) -> dict:
    assert main(["diff", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.corpus
@needs_corpus
def test_diff_json_on_the_corpus_branches(capsys) -> None:
    d = diff_json(capsys, str(BRANCHES), "8c69f50b", "leaf")
    assert set(d) == {"ancestor", "a", "b"}
    assert d["ancestor"] == "707fa3b2"
    for side in (d["a"], d["b"]):
        assert set(side) == SIDE_KEYS
        assert set(side["usage"]) == U_KEYS
        assert set(side["files"]) == {"read", "edited", "written"}
    a, b = d["a"], d["b"]
    assert (a["leaf"], b["leaf"]) == ("8c69f50b", "68b9354f")
    assert [p["text"] for p in a["prompts"]] == [
        "Let's go with a token bucket.",
        "Keep the token bucket, but make the refill rate configurable per host.",
    ]
    assert [p["entry_id"] for p in b["prompts"]] == ["4d78efe5"]
    assert a["tools"] == {"edit": 1, "write": 1} and b["tools"] == {"write": 1}
    assert [c["entry_id"] for c in a["calls_only_here"]] == ["a5eb3ee3", "756069a3"]
    assert [c["entry_id"] for c in b["calls_only_here"]] == ["ad8bb5c5"]
    assert a["files"] == {
        "read": [],
        "edited": ["src/rate-limiter.js"],
        "written": ["src/rate-limiter.js"],
    }
    assert b["files"]["written"] == ["src/rate-limiter.js"]
    assert a["errors"] == b["errors"] == []
    assert a["models"] == ["faux/faux-sonnet"]
    assert b["last_text"].startswith("`FixedWindow` is 15 lines")
    assert (a["entries"], b["entries"]) == (10, 8)
    assert a["duration_ms"] == 209_704 and b["duration_ms"] > 0


@pytest.mark.corpus
@needs_corpus
def test_diff_usage_is_the_info_usage_of_the_side(capsys) -> None:
    """The common path plus side B add up to the usage ``info`` gives for the branch."""
    d = diff_json(capsys, str(BRANCHES), "leaf", "leaf")
    assert d["a"]["entries"] == 0 and d["a"]["usage"]["input"] == 0
    assert main(["info", str(BRANCHES), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)["usage"]["path"]
    d = diff_json(capsys, str(BRANCHES), "8c69f50b", "leaf")
    s = load_session(BRANCHES)
    common = sum_usage(s.nodes, s.tree.path(s.find(d["ancestor"]))).as_json()
    side = d["b"]["usage"]
    assert set(side) == set(info)
    for key, value in info.items():
        assert common[key] + side[key] == pytest.approx(value), key


@pytest.mark.corpus
@needs_corpus
def test_diff_text_output_names_both_sides(capsys) -> None:
    assert main(["diff", str(BRANCHES), "5cd2", "f8bf"]) == 0
    out = capsys.readouterr().out
    assert "Common ancestor" in out and "707fa3b2" in out
    assert "Let's try a sliding window log instead." in out
    assert "Let's go with a token bucket." in out


def test_diff_unknown_and_ambiguous_ids(capsys, write_session) -> None:
    path = fixture("branch_edits.jsonl")
    assert main(["diff", str(path), "zzzz", "leaf"]) == 2
    assert "no entry with id 'zzzz'" in capsys.readouterr().err
    assert main(["diff", str(path), "", "leaf"]) == 2
    assert "ambiguous" in capsys.readouterr().err


# ----------------------------------------------------------------------------- scaling


def _cpu(fn, min_time: float = 0.02) -> float:
    gc.collect()
    gc.disable()
    try:
        t = time.process_time()
        runs = 0
        while True:
            fn()
            runs += 1
            spent = time.process_time() - t
            if spent >= min_time or runs >= 200:
                return spent / runs
    finally:
        gc.enable()


@pytest.mark.scaling
@pytest.mark.parametrize("shape", ["chain", "fan", "backward-timestamps", "repeated-ids"])
def test_four_times_the_entries_cost_at_most_six_times(shape: str, tmp_path: Path) -> None:
    from benchmarks.bench_scaling import LIMIT, prepare

    cases = [prepare(tmp_path, shape, n) for n in (1_500, 6_000)]

    from piview.render.branchdiff import comparison_sections

    def run(case) -> float:
        s = case.session
        leaves = s.tree.leaves()
        root, leaf = s.tree.roots[0], s.tree.leaf

        def both() -> None:
            # The comparison and its sections (the render layer caps what it lists); from the
            # root, one side is the whole branch (a chain's only leaf is the leaf).
            comparison_sections(s, compare_branches(s, leaves[0], leaf))
            comparison_sections(s, compare_branches(s, root, leaf))

        return _cpu(both)

    for _attempt in range(3):
        small, large = [], []
        for _ in range(3):
            small.append(run(cases[0]))
            large.append(run(cases[1]))
        ratio = statistics.median(large) / statistics.median(small)
        if ratio <= LIMIT:
            break
    assert ratio <= LIMIT, ratio


def _every_file() -> list[Path]:
    from tests.conftest import corpus_files

    return sorted(fixture("").glob("*.jsonl")) + corpus_files()


@pytest.mark.parametrize("path", _every_file(), ids=lambda p: p.name)
def test_every_leaf_against_the_leaf_on_every_file(path: Path) -> None:
    """Damaged, pathological and version 1 files too: a comparison, its JSON and its rows in
    both layouts, never an error."""
    from rich.console import Console

    from piview.render.branchdiff import comparison_renderable, comparison_sections, layout_rows

    s = load_session(path)
    leaf = s.tree.leaf
    if leaf is None:
        return
    console = Console(width=120, file=io.StringIO())
    for other in s.tree.leaves()[:20]:
        d = compare_branches(s, other, leaf)
        json.dumps(d.as_json(s))
        assert len(d.a.entries) + (
            len(s.tree.path(d.ancestor)) if d.ancestor is not None else 0
        ) == len(s.tree.path(other))
        sections = comparison_sections(s, d)
        for columns in (True, False):
            console.print(comparison_renderable(layout_rows(s, d, sections, columns=columns)))
