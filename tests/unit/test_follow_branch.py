"""Following a file that grows by new branches (:mod:`piview.model.follow`,
:mod:`piview.render.items_follow`): entries appended under any earlier entry extend the tree,
pairing and labels without a rebuild, and give what loading the whole file gives; the blocks of
the new branch, built from those of the branch shown, are those built from scratch.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

import piview.model.session as session_module
from piview.model import Session, load_session
from piview.model.follow import Built
from piview.render.items import build_items, kept_from
from piview.render.items_follow import branch_items, extend_items, grew_without_compaction
from tests.conftest import corpus_files, fixture
from tests.unit.test_follow_model import same

FILES = [
    fixture(name)
    for name in (
        "tool_pairing.jsonl",
        "tree_branches.jsonl",
        "tree_pathological.jsonl",
        "entry_types.jsonl",
        "roles_all.jsonl",
        "stop_reasons.jsonl",
        "compaction_context.jsonl",
        "edit_tools.jsonl",
        "openclaw_side_notes.jsonl",
    )
] + [p for p in corpus_files() if "pi-0.73" in str(p)]


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """One item per whole-tree build."""
    calls: list[int] = []
    build = session_module.Session.build

    def counting(self: Session) -> Built:
        calls.append(1)
        return build(self)

    monkeypatch.setattr(session_module.Session, "build", counting)
    return calls


def _templates(path: Path) -> list[dict[str, object]]:
    """The file's entries (but its header), to append again under new ids."""
    out = []
    for raw in path.read_text(encoding="utf-8-sig").splitlines():
        try:
            obj = json.loads(raw)
        except ValueError:
            continue
        if isinstance(obj, dict) and obj.get("type") not in (None, "session") and "id" in obj:
            out.append(obj)
    return out


def _entry(rng: random.Random, s: Session, template: dict[str, object], n: int) -> bytes:
    """``template`` under a new id, hanging from the leaf, an entry of its path or any entry,
    with a timestamp equal to, before or after its siblings'."""
    leaf = s.tree.leaf
    assert leaf is not None
    roll = rng.random()
    if roll < 0.4:
        parent = s.ids[leaf]
    elif roll < 0.75:
        parent = s.ids[rng.choice(s.tree.path(leaf))]
    else:
        parent = s.ids[rng.randrange(len(s))]
    obj = dict(template)
    obj["id"] = f"grown-{n:04d}"
    obj["parentId"] = parent
    obj["timestamp"] = rng.choice(
        [template.get("timestamp"), "2020-01-01T00:00:00.000Z", "2099-01-01T00:00:00.000Z", "bad"]
    )
    if obj.get("type") == "label":
        obj["targetId"] = s.ids[rng.randrange(len(s))]
    return json.dumps(obj).encode() + b"\n"


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_random_appends_with_new_branches_equal_a_full_load(
    path: Path, tmp_path: Path, builds: list[int]
) -> None:
    rng = random.Random(path.name)
    templates = _templates(path)
    live = tmp_path / path.name
    live.write_bytes(path.read_bytes())
    s = load_session(live)
    s.pairing  # noqa: B018 - as the viewer: pairing and labels exist, and are extended
    s.labels  # noqa: B018
    grown = 0
    for step in range(12):
        leaf = s.tree.leaf
        assert leaf is not None
        old_path, old_count = s.tree.path(leaf), len(s)
        old_items = build_items(s, old_path)
        chunk = b"".join(
            _entry(rng, s, rng.choice(templates), grown + k) for k in range(rng.choice((1, 1, 3)))
        )
        grown += 3
        builds.clear()
        with open(live, "ab") as f:
            f.write(chunk)
        assert s.poll() == "appended"
        if s.version >= 3 and not s.tree.active:
            assert not builds, f"step {step}: a new branch rebuilt the tree"
        same(s, load_session(live))
        new_leaf = s.tree.leaf
        assert new_leaf is not None
        new_path = s.tree.path(new_leaf)
        want = build_items(s, new_path)
        if new_path[: len(old_path)] == old_path:
            got = extend_items(s, old_items, new_path[len(old_path) :])
        else:
            got = branch_items(s, old_items, old_path, new_path, old_count)
            if got is None:
                # Only a branch that leaves the path shown elsewhere than from one of its
                # entries is built as a whole.
                k = len(new_path)
                while k and new_path[k - 1] >= old_count:
                    k -= 1
                assert not k or k > len(old_path) or old_path[k - 1] != new_path[k - 1]
                continue
        assert list(got) == list(want), f"step {step}"
        # The transcript keeps its compaction mark when neither rest holds a compaction.
        if grew_without_compaction(old_items, got, old_items.common_prefix(got)):
            assert kept_from(s, got) == kept_from(s, old_items), f"step {step}"


def _user(eid: str, parent: str | None, ts: str = "2026-05-11T08:10:00.000Z") -> bytes:
    entry = {
        "type": "message",
        "id": eid,
        "parentId": parent,
        "timestamp": ts,
        "message": {"role": "user", "content": [{"type": "text", "text": eid}]},
    }
    return json.dumps(entry).encode() + b"\n"


def test_a_branch_off_a_long_path_extends_its_cached_path(
    tmp_path: Path, builds: list[int]
) -> None:
    """A path over 1,000 entries is cached: a new branch off it is cached from it."""
    live = tmp_path / "long.jsonl"
    header = {"type": "session", "version": 3, "id": "s", "timestamp": "2026-05-11T08:00:00Z"}
    lines = [json.dumps(header).encode() + b"\n", _user("e0", None)]
    lines += [_user(f"e{i}", f"e{i - 1}") for i in range(1, 1500)]
    live.write_bytes(b"".join(lines))
    s = load_session(live)
    s.pairing  # noqa: B018
    s.labels  # noqa: B018
    s.tree.path(s.tree.leaf or 0)
    s.tree.leaves()
    for data in (
        _user("b0", "e1200") + _user("b1", "b0"),  # a new branch off the path shown
        _user("c0", "e1300", "2020-01-01T00:00:00Z"),  # an older sibling: sorts first
        _user("d0", "b0", "bad"),  # off the branch just made
        _user("d1", "d0"),  # a plain append
        _user("f0", "e5"),  # off a short part of the path
    ):
        builds.clear()
        with open(live, "ab") as f:
            f.write(data)
        assert s.poll() == "appended"
        assert not builds
        same(s, load_session(live))
