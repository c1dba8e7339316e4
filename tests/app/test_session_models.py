"""The header's models (``session_models``): distinct models of the assistant messages in
order of first use, read at C speed, as the loop over every assistant message gave them, for
a whole file and for one that grew since it was last asked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from piview.model import load_session
from piview.model.session import Session
from piview.screens.session import session_models
from tests.conftest import corpus_files, fixture


def _reference(session: Session) -> list[str]:
    store = session.nodes
    seen: dict[str, None] = {}
    codes: set[int] = set()
    for i in store.of_role("assistant"):
        if i >= len(session):
            break
        if store.models[i] not in codes:
            codes.add(store.models[i])
            model = store.model(i)[1]
            if model:
                seen.setdefault(model, None)
    return list(seen)


@pytest.mark.parametrize(
    "path",
    [
        *sorted(fixture("").glob("*.jsonl")),
        *(pytest.param(p, marks=pytest.mark.corpus) for p in corpus_files()),
    ],
    ids=lambda p: p.name,
)
def test_models_as_the_loop_gave_them(path: Path) -> None:
    s = load_session(path)
    assert session_models(s) == _reference(s)


def test_models_of_a_file_that_grew(tmp_path: Path) -> None:
    header = {"type": "session", "version": 3, "id": "s", "timestamp": "t", "cwd": "/"}
    lines, parent = [json.dumps(header)], None

    def add(k: int, role: str, provider: str | None, model: str | None) -> None:
        nonlocal parent
        message = {"role": role, "content": "x", "provider": provider, "model": model}
        entry = {"type": "message", "id": f"e{k}", "parentId": parent, "timestamp": "t"}
        lines.append(json.dumps({**entry, "message": message}))
        parent = f"e{k}"

    for k, (provider, model) in enumerate(
        [("a", "m1"), ("b", "m2"), ("a", "m1"), ("c", "m1"), (None, None), ("a", "m3")]
    ):
        add(2 * k, "user", provider, "not-an-assistant")
        add(2 * k + 1, "assistant", provider, model)
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(lines[:7]) + "\n")
    s = load_session(path)
    assert session_models(s) == _reference(s) == ["m1", "m2"]
    with path.open("a") as f:
        f.write("\n".join(lines[7:]) + "\n")
    assert s.poll() is not None
    assert session_models(s) == _reference(s) == ["m1", "m2", "m3"]
