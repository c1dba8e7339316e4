"""Provides where each host of the Pi family keeps its sessions, and finding them there.

- **Pi**: ``~/.pi/agent/sessions/--<cwd>--/<time>_<id>.jsonl`` (``$PI_CODING_AGENT_DIR``).
- **oh-my-pi**: ``~/.omp/agent/sessions/<bucket>/`` and its profiles'; a subagent's transcript
  is nested under its parent's ``<parent file without .jsonl>/<id>.jsonl``.
- **OpenClaw**: ``~/.openclaw/agents/<agent>/sessions/<id>.jsonl`` (grouped by agent, since the
  header's cwd is the gateway's) and ``openclaw-agent.sqlite`` (sessions named ``DB#ID``).

Everything here only reads.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from piview.catalog.lineage import SUBAGENT_DEPTH
from piview.model.source import SqliteSourceError, list_sqlite_sessions

HOSTS = ("pi", "omp", "openclaw")
"""The hosts piview knows, in the order the picker cycles through them."""

OPENCLAW_DB = "openclaw-agent.sqlite"
_SET_ASIDE = (".reset.", ".corrupt-", ".imported-", ".deleted.")


@dataclass(frozen=True, slots=True)
class Root:
    """A folder where one host keeps sessions (``layout`` says how it is laid out)."""

    host: str
    path: Path
    profile: str | None = None
    """oh-my-pi's profile of this folder."""
    layout: str = "buckets"
    """``buckets`` (Pi, oh-my-pi: one folder per project), ``agents`` (an OpenClaw state
    folder) or ``agent`` (one OpenClaw agent's ``sessions`` folder)."""


@dataclass(frozen=True, slots=True)
class Found:
    """One session found on disk: a file, or ``DB#ID`` in an OpenClaw database."""

    path: str
    host: str
    size: int
    mtime: float
    """The file's modification time (of its newest event, for a database's session)."""
    group: str | None = None
    """The OpenClaw agent the session belongs to."""
    parent: str | None = None
    """The session a subagent's transcript is nested under."""
    name: str | None = None
    """OpenClaw's label or display name of the session."""
    updated: float | None = None
    """OpenClaw's record of the session's last activity (seconds)."""
    profile: str | None = None


def host_roots(env: Mapping[str, str] | None = None, home: Path | None = None) -> list[Root]:
    """The folders of every known host on this machine that exist (each folder once)."""
    env = os.environ if env is None else env
    home = home or Path(env.get("HOME") or Path.home())
    agent = env.get("PI_CODING_AGENT_DIR")
    roots = [
        Root("pi", Path(agent).expanduser() / "sessions" if agent else home / ".pi/agent/sessions")
    ]
    omp = home / ".omp"
    roots.append(
        Root("omp", Path(agent).expanduser() / "sessions" if agent else omp / "agent/sessions")
    )
    active = env.get("OMP_PROFILE") or env.get("PI_PROFILE")
    profiles = omp / "profiles"
    names = sorted(p.name for p in _dirs(profiles))
    if active in names:
        names.remove(active)
        names.insert(0, active)  # the active profile first
    roots += [Root("omp", profiles / n / "agent" / "sessions", profile=n) for n in names]
    xdg = env.get("XDG_DATA_HOME")
    if xdg:
        roots.append(Root("omp", Path(xdg) / "omp" / "sessions"))
    state = env.get("OPENCLAW_STATE_DIR")
    roots.append(
        Root("openclaw", Path(state).expanduser() if state else home / ".openclaw", layout="agents")
    )
    out: list[Root] = []
    seen: set[Path] = set()
    for r in roots:
        key = _real(r.path)
        if key not in seen and r.path.is_dir():
            seen.add(key)
            out.append(r)
    return out


def root_for_folder(path: Path) -> Root:
    """``--sessions DIR``: which host's layout ``DIR`` has (a Pi layout when unsure)."""
    if (path / "agents").is_dir() and any(
        (a / "sessions").is_dir() or (a / "agent" / OPENCLAW_DB).is_file()
        for a in _dirs(path / "agents")
    ):
        return Root("openclaw", path, layout="agents")
    if (path / "sessions.json").is_file() or (path.parent / "agent" / OPENCLAW_DB).is_file():
        return Root("openclaw", path, layout="agent")
    return Root("omp" if ".omp" in path.parts else "pi", path)


def discover(roots: list[Root]) -> list[Found]:
    """Every session in ``roots``, newest first (subagents right after their parent)."""
    found: list[Found] = []
    for root in roots:
        if root.layout == "agents":
            for agent in _dirs(root.path / "agents"):
                found += _openclaw_agent(
                    agent.name, agent / "sessions", agent / "agent" / OPENCLAW_DB
                )
        elif root.layout == "agent":
            agent = root.path.parent
            found += _openclaw_agent(agent.name, root.path, agent / "agent" / OPENCLAW_DB)
        else:
            found += _buckets(root)
    return _order(found)


def find_by_id(prefix: str, roots: list[Root]) -> list[str]:
    """Sessions of ``roots`` whose id starts with ``prefix`` (a file's header id, read from
    its first line; a database's session id)."""
    from piview.catalog.discovery import HEAD_BYTES, read_json_line

    out: list[str] = []
    for f in discover(roots):
        if "#" in f.path and f.path.rpartition("#")[2].startswith(prefix):
            out.append(f.path)
            continue
        try:
            with open(f.path, "rb") as fh:
                first = fh.readline(HEAD_BYTES).removeprefix(b"\xef\xbb\xbf")
        except OSError:
            continue
        obj = read_json_line(first.strip())
        sid = obj.get("id") if isinstance(obj, dict) else None
        if isinstance(sid, str) and sid.startswith(prefix):
            out.append(f.path)
    return out


