"""The pipeline every fuzzed file goes through, with the checks the fuzz suite makes.

:func:`exercise` runs a session file through everything that reads it: the loader, every
entry's full decode, the tree, pairing, usage and context, the branch panel's rows and usage
figures (subtree sums, cost by branch), the transcript items of several branches rendered
collapsed and expanded at two widths, search
text, ``piview print``, ``piview info --json`` and ``piview tools --json``. Each rendered
segment is checked for text that could drive a terminal (:func:`assert_clean_segments`).

:func:`hang_guard` turns a hang into a failure: it raises :class:`Hang` (a ``BaseException``,
so that the renderers' ``except Exception`` cannot swallow it) from a timer signal.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import signal
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console, RenderableType
from rich.segment import Segment

from piview.model import (
    Session,
    build_context,
    load_session,
    session_info,
    system_prompt_state,
    usage_report,
)
from piview.model.branchcost import branch_costs
from piview.model.tools import tool_rows, tool_stats
from piview.model.treetext import row_text
from piview.model.treeview import flatten
from piview.render.items import Item, build_items, item_text, render_header, render_item

__all__ = [
    "FORBIDDEN",
    "Hang",
    "Report",
    "assert_clean_output",
    "assert_clean_segments",
    "exercise",
    "hang_guard",
    "render_segments",
]

FORBIDDEN = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]")
"""What must never be in rendered text: ESC and every other C0 control but ``\\n`` (tabs
included: they are expanded before display), DEL, and the C1 controls."""

_SGR = re.compile(r"\x1b\[[0-9;]*m")
WIDTHS = (20, 100)


class Hang(BaseException):
    """Raised by :func:`hang_guard` when the guarded code runs past its time."""


@contextlib.contextmanager
def hang_guard(seconds: float, what: str = "") -> Iterator[None]:
    """Fail with :class:`Hang` if the block runs longer than ``seconds`` (main thread only)."""

    def _fire(_signum: int, _frame: object) -> None:
        raise Hang(f"{what or 'code'} still running after {seconds:g}s")

    old = signal.signal(signal.SIGALRM, _fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _console(width: int, *, color: bool = True) -> Console:
    return Console(
        width=width,
        file=io.StringIO(),
        color_system="truecolor" if color else None,
        force_terminal=color,
        legacy_windows=False,
        highlight=False,
    )


def render_segments(renderable: RenderableType, width: int) -> list[Segment]:
    """The segments a colour console draws for ``renderable`` at ``width`` (image previews
    only render with colour, so colour is on)."""
    console = _console(width)
    return list(console.render(renderable, console.options.update_width(width)))


def assert_clean_segments(segments: list[Segment], where: str) -> None:
    """No segment is a control segment, holds a forbidden character, or carries a link; and
    the renderer did not fall back to its "cannot render" notice (a caught crash)."""
    text = "".join(seg.text for seg in segments)
    assert "⚠ cannot render" not in text, f"{where}: {text.strip()[:300]}"
    for seg in segments:
        assert not seg.control, f"{where}: control segment {seg!r}"
        bad = FORBIDDEN.search(seg.text)
        assert bad is None, f"{where}: {bad.group()!r} in rendered text {seg.text[:120]!r}"
        assert seg.style is None or not seg.style.link, f"{where}: hyperlink {seg.style.link!r}"


def assert_clean_output(text: str, where: str) -> None:
    """Console output: once colour codes (SGR) are removed, nothing forbidden is left."""
    rest = _SGR.sub("", text)
    bad = FORBIDDEN.search(rest)
    if bad is not None:
        near = rest[max(0, bad.start() - 60) : bad.end() + 60]
        raise AssertionError(f"{where}: {bad.group()!r} in output near {near!r}")


@dataclass
class Report:
    """What one run of :func:`exercise` went through (for the tests' own sanity checks)."""

    entries: int = 0
    bad_lines: int = 0
    roots: int = 0
    cycles: int = 0
    duplicate_ids: int = 0
    longest_path: int = 0
    items_rendered: int = 0
    paths: int = 0
    printed_chars: int = 0


def _leaves(session: Session) -> list[int]:
    """The current leaf and a few others: first and middle leaves, the newest leaf of the
    first root, the freshest leaf under the last root."""
    tree = session.tree
    if tree.leaf is None:
        return []
    leaves = tree.leaves()
    picks = [tree.leaf]
    if leaves:
        picks += [leaves[0], leaves[len(leaves) // 2], leaves[-1]]
    if tree.roots:
        picks += [tree.newest_leaf(tree.roots[0]), tree.newest_leaf(tree.roots[-1])]
    return list(dict.fromkeys(picks))


def _sample(items: list[Item], limit: int | None) -> list[Item]:
    if limit is None or len(items) <= 2 * limit:
        return items
    return items[:limit] + items[-limit:]


def _unwrapped(session: Session, item: Item, *, expanded: bool, width: int) -> None:
    """Render an item without the safety net, so that its failure shows with a traceback."""
    from rich.console import Group

    from piview.render.items import _parts

    head, body = _parts(session, item, expanded, width)
    render_segments(Group(head, body) if body is not None else head, width)


def _render_item(session: Session, item: Item, report: Report) -> None:
    where = f"{session.path.name} entry {item.entry} {item.kind}/{item.part}"
    for expanded in (False, True):
        for width in WIDTHS:
            tag = f"{where} {'expanded' if expanded else 'collapsed'} w{width}"
            renderable = render_item(session, item, expanded=expanded, width=width)
            segs = render_segments(renderable, width)
            if "⚠ cannot render" in "".join(seg.text for seg in segs):
                _unwrapped(session, item, expanded=expanded, width=width)  # raises, with its cause
            assert_clean_segments(segs, tag)
    header = render_header(session, item, expanded=False, width=WIDTHS[0])
    assert_clean_segments(render_segments(header, WIDTHS[0]), f"{where} header")
    item_text(session, item)
    report.items_rendered += 1


def _print(path: Path, *args: str, width: int = 80, color: bool = False) -> str:
    from piview.cli import parse_args
    from piview.commands import print as print_command

    console = _console(width, color=color)
    _name, parsed = parse_args(["print", str(path), *args])
    assert print_command.run(parsed, console=console) == 0
    return console.file.getvalue()  # type: ignore[attr-defined]


class _Head(io.StringIO):
    """A stdout that closes its pipe after ``limit`` characters, as ``| head`` does."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit

    def write(self, s: str) -> int:
        if self.tell() + len(s) > self.limit:
            raise BrokenPipeError(32, "Broken pipe")
        return super().write(s)


def _print_head(path: Path, limit: int = 100_000) -> int:
    """``piview print FILE | head``: exits 0 once the reader is gone; return what was read."""
    from piview.cli import main

    out = _Head(limit)
    with contextlib.redirect_stdout(out):
        status = main(["print", str(path), "--tools", "preview"])
    assert status == 0
    text = out.getvalue()
    assert "\x1b" not in text, f"{path.name}: ESC in plain piview print"
    assert_clean_output(text, f"{path.name} print | head")
    return len(text)


def _cli_json(*argv: str) -> Any:
    from piview.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = main(list(argv))
    assert status == 0, (argv, status)
    return json.loads(out.getvalue())


def exercise(path: Path, *, sample: int | None = None, cli: bool = True) -> Report:
    """Run ``path`` through every reader of a session file; return what was covered.

    Args:
        path: the session file.
        sample: render only the first and last ``sample`` items of each branch (big files).
        cli: also run ``piview print`` (three ways), ``info --json`` and ``tools --json``.
    """
    report = Report()
    session = load_session(path)
    try:
        report.entries = len(session)
        report.bad_lines = len(session.bad_lines)
        report.roots = len(session.tree.roots)
        report.cycles = len(session.tree.cycles)
        report.duplicate_ids = len(session.tree.duplicate_ids)
        info = session_info(session)
        json.dumps(info, ensure_ascii=False)
        for i in range(len(session)):
            session.entry(i)
            session.raw(i)
        tree = session.tree
        leaf = tree.leaf
        path_ = tree.path(leaf) if leaf is not None else []
        usage_report(session.nodes, path_)
        branch_costs(session, leaf)  # the subtree sums of the panel's figures, too
        build_context(session)
        system_prompt_state(session)
        for at in {0, len(session) // 2, len(session) - 1} if len(session) else ():
            build_context(session, at)
            system_prompt_state(session, at)
        rows = tool_rows(session, path_)
        json.dumps([r.as_json(session) for r in rows], ensure_ascii=False)
        tool_stats(rows)
        panel = flatten(session)
        for row in panel.rows[:2000]:
            row.prefix()
            row_text(session, row.entry)
        seen: set[tuple[str, int, int]] = set()
        for k, lf in enumerate(_leaves(session)):
            branch = tree.path(lf)
            report.paths += 1
            report.longest_path = max(report.longest_path, len(branch))
            for hidden in (False, True):
                items = build_items(session, branch, show_hidden=hidden)
                for item in _sample(items, sample if k == 0 else min(sample or 40, 40)):
                    key = (item.kind, item.entry, item.part)
                    if key in seen:
                        continue
                    seen.add(key)
                    _render_item(session, item, report)
    finally:
        session.close()
    if cli:
        if sample is None:
            out = _print(path, "--tools", "none", "--hidden")
            assert "\x1b" not in out, f"{path.name}: ESC in plain piview print"
            assert_clean_output(out, f"{path.name} print")
            report.printed_chars += len(out)
            out = _print(path, "--tools", "full", "--thinking", "--hidden", width=100, color=True)
            assert_clean_output(out, f"{path.name} print --tools full (colour)")
            report.printed_chars += len(out)
        else:
            # A branch of 100,000 entries prints for a minute: print it as `| head` would.
            report.printed_chars += _print_head(path)
        _cli_json("info", "--json", str(path))
        _cli_json("tools", "--json", str(path))
    return report
