"""ItemList's height guesses: ``2 + min(cap - 2, size // (2 * width))`` lines for an open
item, 2 for a collapsed one, as the bisect over thresholds they were computed with gave."""

from __future__ import annotations

from array import array
from bisect import bisect_right

import pytest

from piview.render.item import Item, ItemList


def _old(size: int, width: int, cap: int, open_: bool) -> int:
    per = 2 * width
    return 2 + bisect_right(range(per, per * (cap - 1), per), size) * open_


@pytest.mark.parametrize("cap", [1, 2, 3, 30])
@pytest.mark.parametrize("width", [1, 7, 40, 118])
def test_estimates_match_the_thresholds(width: int, cap: int) -> None:
    lengths = array("q", [*range(0, 3 * width * cap + 5), 10**9])
    items = ItemList(
        Item("tool", e, 0, collapsible=e % 3 == 0, expanded=e % 2 == 0) for e in range(len(lengths))
    )
    got = items.estimates(lengths, width, cap)
    want = [
        _old(lengths[e], width, cap, not (it.collapsible and not it.expanded))
        for e, it in enumerate(items)
    ]
    assert list(got) == want
    assert list(items.estimates_at(range(len(items)), True, lengths, width, cap)) == [
        _old(n, width, cap, True) for n in lengths
    ]
