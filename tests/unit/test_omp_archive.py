"""oh-my-pi ``archive`` entries: archived subtrees are hidden in the branch panel except with
the ``all`` filter; the last record for a target wins; linear on any shape."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from piview.model import load_session
from piview.model.treefilter import archived, session_visibility
from piview.model.treeview import flatten
from tests.conftest import fixture

SESSION = next((fixture("omp") / "agent" / "sessions").glob("*/*.jsonl"))
HEADER = '{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}'


def _user(eid: str, parent: str | None, text: str = "hi") -> str:
    return json.dumps(
        {
            "type": "message",
            "id": eid,
            "parentId": parent,
            "timestamp": "2026-01-01T00:00:00.000Z",
            "message": {"role": "user", "content": text},
        }
    )


def _archive(eid: str, parent: str | None, target: str, on: bool = True) -> str:
    return json.dumps(
        {
            "type": "archive",
            "id": eid,
            "parentId": parent,
            "timestamp": "2026-01-01T00:00:00.000Z",
            "targetId": target,
            "archived": on,
        }
    )


def test_archived_branch_hidden_by_default_shown_with_all() -> None:
    s = load_session(SESSION)
    target = s.find("a0016665")
    assert target is not None
    hidden = archived(s)
    assert hidden is not None and set(s.tree.subtree(target)) == {
        i for i in range(len(s)) if hidden[i]
    }
    assert not session_visibility(s, "default")[target]
    assert not session_visibility(s, "user-only")[target]
    assert session_visibility(s, "all")[target]
    assert target not in flatten(s, s.tree.leaf, "default").row_of
    assert flatten(s, s.tree.leaf, "all").shown > flatten(s, s.tree.leaf, "user-only").shown


def test_unarchive_wins_when_it_comes_last(write_session) -> None:
    lines = [
        HEADER,
        _user("a", None),
        _user("b", "a", "kept"),
        _user("c", "a", "side"),
        _archive("d", "b", "c"),
        _archive("e", "d", "c", on=False),
    ]
    s = load_session(write_session(lines))
    assert archived(s) is None
    s2 = load_session(write_session(lines[:5], name="t.jsonl"))
    hide = archived(s2)
    assert hide is not None and hide[s2.find("c")] and not hide[s2.find("b")]


def test_archive_of_a_missing_target_is_harmless(write_session) -> None:
    s = load_session(write_session([HEADER, _user("a", None), _archive("b", "a", "zzz")]))
    assert archived(s) is None


def _cpu(path: Path) -> float:
    s = load_session(path)
    best = []
    for _ in range(3):
        s.derived.clear()
        t = time.process_time()
        archived(s)
        best.append(time.process_time() - t)
    return sorted(best)[1]


def _nested(tmp_path: Path, n: int) -> Path:
    # A deep chain, every 10th entry archived, the archives written innermost first: a walk
    # that did not stop at marked entries would cost n²/10.
    lines = [HEADER] + [_user(f"u{k}", f"u{k - 1}" if k else None) for k in range(n)]
    lines += [_archive(f"x{k}", f"u{n - 1}", f"u{k}") for k in reversed(range(0, n, 10))]
    path = tmp_path / f"n{n}.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.scaling  # a ratio of times: the scaling tier, not the default run
def test_archived_is_linear(tmp_path: Path) -> None:
    small, big = _nested(tmp_path, 2_500), _nested(tmp_path, 10_000)
    for _ in range(3):
        ratio = _cpu(big) / max(_cpu(small), 1e-6)
        if ratio <= 6:
            break
    assert ratio <= 6, ratio
