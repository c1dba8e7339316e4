"""The first screen of a session (issue #17, row 1): no work before it that it does not need.

Deterministic checks only (never a time): the screen is not rendered inside Textual's start-up
batch, whose frame is thrown away.
"""

from __future__ import annotations

import pytest

from piview.app import make_app
from piview.model import load_session
from piview.widgets.transcript import Transcript
from tests.conftest import fixture

SIZE = (120, 40)


async def test_the_first_screen_is_rendered_once_after_the_start_up_batch(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Textual mounts the app's first screen inside a batch of updates and writes nothing
    # until it ends: a frame rendered inside it is rendered for nothing.
    in_batch: list[int] = []
    render_lines = Transcript.render_lines

    def spy(self: Transcript, crop):  # type: ignore[no-untyped-def]
        in_batch.append(self.app._batch_count)  # noqa: SLF001 - what the spy is about
        return render_lines(self, crop)

    monkeypatch.setattr(Transcript, "render_lines", spy)
    app = make_app(load_session(fixture("roles_all.jsonl")))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert in_batch, "the transcript was drawn"
        assert not any(in_batch), in_batch
        assert "block " in str(app.screen.query_one("#status").render())
