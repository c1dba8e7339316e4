"""Project hygiene: a pure model without import cycles, the README's commands in CI, and ruff."""

from __future__ import annotations

import ast
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


def _model_imports() -> dict[str, set[str]]:
    """Each module of piview.model and the modules of piview.model it imports anywhere: at
    the top, in functions and under ``TYPE_CHECKING`` alike (each ties the two together)."""
    package = ROOT / "piview" / "model"
    names = {p.stem: p for p in package.glob("*.py") if p.stem != "__init__"}
    graph: dict[str, set[str]] = {}
    for name, path in names.items():
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                targets = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            else:
                continue
            found |= {t.split(".")[2] for t in targets if t.startswith("piview.model.")}
        graph[name] = (found & names.keys()) - {name}
    return graph


def test_model_has_no_import_cycles() -> None:
    graph = _model_imports()
    done: set[str] = set()
    for start in graph:
        # Depth-first from each module, with the path so far: an edge back onto it is a cycle.
        stack = [(start, [start])]
        while stack:
            name, path = stack.pop()
            for nxt in graph[name]:
                assert nxt not in path, "import cycle: " + " -> ".join([*path, nxt])
                if nxt not in done:
                    stack.append((nxt, [*path, nxt]))
        done.add(start)


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
