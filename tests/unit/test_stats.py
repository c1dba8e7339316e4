"""True totals across sessions (``piview stats``): forks made by Pi itself counted once."""

from __future__ import annotations

import json
import shutil
from datetime import date
from pathlib import Path

import pytest

from piview.catalog.discovery import find_session_files
from piview.catalog.lineage import with_subagents
from piview.catalog.stats import collect_stats, parse_day, stats_json
from piview.cli import main
from tests.conftest import fixture

FORKS = fixture("forks")
"""Made by tests/pi_reference/forks.mjs with Pi 0.73.1's SessionManager (see the script)."""
ORIGINAL = "2026-05-14T18-00-00-000Z_019e27a5-3900-77a7-94d9-bcce189d159e.jsonl"


def fork_files() -> list[Path]:
    return with_subagents(find_session_files(FORKS))


def records(path: Path) -> list[dict]:
    """Every assistant message with usage in a file, read with nothing but json."""
    out = []
    for line in path.read_text().splitlines():
        obj = json.loads(line)
        msg = obj.get("message") or {}
        if obj.get("type") == "message" and msg.get("role") == "assistant" and msg.get("usage"):
            out.append(obj)
    return out


def naive_and_unique(files: list[Path]) -> tuple[list[dict], list[dict]]:
    """Every record of every file, and the records of distinct (id, timestamp, usage)."""
    every = [r for f in files for r in records(f)]
    unique: dict[tuple[str, str, str], dict] = {}
    for r in every:
        key = (r["id"], r["timestamp"], json.dumps(r["message"]["usage"], sort_keys=True))
        unique.setdefault(key, r)
    return every, list(unique.values())


def cost(rs: list[dict]) -> float:
    return sum(r["message"]["usage"]["cost"]["total"] for r in rs)


def test_the_fixture_holds_real_forks() -> None:
    files = fork_files()
    headers = [json.loads(f.read_text().splitlines()[0]) for f in files]
    assert len(files) == 6
    assert sum(1 for h in headers if "parentSession" in h) == 3
    every, unique = naive_and_unique(files)
    assert len(every) > len(unique)  # history was copied


def test_forks_count_once_and_the_total_is_the_sum_over_unique_entries() -> None:
    files = fork_files()
    report = collect_stats(files, by="day")
    every, unique = naive_and_unique(files)
    total = report.total.main
    assert total.count == len(unique)
    assert total.cost == pytest.approx(cost(unique))
    assert total.input == sum(r["message"]["usage"]["input"] for r in unique)
    assert report.deduplicated.count == len(every) - len(unique)
    assert report.deduplicated.cost == pytest.approx(cost(every) - cost(unique))
    assert sum(g.main.cost for g in report.groups) == pytest.approx(total.cost)


def test_copied_history_counts_in_the_file_it_came_from() -> None:
    report = collect_stats(fork_files(), by="session")
    by_name = {Path(g.key).name: g for g in report.groups}
    original = by_name[ORIGINAL]
    assert original.main.count == len(records(FORKS / "--home-dev-src-tinyhttp--" / ORIGINAL))
    assert original.parent is None
    forks = [g for g in report.groups if g.parent is not None]
    assert len(forks) == 4  # three forks and one subagent
    for g in forks:
        assert g.main.count == 1  # each added one turn of its own; the rest was copied
    # Lineage order: a fork's row comes after the file it was forked from.
    keys = [g.key for g in report.groups]
    for g in forks:
        assert keys.index(g.parent) < keys.index(g.key)
    assert original.path is not None and original.abandoned is not None
    assert original.path.count + original.abandoned.count == original.main.count
    assert original.abandoned.count == 5  # the branches off the active path


def test_order_of_the_files_given_does_not_matter() -> None:
    files = fork_files()
    a = stats_json(collect_stats(files, by="session"))
    b = stats_json(collect_stats(list(reversed(files)), by="session"))
    assert a == b


def test_a_folder_without_forks_sums_every_file(tmp_path: Path) -> None:
    proj = tmp_path / "--p--"
    proj.mkdir()
    names = ("linear.jsonl", "tree_branches.jsonl", "tool_pairing.jsonl", "usage_extended.jsonl")
    for name in names:
        shutil.copy(fixture(name), proj / name)
    report = collect_stats(find_session_files(tmp_path), by="project")
    assert report.deduplicated.count == 0
    infos = []
    for name in names:
        from piview.model import load_session, session_info

        infos.append(session_info(load_session(proj / name))["usage"]["all"])
    assert report.total.main.cost == pytest.approx(sum(i["cost"] for i in infos))
    assert report.total.main.input == sum(i["input"] for i in infos)


def _line(
    id_: str, ts: str, usage: dict, role: str = "assistant", parent: str | None = None
) -> str:
    msg = {"role": role, "content": [], "usage": usage, "provider": "p", "model": "m"}
    if role == "toolResult":
        msg = {"role": role, "toolCallId": "c1", "toolName": "t", "content": [], "usage": usage}
    return json.dumps(
        {"type": "message", "id": id_, "parentId": parent, "timestamp": ts, "message": msg}
    )


