"""Pi's /session total outside ``info --json``: the export's header and the readable ``info``,
on a file Pi 0.85.1 wrote (tests/fixtures/pi-0.85)."""

from __future__ import annotations

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
