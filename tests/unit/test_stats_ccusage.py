"""``piview stats`` against ``ccusage pi`` (npm ``ccusage``), when it is installed.

``PIVIEW_CCUSAGE_NPM`` names a folder where ``npm install ccusage@20.0.24`` was run (default
/tmp/ccusage-scratch; .ci/run installs it). Without it, or when its native binary does not run
here, these tests skip.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from piview.catalog.discovery import find_session_files
from piview.catalog.lineage import with_subagents
from piview.catalog.stats import collect_stats
from tests.conftest import fixture
from tests.unit.test_stats import FORKS, cost, fork_files, naive_and_unique

NO_FORKS = ("linear.jsonl", "tree_branches.jsonl", "tool_pairing.jsonl", "compaction_context.jsonl")


def ccusage(folder: Path) -> dict[str, Any]:
    """``ccusage pi session --json`` on the sessions folder ``folder``, or skip."""
    npm = Path(os.environ.get("PIVIEW_CCUSAGE_NPM", "/tmp/ccusage-scratch"))
    exe = npm / "node_modules" / ".bin" / "ccusage"
    if shutil.which("node") is None or not exe.exists():
        pytest.skip("ccusage is not installed (set PIVIEW_CCUSAGE_NPM)")
    try:
        out = subprocess.run(
            [str(exe), "pi", "session", "--json", "--offline", "--pi-path", str(folder)],
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        return dict(json.loads(out.stdout))
    except (subprocess.SubprocessError, OSError, ValueError) as exc:
        pytest.skip(f"ccusage did not run here: {exc}")


def test_without_forks_the_totals_agree_with_ccusage(tmp_path: Path) -> None:
    proj = tmp_path / "sessions" / "--home-dev-src-tinyhttp--"
    proj.mkdir(parents=True)
    for name in NO_FORKS:
        shutil.copy(fixture(name), proj / f"2026-05-14T00-00-00-000Z_{Path(name).stem}.jsonl")
    theirs = ccusage(tmp_path / "sessions")["totals"]
    ours = collect_stats(find_session_files(tmp_path / "sessions")).total.main
    assert ours.input == theirs["inputTokens"]
    assert ours.output == theirs["outputTokens"]
    assert ours.cache_read == theirs["cacheReadTokens"]
    assert ours.cache_write == theirs["cacheCreationTokens"]
    assert ours.cost == pytest.approx(theirs["totalCost"])


def test_with_pi_forks_ccusage_counts_copies_and_piview_does_not(tmp_path: Path) -> None:
    sessions = tmp_path / "sessions"
    shutil.copytree(FORKS, sessions)
    theirs = ccusage(sessions)["totals"]
    report = collect_stats(with_subagents(find_session_files(sessions)))
    every, unique = naive_and_unique(fork_files())
    assert report.total.main.cost == pytest.approx(cost(unique))
    assert theirs["totalCost"] > report.total.main.cost + 0.5
    assert theirs["totalCost"] <= cost(every) + 1e-9


SUBAGENTS = Path(__file__).resolve().parents[1] / "fixtures" / "subagents"


@pytest.mark.parametrize("case", ["single", "parallel", "chain", "fork", "failed", "unknown"])
def test_subagent_folders_against_ccusage(case: str) -> None:
    """pi-subagents' genuine folders (parent, children, artifacts): piview counts each model
    call once; ccusage 20.0.24 agrees but for a fork-context child, whose copy of the parent's
    turn it counts again."""
    root = SUBAGENTS / case / "sessions"
    theirs = ccusage(root)["totals"]
    files = find_session_files(root)
    ours = collect_stats(with_subagents(files)).total.main
    copied_in, copied_out, copied_cost = (1000, 50, 0.00375) if case == "fork" else (0, 0, 0.0)
    assert ours.input + copied_in == theirs["inputTokens"]
    assert ours.output + copied_out == theirs["outputTokens"]
    assert ours.cost + copied_cost == pytest.approx(theirs["totalCost"])
