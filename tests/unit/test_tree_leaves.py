"""``Tree.leaves`` (entries without children, found at C speed) and ``Folds.open_path`` (the
explicit folds on a path forgotten at once) as the loops they replaced gave them."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.gen_shapes import SHAPES, write_shape
from piview.model import load_session
from piview.model.treeview import Folds
from tests.conftest import corpus_files, fixture


def _reference(tree) -> list[int]:
    start = tree.children.start
    kids = tree.branching_children()
    return [
        i
        for i in range(len(tree.parents))
        if (start[i] == start[i + 1] if not tree.side else not kids[i] and i not in tree.side)
    ]


@pytest.mark.parametrize(
    "path", [*sorted(fixture("").glob("*.jsonl")), *corpus_files()], ids=lambda p: p.name
)
def test_leaves_of_files(path: Path) -> None:
    tree = load_session(path).tree
    assert tree.leaves() == _reference(tree)


@pytest.mark.parametrize("shape", [s for s in SHAPES if s != "copies"])
def test_leaves_of_shapes(shape: str, tmp_path: Path) -> None:
    path = tmp_path / f"{shape}.jsonl"
    write_shape(path, shape, 700)
    tree = load_session(path).tree
    assert tree.leaves() == _reference(tree)


def test_open_path_forgets_only_the_folds_on_the_path() -> None:
    folds = Folds.for_tree(10)
    for i in (1, 3, 5, 7):
        folds.set(i, True)
    folds.set(2, False)
    folds.open_path([0, 1, 2, 3, 4])
    assert folds.closed == {5, 7}
    assert 2 in folds.opened
