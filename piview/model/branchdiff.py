"""Provides the comparison of two branches: what each did after their fork (prompts, tool
calls, files, outcome and totals), for the comparison screen and ``piview diff``."""

from __future__ import annotations

import json
import posixpath
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from piview.model.context import content_text
from piview.model.tools import ToolRow, tool_rows
from piview.model.tree import parse_iso_ms
from piview.model.types import (
    AssistantMessage,
    MessageEntry,
    ToolResultMessage,
    UserMessage,
)
from piview.model.usage import UsageTotals, model_label, sum_usage

if TYPE_CHECKING:
    from piview.model.session import Session

ProblemKind = Literal["tool_error", "error", "aborted"]


@dataclass(slots=True)
class Prompt:
    """A user prompt on one side."""

    entry: int
    text: str


@dataclass(slots=True)
class Call:
    """A tool call on one side."""

    entry: int
    """The assistant message that made it."""
    part: int
    """Block index of the call in that message."""
    call_id: str
    name: str
    arguments: Any
    status: str
    """As in :class:`~piview.model.tools.ToolRow`: ok, error, no_result."""


@dataclass(slots=True)
class Problem:
    """An error or an aborted turn on one side."""

    entry: int
    kind: ProblemKind
    text: str
    """The error message, or the tool's name and first line of output."""


@dataclass(slots=True)
class SideFiles:
    """The files the built-in tools touched on one side, each in order of first touch."""

    read: list[str] = field(default_factory=list)
    edited: list[str] = field(default_factory=list)
    written: list[str] = field(default_factory=list)
    last_edit: dict[str, tuple[int, int, str | None, Any]] = field(default_factory=dict)
    """Per edited file: ``(entry, part, details.diff or None, arguments)`` of its last edit."""
    touched_at: dict[str, tuple[int, int]] = field(default_factory=dict)
    """Per file: ``(entry, part)`` of the call that touched it first."""

    def all(self) -> set[str]:
        """Every file touched (read, edited or written)."""
        return set(self.read) | set(self.edited) | set(self.written)


@dataclass(slots=True)
class FileDiff:
    """A file edited on both sides: the last edit of each."""

    path: str
    a_entry: int
    a_part: int
    a_diff: str | None
    a_args: Any
    b_entry: int
    b_part: int
    b_diff: str | None
    b_args: Any


@dataclass(slots=True)
class Side:
    """What one branch did after the fork."""

    leaf: int
    entries: list[int]
    """The side's entries, after the fork down to the leaf."""
    prompts: list[Prompt]
    calls: list[Call]
    tools: dict[str, int]
    """Calls per tool name, most used first."""
    only_here: list[Call]
    """Calls the other side did not make (same name and arguments), counted with
    multiplicity: a call made twice here and once there leaves one here."""
    files: SideFiles
    problems: list[Problem]
    usage: UsageTotals
    turns: int
    """Assistant messages."""
    models: list[str]
    """``provider/model`` of the assistant messages, in order of first use."""
    duration_ms: float | None
    """Newest timestamp on the side minus the fork's (timestamps may go backwards)."""
    last_text: str | None
    last_text_entry: int | None
    stop_reason: str | None
    """Of the side's last assistant message."""
    last_assistant: int | None

    def as_json(self, session: Session) -> dict[str, Any]:
        """The side with the key names of ``piview diff --json``."""
        ids = session.ids
        return {
            "leaf": ids[self.leaf],
            "entries": len(self.entries),
            "prompts": [{"entry_id": ids[p.entry], "text": p.text} for p in self.prompts],
            "tools": dict(self.tools),
            "calls_only_here": [
                {
                    "entry_id": ids[c.entry],
                    "call_id": c.call_id,
                    "name": c.name,
                    "arguments": c.arguments,
                    "status": c.status,
                }
                for c in self.only_here
            ],
            "files": {
                "read": list(self.files.read),
                "edited": list(self.files.edited),
                "written": list(self.files.written),
            },
            "errors": [
                {"entry_id": ids[p.entry], "kind": p.kind, "text": p.text} for p in self.problems
            ],
            "usage": self.usage.as_json(),
            "turns": self.turns,
            "duration_ms": self.duration_ms,
            "models": list(self.models),
            "stop_reason": self.stop_reason,
            "last_text": self.last_text,
        }


