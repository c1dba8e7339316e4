"""Snapshot of an oh-my-pi session (issue #14): its title slot in the header, the new roles
and the slim dividers, at 80x24. Regenerate on purpose with ``--snapshot-update``."""

from __future__ import annotations

from piview.app import make_app
from piview.model import load_session
from piview.widgets.transcript import Transcript
from tests.conftest import fixture

SESSION = next((fixture("omp") / "agent" / "sessions").glob("*/*.jsonl"))


async def _top(pilot) -> None:
    t = pilot.app.screen.query_one(Transcript)
    t._set_cursor(0)  # noqa: SLF001
    await pilot.pause()


def test_omp_session_top(snap_compare) -> None:
    assert snap_compare(make_app(load_session(SESSION)), terminal_size=(80, 24), run_before=_top)


def test_omp_session_end(snap_compare) -> None:
    """As it opens: at the end, with the dividers, the hook, the missing blob and the archive."""
    assert snap_compare(make_app(load_session(SESSION)), terminal_size=(80, 24))
