"""Pi's /session total outside ``info --json``: the export's header and the readable ``info``,
on a file Pi 0.85.1 wrote (tests/fixtures/pi-0.85)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from piview.cli import main, run_command
from piview.render.format import fmt_cost, fmt_tokens
from tests.pi_reference.pi085 import FILES, stored


def test_export_header_has_pis_total(tmp_path: Path) -> None:
    """The header's session total is Pi's, in the figures the usage sidebar shows."""
    out = tmp_path / "o.md"
    assert run_command(["export", str(FILES[0]), "-o", str(out)]) == 0
    md = out.read_text()
    stats = stored(FILES[0])["stats"]
    total = f"{fmt_tokens(stats['tokens']['total'])} tokens · {fmt_cost(stats['cost'])}"
    assert f"| **Session total** | {total} |" in md
    assert "| **Summary usage** |" in md  # the branch's branch summary
    assert "| **Tool usage** |" in md


def test_info_text_has_summaries_total_and_parent(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["info", str(FILES[1])]) == 0
    out = capsys.readouterr().out
    lines = {ln.split("│")[0].strip(): ln for ln in out.splitlines() if "│" in ln}
    stats = stored(FILES[1])["stats"]
    assert fmt_cost(stats["cost"]) in lines["total"]
    assert fmt_tokens(stats["tokens"]["input"]) in lines["total"]
    assert "summaries" in lines
    assert "forked from" in out


def test_stats_counts_summaries_once_in_their_own_column(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The fork copies the compaction: piview stats counts it once, as a summary (not as a
    tool result's nested usage); the main file's figures are Pi's parts."""
    from tests.pi_reference.pi085 import FIXTURES

    assert main(["stats", "--sessions", str(FIXTURES), "--by", "session", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    first = next(g for g in out["groups"] if g["key"].endswith(FILES[0].name))
    parts = stored(FILES[0])["parts"]
    for mine, theirs in ((first, "assistant"), (first["tools"], "tools")):
        assert mine["input"] == parts[theirs]["input"] and mine["output"] == parts[theirs]["output"]
    assert first["summaries"]["entries"] == 2  # one compaction, one branch summary
    assert first["summaries"]["cost"] == pytest.approx(parts["summaries"]["cost"], abs=1e-9)
    fork = next(g for g in out["groups"] if g["key"].endswith(FILES[1].name))
    assert fork["summaries"]["entries"] == 0  # its compaction is the main file's, copied
    assert out["total"]["summaries"]["entries"] == 2
    assert main(["stats", "--sessions", str(FIXTURES), "--by", "session"]) == 0
    text = capsys.readouterr().out
    assert "summaries" in text.splitlines()[0]  # a column of its own, at 80 columns
    assert "All usage" in text
