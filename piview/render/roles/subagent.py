"""Provides the card of a pi-subagents ``subagent`` call: one row per child run (agent, task,
status, turns, cost), whether its session file is on this machine, then the call's result.

Registered as a built-in tool renderer (:data:`~piview.render.plugins.REGISTRY`); arguments or
details of a shape it does not know give the generic rendering, never an error.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text

from piview.catalog.subagents import SUBAGENT_TOOLS, ChildRun, call_runs, child_runs, locate
from piview.model.types import AssistantMessage, MessageEntry, ToolCall
from piview.render.format import fmt_cost
from piview.render.plugins import ToolCallView
from piview.render.roles._indent import indent
from piview.render.sanitize import sanitize_line
from piview.render.theme import style

_TASK_CHARS = 60
"""Characters of a task shown in a row."""
_ARGS_CHARS = 80
"""Characters of a task shown in the header."""
_FOUND: dict[tuple[str, str | None, str | None], Path | None] = {}
"""Where each child's file was found, per parent (the card is drawn again at each width)."""

_MARKS = {"ok": ("✓", "piview.ok"), "failed": ("✗", "piview.error.text")}


def title(args: object) -> Text | None:
    """``subagent delegate: say hi``, ``subagent workflow``, ``subagent status <id>``, or None
    for arguments of another shape."""
    if not isinstance(args, dict):
        return None
    t = Text("subagent ", style("piview.tool"))
    agent, task = args.get("agent"), args.get("task")
    action = args.get("action")
    if isinstance(action, str) and action and action != "run":
        t.append(sanitize_line(action), style("piview.tool.args"))
        target = args.get("id") or args.get("runId")
        if isinstance(target, str):
            t.append(f" {sanitize_line(target)[:40]}", style("piview.dim"))
        return t
    if isinstance(args.get("workflowScript"), str):
        t.append("workflow", style("piview.tool.args"))
        return t
    if not isinstance(agent, str):
        return None
    t.append(sanitize_line(agent), style("piview.tool.args"))
    if isinstance(task, str) and task:
        t.append(": " + sanitize_line(task)[:_ARGS_CHARS], style("piview.dim"))
    if args.get("context") == "fork":
        t.append(" (fork context)", style("piview.dim"))
    return t


def find_child(parent: str | None, run: ChildRun) -> Path | None:
    """The child's file (kept per parent and run: the card is drawn at every width)."""
    if not parent:
        return None
    key = (parent, run.declared, run.run_id)
    if key not in _FOUND:
        if len(_FOUND) > 10_000:
            _FOUND.clear()
        try:
            _FOUND[key] = locate(parent, run)
        except (OSError, ValueError):
            _FOUND[key] = None
    return _FOUND[key]


def _located(runs: list[ChildRun], parent: str | None) -> list[tuple[ChildRun, Path | None]]:
    return [(run, find_child(parent, run)) for run in runs]


def runs_of(view: ToolCallView) -> list[ChildRun]:
    """The child runs of a call (``[]`` for a shape this does not know)."""
    return child_runs(view.args, view.details, view.is_error, view.text)


def row_text(run: ChildRun) -> Text:
    """One child's row: ``✓ delegate · say hi   1 turn · $0.0014``."""
    mark, mark_style = _MARKS.get(run.status, ("…", "piview.dim"))
    t = Text(no_wrap=True, overflow="ellipsis")
    t.append(f"{mark} ", style(mark_style))
    t.append(sanitize_line(run.agent) or "?", style("piview.tool"))
    if run.key:
        t.append(f" [{sanitize_line(run.key)}]", style("piview.dim"))
    if run.task:
        task = sanitize_line(run.task)
        t.append(" · " + (task if len(task) <= _TASK_CHARS else task[: _TASK_CHARS - 1] + "…"))
    bits = []
    if run.turns is not None:
        bits.append(f"{run.turns} turn{'s' if run.turns != 1 else ''}")
    if run.cost is not None:
        bits.append(fmt_cost(run.cost))
    if run.context == "fork":
        bits.append("fork context")
    if run.status == "failed" and run.error:
        bits.append(sanitize_line(run.error)[:80])
    if bits:
        t.append("  " + " · ".join(bits), style("piview.dim"))
    return t


def missing_line(run: ChildRun) -> Text:
    """The one line saying a child's session file is not here."""
    where = run.declared or (f"run {run.run_id}" if run.run_id else "no file named")
    name = Path(where).name if run.declared else where
    if run.declared and Path(where).parent.name.startswith("run-"):
        name = "/".join(Path(where).parts[-3:])
    return Text(f"  ⚠ child session not found: {sanitize_line(name)}", style("piview.warning"))


def card(view: ToolCallView, builtin: Any, parent: str | None) -> RenderableType | None:
    """The rows of the children (each followed by a line when its file is missing), a hint
    of the key that opens them, then ``builtin``'s body (the result, the details); just
    ``builtin``'s when the call has no runs this knows."""
    located = _located(runs_of(view), parent)
    body = builtin(view)
    if not located:
        return body
    parts: list[RenderableType] = []
    for run, found in located:
        parts.append(row_text(run))
        if found is None and (run.declared or run.run_id):
            parts.append(missing_line(run))
    n = sum(1 for _run, found in located if found is not None)
    if n:
        hint = "enter: open the child session" if n == 1 else f"enter: open one of {n} children"
        parts.append(Text(hint, style=style("piview.dim")))
    return Group(indent(*parts), *([body] if body is not None else []))


def plain_rows(view: ToolCallView) -> Sequence[str]:
    """The rows as plain text (search, copy)."""
    return [row_text(r).plain for r in runs_of(view)]


def call_rows(session: Any, entry: int, part: int) -> list[tuple[Text, Path | None]] | None:
    """The rows of the subagent call at block ``part`` of ``entry`` and each child's file
    (None where not found), or None when that block is no subagent call."""
    e = session.entry(entry)
    msg = e.message if isinstance(e, MessageEntry) else None
    if not isinstance(msg, AssistantMessage) or not 0 <= part < len(msg.content):
        return None
    call = msg.content[part]
    if not isinstance(call, ToolCall) or call.name not in SUBAGENT_TOOLS:
        return None
    results = session.pairing.call_results.get((entry, part), [])
    parent = str(session.path) if session.path else None
    runs = call_runs(session, call.arguments, results)
    return [(row_text(run), found) for run, found in _located(runs, parent)]
