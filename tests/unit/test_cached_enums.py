"""The closed sets the index cache stores as one byte per entry are append-only.

``NodeStore`` keeps an entry's type, role and stop reason as its value's position in
``decode.py``'s Literals (``store.TYPE_NAMES`` and its neighbours), and the index cache
writes those bytes as they are (``store_state.py``). A value inserted in the middle, or two
swapped, would make every cache written before read the wrong names, unless
``index_cache._FORMAT`` is bumped. New values go at the end: add them to the lists below.
"""

from __future__ import annotations

from typing import get_args

import pytest

from piview.model.decode import EntryType, Role, StopReason
from piview.model.store import OTHER, ROLE_NAMES, STOP_NAMES, TYPE_NAMES

CACHED: dict[str, tuple[object, tuple[str, ...]]] = {
    "EntryType": (
        EntryType,
        (
            "session",
            "message",
            "model_change",
            "thinking_level_change",
            "compaction",
            "branch_summary",
            "custom",
            "custom_message",
            "label",
            "session_info",
            "title_change",
            "mode_change",
            "model_usage",
            "service_tier_change",
            "ttsr_injection",
            "credential_pin",
            "session_init",
            "reset_boundary",
            "archive",
        ),
    ),
    "Role": (
        Role,
        (
            "user",
            "assistant",
            "toolResult",
            "bashExecution",
            "custom",
            "branchSummary",
            "compactionSummary",
            "system",
            "hookMessage",
            "developer",
            "fileMention",
            "pythonExecution",
        ),
    ),
    "StopReason": (
        StopReason,
        ("stop", "length", "toolUse", "error", "aborted", "deferred", "pending"),
    ),
}
"""Each cached Literal and its values in the order the caches written so far hold them."""


@pytest.mark.parametrize("name", sorted(CACHED))
def test_cached_literal_is_append_only(name: str) -> None:
    literal, known = CACHED[name]
    values = get_args(literal)
    assert values[: len(known)] == known, (
        f"{name} changed order: append new values at its end (old index caches read them by "
        "position), or bump index_cache._FORMAT"
    )
    assert values == known, f"{name} has new values: add {values[len(known) :]} to this test"


def test_codes_fit_below_other() -> None:
    # Code 0 is "absent", OTHER (255) a value outside the set, kept whole with its entry.
    for names in (TYPE_NAMES, ROLE_NAMES, STOP_NAMES):
        assert names[0] is None
        assert len(names) < OTHER
