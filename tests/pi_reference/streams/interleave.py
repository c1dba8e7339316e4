"""Make ``V/rpc.both.jsonl``: the two genuine halves of an RPC run, Pi's stdout
(``rpc.jsonl``) and what the client sent (``rpc.stdin.jsonl``), interleaved as a log of both
directions would hold them: each command just before its response (the one with its ``id``, or
of its command's type where Pi 0.73 leaves the id out; the line that is not JSON before the
``parse`` error), a dialog's answer just after its request.

Not written by one process: a fixture made of two genuine files, for the reader's handling of
a client's lines (a ``bash`` command's text, a dialog's answer).

    python tests/pi_reference/streams/interleave.py tests/fixtures/streams/085
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def interleave(out_lines: list[str], in_lines: list[str]) -> list[str]:
    """Pi's lines with the client's placed among them."""
    sent = []
    for raw in in_lines:
        try:
            sent.append((json.loads(raw), raw))
        except json.JSONDecodeError:
            sent.append((None, raw))
    answers = {c["id"]: raw for c, raw in sent if c and c.get("type") == "extension_ui_response"}
    by_id = {c["id"]: raw for c, raw in sent if c and "id" in c and c["id"] not in answers}
    no_id = [raw for c, raw in sent if not c or "id" not in c]
    merged: list[str] = []
    for raw in out_lines:
        ev = json.loads(raw)
        if ev.get("type") == "response":
            if ev.get("id") in by_id:
                merged.append(by_id.pop(ev["id"]))
            elif ev.get("command") == "parse" and no_id:
                merged.append(no_id.pop(0))
            else:  # Pi 0.73 drops the id of an unknown command: matched by its type
                same = [k for k, r in by_id.items() if json.loads(r)["type"] == ev.get("command")]
                if same:
                    merged.append(by_id.pop(same[0]))
        merged.append(raw)
        if ev.get("type") == "extension_ui_request" and ev.get("id") in answers:
            merged.append(answers.pop(ev["id"]))
    return merged


def main() -> None:
    """Write rpc.both.jsonl in the folder given."""
    folder = Path(sys.argv[1])
    out = (folder / "rpc.jsonl").read_text().splitlines()
    sent = (folder / "rpc.stdin.jsonl").read_text().splitlines()
    (folder / "rpc.both.jsonl").write_text("\n".join(interleave(out, sent)) + "\n")


if __name__ == "__main__":
    main()
