"""Project hygiene: a pure model, the README's commands in CI, and ruff."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT


def test_model_and_catalog_import_no_textual_or_rich() -> None:
    code = (
        "import sys, piview.model, piview.model.info, piview.catalog.discovery, "
        "piview.catalog.summaries, piview.catalog.demo; "
        "bad = [m for m in sys.modules if m.split('.')[0] in ('textual', 'rich')]; "
        "print(bad); raise SystemExit(1 if bad else 0)"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stdout + r.stderr


def test_ci_runs_the_readme_test_command() -> None:
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    block = readme.split("```", 2)[1]
    commands = [
        line.strip() for line in block.splitlines() if line.strip().startswith(("pip", "python"))
    ]
    assert len(commands) == 2, commands
    assert "piview --demo" in commands[0]
    assert commands[1] in ci


RUFF = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")


@pytest.mark.skipif(RUFF is None, reason="ruff not installed")
def test_ruff_clean() -> None:
    r = subprocess.run(
        [str(RUFF), "check", "piview", "tests", "benchmarks"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert r.returncode == 0, r.stdout + r.stderr
