"""Provides :class:`BranchPanel`: the session tree as Pi's ``/tree`` draws it, one line per row.

A Line-API list over :func:`piview.model.treeview.flatten`: only the rows on screen are drawn
and only their texts are read from the file (and cached). See ``docs`` in ``textual-stack.md``
section 5 for why this is not a ``Tree`` widget. A row is drawn by
:func:`piview.widgets.branch_rows.row_strip`; the rows of a hidden panel are flattened ahead by
:class:`piview.widgets.branch_ahead.RowsAhead`; a file grown under the active path lays out
only the fork's segment again (:func:`piview.model.treeview_grow.grow_rows`). The figures come
from :func:`piview.model.subtree.subtree_sums`, computed once per tree.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import OrderedDict
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, ClassVar

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from piview.model.session import Session
from piview.model.treefilter import FilterMode, next_filter
from piview.model.treeview import Folds, Row, TreeRows, flatten, refold
from piview.render.figures import fmt_figure
from piview.render.sanitize import sanitize_line
from piview.widgets.branch_ahead import RowsAhead
from piview.widgets.branch_rows import row_strip
from piview.widgets.offthread import compute_off_thread

if TYPE_CHECKING:
    from textual.timer import Timer

    from piview.model.subtree import Figure, SubtreeSums

_TEXT_CACHE = 4096
BIG_TREE = 100_000
"""Sessions of this many entries and more are flattened in a worker (too long for a key on
the UI thread)."""
SUMS_DELAY = 1.0
"""Seconds after the last growth before the usage of the grown tree is summed (in a worker)."""


class BranchPanel(ScrollView, can_focus=True):
    """The branches of a session: a cursor list of Pi's ``/tree`` rows, the last line
    ``(i/n) [filter]``; segments off the active path start folded.

    Keys: :attr:`BINDINGS` (the help screen, ``?``, lists them from there, with a line each).
    Enter posts :class:`BranchPanel.EntrySelected`, ``=`` :class:`BranchPanel.CompareRequested`.
    """

    HELP_TITLE = "Branch panel (b)"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "move(-1)", "Up", show=False, tooltip="move up"),
        Binding("down,j", "move(1)", "Down", show=False, tooltip="move down"),
        Binding("pageup", "page(-1)", "Page up", show=False, tooltip="page up"),
        Binding("pagedown", "page(1)", "Page down", show=False, tooltip="page down"),
        Binding("home,g", "jump_to(0)", "First", show=False, tooltip="first row"),
        Binding("end,G", "jump_to(-1)", "Last", show=False, tooltip="last row"),
        Binding(
            "enter",
            "select",
            "Show",
            tooltip="show the branch through this entry (down to its newest leaf)",
        ),
        Binding(
            "space",
            "toggle_fold",
            "Fold",
            show=False,
            tooltip="fold or unfold the segment under the cursor",
        ),
        Binding(
            "left,h", "fold", "Fold", show=False, tooltip="fold the segment (or go to its start)"
        ),
        Binding(
            "right,l",
            "unfold",
            "Unfold",
            show=False,
            tooltip="unfold the segment (or go to the next branch)",
        ),
        Binding(
            "f",
            "cycle_filter(1)",
            "Filter",
            tooltip="next filter: default, no-tools, user-only, labeled-only, all",
        ),
        Binding("F", "cycle_filter(-1)", "Filter back", show=False, tooltip="previous filter"),
        Binding(
            "apostrophe",
            "label(1)",
            "Next label",
            show=False,
            tooltip="next labelled entry, folded ones too",
        ),
        Binding(
            "quotation_mark",
            "label(-1)",
            "Prev label",
            show=False,
            tooltip="previous labelled entry",
        ),
        Binding(
            "n",
            "search_step(1)",
            "Next match",
            show=False,
            tooltip="next match of the panel search (/ searches)",
        ),
        Binding("N", "search_step(-1)", "Prev match", show=False, tooltip="previous match"),
        Binding(
            "m",
            "mark",
            "Mark",
            show=False,
            tooltip="mark the branch through this entry, to compare it (=) with another",
        ),
        Binding(
            "equals_sign",
            "compare",
            "Compare",
            tooltip="compare the marked branch (m) with the one through this entry",
        ),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "branch-panel--cursor",
        "branch-panel--guide",
        "branch-panel--fold",
        "branch-panel--path",
        "branch-panel--label",
        "branch-panel--leaf",
        "branch-panel--count",
        "branch-panel--figure",
        "branch-panel--figure-path",
        "branch-panel--footer",
        "branch-panel--user",
        "branch-panel--assistant",
        "branch-panel--error",
        "branch-panel--tool",
        "branch-panel--summary",
        "branch-panel--custom",
        "branch-panel--meta",
    }
    """The parts of a row (and the footer line), styled in :attr:`DEFAULT_CSS`."""

    DEFAULT_CSS = """
    BranchPanel {
        height: 1fr;
        overflow-x: hidden;
        overflow-y: auto;
        scrollbar-size-vertical: 1;
    }
    BranchPanel > .branch-panel--cursor {
        background: $block-cursor-blurred-background;
        text-style: $block-cursor-blurred-text-style;
    }
    BranchPanel:focus > .branch-panel--cursor {
        background: $block-cursor-background;
        text-style: $block-cursor-text-style;
    }
    BranchPanel > .branch-panel--guide { color: $text-muted; }
    BranchPanel > .branch-panel--fold { color: $text-accent; }
    BranchPanel > .branch-panel--path { color: $text-accent; }
    BranchPanel > .branch-panel--label { color: $text-warning; }
    BranchPanel > .branch-panel--leaf { color: $text-accent; text-style: bold; }
    BranchPanel > .branch-panel--count { color: $text-muted; }
    BranchPanel > .branch-panel--figure { color: $text-muted; }
    BranchPanel > .branch-panel--figure-path { color: $text-success; text-style: bold; }
    BranchPanel > .branch-panel--footer { color: $text-muted; }
    BranchPanel > .branch-panel--user { color: $text-accent; }
    BranchPanel > .branch-panel--assistant { color: $text-success; }
    BranchPanel > .branch-panel--error { color: $text-error; }
    BranchPanel > .branch-panel--tool { color: $text-muted; }
    BranchPanel > .branch-panel--summary { color: $text-warning; }
    BranchPanel > .branch-panel--custom { color: $text-secondary; }
    BranchPanel > .branch-panel--meta { color: $text-muted; }
    /* $text-muted is a contrast colour: drawn without its background it comes out white,
       unreadable on a light theme. */
    .-light-mode BranchPanel > .branch-panel--guide,
    .-light-mode BranchPanel > .branch-panel--count,
    .-light-mode BranchPanel > .branch-panel--figure,
    .-light-mode BranchPanel > .branch-panel--tool,
    .-light-mode BranchPanel > .branch-panel--meta { color: $foreground-muted; }
    """

    class EntrySelected(Message):
        """An entry was chosen: show the path through ``entry`` down to ``leaf``."""

        def __init__(self, panel: BranchPanel, entry: int, leaf: int) -> None:
            self.panel = panel
            """The panel the entry was chosen in."""
            self.entry = entry
            """The chosen entry (index in file order): bring it into view."""
            self.leaf = leaf
            """The leaf of the path to show: the active leaf when ``entry`` is on the
            active path, else the newest leaf under ``entry`` (Pi's export rule)."""
            super().__init__()

        @property
        def control(self) -> BranchPanel:
            """The panel (for ``@on(BranchPanel.EntrySelected, "#id")``)."""
            return self.panel

    class CompareRequested(Message):
        """Compare the branch to ``leaf_a`` (the marked one) with the one to ``leaf_b``."""

        def __init__(self, panel: BranchPanel, leaf_a: int, leaf_b: int) -> None:
            self.panel = panel
            """The panel the comparison was asked in."""
            self.leaf_a = leaf_a
            """The newest leaf under the marked entry."""
            self.leaf_b = leaf_b
            """The newest leaf under the entry at the cursor."""
            super().__init__()

    filter_mode: reactive[FilterMode] = reactive[FilterMode]("default")
    """Which entries are shown."""
    cursor: reactive[int] = reactive(0, always_update=True)
    """Row index of the cursor."""

    def __init__(
        self,
        session: Session | None = None,
        leaf: int | None = None,
        *,
        filter_mode: FilterMode = "default",
        name: str | None = None,
        id: str | None = None,  # noqa: A002 - Textual's parameter name
        classes: str | None = None,
        disabled: bool = False,
    ) -> None:
        """Show ``session`` (or later, :meth:`set_session`) with ``leaf`` (default: the
        file's) active."""
        super().__init__(name=name, id=id, classes=classes, disabled=disabled)
        # The rows and what they are flattened from.
        self._session: Session | None = None
        self._leaf: int | None = None
        self._folds = Folds()
        self._tree_rows: TreeRows | None = None
        self._texts: OrderedDict[int, str] = OrderedDict()
        self._stale = False
        """The rows are out of date (changed while hidden): flattened when shown."""
        self._stale_keep: int | None = None
        self._generation = 0
        """Counts the flattenings: a worker's rows for an older one are moot."""
        self.building = False
        """True while a big tree is being flattened in a worker (the rows shown are older)."""
        self._reveal_cursor = False
        self._rows_ahead = RowsAhead(self)
        # The usage figures of the rows.
        self.figure: Figure = "cost"
        """The figure shown: ``cost``, ``tokens``, ``turns`` or ``duration``."""
        self._sums: SubtreeSums | None = None
        self._figure_chosen = False
        self._sums_timer: Timer | None = None
        self._summing = False
        """True while a worker sums the usage of a grown tree (one at a time)."""
        # The search and the mark.
        self._search_generation = 0
        self._matches: list[int] = []
        self._match_at = -1
        self._query = ""
        self.searching = False
        """True while a search runs in its worker."""
        self.marked: int | None = None
        """The entry marked with ``m``: its branch is compared by ``=``."""
        self.set_reactive(BranchPanel.filter_mode, filter_mode)
        if session is not None:
            self.set_session(session, leaf)

    # ----------------------------------------------------------------- public API

    @property
    def session(self) -> Session | None:
        """The session shown."""
        return self._session

    @property
    def leaf(self) -> int | None:
        """The active leaf."""
        return self._leaf

    @property
    def rows(self) -> list[Row]:
        """The rows currently listed."""
        self._ensure_rows()
        return self._tree_rows.rows if self._tree_rows is not None else []

    @property
    def tree_rows(self) -> TreeRows | None:
        """The flattened rows with their visible tree."""
        self._ensure_rows()
        return self._tree_rows

    @property
    def cursor_entry(self) -> int | None:
        """The entry under the cursor."""
        rows = self.rows
        return rows[self.cursor].entry if 0 <= self.cursor < len(rows) else None

    @property
    def sums(self) -> SubtreeSums | None:
        """The sums the figures come from (``None`` until they are computed)."""
        return self._sums

    @property
    def search_state(self) -> tuple[str, int, int] | None:
        """``(query, current match (1-based), matches)`` after a search, else None."""
        if not self._query:
            return None
        return self._query, self._match_at + 1, len(self._matches)

    @property
    def _ahead(self) -> tuple[int, Session, TreeRows] | None:
        """The rows flattened ahead, kept for the next show (None: none)."""
        return self._rows_ahead.kept

    def set_session(self, session: Session, leaf: int | None = None) -> None:
        """Show ``session`` with ``leaf`` active; the cursor goes to the leaf."""
        self._session = session
        self.marked = None  # entry indices of another load mean nothing here
        if leaf is None or not 0 <= leaf < len(session):
            leaf = session.tree.leaf
        self._leaf = leaf
        self._folds = Folds.for_tree(len(session), self.filter_mode)
        self._texts.clear()
        self.set_sums(None)
        self._rebuild(keep=self._leaf)

    def set_active(self, leaf: int | None) -> None:
        """Make ``leaf`` (``None`` or out of range: the file's leaf) the active leaf: re-mark
        the active path and unfold it; the cursor stays on its entry."""
        if self._session is None:
            return
        if leaf is None or not 0 <= leaf < len(self._session):
            leaf = self._session.tree.leaf
        # An array (the tree's cached path): a list would cost an int object per entry.
        path = self._session.tree.path_array(leaf) if leaf is not None else ()
        rows = self._tree_rows
        if (
            rows is not None
            and leaf == self._leaf == rows.leaf
            and rows.mode == self.filter_mode
            and not (self._stale or self.building)
            and self._folds.closed.isdisjoint(path)
        ):
            return  # the same active path, nothing on it folded: these are its rows already
        keep = self.cursor_entry if rows is not None and not self._stale else leaf
        self._leaf = leaf
        self._folds.open_path(path)
        self._rebuild(keep=keep)

    def grow(self, session: Session, leaf: int) -> bool:
        """Show ``session``, whose tree grew since the rows were laid out, with ``leaf``
        active, laying out only what changed; False when it cannot: call ``set_session``."""
        old = self._tree_rows
        if (
            session is not self._session
            or old is None
            or old.walk is None
            or self.building
            or self._stale
            or not (self.is_mounted and self.display)
        ):
            return False
        first_new = len(old.walk.pre)  # the entries the rows were laid out for
        if first_new == len(session) and old.leaf == leaf:
            return True
        fresh = Folds.for_tree(len(session), self.filter_mode)
        folds = self._folds
        if folds.opened or folds.closed or folds.fold_side != fresh.fold_side:
            return False  # set_session forgets the user's folds: the old rows had them
        from piview.model.treeview_grow import grow_rows  # only once the file grows

        rows = grow_rows(old, session, leaf, first_new, self.filter_mode, fresh)
        if rows is None:
            return False
        self.marked = None
        self._leaf = leaf
        self._folds = fresh
        # The row texts stay: an entry's text is its own (the same session).
        self._generation += 1
        self._tree_rows = rows
        row = rows.nearest_row(leaf)
        self._update_virtual_size()
        self.cursor = row if row is not None else 0
        self.refresh()
        # Once the file is quiet: a big tree's sum would slow the next appends' paints.
        if self._sums_timer is not None:
            self._sums_timer.stop()
        self._sums_timer = self.set_timer(SUMS_DELAY, self._sum_grown, name="grow-sums")
        return True

    def flatten_ahead(self, then: Callable[[], None] | None = None) -> None:
        """Flatten a hidden panel's stale rows in a worker, for its next show; ``then`` once
        done (or at once, when there is nothing to do)."""
        s = self._session
        if s is not None and self._stale and not self.building and len(s) < BIG_TREE:
            work = partial(_flatten_and_sum, s, self._leaf, self.filter_mode, self._folds.copy())
            self._rows_ahead.start(s, work, then)
        elif then is not None:
            then()

    def move_to_entry(self, entry: int) -> None:
        """Put the cursor on ``entry``, unfolding what hides it."""
        self._ensure_rows()
        if self._session is None or self._tree_rows is None:
            return
        if entry not in self._tree_rows.row_of:
            path = self._session.tree.path(entry)
            for i in path[:-1]:
                self._folds.set(i, False)
            self._rebuild(keep=entry)
        else:
            self.cursor = self._tree_rows.row_of[entry]

    def row_text(self, entry: int) -> str:
        """The cached one-line text of ``entry``."""
        text = self._texts.get(entry)
        if text is not None:
            self._texts.move_to_end(entry)
            return text
        assert self._session is not None
        from piview.model.treetext import row_text  # the first row drawn (hidden at first)

        try:
            text = row_text(self._session, entry)
        except OSError:
            text = "[unreadable]"
        self._texts[entry] = text
        if len(self._texts) > _TEXT_CACHE:
            self._texts.popitem(last=False)
        return text

    def set_sums(self, sums: SubtreeSums | None) -> None:
        """Show the figures of ``sums``. Until the user picks a figure, a file that records
        no cost shows tokens (a column of nothing helps no one)."""
        self._sums = sums
        if sums is not None and not self._figure_chosen:
            self.figure = "cost" if sums.total().cost else "tokens"
        self.refresh()

    def figure_text(self, row: Row) -> str:
        """The short figure of ``row`` (``""`` for a row that shows none, or a zero)."""
        sums = self._sums
        if sums is None or row.entry >= len(sums.tree):
            return ""
        if row.is_branch_point or row.folded or row.side:
            # An OpenClaw side note is no branch: its own figure (and what hangs under it).
            return fmt_figure(self.figure, sums.subtree(row.entry))
        walk = self._tree_rows.walk if self._tree_rows is not None else None
        if walk is not None and walk.vchildren.get(row.entry):
            return ""
        return fmt_figure(self.figure, sums.through(row.entry))

    def search(self, query: str) -> None:
        """Find the entries whose row text or label match ``query``, folded ones too, in a
        worker; then put the cursor on the first one at or after it (blank: clear)."""
        self._search_generation += 1
        if self._session is None or not query.split():
            self.clear_search()
            return
        # Imported on first use: the first screen searches nothing.
        from piview.model.query import parse_query
        from piview.model.treesearch import search_entries

        error = parse_query(query).error
        if error is not None:
            self.notify(f"Bad regular expression: {error}", severity="error", markup=False)
        self.searching = True
        self.refresh()
        compute_off_thread(
            self,
            partial(search_entries, self._session, query, self.filter_mode),
            partial(self._searched, self._search_generation, query),
            group="tree-search",
            description="Searching the session tree",
        )

    def clear_search(self) -> None:
        """Forget the matches."""
        self._search_generation += 1
        self.searching = False
        self._matches = []
        self._match_at = -1
        self._query = ""
        self.refresh()

    # ----------------------------------------------------------------- keys and clicks

    def action_move(self, delta: int) -> None:
        """Move the cursor by ``delta`` rows."""
        self.cursor += delta

    def action_page(self, direction: int) -> None:
        """Move the cursor by a page."""
        self.cursor += direction * self._body_height()

    def action_jump_to(self, row: int) -> None:
        """Move the cursor to ``row`` (negative counts from the end)."""
        self.cursor = row if row >= 0 else len(self.rows) + row

    def action_select(self) -> None:
        """Post :class:`EntrySelected` for the row under the cursor."""
        entry = self.cursor_entry
        if entry is None or self._session is None:
            return
        # As Pi's HTML export: the path through the entry down to its newest leaf.
        leaf = self._session.tree.newest_leaf(entry)
        self.post_message(self.EntrySelected(self, entry, leaf))

    def action_toggle_fold(self) -> None:
        """Fold or unfold the segment under the cursor."""
        rows = self.rows
        if not rows:
            return
        assert self._tree_rows is not None
        row = (
            self.cursor
            if rows[self.cursor].foldable
            else self._tree_rows.segment_start(self.cursor)
        )
        if row is not None:
            self._set_fold(row, not rows[row].folded)

    def action_fold(self) -> None:
        """Fold the cursor's segment, or go to the start of the enclosing segment."""
        rows = self.rows
        if not rows:
            return
        if rows[self.cursor].expanded:
            self._set_fold(self.cursor, True)
            return
        assert self._tree_rows is not None
        start = self._tree_rows.segment_start(self.cursor)
        if start is not None:
            self.cursor = start

    def action_unfold(self) -> None:
        """Unfold the cursor's segment, or go to the next branch start below."""
        rows = self.rows
        if not rows:
            return
        if rows[self.cursor].folded:
            self._set_fold(self.cursor, False)
            return
        for k in range(self.cursor + 1, len(rows)):
            if rows[k].connector:
                self.cursor = k
                return

    def action_label(self, step: int) -> None:
        """Move to the next (or previous) labelled entry in tree order, wrapping around and
        unfolding what hides it."""
        rows = self.rows
        walk = self._tree_rows.walk if self._tree_rows is not None else None
        if walk is None or not rows:
            return
        target = walk.next_labelled(walk.pre[rows[self.cursor].entry], step)
        if target is None:
            self.notify("No labelled entry in this filter", timeout=3)
            return
        self.move_to_entry(target)

    def action_cycle_filter(self, step: int) -> None:
        """Switch to the next (or previous) filter mode."""
        self.filter_mode = next_filter(self.filter_mode, step)

    def action_cycle_figure(self, step: int = 1) -> None:
        """Show the next figure: cost, tokens, turns, duration."""
        from piview.model.subtree import next_figure  # the sums: when the panel first shows

        self._figure_chosen = True
        self.figure = next_figure(self.figure, step)
        self.refresh()

    def action_search_step(self, step: int) -> None:
        """Go to the next (or previous) match of the last search."""
        if self._matches:
            self._go_to_match((self._match_at + step) % len(self._matches))

    def action_mark(self) -> None:
        """Mark the entry under the cursor for a comparison (again: unmark it)."""
        entry = self.cursor_entry
        if entry is None or self._session is None:
            return
        if self.marked == entry:
            self.marked = None
            self.refresh()
            self.notify("Mark cleared", timeout=2)
            return
        self.marked = entry
        self.refresh()  # the row shows ◆ once the cursor leaves it
        self.notify(
            f"Marked {sanitize_line(self._session.ids[entry][:8])}: "
            "= compares its branch with the one at the cursor",
            timeout=4,
            markup=False,
        )

    def action_compare(self) -> None:
        """Post :class:`CompareRequested` for the marked branch and the cursor's."""
        entry = self.cursor_entry
        if entry is None or self._session is None:
            return
        if self.marked is None:
            self.notify("Mark a branch with m first, then = compares it with this one", timeout=4)
            return
        tree = self._session.tree
        # As enter: an entry's branch runs through it down to its newest leaf.
        a, b = tree.newest_leaf(self.marked), tree.newest_leaf(entry)
        if a == b:
            self.notify("Both entries are on the same branch: mark another one", timeout=4)
            return
        self.post_message(self.CompareRequested(self, a, b))

    def on_click(self, event: events.Click) -> None:
        """A click moves the cursor to the row and selects it."""
        y = event.y
        if y >= self.scrollable_content_region.height - 1:
            return
        row = round(self.scroll_y) + y
        if 0 <= row < len(self.rows):
            self.cursor = row
            self.action_select()

    # ----------------------------------------------------------------- state

    def _rebuild(self, keep: int | None, *, force: bool = False) -> None:
        if self._session is None:
            return
        if not force:
            self._rows_ahead.inputs += 1  # rows flattened ahead are for the inputs before this
        if not force and not (self.is_mounted and self.display):
            # A hidden panel costs nothing: flatten when it is shown (or asked for rows).
            self._stale = True
            self._stale_keep = keep
            return
        self._stale = False
        self._generation += 1
        ahead = self._rows_ahead.take(self._session)
        if ahead is not None:
            self._apply(ahead, keep)
            return
        if len(self._session) >= BIG_TREE and self.is_mounted:
            self._flatten_in_worker(keep)
            return
        self._apply(
            _flatten_and_sum(self._session, self._leaf, self.filter_mode, self._folds), keep
        )

    def _apply(self, tree_rows: TreeRows, keep: int | None) -> None:
        self._tree_rows = tree_rows
        if self._session is not None:
            from piview.model.subtree import cached_sums

            # Computed beside the rows (in the worker for a big tree): here a lookup.
            self.set_sums(cached_sums(self._session))
        row = tree_rows.nearest_row(keep)
        self._update_virtual_size()
        self.cursor = row if row is not None else 0
        self.refresh()

    def _flatten_in_worker(self, keep: int | None) -> None:
        """Flatten a big tree off the UI thread; the panel keeps its rows (or says it is
        building) until the new ones arrive. A newer rebuild makes this one's result moot."""
        assert self._session is not None
        self.building = True
        compute_off_thread(
            self,
            partial(
                _flatten_and_sum, self._session, self._leaf, self.filter_mode, self._folds.copy()
            ),
            partial(self._flattened, self._generation, keep=keep),
            group="flatten",
            description="Flattening the session tree",
        )

    def _flattened(self, generation: int, tree_rows: TreeRows | None, *, keep: int | None) -> None:
        if generation != self._generation:
            return  # the tree, filter or folds changed since: a newer result is coming
        self.building = False
        if tree_rows is None:
            self.refresh()  # the worker failed (its error is logged): keep the old rows
            return
        self._apply(tree_rows, keep)

    def _ensure_rows(self) -> None:
        if self.building:
            return  # the rows shown stay until the worker's arrive
        if self._stale or (self._tree_rows is None and self._session is not None):
            self._rebuild(self._stale_keep if self._stale else self._leaf, force=True)

    def _set_fold(self, row: int, folded: bool) -> None:
        entry = self.rows[row].entry
        self._folds.set(entry, folded)
        tree_rows = self._tree_rows
        if tree_rows is None or tree_rows.walk is None or self.building or self._stale:
            self._rebuild(keep=entry)
            return
        # Only this row's subtree changes: cut its rows out, or lay them out again.
        self._generation += 1
        self._apply(refold(tree_rows, row, self._folds), entry)

    def _sum_grown(self) -> None:
        """Sum the usage of the tree shown in a worker (a second one waits for the first:
        appends may come faster than a big tree is summed)."""
        self._sums_timer = None
        session = self._session
        if self._summing or session is None:
            return
        self._summing = True
        compute_off_thread(
            self,
            partial(_subtree_sums, session),
            partial(self._grown_sums, session),
            group="grow",
            description="Summing the usage of the grown tree",
        )

    def _grown_sums(self, session: Session, sums: SubtreeSums | None) -> None:
        self._summing = False
        if session is not self._session or sums is None:
            return
        if sums.tree is session.tree:
            self.set_sums(sums)
            self.refresh()
        else:
            self._sum_grown()  # the tree grew again meanwhile

    def _searched(self, generation: int, query: str, found: list[int] | None) -> None:
        if generation != self._search_generation:
            return
        self.searching = False
        self._query = query
        self._matches = found or []
        self._match_at = -1
        if self._matches:
            here = self.cursor_entry
            k = bisect_left(self._matches, here) if here is not None else 0
            self._go_to_match(k % len(self._matches))
        self.refresh()

    def _go_to_match(self, k: int) -> None:
        self._match_at = k
        self.move_to_entry(self._matches[k])
        self.refresh()

    # ----------------------------------------------------------------- drawing

    def on_show(self) -> None:
        """Flatten the tree now if it changed while the panel was hidden."""
        if self._stale:
            self._rebuild(self._stale_keep, force=True)
        self._reveal_cursor = True
        self.refresh()

    def render_lines(self, crop: Region) -> list[Strip]:
        """Bring the cursor into view on the first paint after a show or resize (only now is
        the new size laid out)."""

        if self._reveal_cursor and self.scrollable_content_region.height > 1:
            self._reveal_cursor = False
            body = self._body_height()
            top = round(self.scroll_y)
            if self.cursor < top:
                self.set_scroll(None, self.cursor)
            elif self.cursor >= top + body:
                self.set_scroll(None, self.cursor - body + 1)
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        """Draw one line of the viewport: a row, or the footer on the last line."""
        width = self.scrollable_content_region.width
        base = self.rich_style
        if y == self.scrollable_content_region.height - 1:
            return self._footer(width, base)
        rows = self.rows
        index = round(self.scroll_y) + y
        if not rows and y == 0:
            style = self.get_component_rich_style("branch-panel--footer", partial=True)
            note = "  Building the tree…" if self.building else "  No entries"
            return Strip([Segment(note, style)]).crop_extend(0, width, base)
        if not 0 <= index < len(rows):
            return Strip.blank(width, base)
        return self._row_strip(rows[index], index == self.cursor, width, base)

    def _footer(self, width: int, base: Style) -> Strip:
        """``(i/n) [filter]`` and the state of the flattening and of the search."""
        n = len(self.rows)
        text = f"  ({self.cursor + 1 if n else 0}/{n}) [{self.filter_mode}]"
        if self.building:
            text += "  building the tree…"
        if self.searching:
            text += "  searching…"
        elif self._query:
            found = len(self._matches)
            text += f"  /{self._query}: " + (
                f"{self._match_at + 1}/{found}" if found else "no match"
            )
        style = self.get_component_rich_style("branch-panel--footer", partial=True)
        return Strip([Segment(text, style)]).crop_extend(0, width, base)

    def _row_strip(self, row: Row, is_cursor: bool, width: int, base: Style) -> Strip:
        assert self._session is not None
        from piview.model.treetext import row_kind  # the first row drawn (hidden at first)

        cstyle = self.get_component_rich_style
        strip = row_strip(
            row,
            self.row_text(row.entry),
            row_kind(self._session.nodes[row.entry]),
            width=width,
            base=base,
            style_of=lambda name: cstyle(name, partial=True),
            cursor=cstyle("branch-panel--cursor") if is_cursor else None,
            figure=self.figure_text(row),
        )
        if row.entry == self.marked and not is_cursor and width > 1:
            # The entry m marked for a comparison (=), in the cursor's column.
            mark = Segment("◆", base + cstyle("branch-panel--label", partial=True))
            strip = Strip.join([Strip([mark], 1), strip.crop(1, width)])
        return strip

    def _update_virtual_size(self) -> None:
        width = self.scrollable_content_region.width
        self.virtual_size = Size(width, len(self.rows) + 1)

    def validate_cursor(self, value: int) -> int:
        """Clamp the cursor to the rows."""
        return max(0, min(value, len(self.rows) - 1))

    def watch_cursor(self) -> None:
        """Keep the cursor row in view."""
        self._scroll_to_cursor()
        self.refresh()

    def watch_filter_mode(self) -> None:
        """Re-filter, keeping the cursor on its entry or its nearest shown ancestor."""
        if self._session is not None:
            # labeled-only shows every label: nothing of it starts folded.
            default = Folds.for_tree(len(self._session), self.filter_mode)
            self._folds.fold_side = default.fold_side
        self._rebuild(keep=self.cursor_entry)

    def _body_height(self) -> int:
        return max(1, self.scrollable_content_region.height - 1)

    def _scroll_to_cursor(self) -> None:
        top = round(self.scroll_y)
        body = self._body_height()
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, immediate=True)
        elif self.cursor >= top + body:
            self.scroll_to(y=self.cursor - body + 1, animate=False, immediate=True)

    def on_resize(self, event: events.Resize) -> None:
        """Track the width and keep the cursor in view."""
        self._update_virtual_size()
        self._reveal_cursor = True


def _subtree_sums(session: Session) -> SubtreeSums:
    """The usage sums of every subtree of ``session``'s tree (made once per tree)."""
    # Imported here: the panel is hidden on the first screen, which needs no sums.
    from piview.model.subtree import subtree_sums

    return subtree_sums(session)


def _flatten_and_sum(
    session: Session, leaf: int | None, mode: FilterMode, folds: Folds
) -> TreeRows:
    """The rows, with the tree's usage sums made ready for them (once per tree)."""
    _subtree_sums(session)
    return flatten(session, leaf, mode, folds)
