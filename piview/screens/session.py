"""Provides :class:`SessionScreen`: header, branch panel, transcript, usage sidebar, footer.

The screen shows a branch and keeps the panes and the status line in step; its other keys
hand over to ``Follower``, ``SearchKeys``, ``Views``, ``PanelWidths`` and ``Lineage``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, NamedTuple

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Input, Static

from piview.model.user_text import session_title
from piview.render.format import plural
from piview.render.items import ItemList, build_items
from piview.render.sanitize import sanitize_line
from piview.screens.first_frame import AfterFrame, FirstResumeScreen
from piview.screens.session_follow import Follower
from piview.screens.session_layout import PanelWidths
from piview.screens.session_lineage import Lineage, session_models
from piview.screens.session_search import SearchKeys
from piview.screens.session_subagents import Subagents
from piview.screens.session_views import Views, sum_usage
from piview.widgets.branch_panel import BranchPanel
from piview.widgets.keybar import KeyBar
from piview.widgets.offthread import compute_off_thread
from piview.widgets.transcript import Transcript
from piview.widgets.usage_sidebar import UsageSidebar

if TYPE_CHECKING:
    from piview.model import Session, UsageReport
    from piview.model.branchcost import BranchCosts
    from piview.model.query import Query
    from piview.render.prerender import Prerender

__all__ = ["SessionScreen", "session_models", "session_title"]

_USAGE_IN_WORKER = 5_000
"""Sessions with this many entries sum their usage in a worker thread (on the UI thread,
``u`` would hold the keys while it sums)."""


class _Build(NamedTuple):
    """A request for a branch's blocks, built in a worker."""

    leaf: int | None
    path: list[int]
    focus_entry: int | None
    hidden_only: bool
    """Same branch, hidden entries shown or hidden: keep the place, not the focus entry."""


BIG_BRANCH = 100_000
"""Branches of this many entries and more build their blocks in a worker (too long for a
key on the UI thread)."""


