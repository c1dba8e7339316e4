"""A small session for the timeline's tests: three parallel calls (one failing), a wait of
three minutes (folded), a compaction, a model change and a turn that stopped on an error."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

T0 = datetime(2026, 5, 11, 8, 0, 0, tzinfo=UTC)


def _iso(s: float) -> str:
    return (T0 + timedelta(seconds=s)).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _ms(s: float) -> int:
    return int((T0 + timedelta(seconds=s)).timestamp() * 1000)


def _usage(n: int) -> dict[str, Any]:
    return {
        "input": n,
        "output": 50,
        "cacheRead": 0,
        "cacheWrite": 0,
        "totalTokens": n + 50,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
    }


def write_session(path: Path) -> Path:
    """Write the session to ``path``; return it."""
    lines: list[dict[str, Any]] = []
    parent: list[str | None] = [None]

    def add(entry_id: str, at: float, **fields: Any) -> None:
        lines.append({"id": entry_id, "parentId": parent[0], "timestamp": _iso(at), **fields})
        parent[0] = entry_id

    def user(entry_id: str, at: float, text: str) -> None:
        add(
            entry_id,
            at,
            type="message",
            message={"role": "user", "content": [{"type": "text", "text": text}],
                     "timestamp": _ms(at)},
        )  # fmt: skip

    def assistant(
        entry_id: str, start: float, end: float, content: list[Any], tokens: int, stop: str
    ) -> None:
        message = {
            "role": "assistant",
            "content": content,
            "api": "faux",
            "provider": "faux",
            "model": "faux-sonnet",
            "usage": _usage(tokens),
            "stopReason": stop,
            "timestamp": _ms(start),
        }
        if stop == "error":
            message["errorMessage"] = "overloaded"
        add(entry_id, end, type="message", message=message)

    def call(call_id: str, name: str, **args: Any) -> dict[str, Any]:
        return {"type": "toolCall", "id": call_id, "name": name, "arguments": args}

    def result(entry_id: str, at: float, call_id: str, name: str, text: str, error: bool) -> None:
        add(
            entry_id,
            at,
            type="message",
            message={"role": "toolResult", "toolCallId": call_id, "toolName": name,
                     "content": [{"type": "text", "text": text}], "isError": error,
                     "timestamp": _ms(at)},
        )  # fmt: skip

    header = {"type": "session", "version": 3, "id": "0199aaaa-0000-7000-8000-000000000001",
              "timestamp": _iso(0), "cwd": "/home/dev/src/tinyhttp"}  # fmt: skip
    add("m0000001", 0, type="model_change", provider="faux", modelId="faux-sonnet")
    user("u0000001", 1, "Why do the tests fail?")
    assistant(
        "a0000001",
        1.1,
        5,
        [
            {"type": "thinking", "thinking": "Look at the tests and the source at once."},
            call("call_r1", "read", path="tests/test_http.py"),
            call("call_r2", "read", path="src/tinyhttp/request.py"),
            call("call_b1", "bash", command="pytest -q"),
        ],
        1200,
        "toolUse",
    )
    result("r0000001", 5.5, "call_r1", "read", "def test_chunked():\n    ...\n" * 40, False)
    result("r0000002", 6.2, "call_r2", "read", "class Request:\n    pass\n" * 10, False)
    result("r0000003", 9.0, "call_b1", "bash", "1 failed\nexit code 1", True)
    assistant(
        "a0000002", 9.1, 14, [{"type": "text", "text": "The chunk decoder drops the end."}],
        2600, "stop",
    )  # fmt: skip
    user("u0000002", 194, "Fix it.")
    assistant(
        "a0000003", 194.1, 197, [call("call_e1", "edit", path="src/tinyhttp/request.py",
                                      oldText="a", newText="b")], 2900, "toolUse",
    )  # fmt: skip
    result("r0000004", 197.4, "call_e1", "edit", "Edited src/tinyhttp/request.py", False)
    assistant("a0000004", 197.5, 200, [{"type": "text", "text": "Fixed."}], 3000, "stop")
    add(
        "c0000001",
        201,
        type="compaction",
        summary="## Goal\nFix the chunk decoder.",
        firstKeptEntryId="u0000002",
        tokensBefore=3000,
    )
    add("m0000002", 202, type="model_change", provider="faux", modelId="faux-opus")
    user("u0000003", 220, "Run the tests again.")
    assistant("a0000005", 220.1, 223, [], 900, "error")
    text = "\n".join(json.dumps(x, ensure_ascii=False, separators=(",", ":")) for x in lines)
    path.write_text(json.dumps(header, separators=(",", ":")) + "\n" + text + "\n")
    return path
