"""Provides :class:`SearchResults`: the results of a search over all branches, as one
Line-API list (a line per result, no widget per row).

A thread worker runs :func:`piview.render.search.scan_all` and hands the hits over in batches;
the list grows while it runs. A branch is named on a line of its own before its first result;
each result shows the kind of block and the line of it that matches.
"""

from __future__ import annotations

import time
from bisect import bisect_left
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.worker import Worker, get_current_worker

from piview.model.query import Query
from piview.model.session import Session
from piview.render.sanitize import sanitize_line
from piview.render.search import AllHit, BranchInfo, branch_info, scan_all, snippet

_KIND_NAMES = {
    "user": "user",
    "assistant": "assistant",
    "thinking": "thinking",
    "tool": "tool",
    "orphan_result": "result",
    "bash": "bash",
    "custom_message": "extension",
    "custom": "state",
    "compaction": "compaction",
    "branch_summary": "summary",
    "system": "system",
    "divider": "change",
    "unknown": "entry",
}


class SearchResults(ScrollView, can_focus=True):
    """The matches of ``query`` on every branch; enter chooses one (:class:`Chosen`).

    Keys: :attr:`BINDINGS` (the help screen, ``?``, lists them from there, with a line each).
    """

    HELP_TITLE = "Search results"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j,down", "move(1)", "Next", show=False, tooltip="next result"),
        Binding("k,up", "move(-1)", "Previous", show=False, tooltip="previous result"),
        Binding("pagedown,space", "page(1)", "Page down", show=False, tooltip="page down"),
        Binding("pageup", "page(-1)", "Page up", show=False, tooltip="page up"),
        Binding("g,home", "jump(0)", "First", show=False, tooltip="first result"),
        Binding("G,end", "jump(-1)", "Last", show=False, tooltip="last result"),
        Binding(
            "enter",
            "choose",
            "Show on its branch",
            tooltip="show the result on its branch (n / N then step on that branch)",
        ),
    ]

    DEFAULT_CSS = """
    SearchResults { background: $surface; overflow-x: hidden; scrollbar-size-vertical: 1; }
    """

    class Chosen(Message):
        """A result was chosen: show block ``hit`` on branch ``hit.leaf``."""

        def __init__(self, results: SearchResults, hit: AllHit) -> None:
            super().__init__()
            self.results = results
            self.hit = hit

    class Progress(Message):
        """Results arrived, or the search finished."""

    def __init__(
        self,
        session: Session,
        query: Query,
        *,
        shown_path: list[int],
        shown_leaf: int | None,
        show_hidden: bool = False,
        id: str | None = None,  # noqa: A002
    ) -> None:
        super().__init__(id=id)
        self.session = session
        self.search_query = query
        self._shown = (shown_path, shown_leaf, show_hidden)
        self.hits: list[AllHit] = []
        self._rows: list[int] = []
        """One per line: ``k >= 0`` is hit ``k``; ``-1 - k`` names the branch of hit ``k``."""
        self.cursor = 0
        """Index in :attr:`hits` of the focused result."""
        self.looked = 0
        """Entries looked at so far."""
        self.running = True
        self.branches: set[int] = set()
        self._continued: set[int] = set()
        """Results whose branch heading resumes a branch named earlier in the list."""
        self._names: dict[int, BranchInfo] = {}
        self._lines: LRUCache[int, str] = LRUCache(1024)
        self._worker: Worker[None] | None = None

    def on_mount(self) -> None:
        """Start the search."""
        path, leaf, hidden = self._shown
        self._worker = self.run_worker(
            lambda: self._scan(path, leaf, hidden),
            thread=True,
            group="search-all",
            description=f"Searching all branches for {self.search_query.text!r}",
            exit_on_error=False,
        )

    def on_unmount(self) -> None:
        """Stop the search if it still runs."""
        self.cancel()

    def cancel(self) -> None:
        """Stop the search (what was found stays listed)."""
        if self._worker is not None and not self._worker.is_finished:
            self._worker.cancel()

    def _scan(self, path: list[int], leaf: int | None, hidden: bool) -> None:
        worker = get_current_worker()
        found: list[AllHit] = []
        last = time.monotonic()
        looked = 0
        for looked, batch in scan_all(
            self.session, self.search_query, shown_path=path, shown_leaf=leaf, show_hidden=hidden
        ):
            if worker.is_cancelled:
                return
            found += batch
            now = time.monotonic()
            if now - last > 0.1:
                self.app.call_from_thread(self._add, found, looked, False)
                found, last = [], now
        if not worker.is_cancelled:
            self.app.call_from_thread(self._add, found, looked, True)

    def _add(self, found: list[AllHit], looked: int, done: bool) -> None:
        rows = self._rows
        for hit in found:
            k = len(self.hits)
            if not self.hits or self.hits[-1].leaf != hit.leaf:
                rows.append(-1 - k)
                if hit.leaf in self.branches:
                    # Results come in file order: a branch's run can resume after another's.
                    self._continued.add(k)
            self.hits.append(hit)
            self.branches.add(hit.leaf)
            rows.append(k)
        self.looked = looked
        if done:
            self.running = False
        self.virtual_size = Size(self.size.width, len(rows))
        self.refresh()
        self.post_message(self.Progress())

    @property
    def current(self) -> AllHit | None:
        """The focused result."""
        return self.hits[self.cursor] if 0 <= self.cursor < len(self.hits) else None

    # ------------------------------------------------------------------ drawing

    def render_line(self, y: int) -> Strip:
        """One line: a branch's name, or a result."""
        width = self.scrollable_content_region.width
        base = self.rich_style
        line = round(self.scroll_y) + y
        if line >= len(self._rows):
            if line == 0:
                note = "  searching every branch…" if self.running else "  no match"
                return self._strip(Text(note, style="dim"), width, base)
            return Strip.blank(width, base)
        k = self._rows[line]
        if k < 0:
            hit = self.hits[-1 - k]
            name = self._branch_name(hit.leaf)
            text = Text("⑂ ", style="bold cyan")
            text.append(name.short_id, style="bold cyan")
            if hit.leaf == self._shown[1]:
                text.append(" (shown)", style="dim")
            if -1 - k in self._continued:
                text.append(" (continued)", style="dim")
            if name.label:
                text.append(f" [{sanitize_line(name.label)}]", style="bold yellow")
            text.append(f"  {sanitize_line(name.words)}", style="bold")
            return self._strip(text, width, base)
        return self._strip(self._hit_text(k, width), width, base)

    def _hit_text(self, k: int, width: int) -> Text:
        hit = self.hits[k]
        kind = _KIND_NAMES.get(hit.kind, hit.kind)
        if k == self.cursor:
            color = "bright_blue" if self.has_focus else "blue"
            text = Text("▌ ", style=Style(color=color, bold=True))
        else:
            text = Text("  ")
        text.append(f"{kind:<10}", style="dim")
        room = max(10, width - text.cell_len)
        line = self._lines.get(k)
        if line is None:
            try:
                line = snippet(self.session, hit, self.search_query, room)
            except Exception:  # noqa: BLE001 - a row that cannot be read says so
                line = "(unreadable)"
            self._lines[k] = line
        start = len(text)
        text.append(line)
        mark = Style(reverse=True, bold=True)
        for a, b in self.search_query.spans(line):
            text.stylize(mark, start + a, start + b)
        return text

    def _strip(self, text: Text, width: int, base: Style) -> Strip:
        text.no_wrap = True
        text.truncate(width, overflow="ellipsis", pad=True)
        return Strip(list(text.render(self.app.console))).crop_extend(0, width, base)

    def _branch_name(self, leaf: int) -> BranchInfo:
        name = self._names.get(leaf)
        if name is None:
            name = self._names[leaf] = branch_info(self.session, leaf)
        return name

    # ------------------------------------------------------------------ keys

    def _line_of(self, k: int) -> int:
        # A result's line, by bisection over the rows (in hit order, a branch's name first).
        return bisect_left(self._rows, (k, 1), key=lambda r: (r if r >= 0 else -1 - r, int(r >= 0)))

    def _set_cursor(self, k: int) -> None:
        if not self.hits:
            return
        self.cursor = max(0, min(k, len(self.hits) - 1))
        line = self._line_of(self.cursor)
        height = self.scrollable_content_region.height or self.size.height
        top = round(self.scroll_y)
        # Keep the branch name of the first result in view too.
        want = line - 1 if line > 0 and self._rows[line - 1] < 0 else line
        if want < top:
            self.scroll_to(y=want, animate=False)
        elif line >= top + height:
            self.scroll_to(y=line - height + 1, animate=False)
        self.refresh()

    def action_move(self, step: int) -> None:
        """Focus the next (or previous) result."""
        self._set_cursor(self.cursor + step)

    def action_page(self, direction: int) -> None:
        """Move a page of results."""
        height = self.scrollable_content_region.height or self.size.height
        self._set_cursor(self.cursor + direction * max(1, height - 2))

    def action_jump(self, where: int) -> None:
        """Focus the first (0) or last (-1) result."""
        self._set_cursor(where if where >= 0 else len(self.hits) - 1)

    def action_choose(self) -> None:
        """Show the focused result on its branch."""
        hit = self.current
        if hit is not None:
            self.post_message(self.Chosen(self, hit))

    def on_click(self, event: events.Click) -> None:
        """Click a result to focus it; click it again to choose it."""
        line = round(self.scroll_y) + event.y
        if not 0 <= line < len(self._rows) or self._rows[line] < 0:
            return
        k = self._rows[line]
        if k == self.cursor:
            self.action_choose()
        else:
            self._set_cursor(k)
