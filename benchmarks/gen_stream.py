#!/usr/bin/env python3
"""Deterministic generator of a large ``pi --mode json`` capture (Pi 0.85's stream: delta-only
``message_update`` events), made from a session file of :mod:`benchmarks.gen_session`.

Each message of the session, in file order, becomes ``message_start``, the deltas of each of
its text, thinking and tool-call blocks in ``chunk``-character pieces (``*_start``, ``*_delta``,
``*_end``, each with the cumulative ``usage`` as Pi 0.85 writes it), and ``message_end``; a
tool result is wrapped in ``tool_execution_start``/``_end``. Most of the bytes are
``message_update`` lines, as in the 650 MB captures of earendil-works/pi#3905.

    python benchmarks/gen_stream.py SESSION.jsonl OUT.jsonl [--chunk 12]
    python benchmarks/gen_stream.py --size 650MB OUT.jsonl   # a session made first, then folded
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import msgspec

_enc = msgspec.json.Encoder()
_dec = msgspec.json.Decoder()
_ZERO = {
    "input": 0,
    "output": 0,
    "cacheRead": 0,
    "cacheWrite": 0,
    "totalTokens": 0,
    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
}


def _update(usage: Any, event: dict[str, Any]) -> bytes:
    return _enc.encode({"type": "message_update", "usage": usage, "assistantMessageEvent": event})


def _blocks(message: dict[str, Any], chunk: int) -> list[bytes]:
    usage = message.get("usage") or _ZERO
    out: list[bytes] = []
    for i, block in enumerate(message.get("content") or []):
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind in ("text", "thinking"):
            key = "text" if kind == "text" else "thinking"
            text = str(block.get(key, ""))
            out.append(_update(usage, {"type": f"{kind}_start", "contentIndex": i}))
            for k in range(0, len(text), chunk):
                delta = text[k : k + chunk]
                out.append(
                    _update(usage, {"type": f"{kind}_delta", "contentIndex": i, "delta": delta})
                )
            out.append(_update(usage, {"type": f"{kind}_end", "contentIndex": i, "content": text}))
        elif kind == "toolCall":
            args = _enc.encode(block.get("arguments") or {}).decode()
            out.append(
                _update(
                    usage,
                    {
                        "type": "toolcall_start",
                        "contentIndex": i,
                        "id": block.get("id"),
                        "toolName": block.get("name"),
                    },
                )
            )
            for k in range(0, len(args), chunk):
                out.append(
                    _update(
                        usage,
                        {"type": "toolcall_delta", "contentIndex": i, "delta": args[k : k + chunk]},
                    )
                )
            out.append(
                _update(usage, {"type": "toolcall_end", "contentIndex": i, "toolCall": block})
            )
    return out


def fold(session: Path, out_path: Path, chunk: int = 12) -> int:
    """Write the capture of ``session`` to ``out_path`` (through a temporary file, renamed);
    return its size."""
    tmp = out_path.with_name(out_path.name + ".part")
    with session.open("rb") as src, tmp.open("wb") as out:
        for raw in src:
            try:
                entry = _dec.decode(raw)
            except msgspec.DecodeError:
                continue
            if not isinstance(entry, dict):
                continue
            if entry.get("type") == "session":
                out.write(raw.rstrip(b"\n") + b"\n")
                out.write(b'{"type":"agent_start"}\n')
                continue
            message = entry.get("message")
            if entry.get("type") != "message" or not isinstance(message, dict):
                continue
            role = message.get("role")
            lines: list[bytes] = []
            if role == "toolResult":
                call = {
                    "toolCallId": message.get("toolCallId"),
                    "toolName": message.get("toolName"),
                }
                lines.append(_enc.encode({"type": "tool_execution_start", **call, "args": {}}))
                result = {"content": message.get("content"), "details": message.get("details")}
                lines.append(
                    _enc.encode(
                        {
                            "type": "tool_execution_end",
                            **call,
                            "result": result,
                            "isError": message.get("isError") is True,
                        }
                    )
                )
            if role == "assistant":
                start = {**message, "content": []}
                lines.append(_enc.encode({"type": "message_start", "message": start}))
                lines.extend(_blocks(message, chunk))
            else:
                lines.append(_enc.encode({"type": "message_start", "message": message}))
            lines.append(_enc.encode({"type": "message_end", "message": message}))
            out.write(b"\n".join(lines) + b"\n")
        out.write(b'{"type":"agent_end","messages":[]}\n')
    os.replace(tmp, out_path)
    return out_path.stat().st_size


def main(argv: list[str] | None = None) -> int:
    """The command line: a session folded, or one generated (``--size``) and folded."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("paths", nargs="+", help="[SESSION] OUT")
    p.add_argument("--size", help="generate a session of about this size first (e.g. 50MB)")
    p.add_argument("--chunk", type=int, default=12, help="characters per delta (12)")
    args = p.parse_args(argv)
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    if args.size:
        from benchmarks.gen_session import generate, parse_size

        (out,) = args.paths
        with tempfile.TemporaryDirectory() as d:
            session = Path(d) / "s.jsonl"
            generate(str(session), parse_size(args.size), seed=0)
            size = fold(session, Path(out), args.chunk)
    else:
        session_arg, out = args.paths
        size = fold(Path(session_arg), Path(out), args.chunk)
    print(f"{out}: {size / 1024**2:.1f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
