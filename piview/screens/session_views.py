"""Provides :class:`Views`: the session screen's keys that open other views (``i T w c x : y
Y v V``), and what it makes ahead for them. Each view's module is imported on first use.
"""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import SuspendNotSupported

from piview.model.toolargs import count_lines
from piview.model.types import ToolCall
from piview.render.format import plural
from piview.render.item import ItemList
from piview.widgets.branch_panel import BranchPanel
from piview.widgets.idle_gc import collect_when_idle
from piview.widgets.offthread import compute_off_thread
from piview.widgets.transcript import Transcript
from piview.widgets.usage_sidebar import UsageSidebar

if TYPE_CHECKING:
    from collections.abc import Callable

    from textual.timer import Timer

    from piview.model import Session, UsageReport
    from piview.model.branchcost import BranchCosts
    from piview.render.copytext import BlockText
    from piview.render.layout import Guesses
    from piview.screens.session import SessionScreen
    from piview.screens.session_layout import PanelWidths

TIMELINE_AHEAD = 2_000
"""Branches of this many entries and more have their timeline built ahead (``w`` takes a
second on the 50 MB session's branch otherwise: benchmarks/bench_keys.py, ``w``)."""
AHEAD_MAX = 100_000
"""Sessions (branches, for the tool calls) of this many entries and more have nothing made
ahead: their keys already do that work in a worker."""

HIDDEN_AHEAD = 2_000
"""Branches of this many entries and more have the blocks of the other hidden setting built
ahead (shorter ones build them quickly enough when ``H`` is pressed)."""


