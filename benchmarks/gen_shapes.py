"""Provides session files of the shapes that stress piview's tree algorithms, at any size.

Each shape is a legal Pi v3 session of about ``n`` entries (issue 11):

* ``repeated-ids``: turns whose tool calls are numbered ``call_0``, ``call_1`` in every turn
  (OpenAI-compatible local servers do this), with branches;
* ``same-timestamps``: turns with branches, every entry at the same instant;
* ``backward-timestamps``: turns with branches, each entry a second before the previous one;
* ``fan``: one assistant entry with ``n`` children (results, users, assistants);
* ``duplicate-ids``: one chain of turns whose entry ids repeat (four ids for the whole file;
  each ``parentId`` still names the entry before, the nearest preceding one with that id),
  labels included;
* ``chain``: one chain of ``n`` entries, unique call ids, a few orphan results and one result
  answering the very first call;
* ``copies``: copies of a real session chained end to end: copy k's root hangs under copy
  k-1's last entry, entry ids made unique per copy, tool-call ids left as they are.

Every turn-based shape also has labels and a compaction now and then. The output is
deterministic. ::

    python benchmarks/gen_shapes.py OUT.jsonl --shape chain --entries 1000000
    python benchmarks/gen_shapes.py OUT.jsonl --shape copies --copies 4 \\
        --source /tmp/bench/s50.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CORPUS_TOOLS = ROOT.parent / "shared" / "corpus" / "pi-0.73" / "tools.jsonl"
"""The default source of ``copies``: a real session written by Pi 0.73.1."""

_BASE = datetime(2026, 5, 11, 8, 0, 0, tzinfo=UTC)
_HEADER = {
    "type": "session",
    "version": 3,
    "id": "019e160e-0000-7000-8000-000000000000",
    "timestamp": "2026-05-11T08:00:00.000Z",
    "cwd": "/home/dev/src/shapes",
}
_USAGE = {
    "input": 1200,
    "output": 80,
    "cacheRead": 3000,
    "cacheWrite": 10,
    "totalTokens": 4290,
    "cost": {
        "input": 0.0036,
        "output": 0.0012,
        "cacheRead": 0.0009,
        "cacheWrite": 0,
        "total": 0.0057,
    },
}

Entry = dict[str, Any]


def _iso(k: int, clock: str) -> str:
    """The timestamp of the ``k``-th entry: ``real`` goes forward, ``same`` stays, ``backward``
    goes back, a second per entry."""
    step = {"real": 1, "same": 0, "backward": -1}[clock]
    t = _BASE + timedelta(seconds=step * k)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


class _Writer:
    """Numbers entries, stamps them and remembers the ids (for parents and labels)."""

    def __init__(self, clock: str) -> None:
        self.clock = clock
        self.count = 0

    def entry(self, parent: str | None, body: Entry) -> tuple[str, Entry]:
        own = f"e{self.count:07x}"
        out = {"id": own, "parentId": parent, "timestamp": _iso(self.count, self.clock), **body}
        self.count += 1
        return own, out


def _message(message: Entry) -> Entry:
    return {"type": "message", "message": message}


def _user(text: str) -> Entry:
    return _message({"role": "user", "content": [{"type": "text", "text": text}]})


def _assistant(text: str, calls: list[str]) -> Entry:
    blocks: list[Entry] = [{"type": "text", "text": text}]
    blocks += [
        {"type": "toolCall", "id": c, "name": "bash", "arguments": {"command": f"ls {c}"}}
        for c in calls
    ]
    return _message(
        {
            "role": "assistant",
            "content": blocks,
            "provider": "local",
            "model": "qwen3-coder",
            "usage": _USAGE,
            "stopReason": "toolUse" if calls else "stop",
        }
    )


def _result(call_id: str, text: str = "a.txt\nb.txt") -> Entry:
    return _message(
        {
            "role": "toolResult",
            "toolCallId": call_id,
            "toolName": "bash",
            "content": [{"type": "text", "text": text}],
            "isError": False,
        }
    )


def _turns(
    n: int, *, clock: str = "real", repeat_ids: bool = True, branch_every: int = 40
) -> Iterator[Entry]:
    """Turns of ``user → assistant (2 calls) → 2 results → assistant answer`` until ``n``
    entries; a branch off an older answer every ``branch_every`` turns (0: one chain), a label
    every 10 turns, a compaction every 200."""
    w = _Writer(clock)
    parent: str | None = None
    answers: list[str] = []
    recent: list[str] = []
    turn = 0
    while w.count < n:
        if branch_every and turn and turn % branch_every == 0 and len(answers) > 3:
            parent = answers[-3]  # /tree: go back three answers and carry on from there
        calls = ["call_0", "call_1"] if repeat_ids else [f"toolu_{turn:06d}_{k}" for k in (0, 1)]
        parent, e = w.entry(parent, _user(f"turn {turn}: look at the files"))
        yield e
        parent, e = w.entry(parent, _assistant(f"Listing, turn {turn}.", calls))
        yield e
        for c in calls:
            parent, e = w.entry(parent, _result(c))
            yield e
        parent, e = w.entry(parent, _assistant(f"Done with turn {turn}.", []))
        yield e
        answers.append(parent)
        recent = [*recent[-40:], parent]
        if turn % 10 == 9:
            parent, e = w.entry(
                parent, {"type": "label", "targetId": recent[0], "label": f"mark {turn}"}
            )
            yield e
        if turn % 200 == 199:
            parent, e = w.entry(
                parent,
                {
                    "type": "compaction",
                    "summary": f"## Goal\nturns up to {turn}",
                    "firstKeptEntryId": recent[-4],
                    "tokensBefore": 150000,
                },
            )
            yield e
        turn += 1


def _fan(n: int) -> Iterator[Entry]:
    """One assistant entry with ``n`` children: results of its call, users and assistants."""
    w = _Writer("real")
    root, e = w.entry(None, _assistant("Listing everything.", ["call_0"]))
    yield e
    kinds: list[Callable[[int], Entry]] = [
        lambda k: _result("call_0"),
        lambda k: _user(f"try {k}"),
        lambda k: _assistant(f"answer {k}", []),
        lambda k: {"type": "label", "targetId": root, "label": f"fan {k}"},
    ]
    for k in range(n):
        yield w.entry(root, kinds[k % len(kinds)](k))[1]


def _chain(n: int) -> Iterator[Entry]:
    """One chain of ``n`` entries; orphan results now and then, and a last result that
    answers the very first call (a walk up the whole chain)."""
    last: str | None = None
    for made, e in enumerate(_turns(max(n - 1 - n // 500, 1), repeat_ids=False, branch_every=0)):
        if made and made % 500 == 0:  # a result whose call is in no entry
            orphan = {**_result(f"gone_{made}"), "id": f"o{made:07x}", "parentId": last}
            yield {**orphan, "timestamp": e["timestamp"]}
            last = orphan["id"]
        if last is not None:
            e = {**e, "parentId": last}
        yield e
        last = e["id"]
    yield {
        **_result("toolu_000000_0"),
        "id": "last",
        "parentId": last,
        "timestamp": _iso(0, "real"),
    }


def _duplicate_ids(n: int) -> Iterator[Entry]:
    """A chain of turns where every entry id is one of four (see the module docstring)."""

    def dup(own: object) -> object:
        return f"d{int(own[1:], 16) % 4}" if isinstance(own, str) and own[:1] == "e" else own

    for e in _turns(n, repeat_ids=False, branch_every=0):
        yield {
            **e,
            **{k: dup(e[k]) for k in ("id", "parentId", "targetId", "firstKeptEntryId") if k in e},
        }


def _copies(n_copies: int, source: Path) -> Iterator[Entry]:
    """``n_copies`` of ``source`` chained end to end (see the module docstring)."""
    lines = [ln for ln in source.read_bytes().splitlines() if ln.strip()]
    entries: list[Entry] = []
    for ln in lines:
        try:
            value = json.loads(ln)
        except ValueError:
            continue
        if isinstance(value, dict) and value.get("type") != "session":
            entries.append(value)
    last: str | None = None
    for k in range(n_copies):
        tag = f"-c{k}" if k else ""
        for e in entries:
            e = dict(e)
            for key in ("id", "parentId", "targetId", "firstKeptEntryId", "fromId"):
                if isinstance(e.get(key), str) and e[key] != "root":
                    e[key] = e[key] + tag
            if e.get("parentId") is None and last is not None:
                e["parentId"] = last
            yield e
        last = entries[-1]["id"] + tag if entries else last


def copies_for(n: int, source: Path = CORPUS_TOOLS) -> int:
    """How many copies of ``source`` make about ``n`` entries (at least one)."""
    count = sum(1 for ln in source.read_bytes().splitlines() if ln.strip()) - 1
    return max(1, round(n / max(count, 1)))


SHAPES = (
    "repeated-ids",
    "same-timestamps",
    "backward-timestamps",
    "duplicate-ids",
    "fan",
    "chain",
    "copies",
)
"""The shapes :func:`write_shape` knows."""


def shape_entries(shape: str, n: int, source: Path = CORPUS_TOOLS) -> Iterator[Entry]:
    """The entries of ``shape`` at about ``n`` entries (``copies``: ``n`` entries' worth of
    copies of ``source``)."""
    if shape == "repeated-ids":
        return _turns(n, repeat_ids=True)
    if shape == "same-timestamps":
        return _turns(n, clock="same", repeat_ids=False)
    if shape == "backward-timestamps":
        return _turns(n, clock="backward", repeat_ids=False)
    if shape == "duplicate-ids":
        return _duplicate_ids(n)
    if shape == "fan":
        return _fan(n)
    if shape == "chain":
        return _chain(n)
    if shape == "copies":
        return _copies(copies_for(n, source), source)
    raise ValueError(f"unknown shape {shape!r}; known: {', '.join(SHAPES)}")


def write_shape(path: Path, shape: str, n: int, source: Path = CORPUS_TOOLS) -> int:
    """Write ``shape`` at about ``n`` entries to ``path``; return the entries written."""
    if shape == "copies":
        return write_copies(path, source, copies_for(n, source))
    count = 0
    with path.open("wb") as f:
        f.write(json.dumps(_HEADER).encode() + b"\n")
        for e in shape_entries(shape, n, source):
            f.write(json.dumps(e, separators=(",", ":")).encode() + b"\n")
            count += 1
    return count


def write_copies(path: Path, source: Path, n_copies: int) -> int:
    """Write ``n_copies`` of ``source`` chained end to end to ``path`` (the source's header
    first); return the entries written."""
    head = source.read_bytes().split(b"\n", 1)[0]
    count = 0
    with path.open("wb") as f:
        f.write(head + b"\n")
        for e in _copies(n_copies, source):
            f.write(json.dumps(e, separators=(",", ":"), ensure_ascii=False).encode() + b"\n")
            count += 1
    return count


def main(argv: list[str] | None = None) -> int:
    """Command line: write one shape."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("out", type=Path)
    ap.add_argument("--shape", choices=SHAPES, required=True)
    ap.add_argument("--entries", type=int, default=20_000, help="about how many entries")
    ap.add_argument("--copies", type=int, help="copies: how many (default: from --entries)")
    ap.add_argument("--source", type=Path, default=CORPUS_TOOLS, help="copies: the session")
    args = ap.parse_args(argv)
    if args.shape == "copies" and args.copies:
        count = write_copies(args.out, args.source, args.copies)
    else:
        count = write_shape(args.out, args.shape, args.entries, args.source)
    print(f"{args.out}: {count} entries", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