@dataclass(slots=True)
class BranchDiff:
    """Two branches compared from their common ancestor."""

    ancestor: int | None
    """The last entry both branches share; ``None`` when they start from different roots."""
    ancestor_prompt: Prompt | None
    """The last user prompt at or before the ancestor."""
    a: Side
    b: Side
    both_files: set[str]
    """Files touched on both sides."""
    both_edited: list[FileDiff]
    """Files edited on both sides, in the order side A first edited them."""

    def as_json(self, session: Session) -> dict[str, Any]:
        """The comparison as ``piview diff --json`` prints it."""
        anc = self.ancestor
        return {
            "ancestor": session.ids[anc] if anc is not None else None,
            "a": self.a.as_json(session),
            "b": self.b.as_json(session),
        }


def compare_branches(session: Session, leaf_a: int, leaf_b: int) -> BranchDiff:
    """Compare the branch from the root to ``leaf_a`` with the one to ``leaf_b`` (either
    may be any entry)."""
    tree = session.tree
    path_a, path_b = tree.path(leaf_a), tree.path(leaf_b)
    k = 0
    for x, y in zip(path_a, path_b, strict=False):
        if x != y:
            break
        k += 1
    ancestor = path_a[k - 1] if k else None
    fork_ms = _fork_time(session, path_a[:k])
    cwd = session.header.cwd if session.header is not None else None
    a = _side(session, leaf_a, path_a[k:], fork_ms, cwd)
    b = _side(session, leaf_b, path_b[k:], fork_ms, cwd)
    _match_calls(a, b)
    both = a.files.all() & b.files.all()
    diffs = []
    for path in a.files.edited:
        if path in b.files.last_edit:
            diffs.append(FileDiff(path, *a.files.last_edit[path], *b.files.last_edit[path]))
    return BranchDiff(
        ancestor=ancestor,
        ancestor_prompt=_last_prompt(session, path_a[:k]),
        a=a,
        b=b,
        both_files=both,
        both_edited=diffs,
    )


# ----------------------------------------------------------------------------- one side


def _fork_time(session: Session, common: list[int]) -> float | None:
    """The fork's time: the ancestor's timestamp, else the newest valid one before it."""
    store = session.nodes
    for i in reversed(common):
        ms = parse_iso_ms(store.timestamp(i))
        if ms is not None:
            return ms
    return None


def _last_prompt(session: Session, common: list[int]) -> Prompt | None:
    store = session.nodes
    for i in reversed(common):
        if store.role(i) == "user":
            return Prompt(i, _user_text(session, i))
    return None


def _side(
    session: Session, leaf: int, entries: list[int], fork_ms: float | None, cwd: str | None
) -> Side:
    store = session.nodes
    prompts: list[Prompt] = []
    problems: list[Problem] = []
    models: dict[str, None] = {}
    turns = 0
    newest: float | None = None
    oldest: float | None = None
    last_assistant: int | None = None
    stop_reason: str | None = None
    for i in entries:
        ms = parse_iso_ms(store.timestamp(i))
        if ms is not None:
            newest = ms if newest is None else max(newest, ms)
            oldest = ms if oldest is None else min(oldest, ms)
        role = store.role(i)
        if role == "user":
            prompts.append(Prompt(i, _user_text(session, i)))
        elif role == "assistant":
            turns += 1
            last_assistant = i
            stop_reason = store.stop_reason(i) or None
            models.setdefault(model_label(*store.model(i)), None)
            if stop_reason in ("error", "aborted"):
                problems.append(_turn_problem(session, i, stop_reason))
        elif role == "toolResult" and store.is_error(i):
            problems.append(Problem(i, "tool_error", _result_problem(session, i)))
    rows = [r for r in tool_rows(session, entries) if r.part >= 0]
    calls = [Call(r.entry, r.part, r.call_id, r.name, r.arguments, r.status) for r in rows]
    counts = Counter(c.name for c in calls)
    start = fork_ms if fork_ms is not None else oldest
    if not entries and fork_ms is not None:
        newest = fork_ms  # nothing happened after the fork
    duration = None if newest is None or start is None else round(max(0.0, newest - start), 3)
    text, text_entry = _last_text(session, entries)
    return Side(
        leaf=leaf,
        entries=entries,
        prompts=prompts,
        calls=calls,
        tools=dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))),
        only_here=[],
        files=_files(session, rows, cwd),
        problems=problems,
        usage=sum_usage(store, entries),
        turns=turns,
        models=list(models),
        duration_ms=duration,
        last_text=text,
        last_text_entry=text_entry,
        stop_reason=stop_reason,
        last_assistant=last_assistant,
    )


