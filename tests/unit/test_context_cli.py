"""``piview context``: the JSON contract, ``--at``, unsent messages and the readable list."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from piview.cli import main
from tests.conftest import fixture

H = '{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}'


def E(i: str, parent: str | None, type: str = "message", **kw: object) -> str:
    e: dict[str, object] = {
        "type": type,
        "id": i,
        "parentId": parent,
        "timestamp": "2026-01-01T00:00:00.000Z",
    }
    e.update(kw)
    return json.dumps(e)


def bash(i: str, parent: str, command: str, excluded: bool) -> str:
    m = {
        "role": "bashExecution",
        "command": command,
        "output": "out",
        "exitCode": 0,
        "cancelled": False,
        "truncated": False,
        "excludeFromContext": excluded,
    }
    return E(i, parent, message=m)


def assistant(i: str, parent: str, content: list[object], model: str = "m1") -> str:
    m = {
        "role": "assistant",
        "content": content,
        "provider": "p",
        "model": model,
        "usage": {"input": 100, "output": 5, "cacheRead": 900, "cacheWrite": 0},
        "stopReason": "stop",
    }
    return E(i, parent, message=m)


def ctx_json(path: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> dict:
    assert main(["context", str(path), "--json", *extra]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.fixture
def session(write_session) -> Path:
    return write_session(
        [
            H,
            E("aaaa0001", None, message={"role": "user", "content": "hello there"}),
            E("aaaa0002", "aaaa0001", "thinking_level_change", thinkingLevel="high"),
            assistant("aaaa0003", "aaaa0002", [{"type": "toolCall", "id": "c", "name": "read"}]),
            bash("bbbb0001", "aaaa0003", "ls -la", excluded=True),
            bash("bbbb0002", "bbbb0001", "pwd", excluded=False),
            E("bbbb0003", "bbbb0002", "compaction", summary="so far", firstKeptEntryId="aaaa0003"),
            E(
                "cccc0001",
                "bbbb0003",
                "custom_message",
                customType="x",
                content="ctx",
                display=False,
            ),
            E("cccc0002", "cccc0001", "branch_summary", fromId="cccc0001", summary="went away"),
            assistant("cccc0003", "cccc0002", [{"type": "text", "text": "done"}], model="m2"),
        ]
    )


def test_json_has_exactly_the_contract_keys(session: Path, capsys) -> None:
    data = ctx_json(session, capsys)
    assert list(data) == ["at", "thinking_level", "model", "system", "estimate", "messages"]
    assert data["at"] == "cccc0003"
    assert data["thinking_level"] == "high"
    assert data["model"] == {"provider": "p", "modelId": "m2"}
    assert data["system"] is None
    for m in data["messages"]:
        assert list(m) == ["entry_id", "role", "sent", "text", "tokens", "estimate"]


def test_estimate_is_pis_chars_over_4(session: Path, capsys) -> None:
    """Pi's estimateTokens per sent message (ceil of chars / 4), None for the unsent ``!!``
    run, and the context's estimate their sum."""
    data = ctx_json(session, capsys)
    got = [(m["entry_id"], m["estimate"]) for m in data["messages"]]
    assert got == [
        ("bbbb0003", 2),  # "so far": the summary
        ("aaaa0003", 2),  # "read" and "{}" (its arguments)
        ("bbbb0001", None),  # !!: never sent
        ("bbbb0002", 2),  # "pwd" and "out"
        ("cccc0001", 1),  # "ctx"
        ("cccc0002", 3),  # "went away"
        ("cccc0003", 1),  # "done"
    ]
    assert data["estimate"] == 11


def test_messages_in_pi_order_with_unsent_bash(session: Path, capsys) -> None:
    rows = [
        (m["entry_id"], m["role"], m["sent"], m["text"])
        for m in ctx_json(session, capsys)["messages"]
    ]
    assert rows == [
        ("bbbb0003", "compactionSummary", True, "so far"),
        ("aaaa0003", "assistant", True, "read"),  # only a tool call: its tool's name
        ("bbbb0001", "bashExecution", False, "ls -la"),  # !!: built, never sent
        ("bbbb0002", "bashExecution", True, "pwd"),
        ("cccc0001", "custom", True, "ctx"),
        ("cccc0002", "branchSummary", True, "went away"),
        ("cccc0003", "assistant", True, "done"),
    ]


def test_tokens_share_the_next_turns_input(session: Path, capsys) -> None:
    messages = ctx_json(session, capsys, "--at", "cccc0002")["messages"]
    unsent = [m for m in messages if not m["sent"]]
    assert [m["tokens"] for m in unsent] == [None]
    sent = [m["tokens"] for m in messages if m["sent"]]
    assert all(isinstance(t, int) and t > 0 for t in sent)
    assert abs(sum(sent) - 1000) <= len(sent)  # input + cache read of the turn after


def test_at_takes_a_prefix(session: Path, capsys) -> None:
    data = ctx_json(session, capsys, "--at", "aaaa0003")
    assert data["at"] == "aaaa0003"
    assert data["model"] == {"provider": "p", "modelId": "m1"}
    assert [m["entry_id"] for m in data["messages"]] == ["aaaa0001", "aaaa0003"]
    assert ctx_json(session, capsys, "--at", "cccc0001")["at"] == "cccc0001"


@pytest.mark.parametrize(
    ("ref", "message"),
    [("zzzz", "no entry with id 'zzzz'"), ("aaaa", "--at aaaa is ambiguous: aaaa0001")],
)
def test_at_errors_are_one_line_and_status_2(session: Path, capsys, ref: str, message: str) -> None:
    assert main(["context", str(session), "--at", ref]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and err.startswith("piview: ")


def test_system_prompt_state(capsys) -> None:
    data = ctx_json(fixture("system_prompt.jsonl"), capsys)
    system = data["system"]
    assert system is not None
    assert set(system) == {
        "baseline",
        "prompts",
        "sections",
        "removed_sections",
        "tools",
        "removed_tools",
        "messages",
    }
    assert system["prompts"][-1]["text"]
    assert {t["name"] for t in system["tools"]}
    # A system message is the prompt's: Pi builds it but does not send it as a message.
    assert all(not m["sent"] for m in data["messages"] if m["role"] == "system")


def test_readable_list(session: Path, capsys) -> None:
    assert main(["context", str(session)]) == 0
    out = capsys.readouterr().out
    assert "cccc0003" in out and "high" in out and "p/m2" in out
    assert "bashExecution (not sent)" in out
    assert "7 built, 6 sent" in out


def test_empty_file_is_an_error(write_session, capsys) -> None:
    assert main(["context", str(write_session([H]))]) == 2
    assert "has no entries" in capsys.readouterr().err


def test_readable_list_writes_no_escape_from_the_file(write_session, capsys) -> None:
    """Ids, settings and texts come from the file: none may move the terminal's cursor."""
    path = write_session(
        [
            H,
            E("\x1b[2Ja", None, message={"role": "user", "content": "hi \x1b[31mred"}),
            E("b", "\x1b[2Ja", "thinking_level_change", thinkingLevel="\x1b[31mhigh"),
            E("c", "b", "model_change", provider="\x1b]0;x\x07p", modelId="m"),
        ]
    )
    assert main(["context", str(path)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out
    assert "high" in out and "red" in out
