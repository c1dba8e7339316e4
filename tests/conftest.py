"""Shared fixtures: fixture paths, the optional real corpus, and a deterministic environment."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "sessions"
CORPUS = ROOT.parent / "shared" / "corpus"

# Snapshots must not depend on the environment's colour settings or theme.
for var in ("NO_COLOR", "TEXTUAL_THEME", "PIVIEW_THEME", "FORCE_COLOR", "COLORTERM"):
    os.environ.pop(var, None)
os.environ["TEXTUAL_ANIMATIONS"] = "none"
# Never touch the user's cache: index and picker caches go to a throwaway folder.
os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="piview-test-cache-")

# Times of day are shown in local time: pin the zone so snapshots match everywhere.
os.environ["TZ"] = "UTC"
time.tzset()


def fresh_python(code: str) -> str:
    """What a fresh interpreter (``python -P -c code``, this checkout on its path) prints;
    it must succeed."""
    r = subprocess.run(
        [sys.executable, "-P", "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    return r.stdout


def fixture(name: str) -> Path:
    """Path of a hand-written fixture session in tests/fixtures/sessions."""
    return FIXTURES / name


def corpus_files() -> list[Path]:
    """The real Pi session files in ../shared/corpus, or none where it is absent."""
    if not CORPUS.is_dir():
        return []
    return sorted(CORPUS.glob("*/*.jsonl"))


@pytest.fixture
def write_session(tmp_path: Path):
    """Write lines (str or bytes) to a temporary .jsonl file and return its path."""

    def _write(lines: list[str | bytes] | bytes, name: str = "s.jsonl") -> Path:
        path = tmp_path / name
        if isinstance(lines, bytes):
            path.write_bytes(lines)
        else:
            data = b"".join((x if isinstance(x, bytes) else x.encode()) + b"\n" for x in lines)
            path.write_bytes(data)
        return path

    return _write
