"""Every tree algorithm scales linearly (or n log n) on every shape of issue 11.

Small sizes (2,500 against 10,000 entries), medians of alternating runs, CPU time: the test
asserts the ratio of the two, never a time. 4x the work may cost at most 6x; a quadratic
algorithm costs 16x. A ratio over the limit is measured again (at 4x, then 16x the size) before
it fails: one burst of load on a shared machine is not a blow-up, a quadratic walk always is.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.bench_scaling import ALGORITHMS, LIMIT, ratios
from benchmarks.gen_shapes import SHAPES

N = 2_500
# The fixture, not the corpus: the same copies shape on a fresh clone and in CI.
SOURCE = Path(__file__).parents[1] / "fixtures" / "sessions" / "tool_pairing.jsonl"


@pytest.mark.scaling
@pytest.mark.parametrize("shape", SHAPES)
def test_four_times_the_entries_cost_at_most_six_times(shape: str, tmp_path: Path) -> None:
    source = SOURCE
    got = ratios(shape, N, repeats=3, min_time=0.01, source=source, folder=tmp_path)
    assert set(got) == set(ALGORITHMS)
    for scale in (4, 16):
        over = [name for name, (_, _, r) in got.items() if r > LIMIT]
        if not over:
            break
        # Again at 4x, then 16x the size: sub-millisecond timings (labels on the fan take
        # 0.2 ms) are mostly noise on a loaded machine, and a quadratic walk only looks worse
        # when bigger. Not twice at 4x: from 10,000 to 40,000 entries the labels' lookups on
        # the fan outgrow the CPU's caches (6.0-6.6x measured with the GC off, 4.2x from
        # 40,000 to 160,000), a step of the hardware, not of the algorithm.
        got.update(
            ratios(shape, scale * N, algorithms=over, repeats=5, source=source, folder=tmp_path)
        )
    report = {name: round(r, 2) for name, (_, _, r) in got.items()}
    assert all(r <= LIMIT for r in report.values()), report
