"""The branch panel's rows grown by what Pi appended (:func:`piview.model.treeview_grow.grow_rows`)
are the rows of a new :func:`~piview.model.treeview.flatten`, in every filter, folded or not, on
random appends to the leaf, new branches off the active path and entries elsewhere.
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

import pytest

from piview.model import load_session
from piview.model.treefilter import FILTER_MODES
from piview.model.treeview import Folds, TreeRows, flatten
from piview.model.treeview_grow import grow_rows
from tests.unit.test_follow_branch import FILES, _entry, _templates


def same_rows(a: TreeRows, b: TreeRows) -> None:
    """Two flattenings give the same rows and the same visible tree."""
    assert a.rows == b.rows
    assert a.row_of == b.row_of
    assert (a.mode, a.leaf, a.shown) == (b.mode, b.leaf, b.shown)
    assert a.vparent == b.vparent
    assert a.parents == b.parents
    wa, wb = a.walk, b.walk
    assert wa is not None and wb is not None
    assert {k: v for k, v in wa.vchildren.items() if v} == {
        k: v for k, v in wb.vchildren.items() if v
    }
    assert wa.pre == wb.pre
    seen = [i for i, p in enumerate(wb.pre) if p >= 0]
    assert [wa.size[i] for i in seen] == [wb.size[i] for i in seen]
    assert wa.on_path == wb.on_path
    assert (wa.leaf, wa.multi, wa.labelled) == (wb.leaf, wb.multi, wb.labelled)


@pytest.mark.parametrize("fold_side", [False, True], ids=["open", "folded"])
@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_grown_rows_equal_a_new_flatten(path: Path, tmp_path: Path, fold_side: bool) -> None:
    rng = random.Random(f"{path.name}{fold_side}")
    templates = _templates(path)
    live = tmp_path / path.name
    live.write_bytes(path.read_bytes())
    s = load_session(live)
    s.pairing  # noqa: B018
    s.labels  # noqa: B018
    grown = handled = 0
    for _step in range(10):
        n0 = len(s)
        leaf = s.tree.leaf
        folds = Folds(fold_side=fold_side)
        before = {mode: flatten(s, leaf, mode, folds) for mode in FILTER_MODES}
        k = rng.choice((1, 1, 2, 4))
        # One chain: its first entry under the leaf or an entry of its path, the rest under it.
        first = _entry(rng, s, rng.choice(templates), grown)
        chunk = [first]
        parent_id = f"grown-{grown:04d}"
        for j in range(1, k):
            line = _entry(rng, s, rng.choice(templates), grown + j)
            obj = json.loads(line)
            obj["parentId"] = parent_id
            parent_id = obj["id"]
            chunk.append(json.dumps(obj).encode() + b"\n")
        grown += k
        with open(live, "ab") as f:
            f.write(b"".join(chunk))
        assert s.poll() == "appended"
        new_leaf = s.tree.leaf
        for mode in FILTER_MODES:
            got = grow_rows(before[mode], s, new_leaf or 0, n0, mode, folds)
            if got is not None:
                handled += 1
                same_rows(got, flatten(s, new_leaf, mode, folds))
    if s.version >= 3 and not s.tree.side:
        assert handled, "no append was grown"


def _user_line(eid: str, parent: str | None) -> bytes:
    entry = {
        "type": "message",
        "id": eid,
        "parentId": parent,
        "timestamp": "2026-05-11T08:10:00.000Z",
        "message": {"role": "user", "content": [{"type": "text", "text": eid}]},
    }
    return json.dumps(entry).encode() + b"\n"


@pytest.mark.scaling  # a ratio of times: the scaling tier, not the default run
def test_growing_costs_a_fraction_of_a_flatten(tmp_path: Path) -> None:
    """A new branch near the end of a 30,000-entry chain is laid out in a small part of the
    time a flatten takes (a ratio of two runs in one process, with a wide margin)."""
    header = {"type": "session", "version": 3, "id": "s", "timestamp": "2026-05-11T08:00:00Z"}
    live = tmp_path / "long.jsonl"
    lines = [json.dumps(header).encode() + b"\n", _user_line("e0", None)]
    lines += [_user_line(f"e{i}", f"e{i - 1}") for i in range(1, 30_000)]
    live.write_bytes(b"".join(lines))
    s = load_session(live)
    s.labels  # noqa: B018
    folds = Folds()
    rows = flatten(s, s.tree.leaf, "default", folds)
    with open(live, "ab") as f:
        f.write(_user_line("b0", "e29990"))
    assert s.poll() == "appended"
    n0 = len(s) - 1
    t0 = time.perf_counter()
    grown = grow_rows(rows, s, n0, n0, "default", folds)
    t1 = time.perf_counter()
    want = flatten(s, n0, "default", folds)
    t2 = time.perf_counter()
    assert grown is not None
    same_rows(grown, want)
    assert (t1 - t0) * 5 < t2 - t1, f"grow {t1 - t0:.4f} s, flatten {t2 - t1:.4f} s"
