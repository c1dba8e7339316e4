"""Provides what a subagent call of pi-subagents started: its children, read from the call's
arguments and result, and their session files found on this machine.

pi-subagents (npm ``pi-subagents``, tool ``subagent``) writes a fresh child at
``<parent stem>/<dir>/run-<i>/session.jsonl`` (no link in its header) and a fork child
(``context: "fork"``) at ``<parent stem>/forks/<ts>_<id>.jsonl`` (``parentSession`` in its
header, the parent's entries copied). The result's ``details.results[i]`` names each child's
``sessionFile`` by an absolute path, which may not exist where the files were copied: the part
of it below the parent's own folder is looked for there. A failed call has empty ``details``:
its child is found by the run id its text names. Nothing here raises on a shape it does not
know (a newer pi-subagents): unknown shapes give no rows.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from piview.model.names import SUBAGENT_TOOLS
from piview.model.types import MessageEntry, TextContent, ToolResultMessage

__all__ = ["SUBAGENT_TOOLS", "CallSite", "ChildRun", "call_runs", "child_runs", "locate"]


_RUN_ID = re.compile(r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})_")
"""A run id as pi-subagents' artifact names start with it (``<runId>_<agent>…``)."""


@dataclass(frozen=True, slots=True)
class ChildRun:
    """One child run of a subagent call, as the call's arguments and result tell it."""

    agent: str | None
    task: str | None
    status: str
    """``"ok"``, ``"failed"`` or ``"running"`` (no result yet)."""
    exit_code: int | None = None
    turns: int | None = None
    cost: float | None = None
    tokens: int | None = None
    """Input, output and cache tokens, as the result counts them."""
    declared: str | None = None
    """The child's ``sessionFile`` as written (an absolute path of the machine that ran it)."""
    run_id: str | None = None
    key: str | None = None
    """The step's key in a workflow (``runs.run(key, …)``)."""
    context: str | None = None
    """``"fresh"`` or ``"fork"``."""
    error: str | None = None
    output: str | None = None
    """The child's final answer, when the result carries it."""


