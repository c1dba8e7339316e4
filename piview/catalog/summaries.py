"""Provides the summary of each session file the picker lists, and their on-disk cache.

A *quick* summary reads only the head and the tail of a file; a *full* one indexes it and is
cached, keyed by path, size and modification time, so that a second start is instant.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from piview.catalog.discovery import HEAD_BYTES, cache_dir, read_json_line
from piview.catalog.hosts import Found
from piview.model.names import subagent_name_parts
from piview.model.source import parse_sqlite_ref, peek_sqlite_session

_TAIL = 64 * 1024
_VERSION = 4
"""Of the cache file; summaries of another version are indexed again."""


@dataclass(slots=True)
class SessionSummary:
    """What the picker shows of one session file."""

    path: str
    size: int
    mtime: float
    session_id: str | None = None
    cwd: str | None = None
    created: str | None = None
    name: str | None = None
    first_message: str | None = None
    last_message: str | None = None
    """The last assistant text seen (in the file's tail), for the picker's preview."""
    models: list[str] = field(default_factory=list)
    """``provider/model`` of the assistant turns seen (all of them in a full summary)."""
    entries: int | None = None
    """None until the full summary is known."""
    leaves: int | None = None
    """How many leaves (branch ends) the tree has; None until the full summary is known."""
    cost: float | None = None
    complete: bool = False
    """True for a full summary (every line read)."""
    host_title: str | None = None
    """oh-my-pi's title: its title slot (line 1), else its header's ``title``."""
    host: str = "pi"
    """Which host wrote it: ``pi``, ``omp`` (oh-my-pi) or ``openclaw``."""
    group: str | None = None
    """The OpenClaw agent it belongs to (its cwd is the gateway's, not a project)."""
    parent: str | None = None
    """The session a subagent's transcript is nested under."""
    profile: str | None = None
    """oh-my-pi's profile."""
    updated: float | None = None
    """OpenClaw's record of the last activity (``sessions.json``), when it has one."""

    @property
    def title(self) -> str:
        """Name, else oh-my-pi's title, else first user message, else the file name; a
        pi-subagents child's generated name (``subagent-<agent>-<runId>-<n>``) gives way to
        ``<agent>: <its task>``."""
        name = self.name
        agent = subagent_name_parts(name)[0]
        if agent and self.first_message:
            return f"{agent}: {self.first_message}"
        return name or self.host_title or self.first_message or Path(self.path).name

    @property
    def activity(self) -> float:
        """When the session was last active: the host's record, else the file's time."""
        return self.updated or self.mtime

    @property
    def project(self) -> str:
        """What the picker groups by: the agent of an OpenClaw session, else its folder."""
        if self.host == "openclaw":
            return f"agent:{self.group}" if self.group else "openclaw"
        return self.cwd or ""


def _lines(data: bytes) -> list[bytes]:
    return [ln.strip() for ln in data.split(b"\n") if ln.strip()]


def _user_text(obj: Any, role: str = "user") -> str | None:
    if not isinstance(obj, dict) or obj.get("type") != "message":
        return None
    msg = obj.get("message")
    if not isinstance(msg, dict) or msg.get("role") != role:
        return None
    content = msg.get("content")
    if isinstance(content, str):
        text = content
    elif isinstance(content, list):
        text = " ".join(
            b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"
        )
    else:
        return None
    text = " ".join(str(text).split())
    return text[:200] or None


def _head_tail(path: Path) -> tuple[int, float, bytes, bytes]:
    """Size, modification time, the first ``HEAD_BYTES`` and the last ``_TAIL`` bytes (no tail
    when the file is short); for a database's session, its first and last events."""
    ref = parse_sqlite_ref(path)
    if ref is not None:
        head, tail = peek_sqlite_session(ref)
        return len(head) + len(tail), 0.0, head, tail
    st = path.stat()
    fd = os.open(path, os.O_RDONLY)
    try:
        head = os.pread(fd, HEAD_BYTES, 0)
        size = st.st_size
        tail = os.pread(fd, _TAIL, max(0, size - _TAIL)) if size > HEAD_BYTES else b""
    finally:
        os.close(fd)
    return size, st.st_mtime, head, tail


_STR, _NUM, _INT = (str,), (int, float), (int,)
_OPT_STR = (str, type(None))
_RECORD_TYPES: dict[str, tuple[type, ...]] = {
    "path": _STR,
    "size": _INT,
    "mtime": _NUM,
    "entries": (int, type(None)),
    "leaves": (int, type(None)),
    "cost": (int, float, type(None)),
    "complete": (bool,),
    "host": _STR,
    "updated": (int, float, type(None)),
    "models": (list,),
}
"""The types of a cached summary's fields (every other field: a string or None). Checked by
hand, not by msgspec: the picker's first rows come from this cache, before any decoder."""


def summary_from_record(record: dict[str, object]) -> SessionSummary | None:
    """The summary a cache record holds, or None when a field is missing or of the wrong type
    (a damaged or foreign cache: the file is summarised again)."""
    kwargs: dict[str, object] = {}
    for f in fields(SessionSummary):
        if f.name not in record:
            if f.name in ("path", "size", "mtime"):
                return None
            continue
        value = record[f.name]
        want = _RECORD_TYPES.get(f.name, _OPT_STR)
        if not isinstance(value, want) or (isinstance(value, bool) and bool not in want):
            return None
        if f.name == "models" and not all(isinstance(m, str) for m in value):  # type: ignore[attr-defined]
            return None
        kwargs[f.name] = value
    return SessionSummary(**kwargs)  # type: ignore[arg-type]


def quick_summary(path: Path) -> SessionSummary:
    """Summary from the head and the tail of the file (no entry count or cost)."""
    size, mtime, head, tail = _head_tail(path)
    out = SessionSummary(str(path), size, mtime)
    head_lines = _lines(head.removeprefix(b"\xef\xbb\xbf"))
    if head_lines:
        first = read_json_line(head_lines[0])
        if isinstance(first, dict) and first.get("type") == "title":
            # oh-my-pi's title slot: the header is the next line.
            out.host_title = _text(first.get("title"))
            head_lines = head_lines[1:]
            first = read_json_line(head_lines[0]) if head_lines else None
        if isinstance(first, dict) and first.get("type") == "session":
            out.host_title = out.host_title or _text(first.get("title"))
            out.session_id = first.get("id") if isinstance(first.get("id"), str) else None
            out.cwd = first.get("cwd") if isinstance(first.get("cwd"), str) else None
            out.created = (
                first.get("timestamp") if isinstance(first.get("timestamp"), str) else None
            )
    for line in head_lines[1:]:
        if b'"user"' in line:
            text = _user_text(read_json_line(line))
            if text:
                out.first_message = text
                break
    tail_lines = _lines(tail) if tail else head_lines
    for line in reversed(tail_lines):
        if b'"session_info"' in line:
            obj = read_json_line(line)
            if isinstance(obj, dict) and obj.get("type") == "session_info":
                name = obj.get("name")
                out.name = (name.strip() or None) if isinstance(name, str) else None
                break
    models: list[str] = []
    for line in reversed(tail_lines):
        if b'"assistant"' not in line:
            continue
        obj = read_json_line(line)
        if out.last_message is None:
            out.last_message = _user_text(obj, "assistant")
        model = _model_of(obj)
        if model and model not in models:
            models.append(model)
    out.models = models[::-1]
    return out


def _text(value: object) -> str | None:
    if not isinstance(value, str):
        return None
    return " ".join(value.split())[:200] or None


def _model_of(obj: Any) -> str | None:
    msg = obj.get("message") if isinstance(obj, dict) else None
    if not isinstance(msg, dict) or msg.get("role") != "assistant":
        return None
    provider, model = msg.get("provider"), msg.get("model")
    if not isinstance(model, str) or not model:
        return None
    return f"{provider}/{model}" if isinstance(provider, str) and provider else model


def full_summary(path: Path) -> SessionSummary:
    """Summary from indexing the whole file: exact name, entry count and total cost."""
    # Imported here: the picker's first rows (cached or quick summaries) need no decoder.
    from piview.model.session import load_session
    from piview.model.usage import sum_usage

    out = quick_summary(path)
    session = load_session(path)
    try:
        out.entries = len(session)
        out.name = session.name
        out.host_title = session.title
        out.cost = sum_usage(session.nodes, range(len(session))).cost
        out.leaves = len(session.tree.leaves())
        # The store keeps each distinct (provider, model) once: no pass over the entries.
        out.models = [
            f"{provider}/{model}" if provider else model
            for provider, model in session.nodes.model_table
            if model
        ]
        out.complete = True
    finally:
        session.close()
    return out


def apply_found(out: SessionSummary, found: Found) -> SessionSummary:
    """``out`` with what discovery found: where, which host, its agent, parent and label."""
    out.path, out.size, out.mtime = found.path, found.size, found.mtime
    out.host, out.group, out.parent = found.host, found.group, found.parent
    out.profile, out.updated = found.profile, found.updated
    out.name = out.name or found.name  # the file's own name first, then the host's label
    return out


def summarize(found: Found) -> SessionSummary:
    """:func:`quick_summary` of a session found on disk, with what its host says of it."""
    return apply_found(quick_summary(Path(found.path)), found)


def summarize_full(found: Found) -> SessionSummary:
    """:func:`full_summary` of a session found on disk, with what its host says of it."""
    return apply_found(full_summary(Path(found.path)), found)


class SummaryCache:
    """Full summaries on disk, keyed by path, size and modification time."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or cache_dir() / "sessions.json"
        self._data: dict[str, dict[str, Any]] = {}
        self._dirty = False
        try:
            raw = json.loads(self.path.read_bytes())
            if isinstance(raw, dict) and raw.get("version") == _VERSION:
                sessions = raw.get("sessions")
                if isinstance(sessions, dict):
                    self._data = {k: v for k, v in sessions.items() if isinstance(v, dict)}
        except (OSError, ValueError, RecursionError):
            pass

    def get(self, path: str | os.PathLike[str], size: int, mtime: float) -> SessionSummary | None:
        """The cached summary when the file is unchanged."""
        hit = self._data.get(os.fspath(path))
        if hit and hit.get("size") == size and hit.get("mtime") == mtime:
            # A typed decode: a record with a field of the wrong type (a damaged or foreign
            # cache) is indexed again, never handed to the picker to crash on.
            return summary_from_record(hit)
        return None

    def put(self, summary: SessionSummary) -> None:
        """Remember a full summary."""
        self._data[summary.path] = asdict(summary)
        self._dirty = True

    def save(self) -> None:
        """Write the cache (atomically); errors are ignored: a cache is optional."""
        if not self._dirty:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_suffix(".tmp")
            tmp.write_text(json.dumps({"version": _VERSION, "sessions": self._data}))
            os.replace(tmp, self.path)
            self._dirty = False
        except OSError:
            pass
