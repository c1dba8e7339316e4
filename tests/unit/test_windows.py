"""A model's context window: the user's models.json, else Pi's built-in models (the table
tests/pi_reference/context_windows.py writes from Pi 0.85.1's pi-ai)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from piview.catalog.pi_models import user_context_windows, window_of
from piview.model.windows import builtin_windows, context_window, user_windows


def test_builtin_models_have_their_windows() -> None:
    table = builtin_windows()
    assert len(table) > 1000
    assert context_window("anthropic/claude-opus-4-5") == 200_000
    assert context_window("google/gemini-2.5-pro") == 1_048_576
    assert context_window("nobody/no-such-model") is None
    assert context_window(None) is None
    # A provider piview does not know, a model id every built-in provider agrees on.
    assert context_window("my-proxy/gemini-2.5-pro") == 1_048_576


def test_the_users_models_json_comes_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    doc = {
        "providers": {
            "ollama": {"models": [{"id": "llama3.1:8b", "contextWindow": 128000}, {"id": 3}]},
            "google": {"modelOverrides": {"gemini-2.5-pro": {"contextWindow": 500000}}},
            "bad": "x",
        }
    }
    assert user_windows(doc) == {"ollama/llama3.1:8b": 128000, "google/gemini-2.5-pro": 500000}
    assert user_windows([1, 2]) == {} and user_windows(None) == {}
    (tmp_path / "models.json").write_text(json.dumps(doc))
    monkeypatch.delenv("PIVIEW_MODELS_JSON")  # the tests' conftest points it at nothing
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path))
    assert user_context_windows()["ollama/llama3.1:8b"] == 128000
    assert window_of("google/gemini-2.5-pro") == 500000
    assert window_of("ollama/llama3.1:8b") == 128000
    (tmp_path / "models.json").write_text("{not json")
    assert user_context_windows() == {}
    assert window_of("google/gemini-2.5-pro") == 1_048_576


def test_the_table_is_what_pi_085_lists() -> None:
    npm = os.environ.get("PIVIEW_PI085_NPM")
    if not npm:
        pytest.skip("Pi 0.85.1 is not installed (set PIVIEW_PI085_NPM)")
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "context_windows",
        Path(__file__).resolve().parents[1] / "pi_reference" / "context_windows.py",
    )
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.windows(Path(npm)) == builtin_windows()
