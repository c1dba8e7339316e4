"""The tree's children are grouped by a counting sort into arrays (``model/tree.py``
``_children``): the same children, in the same order, as the stable sort of ``range(n)`` by
parent it replaces, without the two lists of ``n`` ints that sort made at the load's peak."""

from __future__ import annotations

import random
import tracemalloc
from array import array
from itertools import accumulate

import pytest

from piview.model.tree import _children, parse_iso_ms


def old_children(
    parents: array[int], stamps: list[str | None]
) -> tuple[list[int], list[int], list[int]]:
    """The grouping as it was: a stable sort by parent, then siblings by timestamp."""
    n = len(parents)
    order = sorted(range(n), key=parents.__getitem__)
    counts = [0] * (n + 1)
    for p in parents:
        counts[p + 1] += 1
    nroots = counts[0]
    roots, items = order[:nroots], order[nroots:]
    start = list(accumulate(counts[1:], initial=0))

    def key(j: int) -> tuple[float, int]:
        ms = parse_iso_ms(stamps[j])
        return (float("inf") if ms is None else ms, j)

    for p in range(n):
        items[start[p] : start[p + 1]] = sorted(items[start[p] : start[p + 1]], key=key)
    roots.sort(key=key)
    return start, items, roots


def _stamp(rng: random.Random) -> str | None:
    r = rng.random()
    if r < 0.1:
        return None
    if r < 0.2:
        return "2026-01-01T00:00:00.000Z"  # equal timestamps
    return f"2026-01-01T00:{rng.randrange(60):02d}:{rng.randrange(60):02d}.000Z"


@pytest.mark.parametrize("seed", range(12))
def test_children_equal_the_stable_sort(seed: int) -> None:
    rng = random.Random(seed)
    n = rng.choice([1, 2, 7, 60, 500])
    # Roots, chains, fans and parents later in the file (forward references).
    parents = array(
        "q", [rng.choice([-1, i - 1, rng.randrange(n), 0]) if i else -1 for i in range(n)]
    )
    parents = array("q", [-1 if p == i else p for i, p in enumerate(parents)])
    stamps = [_stamp(rng) for _ in range(n)]
    children, roots = _children(parents, stamps)
    start, items, want_roots = old_children(parents, stamps)
    assert children.start.tolist() == start
    assert children.items.tolist() == items
    assert roots == want_roots


def test_children_of_a_long_chain_allocate_little_beyond_the_result() -> None:
    n = 200_000
    parents = array("q", range(-1, n - 1))
    stamps: list[str | None] = [None] * n
    tracemalloc.start()
    try:
        out = _children(parents, stamps)
        kept, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(out[0].items) == n - 1
    # The sort of range(n) by parent made ~4x the result on top of it; now below 1x.
    assert peak - kept < kept