class SessionScreen(FirstResumeScreen):
    """One session: the transcript of a branch, with the tree and usage beside it.

    Keys: :attr:`BINDINGS` (the help screen, ``?``, lists them from there, with a line each).
    """

    HELP_TITLE = "Viewer"
    AUTO_FOCUS = "Transcript"
    """Not the first focusable widget: the hidden branch panel, styled for it, then blurred."""
    AHEAD_AFTER = 1.0
    """Seconds on a branch before what ``b``, ``H``, ``u`` and ``T`` show is made ahead."""

    BINDINGS = [
        Binding(
            "b", "toggle_branches", "Branches", tooltip="branch panel: every entry of the tree"
        ),
        Binding("u", "toggle_usage", "Usage", tooltip="usage sidebar: tokens and cost"),
        Binding(
            "dollar_sign",
            "cycle_figure",
            "Figure",
            show=False,
            tooltip="branch panel figures: cost, tokens, turns or duration of each branch",
        ),
        Binding("H", "toggle_hidden", "Hidden", tooltip="show or hide hidden entries"),
        Binding(
            "slash",
            "search",
            "Search",
            tooltip="search the branch: words, re:regex, smart case; tab: all branches"
            " (the panel, when it has the focus)",
        ),
        Binding(
            "i",
            "inspect",
            "Inspect",
            tooltip="inspect the focused tool call, or any entry's raw JSON",
        ),
        Binding("T", "tools", "Tools", tooltip="tools view: every tool call of the branch"),
        Binding(
            "w",
            "timeline",
            "Timeline",
            # In the footer after T: shown where the width leaves room (? and the palette always).
            tooltip="timeline: where the branch's time and context went",
        ),
        Binding(
            "c",
            "context",
            "Context",
            tooltip="context view: what the model saw at the focused entry",
        ),
        Binding("p", "toggle_follow", "Pause", tooltip="pause or resume following the file"),
        Binding("x", "export", "Export", tooltip="export the branch shown to HTML"),
        Binding("y", "copy", "Copy", show=False, tooltip="copy the focused block's text"),
        Binding("Y", "copy_id", "Copy id", show=False, tooltip="copy the focused entry's id"),
        Binding(
            "v",
            "open_pager",
            "Pager",
            show=False,
            tooltip="the focused block's whole text in $PAGER (less -R)",
        ),
        Binding(
            "V",
            "open_pager(True)",
            "Editor",
            show=False,
            tooltip="the focused block's text in $EDITOR (a copy)",
        ),
        Binding(
            "less_than_sign",
            "resize_panel(-4)",
            "Narrower",
            show=False,
            tooltip="move the panel's border left (the branch panel narrower)",
        ),
        Binding(
            "greater_than_sign",
            "resize_panel(4)",
            "Wider",
            show=False,
            tooltip="move the panel's border right (the branch panel wider)",
        ),
        Binding(
            "colon", "goto", "Go to", show=False, tooltip="go to an entry by its id (a prefix)"
        ),
        Binding(
            "P",
            "open_parent",
            "Parent",
            show=False,
            tooltip="open the session this one was forked from, at the fork point"
            " (a subagent's: the call that started it)",
        ),
        Binding(
            "escape",
            "escape",
            "Back",
            show=False,
            tooltip="back: close the search or the panel, or return to the picker",
        ),
    ]

    DEFAULT_CSS = """
    SessionScreen { layout: vertical; }
    SessionScreen #title { height: 1; background: $panel; color: $text; padding: 0 1; }
    SessionScreen #body { height: 1fr; }
    SessionScreen BranchPanel { width: 48; display: none; border-right: vkey $primary 40%; }
    SessionScreen BranchPanel.-visible { display: block; }
    SessionScreen UsageSidebar { width: 42; display: none; border-left: vkey $primary 40%; }
    SessionScreen UsageSidebar.-visible { display: block; }
    SessionScreen #search { dock: bottom; display: none; height: 3; }
    SessionScreen #search.-visible { display: block; }
    SessionScreen #status { height: 1; background: $panel; color: $text-muted; padding: 0 1; }
    """

    def __init__(
        self,
        session: Session,
        *,
        leaf: int | None = None,
        follow: bool = True,
        from_picker: bool = False,
        full_loader: Callable[[], Session] | None = None,
        prebuilt: tuple[int, ItemList] | None = None,
        prerender: Prerender | None = None,
        show_hidden: bool = False,
        panels: tuple[str, ...] = (),
        search: Query | None = None,
        first: bool = False,
    ) -> None:
        super().__init__()
        self.session = session
        self._initial_search = search
        """Run on the first branch shown, focusing ``leaf``'s match (a picker search hit)."""
        self._show_hidden = show_hidden
        self._panels = panels
        """Ids of the side panels to open at once (kept when the whole file replaces its tail)."""
        self._prerender = prerender
        """The first frame's blocks, being rendered by a child process (see the CLI)."""
        self._prebuilt = prebuilt
        """``(leaf, items)``: the transcript of that branch, built by the loading worker."""
        self.follow = follow
        """True while the file is polled for what Pi appends (``p`` pauses and resumes)."""
        self.follow_shown = follow
        """Whether the status line says "following" or "paused" (once the file is followed)."""
        self.last_entry_at: float | None = None
        """Wall-clock time the last entry arrived (at the start: the file's modification time)."""
        self.from_picker = from_picker
        self.full_loader = full_loader
        """For a partial session (the tail of a big file): loads the whole file."""
        # --leaf may name any entry: show the branch through it, down to its newest leaf.
        self._focus_entry = leaf
        self.leaf = session.tree.newest_leaf(leaf) if leaf is not None else session.tree.leaf
        self._after_frame = AfterFrame(held=first)  # the app's first screen: see startup_over
        self._titled_width = 0
        self.composed = False
        """True once the screen's Mount found its children (a screen closed before it composed
        has none, yet gets its Mount and Resize)."""
        self.building_branch = False
        """True while a long branch's blocks are being built in a worker."""
        self._branch_generation = 0
        self._pending: _Build | None = None
        self._usage_stale = True
        self._family_asked = False
        """Whether the subagents' usage was looked for (once per screen, in a worker)."""
        self.widths = PanelWidths(self)
        self.follower = Follower(self, SessionScreen)
        self.search_keys = SearchKeys(self)
        self.views = Views(self, self.widths, lambda: (BIG_BRANCH, _USAGE_IN_WORKER))
        self.lineage = Lineage(self, session, SessionScreen)
        self.subagents = Subagents(self, session, SessionScreen)

    def startup_over(self) -> None:
        """The app is ready: Textual's start-up batch, whose frames are not written, is over."""
        self._after_frame.release()

    def _frame_late(self) -> None:
        self.startup_over()
        self._after_frame.written(self)

    def compose(self) -> ComposeResult:
        """Header, the three panes and the footer."""
        yield Static(self._title_text(), id="title")
        with Horizontal(id="body"):
            yield BranchPanel(self.session, id="branches")
            transcript = Transcript(self.session, id="transcript", prerender=self._prerender)
            transcript.after_paint = partial(self._after_frame.written, self)
            yield transcript
            yield UsageSidebar(id="usage")
        yield Static("", id="status")
        yield KeyBar()

    def refresh_title(self) -> None:
        """Draw the header again (the file grew: a name, a model, a first message)."""
        self.query_one("#title", Static).update(self._title_text())

    def _title_text(self) -> Text:
        self._titled_width = self.size.width or self.app.size.width
        return self.lineage.header(self._titled_width)

    def on_resize(self, event: events.Resize) -> None:
        """The header fits the new width, and the panels the new size."""
        if not self.composed:
            return
        if event.size.width != self._titled_width:  # the first two: as composed
            self.refresh_title()
        self.widths.layout()

    def on_mount(self) -> None:
        """Show the branch, tell the user about damaged lines, and start following the file."""
        # Whether the screen has its children (and is not being removed with the app).
        self.composed = self.is_attached and bool(self.query(BranchPanel))
        if not self.composed:
            return  # closed before it composed (the app quitting): nothing to show
        if self.follow:
            self.follower.start()
        self.query_one(Transcript).show_hidden = self._show_hidden
        self.query_one(Transcript).enter_hook = self.subagents.enter
        if self._initial_search is not None and self._focus_entry is not None:
            target = (self._focus_entry, -1)  # the entry's first matching block
            self.query_one(Transcript).search_next_path(self._initial_search, target)
        self.show_branch(self.leaf, focus_entry=self._focus_entry)
        for panel in self._panels:
            self.query_one(f"#{panel}").add_class("-visible")
        self.widths.layout()
        if "usage" in self._panels:
            self.refresh_usage()
        self.query_one(Transcript).focus()
        if self.session.partial and self.full_loader is not None:
            # Once the first screen is written (they share the interpreter lock), else in 1 s.
            self._after_frame.add(self.follower.load_full)
            self.set_timer(1.0, self._frame_late)
        if self.session.index_cache is not None:  # for the next start, once the screen is up
            self.set_timer(1.0, self.follower.save_index)
        # A torn last line is normal while Pi writes: not damage while we follow the file.
        bad = [b for b in self.session.bad_lines if not (b.torn and self.follow)]
        if bad:
            where = ", ".join(str(b.line) for b in bad[:5]) + (" …" if len(bad) > 5 else "")
            self.notify(
                f"{len(bad)} damaged line(s) skipped (line {where}); see piview info for reasons",
                title="Damaged file",
                severity="warning",
                timeout=10,
            )

    # ------------------------------------------------------------------ branches

    def show_branch(self, leaf: int | None, *, focus_entry: int | None = None) -> None:
        """Show the path from the root to ``leaf``, with ``focus_entry`` in view (a very long
        branch's blocks built in a worker, the old branch shown meanwhile)."""
        path = self.session.tree.path(leaf) if leaf is not None else []
        transcript = self.query_one(Transcript)
        items = None
        if self._prebuilt is not None and self._prebuilt[0] == leaf and not transcript.show_hidden:
            items = self._prebuilt[1]
        self._prebuilt = None
        shown = transcript.items
        # The branch shown, chosen again (an entry of it in the panel): its blocks stay.
        if items is None and self._pending is None and path == transcript.path:
            items = shown if isinstance(shown, ItemList) else None
        if items is None and len(path) >= BIG_BRANCH:
            self._build_in_worker(_Build(leaf, path, focus_entry, hidden_only=False))
            return
        self._branch_generation += 1  # a build still running is moot
        self.building_branch = False
        self._show_items(leaf, path, items, focus_entry)

    def _show_items(
        self,
        leaf: int | None,
        path: list[int],
        items: ItemList | None,
        focus_entry: int | None,
    ) -> None:
        self.leaf = leaf
        self.query_one(Transcript).set_path(path, focus_entry=focus_entry, items=items)
        self.query_one(BranchPanel).set_active(leaf if leaf is not None else -1)
        self.refresh_usage()
        self.update_status()
        self.prepare_views_ahead()

    def _build_in_worker(self, build: _Build) -> None:
        """Build the blocks of ``build.path`` in a worker, with hidden entries as the
        transcript's setting says now; only the newest request is applied."""
        self._branch_generation += 1
        generation = self._branch_generation
        session = self.session
        show_hidden = self.query_one(Transcript).show_hidden
        self._pending = build
        self.building_branch = True
        self.update_status()
        compute_off_thread(
            self,
            partial(build_items, session, build.path, show_hidden=show_hidden),
            partial(self._built, generation, build, show_hidden=show_hidden),
            group="branch",
            description="Building the branch's blocks",
        )

    def _built(
        self, generation: int, build: _Build, items: ItemList | None, *, show_hidden: bool
    ) -> None:
        if generation != self._branch_generation:
            return  # another branch (or hidden setting) was asked for since
        self._pending = None
        self.building_branch = False
        transcript = self.query_one(Transcript)
        if items is None:
            self.update_status()
        elif build.hidden_only:
            transcript.set_show_hidden(show_hidden, items=items)
            self.update_status()
        else:
            self._show_items(build.leaf, build.path, items, build.focus_entry)

    def refresh_usage(self) -> None:
        """Show the branch's usage in the sidebar, when it is shown (else when it is next)."""
        # Summing the whole file costs O(entries): only while the sidebar is shown.
        side = self.query_one(UsageSidebar)
        if not side.has_class("-visible"):
            self._usage_stale = True
            return
        self._usage_stale = False
        ahead = self.views.usage_summed_ahead(self.leaf)
        if ahead is not None:  # summed in a worker while the sidebar was hidden
            side.show(ahead[0], branches=ahead[1])
            return
        path = self.session.tree.path(self.leaf) if self.leaf is not None else []
        if len(self.session) < _USAGE_IN_WORKER:
            report, costs = sum_usage(self.session, path, self.leaf)
            side.show(report, branches=costs)
        else:
            # A big file takes seconds to sum: keep the keys alive meanwhile.
            side.show(None, waiting=True)
            self._usage_worker(path, self.leaf)
        if not self._family_asked and self.session.path and self.session.stream_source is None:
            self._family_asked = True
            self._family_worker()

    @work(thread=True, exclusive=True, group="family", exit_on_error=False, description="Subagents")
    def _family_worker(self) -> None:
        """The usage of this session with its subagents' files (read here, each once)."""
        from piview.catalog.family import sidebar_family

        family = sidebar_family(self.session)
        if family is not None:
            self.app.call_from_thread(self.query_one(UsageSidebar).show_family, *family)

    @work(thread=True, exclusive=True, group="usage", exit_on_error=False, description="Usage")
    def _usage_worker(self, path: list[int], leaf: int | None) -> None:
        report, costs = sum_usage(self.session, path, leaf)
        self.app.call_from_thread(self.query_one(UsageSidebar).show, report, branches=costs)

    # ------------------------------------------------------------------ events

    @on(BranchPanel.EntrySelected)
    def _on_entry_selected(self, event: BranchPanel.EntrySelected) -> None:
        self.show_branch(event.leaf, focus_entry=event.entry)
        self.query_one(Transcript).focus()

    @on(Transcript.CursorMoved)
    def _on_cursor(self, event: Transcript.CursorMoved) -> None:
        self.update_status()

    def update_status(self) -> None:
        """Write the status line again."""
        t = self.query_one(Transcript)
        s = self.session
        parts = []
        if t.items:
            parts.append(f"block {t.cursor + 1}/{len(t.items)}")
        if self.leaf is not None:
            on_latest = self.leaf == s.tree.leaf
            parts.append(
                f"branch to {s.ids[self.leaf][:8]}" + ("" if on_latest else " (not the latest)")
            )
            n_leaves = s.tree.leaf_count()
            if n_leaves > 1:
                parts.append(plural(n_leaves, "leaf"))
        if s.partial:
            parts.append(f"showing the last {len(s):,} entries: loading the whole file…")
        if self.building_branch:
            parts.append("building the branch…")
        if t.show_hidden:
            parts.append("showing hidden")
        search = t.search_state
        if search is not None:
            q, cur, total = search
            running = " (searching…)" if t.searching else ""
            if total:
                parts.append(f"/{q}: {cur}/{total}{running}")
            else:
                parts.append(f"/{q}: searching…" if running else f"/{q}: no match")
        follow = self.follower.status()  # last: a narrow terminal cuts it before the rest
        if follow is not None:
            line = "  ·  ".join([*parts, follow])
            if len(line) >= self.size.width:
                line = "  ·  ".join([*parts, self.follower.status(short=True) or follow])
        else:
            line = "  ·  ".join(parts)
        # Ids and the query come from the file and the user: text, never markup.
        self.query_one("#status", Static).update(Text(sanitize_line(line)))

    # ------------------------------------------------------------------ actions

    def action_toggle_branches(self) -> None:
        """Show or hide the branch panel (focused when shown)."""
        panel = self.query_one(BranchPanel)
        panel.toggle_class("-visible")
        self.widths.layout("branches" if panel.has_class("-visible") else None)
        if panel.has_class("-visible"):
            panel.focus()
        else:
            self.query_one(Transcript).focus()

    def action_cycle_figure(self) -> None:
        """Show the next figure in the branch panel (cost, tokens, turns, duration)."""
        panel = self.query_one(BranchPanel)
        panel.action_cycle_figure()
        self.notify(f"Branch figures: {panel.figure}", timeout=2)

    def action_toggle_usage(self) -> None:
        """Show or hide the usage sidebar."""
        sidebar = self.query_one(UsageSidebar)
        sidebar.toggle_class("-visible")
        self.widths.layout("usage" if sidebar.has_class("-visible") else None)
        if self._usage_stale:
            self.refresh_usage()

    def action_toggle_hidden(self) -> None:
        """Show or hide hidden entries (display:false custom messages, extension state)."""
        t = self.query_one(Transcript)
        if self._pending is not None or len(t.path) >= BIG_BRANCH:
            # The setting changes now, the blocks (a branch being built too) from a worker.
            t.show_hidden = not t.show_hidden
            pending = self._pending
            self._build_in_worker(pending or _Build(self.leaf, t.path, None, hidden_only=True))
        else:
            t.set_show_hidden(not t.show_hidden)
        self.notify(
            "Showing hidden entries" if t.show_hidden else "Hiding hidden entries", timeout=2
        )
        self.update_status()

    def action_toggle_follow(self) -> None:
        """Pause following the file, or resume it (and read what arrived meanwhile)."""
        self.follower.toggle()

    async def action_search(self) -> None:
        """Open the search field: for the branch panel when it has the focus, else for the
        transcript."""
        await self.search_keys.open()

    def action_escape(self) -> None:
        """Close the search field, leave the branch panel, clear the search, or go back to
        the picker."""
        if not self.search_keys.escape() and self.from_picker:
            self.session.close()
            self.dismiss(None)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """While the search field has the focus, the screen's keys are letters to type; a
        screen takes no key before its widgets are mounted."""

        if not self.is_mounted:
            return False
        return not (isinstance(self.focused, Input) and action != "escape")

    def action_inspect(self) -> None:
        """The tool-call inspector on the focused call, or any other entry's JSON."""
        self.views.inspect()

    def action_tools(self) -> None:
        """Open the tools view; Enter there jumps to the call."""
        self.views.tools()

    def action_timeline(self) -> None:
        """Open the timeline; Enter there shows the block in the transcript."""
        self.views.timeline()

    def action_context(self) -> None:
        """Show what the model had in context at the focused entry."""
        self.views.context()

    def action_export(self) -> None:
        """Export the branch shown as one HTML file in the current directory, in a worker."""
        self.views.export()

    def action_goto(self) -> None:
        """Ask for an entry id (``:``) and show it."""
        self.views.goto()

    def action_copy(self) -> None:
        """Copy the focused block's text to the clipboard."""
        self.views.copy()

    def action_copy_id(self) -> None:
        """Copy the focused entry's id."""
        self.views.copy_id()

    def action_open_pager(self, editor: bool = False) -> None:
        """The focused block's whole text in ``$PAGER``, or in ``$EDITOR`` with ``editor``."""
        self.views.open_pager(editor)

    def action_resize_panel(self, delta: int) -> None:
        """Move the border of the branch panel (or, without it, the sidebar)."""
        self.widths.resize(delta)

    def action_open_parent(self) -> None:
        """Open the session this one was forked from, at the fork point."""
        self.lineage.open_parent()

    def prepare_views_ahead(self) -> None:
        """Make what ``b``, ``H``, ``u`` and ``T`` show ahead, in workers, after a while on
        the branch shown."""
        self.views.prepare_ahead()

    def usage_summed_ahead(self, leaf: int | None) -> tuple[UsageReport, BranchCosts] | None:
        """The usage sidebar's figures for the branch to ``leaf``, if summed ahead."""
        return self.views.usage_summed_ahead(leaf)

    def transcript_width_with_sidebar(self, now: int) -> int | None:
        """The transcript's width once the hidden sidebar is shown (``u``)."""
        return self.widths.transcript_width_with_sidebar(now)

    def on_screen_resume(self) -> None:
        """Back on top (a view over this screen closed): a replacement waiting runs now."""
        self.follower.resumed()

    def on_mouse_down(self, event: events.MouseDown) -> None:
        """Start dragging when the press is on a panel's border."""
        self.widths.mouse_down(event)

    def on_mouse_move(self, event: events.MouseMove) -> None:
        """Move the border with the mouse."""
        self.widths.mouse_move(event)

    def on_mouse_up(self, event: events.MouseUp) -> None:
        """Stop dragging."""
        self.widths.mouse_up(event)

    @on(Input.Submitted, "#search")
    def _on_search(self, event: Input.Submitted) -> None:
        self.search_keys.submit(event)

    @on(Transcript.SearchUpdated)
    def _on_search_updated(self, event: Transcript.SearchUpdated) -> None:
        self.update_status()
