"""Provides :class:`BranchPanel`: the session tree as Pi's ``/tree`` draws it, one line per row.

A Line-API list over :func:`piview.model.treeview.flatten`: only the rows on screen are drawn
and only their texts are read from the file (and cached), so a 20,000-entry session opens as
fast as a short one. See ``docs`` in ``textual-stack.md`` section 5 for why this is not a
``Tree`` widget. The lines are drawn by :mod:`piview.widgets.branch_rows`; the search is
:mod:`piview.widgets.branch_search`; marking and comparing branches
:mod:`piview.widgets.branch_compare`; its keys :mod:`piview.widgets.branch_keys`; following the
file without flattening it again :mod:`piview.widgets.branch_grow`.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from functools import partial
from typing import ClassVar

from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from piview.model.session import Session
from piview.model.treefilter import FilterMode
from piview.model.treeview import Folds, Row, TreeRows, flatten
from piview.widgets.branch_ahead import BranchAhead
from piview.widgets.branch_compare import BranchCompare
from piview.widgets.branch_figures import BranchFigures
from piview.widgets.branch_grow import BranchGrow
from piview.widgets.branch_keys import BranchKeys
from piview.widgets.branch_rows import BranchRows
from piview.widgets.branch_search import TreeSearch
from piview.widgets.offthread import compute_off_thread

__all__ = ["BranchPanel"]

_TEXT_CACHE = 4096
BIG_TREE = 100_000
"""Sessions of this many entries and more are flattened in a worker (too long for a key on
the UI thread)."""


class BranchPanel(
    BranchAhead,
    BranchKeys,
    BranchGrow,
    BranchRows,
    BranchFigures,
    TreeSearch,
    BranchCompare,
    ScrollView,
    can_focus=True,
):
    """The branches of a session: a cursor list of Pi's ``/tree`` rows.

    Each row shows the tree art (``├─ └─ │``), a fold marker on segment starts (``⊟`` open,
    ``⊞`` folded, with the number of hidden entries), ``•`` on the active path, the entry's
    ``[label]``, its one-line text, and ``◀ leaf`` on the active leaf; branch points and
    folded rows end with their subtree's usage figure, leaves with their branch's from the
    root. The last line reads ``(i/n) [filter]``. Segments off the active path start
    folded.

    Keys: :attr:`BINDINGS` (the help screen, ``?``, lists them from there, with a line each).
    Enter posts :class:`BranchPanel.EntrySelected`.

    Branches oh-my-pi archived are left out by every filter but ``all``.
    """

    HELP_TITLE = "Branch panel (b)"
    """The heading of this part's keys in the help screen."""

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
    """
    | Class | Description |
    | :- | :- |
    | `branch-panel--cursor` | The row under the cursor. |
    | `branch-panel--guide` | Tree art: guides and connectors. |
    | `branch-panel--fold` | Fold markers ``⊟``/``⊞``. |
    | `branch-panel--path` | The ``•`` of the active path. |
    | `branch-panel--label` | ``[label]`` bookmarks. |
    | `branch-panel--leaf` | The active leaf marker. |
    | `branch-panel--count` | Hidden-entry counts of folded rows. |
    | `branch-panel--figure` | Usage figures of the rows off the active path. |
    | `branch-panel--figure-path` | Usage figures of the active path's rows. |
    | `branch-panel--footer` | The ``(i/n) [filter]`` line. |
    | `branch-panel--user` ... `--meta` | Row text by kind of entry. |
    """

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
        """Create the panel.

        Args:
            session: the session to show (or set it later with :meth:`set_session`).
            leaf: the active leaf (default: the file's leaf).
            filter_mode: the initial filter.
        """
        super().__init__(name=name, id=id, classes=classes, disabled=disabled)
        self._session: Session | None = None
        self._leaf: int | None = None
        self._folds = Folds()
        self._tree_rows: TreeRows | None = None
        self._texts: OrderedDict[int, str] = OrderedDict()
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
        """Make ``leaf`` the active leaf: re-mark the active path and unfold it.

        The cursor stays on its entry (or its nearest shown ancestor). ``None`` or an
        index out of range means the file's leaf.
        """
        if self._session is None:
            return
        if leaf is None or not 0 <= leaf < len(self._session):
            leaf = self._session.tree.leaf
        # An array (the tree's cached path): a list's int per entry came on top of the
        # transcript's list when a whole session is swapped in.
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

    # ----------------------------------------------------------------- state

    def _rebuild(self, keep: int | None, *, force: bool = False) -> None:
        if self._session is None:
            return
        if not force:
            self._inputs += 1  # rows flattened ahead are for the inputs before this
        if not force and not (self.is_mounted and self.display):
            # A hidden panel costs nothing: flatten when it is shown (or asked for rows).
            self._stale = True
            self._stale_keep = keep
            return
        self._stale = False
        self._generation += 1
        ahead = self.take_ahead()
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
        generation = self._generation
        session, leaf, mode = self._session, self._leaf, self.filter_mode
        folds = self._folds.copy()
        assert session is not None
        self.building = True
        compute_off_thread(
            self,
            partial(_flatten_and_sum, session, leaf, mode, folds),
            partial(self._flattened, generation, keep=keep),
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

    _stale = False
    _stale_keep: int | None = None
    _generation = 0
    building = False
    """True while a big tree is being flattened in a worker (the rows shown are older)."""

    def _ensure_rows(self) -> None:
        if self.building:
            return  # the rows shown stay until the worker's arrive
        if self._stale or (self._tree_rows is None and self._session is not None):
            self._rebuild(self._stale_keep if self._stale else self._leaf, force=True)

    def on_show(self) -> None:
        """Flatten the tree now if it changed while the panel was hidden."""
        if self._stale:
            self._rebuild(self._stale_keep, force=True)
        self._reveal_cursor = True
        self.refresh()

    _reveal_cursor = False

    def render_lines(self, crop: Region) -> list[Strip]:
        """Bring the cursor into view on the first paint after a show or resize.

        Done here, not in the event handlers, because only now is the new size laid out.
        """
        if self._reveal_cursor and self.scrollable_content_region.height > 1:
            self._reveal_cursor = False
            body = self._body_height()
            top = round(self.scroll_y)
            if self.cursor < top:
                self.set_scroll(None, self.cursor)
            elif self.cursor >= top + body:
                self.set_scroll(None, self.cursor - body + 1)
        return super().render_lines(crop)

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

    def _ahead_limit(self) -> int:
        return BIG_TREE

    def _ahead_flatten(self) -> Callable[[Session, int | None, FilterMode, Folds], TreeRows]:
        return _flatten_and_sum


def _flatten_and_sum(
    session: Session, leaf: int | None, mode: FilterMode, folds: Folds
) -> TreeRows:
    """The rows, with the tree's usage sums made ready for them (once per tree)."""
    # Imported here: the panel is hidden on the first screen, which needs no sums.
    from piview.model.subtree import subtree_sums

    subtree_sums(session)
    return flatten(session, leaf, mode, folds)