def _usage(n: int) -> dict:
    return {"input": n, "output": 1, "cacheRead": 0, "cacheWrite": 0, "cost": {"total": n / 100}}


HEAD = '{"type":"session","version":3,"id":"s%d","timestamp":"2026-05-0%dT00:00:00Z","cwd":"/p"}'


def test_repeats_inside_one_file_count_as_info_counts_them(write_session) -> None:
    line = _line("aaaa0001", "2026-05-01T10:00:00.000Z", _usage(5))
    a = write_session([HEAD % (1, 1), line, line], "a.jsonl")
    report = collect_stats([a])
    assert report.total.main.count == 2 and report.deduplicated.count == 0


def test_same_id_with_another_time_or_usage_is_not_a_copy(write_session) -> None:
    a = write_session([HEAD % (1, 1), _line("aaaa0001", "2026-05-01T10:00:00.000Z", _usage(5))])
    b = write_session(
        [
            HEAD % (2, 2),
            _line("aaaa0001", "2026-05-01T10:00:00.001Z", _usage(5)),
            _line("aaaa0001", "2026-05-01T10:00:00.000Z", _usage(6), parent="x"),
        ],
        "b.jsonl",
    )
    report = collect_stats([a, b])
    assert report.total.main.count == 3 and report.deduplicated.count == 0


def test_a_copy_without_parent_header_is_deduplicated_into_the_older_file(write_session) -> None:
    rec = _line("aaaa0001", "2026-05-01T10:00:00.000Z", _usage(5))
    new = write_session([HEAD % (2, 2), rec, _line("b", "2026-05-02T10:00:00.000Z", _usage(7))])
    old = write_session([HEAD % (1, 1), rec], "old.jsonl")
    report = collect_stats([new, old], by="session")
    counts = {Path(g.key).name: g.main.count for g in report.groups}
    assert counts == {"old.jsonl": 1, "s.jsonl": 1}
    assert report.deduplicated.count == 1 and report.deduplicated.cost == pytest.approx(0.05)


def test_nested_tool_usage_is_kept_apart(write_session) -> None:
    a = write_session(
        [
            HEAD % (1, 1),
            _line("a1", "2026-05-01T10:00:00.000Z", _usage(5)),
            _line("a2", "2026-05-01T10:00:01.000Z", _usage(9), role="toolResult", parent="a1"),
        ]
    )
    out = stats_json(collect_stats([a], by="model"))
    assert out["total"]["entries"] == 1 and out["total"]["cost"] == pytest.approx(0.05)
    assert out["total"]["tools"]["entries"] == 1
    assert out["total"]["tools"]["cost"] == pytest.approx(0.09)
    assert out["total"]["input"] == 5 and out["total"]["tools"]["input"] == 9


def test_days_weeks_months_and_the_window(write_session) -> None:
    a = write_session(
        [
            HEAD % (1, 1),
            _line("a1", "2026-05-01T10:00:00.000Z", _usage(1)),
            _line("a2", "2026-05-04T10:00:00.000Z", _usage(2), parent="a1"),
            _line("a3", "2026-06-10T10:00:00.000Z", _usage(4), parent="a2"),
        ]
    )
    assert [g.key for g in collect_stats([a], by="day").groups] == [
        "2026-05-01",
        "2026-05-04",
        "2026-06-10",
    ]
    assert [g.key for g in collect_stats([a], by="week").groups] == [
        "2026-04-27",
        "2026-05-04",
        "2026-06-08",
    ]
    assert [g.key for g in collect_stats([a], by="month").groups] == ["2026-05", "2026-06"]
    window = collect_stats([a], by="month", since=date(2026, 5, 2), until=parse_day("20260601"))
    assert window.total.main.input == 2


def test_cli_json_has_the_documented_shape(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stats", "--sessions", str(FORKS), "--json", "--by", "session"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) >= {"groups", "total", "deduplicated"}
    keys = {"key", "sessions", "entries", "input", "output", "cacheRead", "cacheWrite"}
    keys |= {"cacheWrite1h", "reasoning", "cost", "tools", "summaries"}
    assert keys <= set(out["total"]) and out["total"]["key"] == "total"
    assert all(keys <= set(g) for g in out["groups"])
    assert out["deduplicated"]["entries"] > 0 and out["deduplicated"]["cost"] > 0


def test_cli_table_says_what_was_deduplicated(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stats", "--sessions", str(FORKS), "--by", "project"]) == 0
    out = capsys.readouterr().out
    assert "Deduplicated: 14 records copied by forks" in out
    assert "/home/dev/src/tinyhttp" in out and "total" in out


def test_cli_bad_date_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stats", "--sessions", str(FORKS), "--since", "May"]) == 2
    assert "bad date" in capsys.readouterr().err
