"""The event-stream captures in tests/fixtures/streams are what their README says they are.

Only the committed files are read: every line is JSON (but the one malformed line the RPC
client sent on purpose), the ``.type`` counts are those of the README's tables, each run has its
session file, and the runs end as described (exit, SIGKILL mid-message, failed responses).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

STREAMS = Path(__file__).resolve().parent.parent / "fixtures" / "streams"
VERSIONS = ("073", "085")
NOT_JSON = "this is not json"
"""The one line of ``rpc.stdin.jsonl`` that is not JSON: the client's parse-error probe."""


def _tables() -> dict[str, dict[str, Counter[str]]]:
    """The README's tables under ``### V`` (one or more): version -> file -> type -> count."""
    tables: dict[str, dict[str, Counter[str]]] = {}
    version = None
    files: list[str] = []
    for line in (STREAMS / "README.md").read_text().splitlines():
        if m := re.fullmatch(r"### (\d{3})", line):
            version = m.group(1)
            tables[version] = {}
            files = []
        elif line.startswith("#"):
            version, files = None, []
        elif version and line.startswith("| type |"):
            files = re.findall(r"`([^`]+)`", line)
            assert not set(files) & set(tables[version]), files
            tables[version].update({f: Counter() for f in files})
        elif version and files and (m := re.match(r"\| `([^`]+)` \|", line)):
            cells = [c.strip() for c in line.strip().strip("|").split("|")[1:]]
            for f, cell in zip(files, cells, strict=True):
                if cell:
                    tables[version][f][m.group(1)] = int(cell)
        elif not line.startswith("|"):
            files = []
    return tables


TABLES = _tables()


def _records(path: Path) -> list[Any]:
    lines = path.read_bytes().decode("utf-8").split("\n")
    assert lines[-1] == "", f"{path} does not end with a newline"
    out: list[Any] = []
    for line in lines[:-1]:
        if path.name == "rpc.stdin.jsonl" and line == NOT_JSON:
            out.append(None)
        else:
            out.append(json.loads(line))
    return out


def _types(records: list[Any]) -> Counter[str]:
    return Counter("(not JSON)" if r is None else r["type"] for r in records)


def test_readme_has_a_table_per_version() -> None:
    assert set(TABLES) == set(VERSIONS)
    for v in VERSIONS:
        assert set(TABLES[v]) == {
            "json.jsonl",
            "json.session.jsonl",
            "rpc.jsonl",
            "rpc.stdin.jsonl",
            "rpc.session.jsonl",
            "killed.jsonl",
            "killed.session.jsonl",
            "rpc2.jsonl",
            "rpc2.stdin.jsonl",
            "rpc2.session-1.jsonl",
            "rpc2.session-2.jsonl",
        }


@pytest.mark.parametrize("version", VERSIONS)
def test_files_are_small_and_listed(version: str) -> None:
    folder = STREAMS / version
    names = {p.name for p in folder.iterdir()}
    assert names == set(TABLES[version]) | {"json.stderr.txt", "rpc.both.jsonl"}
    for p in folder.iterdir():
        assert p.stat().st_size < 200_000, p
    for p in folder.glob("rpc2*"):
        assert p.stat().st_size < 100_000, p


@pytest.mark.parametrize("version", VERSIONS)
def test_type_counts_match_readme(version: str) -> None:
    for name, expected in TABLES[version].items():
        assert _types(_records(STREAMS / version / name)) == expected, name


@pytest.mark.parametrize("version", VERSIONS)
def test_session_files(version: str) -> None:
    for run in ("json", "rpc", "killed"):
        records = _records(STREAMS / version / f"{run}.session.jsonl")
        header = records[0]
        assert header["type"] == "session" and header["version"] == 3
        assert header["cwd"] == f"/tmp/piview-streams/{version}/work"
        custom = [r for r in records if r["type"] == "custom"]
        assert [c["customType"] for c in custom] == ["deploy-state"]
        assert custom[0]["data"]["url"] == "https://staging.example"
    # json mode prints the session header first, the same as the file's
    stream = _records(STREAMS / version / "json.jsonl")
    assert stream[0] == _records(STREAMS / version / "json.session.jsonl")[0]


