"""The extension tool fixtures in tests/fixtures/extensions are what their README says they are.

Only the committed files are read: every file the README lists exists with that size, nothing
else is there, each is small, every line is JSON, and each case calls the tools it names.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "fixtures" / "extensions"
TOOLS = {"mcp": {"mcp"}, "web": {"web_search", "fetch_content"}, "todo": {"todo"}}


def _listed() -> dict[str, int]:
    """The README's listing lines ``SIZE  path``: path -> size in bytes."""
    found = (
        re.fullmatch(r"(\d+)  (\S+\.jsonl)", ln)
        for ln in (ROOT / "README.md").read_text().splitlines()
    )
    return {m.group(2): int(m.group(1)) for m in found if m}


def test_readme_lists_every_file_with_its_size() -> None:
    on_disk = {str(p.relative_to(ROOT)): p.stat().st_size for p in ROOT.rglob("*") if p.is_file()}
    on_disk.pop("README.md")
    assert on_disk == _listed()
    assert all(size < 100_000 for size in on_disk.values())


@pytest.mark.parametrize("case", sorted(TOOLS))
def test_each_case_calls_its_tools(case: str) -> None:
    (path,) = (ROOT / case / "sessions").glob("*/*.jsonl")
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    results = [e["message"] for e in lines if e.get("message", {}).get("role") == "toolResult"]
    assert results and {r["toolName"] for r in results} == TOOLS[case]
    assert all(r["details"] is not None for r in results)  # what the cards read