def folder_name(cwd: str) -> str:
    """The last part of a folder, Windows or POSIX (``C:\\Users\\ana\\app`` → ``app``)."""
    parts = [p for p in cwd.replace("\\", "/").split("/") if p]
    return parts[-1] if parts else cwd


def _order(found: list[Found]) -> list[Found]:
    children: dict[str, list[Found]] = {}
    top: list[Found] = []
    paths = {f.path for f in found}
    for f in found:
        if f.parent is not None and f.parent in paths:
            children.setdefault(f.parent, []).append(f)
        else:
            top.append(f)

    def newest(f: Found) -> tuple[float, str]:
        return (-(f.updated or f.mtime), f.path)

    out: list[Found] = []

    def add(f: Found) -> None:
        out.append(f)
        for c in sorted(children.get(f.path, ()), key=newest):
            add(c)

    for f in sorted(top, key=newest):
        add(f)
    return out


def _buckets(root: Root) -> Iterator[Found]:
    """``root/<bucket>/*.jsonl`` (and files in ``root`` itself), with nested subagents."""
    yield from _jsonl_in(root, root.path, None, nested=False)
    for bucket in _dirs(root.path):
        yield from _jsonl_in(root, bucket, None, nested=True)


def _jsonl_in(
    root: Root, folder: Path, parent: str | None, *, nested: bool, depth: int = 0
) -> Iterator[Found]:
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    files = {e.name for e in entries if e.name.endswith(".jsonl")}
    for e in entries:
        try:
            if e.name.endswith(".jsonl") and e.is_file():
                st = e.stat()
                yield Found(
                    e.path, root.host, st.st_size, st.st_mtime, parent=parent, profile=root.profile
                )
            elif nested and e.is_dir() and f"{e.name}.jsonl" in files:
                # A subagent's folder: named as its parent session's file, without .jsonl.
                yield from _jsonl_in(root, Path(e.path), f"{e.path}.jsonl", nested=True)
            elif parent is not None and e.is_dir() and depth + 1 < SUBAGENT_DEPTH:
                # Inside a session's own folder, deeper: pi-subagents' <runId>/run-0/ and forks/.
                yield from _jsonl_in(root, Path(e.path), parent, nested=True, depth=depth + 1)
        except OSError:
            continue


def _openclaw_agent(agent: str, sessions: Path, db: Path) -> list[Found]:
    out: list[Found] = []
    meta = _sessions_json(sessions / "sessions.json")
    try:
        entries = list(os.scandir(sessions))
    except OSError:
        entries = []
    for e in entries:
        name = e.name
        if not name.endswith(".jsonl") or any(m in name for m in _SET_ASIDE):
            continue
        try:
            if not e.is_file():
                continue
            st = e.stat()
        except OSError:
            continue
        stem = name[: -len(".jsonl")]
        label, updated = meta.get(stem) or meta.get(stem.split("-topic-")[0]) or (None, None)
        out.append(Found(e.path, "openclaw", st.st_size, st.st_mtime, agent, None, label, updated))
    if db.is_file():
        try:
            infos = list_sqlite_sessions(db)
        except SqliteSourceError:
            infos = []
        for info in infos:
            out.append(
                Found(str(info.ref), "openclaw", info.size, info.updated, agent, None, info.name)
            )
    return out


def _sessions_json(path: Path) -> dict[str, tuple[str | None, float | None]]:
    """``sessionId`` → (label, last activity in seconds) from OpenClaw's ``sessions.json``."""
    try:
        raw = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return {}
    out: dict[str, tuple[str | None, float | None]] = {}
    if not isinstance(raw, dict):
        return out
    for key, v in raw.items():
        if not isinstance(v, dict) or not isinstance(v.get("sessionId"), str):
            continue
        label = next(
            (
                v[k].strip()
                for k in ("label", "displayName", "subject")
                if isinstance(v.get(k), str) and v[k].strip()
            ),
            None,
        )
        at = v.get("updatedAt")
        # Milliseconds since 1973 and before 33658: an infinite or huge time (``1e999``)
        # would overflow the picker's dates.
        updated = None
        if isinstance(at, int | float) and not isinstance(at, bool) and 1e11 < at < 1e15:
            updated = float(at) / 1000.0
        sid = v["sessionId"]
        prev = out.get(sid)
        # Several keys may share a session: the most recent record wins.
        if prev is None or (updated or 0) >= (prev[1] or 0):
            out[sid] = (label or (prev[0] if prev else None) or _key_name(str(key)), updated)
    return out


def _key_name(key: str) -> str | None:
    """``agent:main:telegram:dm:42`` → ``telegram:dm:42``; no name for the main session."""
    parts = key.split(":")
    rest = ":".join(parts[2:]) if len(parts) > 2 and parts[0] == "agent" else key
    return None if rest in ("main", "") else rest


def _dirs(path: Path) -> list[Path]:
    try:
        return sorted(Path(e.path) for e in os.scandir(path) if e.is_dir())
    except OSError:
        return []


def _real(path: Path) -> Path:
    try:
        return path.resolve()
    except OSError:
        return path