@pytest.mark.parametrize("version", VERSIONS)
def test_json_run(version: str) -> None:
    stream = _records(STREAMS / version / "json.jsonl")
    updates = [
        e for e in stream if e["type"] == "tool_execution_update" and e["toolName"] == "deploy"
    ]
    assert [u["partialResult"]["details"] for u in updates] == [
        {"step": 1},
        {"step": 2},
        {"step": 3},
    ]
    ends = {e["toolName"]: e for e in stream if e["type"] == "tool_execution_end"}
    assert ends["deploy"]["result"]["details"] == {"url": "https://staging.example", "steps": 3}
    assert ends["explode"]["isError"] is True
    assert ends["explode"]["result"]["content"][0]["text"] == "boom"
    assert ends["bash"]["result"]["content"][0]["text"] == "hi\n"
    errors = [
        e["message"]
        for e in stream
        if e["type"] == "message_end" and e["message"].get("stopReason") == "error"
    ]
    assert len(errors) == 1 and "overloaded" in errors[0]["errorMessage"]
    last = [e for e in stream if e["type"] == "agent_end"][-1]["messages"][-1]
    assert last["stopReason"] == "stop" and last["usage"]["cost"]["total"] > 0
    stderr = (STREAMS / version / "json.stderr.txt").read_text()
    assert "Extension error" in stderr and "turn_end hook failed once" in stderr


@pytest.mark.parametrize("version", VERSIONS)
def test_message_update_shape(version: str) -> None:
    stream = _records(STREAMS / version / "json.jsonl")
    updates = [e for e in stream if e["type"] == "message_update"]
    starts = [
        u["assistantMessageEvent"]
        for u in updates
        if u["assistantMessageEvent"]["type"] == "toolcall_start"
    ]
    if version == "073":
        assert all("message" in u and "partial" in u["assistantMessageEvent"] for u in updates)
        assert all("id" not in s for s in starts)
    else:
        assert all("message" not in u and "usage" in u for u in updates)
        assert all("partial" not in u["assistantMessageEvent"] for u in updates)
        assert [s["toolName"] for s in starts] == ["deploy", "explode", "bash"]


@pytest.mark.parametrize("version", VERSIONS)
def test_rpc_run(version: str) -> None:
    stream = _records(STREAMS / version / "rpc.jsonl")
    responses = {e["command"]: e for e in stream if e["type"] == "response"}
    assert [c for c, r in responses.items() if not r["success"]] == [
        "set_model",
        "no_such_command",
        "parse",
    ]
    assert responses["bash"]["data"]["output"] == "from-rpc\n"
    assert responses["get_session_stats"]["data"]["cost"] > 0
    ui = [e["method"] for e in stream if e["type"] == "extension_ui_request"]
    assert ui == ["confirm", "notify", "setStatus"]
    sent = _records(STREAMS / version / "rpc.stdin.jsonl")
    confirm = next(
        e for e in stream if e["type"] == "extension_ui_request" and e["method"] == "confirm"
    )
    assert {"type": "extension_ui_response", "id": confirm["id"], "confirmed": True} in sent
    errors = [e for e in stream if e["type"] == "extension_error"]
    assert [(e["event"], e["error"]) for e in errors] == [("turn_end", "turn_end hook failed once")]
    session = _records(STREAMS / version / "rpc.session.jsonl")
    assert session[-1]["message"]["role"] == "bashExecution"


@pytest.mark.parametrize("version", VERSIONS)
def test_killed_run_ends_mid_message(version: str) -> None:
    stream = _records(STREAMS / version / "killed.jsonl")
    last_start = max(i for i, e in enumerate(stream) if e["type"] == "message_start")
    tail = stream[last_start + 1 :]
    assert tail and all(e["type"] == "message_update" for e in tail)
    assert tail[-1]["assistantMessageEvent"]["type"] == "text_delta"
    session = _records(STREAMS / version / "killed.session.jsonl")
    assert session[-1]["message"]["role"] == "toolResult"
    assert session[-1]["message"]["toolName"] == "bash"


def _by_type(stream: list[Any], type_: str) -> list[Any]:
    return [e for e in stream if e["type"] == type_]