def _match_calls(a: Side, b: Side) -> None:
    """Fill each side's ``only_here``: its calls left once the other side's equal calls are
    matched one for one."""

    def key(c: Call) -> tuple[str, str]:
        try:
            args = json.dumps(c.arguments, sort_keys=True, ensure_ascii=False)
        except (TypeError, ValueError):
            args = repr(c.arguments)
        return c.name, args

    ka, kb = [key(c) for c in a.calls], [key(c) for c in b.calls]
    for side, own, other in ((a, ka, kb), (b, kb, ka)):
        left = Counter(other)
        only = []
        for c, k in zip(side.calls, own, strict=True):
            if left[k] > 0:
                left[k] -= 1
            else:
                only.append(c)
        side.only_here = only


def _message(session: Session, i: int) -> Any:
    entry = session.entry(i)
    return entry.message if isinstance(entry, MessageEntry) else None


def _user_text(session: Session, i: int) -> str:
    msg = _message(session, i)
    return content_text(msg.content).strip() if isinstance(msg, UserMessage) else ""


def _turn_problem(session: Session, i: int, reason: str) -> Problem:
    msg = _message(session, i)
    text = ""
    if isinstance(msg, AssistantMessage):
        text = (msg.error_message or "").strip()
    kind: ProblemKind = "aborted" if reason == "aborted" else "error"
    return Problem(i, kind, text or reason)


def _result_problem(session: Session, i: int) -> str:
    msg = _message(session, i)
    if not isinstance(msg, ToolResultMessage):
        return "error"
    first = content_text(msg.content).strip().partition("\n")[0]
    return f"{msg.tool_name or '?'}: {first}" if first else msg.tool_name or "error"


def _last_text(session: Session, entries: list[int]) -> tuple[str | None, int | None]:
    """The text of the side's last assistant message that has any (read from the end)."""
    store = session.nodes
    for i in reversed(entries):
        if store.role(i) != "assistant":
            continue
        msg = _message(session, i)
        if isinstance(msg, AssistantMessage):
            text = content_text(msg.content).strip()
            if text:
                return text, i
    return None, None


# ----------------------------------------------------------------------------- files


def _path_of(args: object, cwd: str | None) -> str | None:
    """The file a built-in tool's arguments name (``file_path`` is an old alias), relative to
    the session's folder when under it, so that ``/repo/a.py`` and ``a.py`` are one file."""
    if not isinstance(args, dict):
        return None
    raw = args.get("path", args.get("file_path"))
    if not isinstance(raw, str) or not raw.strip():
        return None
    path = posixpath.normpath(raw.strip())
    if cwd and path.startswith(cwd.rstrip("/") + "/"):
        path = path[len(cwd.rstrip("/")) + 1 :]
    return path


def _files(session: Session, rows: list[ToolRow], cwd: str | None) -> SideFiles:
    """Files read, edited and written by the calls that succeeded (a failed edit changed
    nothing)."""
    out = SideFiles()
    seen: dict[str, set[str]] = {"read": set(), "edit": set(), "write": set()}
    lists = {"read": out.read, "edit": out.edited, "write": out.written}
    for r in rows:
        if r.name not in lists or r.status != "ok":
            continue
        path = _path_of(r.arguments, cwd)
        if path is None:
            continue
        out.touched_at.setdefault(path, (r.entry, r.part))
        if path not in seen[r.name]:
            seen[r.name].add(path)
            lists[r.name].append(path)
        if r.name == "edit":
            out.last_edit[path] = (r.entry, r.part, _diff_of(session, r.result), r.arguments)
    return out


def _diff_of(session: Session, result: int | None) -> str | None:
    """``details.diff`` of an edit's result (Pi's numbered diff), if it has one."""
    if result is None:
        return None
    msg = _message(session, result)
    details = msg.details if isinstance(msg, ToolResultMessage) else None
    diff = details.get("diff") if isinstance(details, dict) else None
    return diff if isinstance(diff, str) else None
