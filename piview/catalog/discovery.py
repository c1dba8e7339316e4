"""Provides session discovery: where Pi keeps sessions, and which files are sessions.
Session files are only ever read."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

HEAD_BYTES = 64 * 1024
"""How much of a file's head is read for its header and first messages."""


def sessions_dir(override: str | os.PathLike[str] | None = None) -> Path:
    """``override``, else ``$PI_CODING_AGENT_DIR/sessions``, else ``~/.pi/agent/sessions``."""
    if override:
        return Path(override).expanduser()
    agent = os.environ.get("PI_CODING_AGENT_DIR")
    if agent:
        return Path(agent).expanduser() / "sessions"
    return Path.home() / ".pi" / "agent" / "sessions"


def agent_dir() -> Path:
    """``$PI_CODING_AGENT_DIR``, else ``~/.pi/agent``: Pi's settings and ``models.json``."""
    agent = os.environ.get("PI_CODING_AGENT_DIR")
    return Path(agent).expanduser() if agent else Path.home() / ".pi" / "agent"


def cache_dir() -> Path:
    """``$XDG_CACHE_HOME/piview`` (``~/.cache/piview`` by default)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "piview"


def find_session_files(root: Path) -> list[Path]:
    """Every ``.jsonl`` file in ``root`` and its project folders, newest modified first."""
    if not root.is_dir():
        return []
    files: list[tuple[float, Path]] = []
    for path in walk_jsonl(root, depth=2):
        try:
            files.append((path.stat().st_mtime, path))
        except OSError:
            continue
    return [p for _, p in sorted(files, key=lambda t: (-t[0], str(t[1])))]


def walk_jsonl(root: Path, depth: int) -> Iterator[Path]:
    """The ``.jsonl`` files in ``root`` and in its folders down to ``depth`` levels (in
    the order the folders list them; an unreadable folder or entry is passed over)."""
    try:
        entries = list(os.scandir(root))
    except OSError:
        return
    for e in entries:
        try:
            if e.is_file() and e.name.endswith(".jsonl"):
                yield Path(e.path)
            elif depth > 1 and e.is_dir():
                yield from walk_jsonl(Path(e.path), depth - 1)
        except OSError:
            continue


def read_json_line(line: bytes) -> Any:
    """One JSON line decoded, or ``None`` when it is not JSON."""
    # Imported on first use: the picker's first rows from the summary cache need no decoder.
    import msgspec

    try:
        return msgspec.json.decode(line)
    except msgspec.DecodeError:
        return None


def resolve_session_id(prefix: str, root: Path) -> list[Path]:
    """Files whose header id starts with ``prefix`` (reads only each file's first line)."""
    out: list[Path] = []
    for path in find_session_files(root):
        try:
            with open(path, "rb") as f:
                first = f.readline(HEAD_BYTES).removeprefix(b"\xef\xbb\xbf")
        except OSError:
            continue
        obj = read_json_line(first.strip())
        if (
            isinstance(obj, dict)
            and isinstance(obj.get("id"), str)
            and obj["id"].startswith(prefix)
        ):
            out.append(path)
    return out