@pytest.mark.parametrize("version", VERSIONS)
def test_rpc2_queue(version: str) -> None:
    stream = _records(STREAMS / version / "rpc2.jsonl")
    steer = "steer: take the short path"
    follow = "follow-up: and when you are done, write a closing note for the record"
    queues = [(e["steering"], e["followUp"]) for e in _by_type(stream, "queue_update")]
    assert queues == [([steer], []), ([steer], [follow]), ([], [follow]), ([], [])]
    users = [
        e["message"]["content"][0]["text"]
        for e in _by_type(stream, "message_end")
        if e["message"]["role"] == "user"
    ]
    assert users == ["wait please", steer, follow, "hello new session", "back in session one"]
    # both queued messages are delivered in the one agent run of the first prompt
    first_end = next(i for i, e in enumerate(stream) if e["type"] == "agent_end")
    assert stream[first_end]["messages"][-1]["content"][0]["text"] == "Done."
    assert len(_by_type(stream[:first_end], "queue_update")) == 4
    sent = _records(STREAMS / version / "rpc2.stdin.jsonl")
    assert [c["type"] for c in sent] == [
        "prompt",
        "steer",
        "follow_up",
        "get_state",
        "compact",
        "new_session",
        "prompt",
        "get_state",
        "switch_session",
        "set_model",
        "set_thinking_level",
        "prompt",
        "get_session_stats",
    ]


@pytest.mark.parametrize("version", VERSIONS)
def test_rpc2_compaction(version: str) -> None:
    stream = _records(STREAMS / version / "rpc2.jsonl")
    assert _by_type(stream, "compaction_start") == [
        {"type": "compaction_start", "reason": "manual"}
    ]
    (end,) = _by_type(stream, "compaction_end")
    assert end["reason"] == "manual" and end["aborted"] is False and end["willRetry"] is False
    result = end["result"]
    assert result["summary"].startswith("## Goal") and result["tokensBefore"] > 0
    responses = {e["id"]: e for e in _by_type(stream, "response")}
    assert all(r["success"] for r in responses.values())
    assert responses["req-5"]["command"] == "compact" and responses["req-5"]["data"] == result
    session = _records(STREAMS / version / "rpc2.session-1.jsonl")
    (entry,) = [r for r in session if r["type"] == "compaction"]
    assert entry["summary"] == result["summary"]
    assert entry["firstKeptEntryId"] == result["firstKeptEntryId"]
    kept = next(r for r in session if r["id"] == entry["firstKeptEntryId"])
    assert kept["message"]["content"][0]["text"].startswith("follow-up:")
    if version == "073":
        assert "usage" not in result and "usage" not in entry
    else:
        assert result["usage"]["cost"]["total"] > 0 and result["estimatedTokensAfter"] > 0
        assert entry["usage"] == result["usage"]


@pytest.mark.parametrize("version", VERSIONS)
def test_rpc2_sessions(version: str) -> None:
    stream = _records(STREAMS / version / "rpc2.jsonl")
    responses = {e["id"]: e for e in _by_type(stream, "response")}
    first = responses["req-4"]["data"]["sessionFile"]
    second = responses["req-8"]["data"]["sessionFile"]
    assert first != second and first < second  # named by creation time
    assert responses["req-6"]["data"] == {"cancelled": False}
    assert responses["req-9"]["data"] == {"cancelled": False}
    sent = _records(STREAMS / version / "rpc2.stdin.jsonl")
    assert sent[8] == {"id": "req-9", "type": "switch_session", "sessionPath": first}
    assert responses["req-13"]["data"]["sessionFile"] == first
    s1 = _records(STREAMS / version / "rpc2.session-1.jsonl")
    s2 = _records(STREAMS / version / "rpc2.session-2.jsonl")
    assert Path(first).name.endswith(f"_{s1[0]['id']}.jsonl")
    assert Path(second).name.endswith(f"_{s2[0]['id']}.jsonl")
    for header in (s1[0], s2[0]):
        assert header["type"] == "session" and header["version"] == 3
        assert header["cwd"] == f"/tmp/piview-streams/{version}/work"
    texts = [r["message"]["content"][0]["text"] for r in s2 if r["type"] == "message"]
    assert texts == ["hello new session", "Hello from the second session."]
    # after the switch back: set_model (same model) and set_thinking_level land in session 1
    after = s1[[r["type"] for r in s1].index("compaction") + 1 :]
    assert [r["type"] for r in after] == [
        "model_change",
        "thinking_level_change",
        "message",
        "message",
    ]
    assert after[0]["modelId"] == "scripted-1" and after[1]["thinkingLevel"] == "low"
    assert _by_type(stream, "thinking_level_changed") == [
        {"type": "thinking_level_changed", "level": "low"}
    ]
    errors = _by_type(stream, "extension_error")
    assert len(errors) == (3 if version == "073" else 1)