class Views:
    """Inspector, tools, context, export, go to, copy and pager of ``screen``, and what is
    made ahead for its keys; ``widths`` are its panels', ``limits()`` its ``(BIG_BRANCH,
    USAGE_IN_WORKER)``, read at each use."""

    def __init__(
        self, screen: SessionScreen, widths: PanelWidths, limits: Callable[[], tuple[int, int]]
    ) -> None:
        self._screen = screen
        self._widths = widths
        self._limits = limits
        self._ahead_timer: Timer | None = None
        self._ahead_for = 0
        """Counts the branches shown: work ahead for one no longer shown stops there."""
        self._usage_ahead: tuple[object, int | None, UsageReport, BranchCosts] | None = None
        """The usage of the branch to a leaf summed ahead, and the tree it was summed for."""

    def _focused_call(self) -> tuple[int, int] | None:
        """``(entry, part)`` of the focused tool call (part -1 for a result without a call)."""
        item = self._screen.query_one(Transcript).current_item
        if item is None:
            return None
        if item.kind == "tool":
            return item.entry, item.part
        if item.kind == "orphan_result":
            return item.entry, -1
        return None

    def inspect(self) -> None:
        """Open the tool-call inspector on the focused call, or the raw JSON of any other
        focused entry."""
        screen = self._screen
        ref = self._focused_call()
        if ref is None:
            entry = screen.query_one(Transcript).current_entry
            if entry is None:
                return
            from piview.screens.entry_json import EntryJsonScreen

            screen.app.push_screen(EntryJsonScreen(screen.session, entry))
            return
        from piview.screens.inspector import ToolInspector

        screen.app.push_screen(ToolInspector(screen.session, *ref))

    def prepare_ahead(self) -> None:
        """After :attr:`AHEAD_AFTER` seconds on the branch shown, make in workers, one after
        the other, what ``b``, ``H``, ``u`` and ``T`` would make on the UI thread."""
        screen = self._screen
        self._ahead_for += 1
        if self._ahead_timer is not None:
            self._ahead_timer.stop()
        self._ahead_timer = screen.set_timer(screen.AHEAD_AFTER, self._prepare_ahead)
        collect_when_idle(screen.app)  # full garbage collections when idle, not in the keys

    def _prepare_ahead(self) -> None:
        screen = self._screen
        self._ahead_timer = None
        steps: list[Callable[[Callable[[], None]], None]] = [
            screen.query_one(BranchPanel).flatten_ahead,
            self._build_other_hidden,
            self.sum_usage_ahead,
            self._collect_tool_rows,
            self._build_timeline_ahead,
            self._warm_lexers,
        ]
        generation = self._ahead_for

        def run(k: int) -> None:
            # One at a time: the UI thread shares the interpreter with one worker, not four.
            if k < len(steps) and generation == self._ahead_for and screen.is_attached:
                steps[k](partial(run, k + 1))

        run(0)

    def _collect_tool_rows(self, then: Callable[[], None]) -> None:
        """Collect a long branch's tool calls in a worker, kept for ``T``; then ``then``."""
        screen = self._screen
        from piview.model.tools import branch_tool_rows, cached_tool_rows
        from piview.screens.tools_view import ToolsScreen

        session, path = screen.session, screen.query_one(Transcript).path
        if (
            not ToolsScreen.BIG_BRANCH <= len(path) < AHEAD_MAX
            or cached_tool_rows(session, path) is not None
        ):
            then()
            return
        compute_off_thread(
            screen,
            partial(branch_tool_rows, session, path),
            lambda _rows: then(),
            group="tool-rows-ahead",
            description="Collecting tool calls ahead",
        )

    def _build_timeline_ahead(self, then: Callable[[], None]) -> None:
        """Build a long branch's timeline in a worker, kept for ``w``; then ``then``."""
        screen = self._screen
        from piview.screens.timeline import build_kept, is_kept

        session, leaf = screen.session, screen.leaf
        path = screen.query_one(Transcript).path
        if not TIMELINE_AHEAD <= len(path) < AHEAD_MAX or is_kept(session, leaf):
            then()
            return
        compute_off_thread(
            screen,
            partial(build_kept, session, leaf),
            lambda _built: then(),
            group="timeline-ahead",
            description="Building the timeline ahead",
        )

    def _warm_lexers(self, then: Callable[[], None]) -> None:
        """Make the lexers of the files the branch's tool calls name in a worker (a lexer's
        first use compiles its patterns); then ``then``."""
        screen = self._screen
        from piview.model.tools import branch_tool_rows, cached_tool_rows
        from piview.render.warmup import lexer_paths, warm_lexers

        session, path = screen.session, screen.query_one(Transcript).path
        if len(path) >= AHEAD_MAX:
            then()
            return
        generation = self._ahead_for

        def compute() -> int:
            rows = cached_tool_rows(session, path)
            if rows is None:
                rows = branch_tool_rows(session, path)  # kept for T too
            return warm_lexers(lexer_paths(rows), lambda: generation != self._ahead_for)

        compute_off_thread(
            screen,
            compute,
            lambda _made: then(),
            group="lexers-ahead",
            description="Making the branch's lexers ahead",
        )

    def usage_summed_ahead(self, leaf: int | None) -> tuple[UsageReport, BranchCosts] | None:
        """The usage sidebar's figures for the branch to ``leaf`` if they were summed ahead
        for the tree as it is now (else None: sum them)."""
        ahead = self._usage_ahead
        if ahead is None or ahead[0] is not self._screen.session.tree or ahead[1] != leaf:
            return None
        return ahead[2], ahead[3]

    def sum_usage_ahead(self, then: Callable[[], None]) -> None:
        """Sum the branch's usage for the hidden sidebar in a worker, for ``u``; then
        ``then``."""
        screen = self._screen
        session, leaf = screen.session, screen.leaf
        if (
            not self._limits()[1] <= len(session) < AHEAD_MAX
            or screen.query_one(UsageSidebar).has_class("-visible")  # summed for it already
            or self.usage_summed_ahead(leaf) is not None
        ):
            then()
            return
        tree = session.tree
        path = tree.path(leaf) if leaf is not None else []

        def summed(got: tuple[UsageReport, BranchCosts] | None) -> None:
            if got is not None and session is screen.session:
                self._usage_ahead = (tree, leaf, *got)
                if not screen.query_one(UsageSidebar).has_class("-visible"):
                    self._guess_for_sidebar(then)
                    return
            then()

        compute_off_thread(
            screen,
            partial(sum_usage, session, path, leaf),
            summed,
            group="usage-ahead",
            description="Summing usage ahead",
        )

    def _guess_for_sidebar(self, then: Callable[[], None]) -> None:
        """Guess the blocks' heights at their width with the sidebar shown, in a worker, for
        ``u``; then ``then``."""
        screen = self._screen
        transcript = screen.query_one(Transcript)
        items = transcript.items
        width = self._widths.transcript_width_with_sidebar(transcript.guess_width)
        if not isinstance(items, ItemList) or not width or width == transcript.guess_width:
            then()
            return
        guess = transcript.guesses_ahead(width)

        def guessed(got: Guesses | None) -> None:
            if got is not None:
                transcript.keep_guesses(items, got)
            then()

        compute_off_thread(
            screen,
            partial(guess, items),
            guessed,
            group="guesses-ahead",
            description="Guessing the heights at the sidebar's width ahead",
        )

    def _build_other_hidden(self, then: Callable[[], None]) -> None:
        """Build the branch's blocks for the other hidden setting in a worker, for ``H``; then
        ``then``."""
        screen = self._screen
        from piview.render.items import build_items

        transcript = screen.query_one(Transcript)
        path, show = transcript.path, not transcript.show_hidden
        if not HIDDEN_AHEAD <= len(path) < self._limits()[0] or transcript.has_other_hidden:
            then()
            return

        session, guess = screen.session, transcript.guesses_ahead()

        def compute() -> tuple[ItemList, Guesses]:
            items = build_items(session, path, show_hidden=show)
            return items, guess(items)  # and their heights guessed, for H's first frame

        def built(got: tuple[ItemList, Guesses] | None) -> None:
            if got is not None:
                transcript.keep_other_hidden(path, show, *got)
            then()

        compute_off_thread(
            screen,
            compute,
            built,
            group="hidden-ahead",
            description="Building the blocks of the other hidden setting ahead",
        )

    def tools(self) -> None:
        """Open the tools view; Enter there jumps to the call."""
        screen = self._screen
        from piview.screens.tools_view import ToolsScreen

        transcript = screen.query_one(Transcript)

        def jump(ref: tuple[int, int] | None) -> None:
            if ref is None:
                return
            entry, part = ref
            for k, item in enumerate(transcript.items):
                if item.entry == entry and (part < 0 or item.part == part):
                    transcript.focus_item(k)
                    return

        screen.app.push_screen(ToolsScreen(screen.session, transcript.path), jump)

    def timeline(self) -> None:
        """Open the timeline of the branch shown; Enter there shows the entry chosen."""
        screen = self._screen
        from piview.screens.timeline import TimelineScreen

        transcript = screen.query_one(Transcript)

        def jump(ref: tuple[int, str] | None) -> None:
            if ref is None:
                return
            entry, call_id = ref
            k = transcript.index_of_entry(entry)
            if k is None:
                return
            part = _call_part(screen.session, entry, call_id) if call_id else None
            items = transcript.items
            # An entry's blocks are together: the call's is among the first few after it.
            for n in range(k, min(len(items), k + 64)):
                item = items[n]
                if item.entry != entry:
                    break
                if part is None or item.part == part:
                    k = n
                    break
            transcript.focus_item(k)

        at = transcript.current_entry
        screen.app.push_screen(TimelineScreen(screen.session, screen.leaf, at), jump)

    def context(self) -> None:
        """Show what the model had in context at the focused entry."""
        screen = self._screen
        from piview.screens.context_view import ContextScreen

        entry = screen.query_one(Transcript).current_entry
        if entry is None:
            entry = screen.leaf
        if entry is None:
            return
        screen.app.push_screen(ContextScreen(screen.session, entry))

    def export(self) -> None:
        """Export the branch shown as one HTML file in the current directory, in a worker."""
        screen = self._screen
        from textual.worker import get_current_worker

        from piview.export import ExportCancelled, export_branch

        leaf = screen.leaf
        session = screen.session
        tag = session.ids[leaf][:8] if leaf is not None else "empty"
        out = Path.cwd() / f"{session.stem}-{tag}.html"
        hidden = screen.query_one(Transcript).show_hidden  # what is shown is what is exported

        def compute() -> Path | str:
            worker = get_current_worker()  # cancelled when the app closes: q quits at once
            try:
                return export_branch(
                    session,
                    leaf,
                    fmt="html",
                    tools="preview",
                    thinking=True,
                    out=out,
                    hidden=hidden,
                    should_stop=lambda: worker.is_cancelled,
                )
            except ExportCancelled:
                return "cancelled"
            except (OSError, ValueError) as exc:
                return str(exc)

        def done(result: Path | str | None) -> None:
            if isinstance(result, Path):
                screen.notify(f"Exported the branch to {result}", timeout=6, markup=False)
            else:
                reason = result or "see the log"
                screen.notify(f"Export failed: {reason}", severity="error", markup=False)

        screen.notify(f"Exporting the branch to {out}…", timeout=3, markup=False)
        compute_off_thread(screen, compute, done, group="export", description="Export")

    def goto(self) -> None:
        """Ask for an entry id (``:``) and show it: on this branch if it is on it, else on
        the branch through it (down to its newest leaf)."""
        from piview.screens.goto import GotoScreen

        def go(ref: str | None) -> None:
            if ref:
                self.go_to_entry(ref)

        self._screen.app.push_screen(GotoScreen(), go)

    def go_to_entry(self, ref: str) -> None:
        """Show the entry whose id is ``ref`` (or starts with it), or say why not."""
        screen = self._screen
        session = screen.session
        entry = session.find(ref)
        if entry is None:
            matches = session.find_all(ref)
            if matches:
                shown = ", ".join(matches[:5]) + (" …" if len(matches) > 5 else "")
                screen.notify(f"{ref!r} is ambiguous: {shown}", severity="warning", markup=False)
            else:
                screen.notify(f"No entry with id {ref!r}", severity="warning", markup=False)
            return
        transcript = screen.query_one(Transcript)
        k = transcript.index_of_entry(entry)
        if k is not None and entry in transcript.path:
            transcript.focus_item(k)
            return
        screen.show_branch(session.tree.newest_leaf(entry), focus_entry=entry)

    # ------------------------------------------------------------------ copy, pager, editor

    def _focused_text(self) -> BlockText | None:
        screen = self._screen
        from piview.render.copytext import block_text

        item = screen.query_one(Transcript).current_item
        if item is None:
            return None
        try:
            return block_text(screen.session, item)
        except OSError as exc:
            screen.notify(f"Cannot read the entry: {exc.strerror or exc}", severity="error")
            return None

    def copy(self) -> None:
        """Copy the focused block's text to the clipboard (OSC 52, through the terminal)."""
        screen = self._screen
        got = self._focused_text()
        if got is None:
            return
        screen.app.copy_to_clipboard(got.text)
        screen.notify(f"Copied {got.what} ({plural(count_lines(got.text), 'line')})", timeout=3)

    def copy_id(self) -> None:
        """Copy the focused entry's id."""
        screen = self._screen
        entry = screen.query_one(Transcript).current_entry
        if entry is None:
            return
        entry_id = screen.session.ids[entry]
        screen.app.copy_to_clipboard(entry_id)
        screen.notify(f"Copied the entry id {entry_id}", timeout=3, markup=False)

    def open_pager(self, editor: bool = False) -> None:
        """Open a copy of the focused block's whole text (or of the full log a truncated
        output points to) in ``$PAGER``, or in ``$EDITOR`` with ``editor``, the app suspended."""
        got = self._focused_text()
        if got is None:
            return
        if editor:
            command = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
        else:
            command = os.environ.get("PAGER") or "less -R"
        text = got.text
        if got.log_path and Path(got.log_path).is_file():
            try:
                text = Path(got.log_path).read_text(encoding="utf-8", errors="replace")
            except OSError:
                pass
        with tempfile.NamedTemporaryFile(
            "w", suffix=".txt", prefix="piview-", delete=False, encoding="utf-8"
        ) as f:
            f.write(text)
        try:
            self._run_suspended(command, f.name, what="editor" if editor else "pager")
        finally:
            Path(f.name).unlink(missing_ok=True)

    def _run_suspended(self, command: str, path: str, *, what: str) -> None:
        """Run ``command`` on ``path`` with the app suspended, and say what went wrong once
        the app is back (nothing may raise inside: ``suspend`` resumes only on a normal end)."""

        screen = self._screen
        import shlex  # only for the pager's or editor's command line

        try:
            argv = shlex.split(command)
        except ValueError as exc:
            screen.notify(f"Cannot read the {what}'s command {command!r}: {exc}", severity="error")
            return
        if not argv:
            screen.notify(f"The {what}'s command is empty", severity="error")
            return
        failure: str | None = None
        try:
            with screen.app.suspend(), _sigint_to_child():
                try:
                    status = subprocess.run([*argv, path], check=False).returncode
                except OSError as exc:
                    if isinstance(exc, FileNotFoundError):
                        failure = f"{what} {argv[0]!r} not found"
                    else:
                        failure = f"cannot run the {what} {argv[0]!r}: {exc.strerror or exc}"
                else:
                    if status != 0:
                        failure = f"the {what} {argv[0]!r} ended with status {status}"
        except SuspendNotSupported:
            screen.notify("This terminal cannot hand over to a pager", severity="warning")
            return
        if failure is not None:
            screen.notify(failure[0].upper() + failure[1:], severity="error", markup=False)


def _call_part(session: Session, entry: int, call_id: str) -> int | None:
    """The block index of tool call ``call_id`` in assistant entry ``entry``'s content."""
    message = getattr(session.entry(entry), "message", None)
    for k, block in enumerate(getattr(message, "content", None) or ()):
        if isinstance(block, ToolCall) and block.id == call_id:
            return k
    return None


def sum_usage(
    session: Session, path: list[int], leaf: int | None
) -> tuple[UsageReport, BranchCosts]:
    """The sidebar's figures for the branch ``path`` to ``leaf``."""
    # Imported when the sidebar is first shown: the first screen has it hidden.
    from piview.model import usage_report
    from piview.model.branchcost import branch_costs

    return usage_report(session.nodes, path), branch_costs(session, leaf)


@contextmanager
def _sigint_to_child() -> Iterator[None]:
    """Let ctrl+c reach the pager alone: while it runs the terminal sends SIGINT to piview
    too, and a KeyboardInterrupt here would kill the pager and leave the app suspended. A
    handler that does nothing (not SIG_IGN, which the child would inherit) is reset to the
    default in the child by exec."""
    try:
        previous = signal.signal(signal.SIGINT, lambda _signum, _frame: None)
    except ValueError:  # not the main thread: nothing to change
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
