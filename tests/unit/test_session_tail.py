"""A big file's tail (``load_tail``): where its window starts, its side notes, and that the
window is read once."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from piview.model import load_session
from piview.model import openclaw as oc
from piview.model.session_tail import load_tail
from tests.conftest import fixture

HEADER = '{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00Z","cwd":"/"}'


def _write(path: Path, sizes: list[int]) -> bytes:
    lines = [HEADER]
    parent = None
    for k, size in enumerate(sizes):
        entry = {
            "type": "message",
            "id": f"e{k:05d}",
            "parentId": parent,
            "timestamp": "2025-01-01T00:00:00Z",
            "message": {"role": "user", "content": "x" * size},
        }
        lines.append(json.dumps(entry))
        parent = entry["id"]
    data = ("\n".join(lines) + "\n").encode()
    path.write_bytes(data)
    return data


def _expected_start(data: bytes, max_bytes: int) -> int:
    # As load_tail found it before: the first newline in the window's first megabyte.
    start = max(0, len(data) - max_bytes)
    window = data[start : start + min(max_bytes, 1024 * 1024)]
    cut = window.find(b"\n")
    return start + cut + 1 if cut >= 0 else len(data)


@pytest.mark.parametrize("long_line", [10, 40_000, 300_000])
def test_the_window_starts_at_the_first_line_after_its_cut(tmp_path: Path, long_line: int) -> None:
    sizes = [200] * 300 + [long_line] + [200] * 300
    data = _write(tmp_path / "s.jsonl", sizes)
    offsets = [0] + [i + 1 for i, b in enumerate(data) if b == 0x0A][:-1]
    for max_bytes in range(1000, len(data), max(1, len(data) // 97)):
        tail = load_tail(tmp_path / "s.jsonl", max_bytes=max_bytes)
        expected = _expected_start(data, max_bytes)
        assert tail.partial
        assert list(tail.index.offsets) == [o for o in offsets if o >= expected][: len(tail)]
        if len(tail):
            assert tail.index.offsets[0] == expected


def test_a_window_with_no_newline_in_its_first_megabyte_is_empty(tmp_path: Path) -> None:
    data = _write(tmp_path / "s.jsonl", [100, 3 * 1024 * 1024])
    tail = load_tail(tmp_path / "s.jsonl", max_bytes=2 * 1024 * 1024)
    assert _expected_start(data, 2 * 1024 * 1024) == len(data)
    assert tail.partial and len(tail) == 0 and tail.header is not None


def test_a_tails_side_notes_are_those_its_window_holds() -> None:
    full = load_session(fixture("openclaw_side_notes.jsonl"))
    size = os.path.getsize(fixture("openclaw_side_notes.jsonl"))
    for max_bytes in range(50, size + 1, 37):
        tail = load_tail(fixture("openclaw_side_notes.jsonl"), max_bytes=max_bytes)
        index = tail.index
        # What the file's bytes say of the window (read again, as the tail did before).
        again = oc.side_notes(tail.pread, index.offsets, index.lengths)
        assert tail.tree.side == frozenset(again)
        assert {tail.ids[i] for i in tail.tree.side} <= {full.ids[i] for i in full.tree.side}


def test_the_window_is_read_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The window (1 MB) was read three times: for its first newline, for its lines, and
    # again for OpenClaw's side notes; now only its lines are (the header, the line after
    # the cut and the last entries are a few kilobytes).
    _write(tmp_path / "s.jsonl", [400] * 6000)
    read: list[int] = []
    pread = os.pread

    def counting(fd: int, n: int, offset: int) -> bytes:
        data = pread(fd, n, offset)
        read.append(len(data))
        return data

    monkeypatch.setattr(os, "pread", counting)
    tail = load_tail(tmp_path / "s.jsonl", max_bytes=1024 * 1024)
    assert tail.partial and len(tail) > 1000
    assert sum(read) < 200 * 1024, read