def _str(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _num(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _tokens(usage: Mapping[str, Any]) -> int | None:
    parts = [_int(usage.get(k)) for k in ("input", "output", "cacheRead", "cacheWrite")]
    known = [p for p in parts if p is not None]
    return sum(known) if known else None


def _task_of(result: Mapping[str, Any], args: Mapping[str, Any], single: bool) -> str | None:
    task = _str(result.get("task"))
    if task is None or task == "[prompt redacted]":  # the artifact's audit copy hides it
        name = _str(result.get("sessionName"))
        agent = _str(result.get("agent"))
        if single and _str(args.get("task")):
            return _str(args.get("task"))
        if name and agent and name.startswith(agent + ": "):
            return name[len(agent) + 2 :]
        return name or task
    return task


def child_runs(args: Any, details: Any, is_error: bool, text: str | None) -> list[ChildRun]:
    """The children of one ``subagent`` call: one row per ``details.results`` item; for a
    failed call without details, one row from its arguments (``[]`` when it names no agent,
    for a status/resume/steer action, or for a shape this does not know)."""
    try:
        return _child_runs(args, details, is_error, text)
    except Exception:  # noqa: BLE001 - a newer pi-subagents never breaks a card or a column
        return []


def _child_runs(args: Any, details: Any, is_error: bool, text: str | None) -> list[ChildRun]:
    a: Mapping[str, Any] = args if isinstance(args, Mapping) else {}
    d: Mapping[str, Any] = details if isinstance(details, Mapping) else {}
    results = d.get("results")
    runs: list[ChildRun] = []
    if isinstance(results, list) and results:
        single = d.get("mode") == "single"
        run_ids = _workflow_run_ids(d)
        for k, r in enumerate(results):
            if not isinstance(r, Mapping):
                continue
            usage = r.get("usage") if isinstance(r.get("usage"), Mapping) else {}
            assert isinstance(usage, Mapping)
            code = _int(r.get("exitCode"))
            err = _str(r.get("error")) or _str(r.get("errorMessage"))
            status = "ok" if code == 0 and not err else "failed" if code is not None else "running"
            run_id = _str(r.get("runId"))
            if run_id is None and single and len(results) == 1:
                run_id = _str(d.get("runId"))
            if run_id is None and k < len(run_ids):
                run_id = run_ids[k]
            runs.append(
                ChildRun(
                    agent=_str(r.get("agent")),
                    task=_task_of(r, a, single),
                    status=status,
                    exit_code=code,
                    turns=_int(usage.get("turns")),
                    cost=_num(usage.get("cost")),
                    tokens=_tokens(usage),
                    declared=_str(r.get("sessionFile")),
                    run_id=run_id,
                    key=_str(r.get("workflowKey")),
                    context=_str(r.get("context")),
                    error=err,
                    output=_str(r.get("finalOutput")),
                )
            )
        return runs
    agent = _str(a.get("agent"))
    if agent is None or _str(a.get("action")) not in (None, "run"):
        return []
    first = (text or "").strip().splitlines()
    match = _RUN_ID.search(text or "")
    return [
        ChildRun(
            agent=agent,
            task=_str(a.get("task")),
            status="failed" if is_error else "running",
            run_id=match.group(1) if match else None,
            context=_str(a.get("context")),
            error=_first_error(first) if is_error else None,
        )
    ]


def _workflow_run_ids(details: Mapping[str, Any]) -> list[str]:
    wc = details.get("workflowChildren")
    children = wc.get("children") if isinstance(wc, Mapping) else None
    if not isinstance(children, list):
        return []
    return [
        rid
        for c in children
        if isinstance(c, Mapping) and (rid := _str(c.get("runId"))) is not None
    ]


def _first_error(lines: Sequence[str]) -> str | None:
    """The first line that says what went wrong (not pi-subagents' fan-out counter)."""
    for line in lines:
        s = line.strip()
        if s and not s.startswith("Run fan-out:"):
            return s
    return None


def own_folder(parent: str | os.PathLike[str]) -> Path:
    """The folder named after session file ``parent``, where its children are written."""
    return Path(parent).with_suffix("")


def locate(parent: str | os.PathLike[str], run: ChildRun) -> Path | None:
    """The child's session file on this machine, else None: the declared path's part below the
    parent's own folder found there, else the declared path, else a ``run-*/session.jsonl`` in
    the folder named by the run id."""
    folder = own_folder(parent)
    declared = run.declared
    if declared:
        # The copy beside this parent first: the absolute path may be another machine's, or
        # the original of a copied folder.
        p = Path(declared)
        parts = p.parts
        stem = folder.name
        if stem in parts:
            below = parts[len(parts) - parts[::-1].index(stem) :]
            candidate = folder.joinpath(*below) if below else None
            if candidate is not None and candidate.is_file():
                return candidate
        try:
            if p.is_file():
                return p
        except OSError:
            pass
    if run.run_id:
        base = folder / run.run_id
        try:
            hits = sorted(base.glob("run-*/session.jsonl"))
        except OSError:
            hits = []
        if hits:
            return hits[0]
    return None


def relative_key(parent: str | os.PathLike[str], child: str | os.PathLike[str]) -> str | None:
    """What a parent's result names a child by, below the parent's own folder: the child's
    first folder there (``<runId>`` or a workflow's route id), or ``forks/<name>``."""
    folder = own_folder(parent)
    try:
        rel = Path(child).resolve().relative_to(folder.resolve())
    except (ValueError, OSError):
        return None
    parts = rel.parts
    if not parts:
        return None
    if parts[0] == "forks" and len(parts) > 1:
        return f"forks/{parts[1]}"
    return parts[0]


@dataclass(frozen=True, slots=True)
class CallSite:
    """Where a child's parent started it: the tool call's id and its result's entry id."""

    tool_call_id: str
    result_entry_id: str | None


def find_call_site(
    parent: str | os.PathLike[str], child: str | os.PathLike[str]
) -> CallSite | None:
    """The ``subagent`` call in file ``parent`` whose result names ``child`` (by its path
    below the parent's folder, or its run id), found with a byte search of the lines."""
    key = relative_key(parent, child)
    if key is None:
        return None
    needles = [key.encode()]
    if "/" not in key:
        needles.append(f"{key}_".encode())  # the run id in an artifact path (failed calls)
    try:
        f = open(parent, "rb")  # noqa: SIM115 - read in a loop below
    except OSError:
        return None
    with f:
        for line in _lines(f, needles):
            if b'"toolResult"' not in line:
                continue
            try:
                obj = msgspec.json.decode(line)
            except msgspec.DecodeError:
                continue
            msg = obj.get("message") if isinstance(obj, dict) else None
            if not isinstance(msg, dict) or msg.get("role") != "toolResult":
                continue
            if msg.get("toolName") not in SUBAGENT_TOOLS:
                continue
            call = _str(msg.get("toolCallId"))
            if call:
                return CallSite(call, _str(obj.get("id")))
    return None


def _lines(f: Any, needles: Sequence[bytes]) -> Iterator[bytes]:
    """The lines of ``f`` that hold one of ``needles`` (a block without any is skipped whole)."""
    rest = b""
    while block := f.read(1 << 20):
        chunk = rest + block
        cut = chunk.rfind(b"\n") + 1
        whole, rest = chunk[:cut], chunk[cut:]
        if any(n in whole for n in needles):
            yield from (line for line in whole.split(b"\n") if any(n in line for n in needles))
    if any(n in rest for n in needles):  # a last line without its newline
        yield rest


def call_runs(session: Any, arguments: Any, results: Sequence[int]) -> list[ChildRun]:
    """The child runs of a ``subagent`` call of ``session`` called with ``arguments`` and
    answered by the result entries ``results`` (the first one's details, any one's error,
    their text)."""
    msgs = []
    for r in results:
        entry = session.entry(r)
        msg = entry.message if isinstance(entry, MessageEntry) else None
        if isinstance(msg, ToolResultMessage):
            msgs.append(msg)
    text = "\n".join(b.text for m in msgs for b in m.content if isinstance(b, TextContent))
    details = msgs[0].details if msgs else None
    return child_runs(arguments, details, any(m.is_error for m in msgs), text)


def call_children(session: Any, name: str, arguments: Any, result: int | None) -> list[Path | None]:
    """The child session files of one tool call of ``session`` (its result entry index
    ``result``), None for each child not on this machine; ``[]`` for other tools."""
    if name not in SUBAGENT_TOOLS or not session.path:
        return []
    runs = call_runs(session, arguments, [] if result is None else [result])
    return [locate(session.path, r) for r in runs]


def short_child(parent: str | os.PathLike[str], child: Path | None) -> str:
    """A child's name in a column: its run folder's first 8 characters, or ``missing``."""
    if child is None:
        return "missing"
    key = relative_key(parent, child) or child.name
    return key.removeprefix("forks/")[:8]
