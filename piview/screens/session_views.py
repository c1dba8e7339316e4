"""Provides :class:`SessionViews`: the session screen's keys that open other views, as a mixin
of :class:`piview.screens.session.SessionScreen`.

``i`` the tool-call inspector, ``T`` the tools view, ``c`` the context view, and ``x`` the
export of the branch to an HTML file. Each view's module is imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from piview.widgets.transcript import Transcript

if TYPE_CHECKING:
    from textual.screen import Screen

    from piview.model import Session

    _Screen = Screen[None]
else:
    _Screen = object  # a plain mixin: Textual sees only the screen class itself

__all__ = ["SessionViews"]


class SessionViews(_Screen):
    """Inspector, tools, context and export; the screen provides what is declared here."""

    session: Session
    leaf: int | None

    def _focused_call(self) -> tuple[int, int] | None:
        """``(entry, part)`` of the focused tool call (part -1 for a result without a call)."""
        item = self.query_one(Transcript).current_item
        if item is None:
            return None
        if item.kind == "tool":
            return item.entry, item.part
        if item.kind == "orphan_result":
            return item.entry, -1
        return None

    def action_inspect(self) -> None:
        """Open the tool-call inspector on the focused call, or the raw JSON of any other
        focused entry."""
        ref = self._focused_call()
        if ref is None:
            entry = self.query_one(Transcript).current_entry
            if entry is None:
                return
            from piview.screens.entry_json import EntryJsonScreen

            self.app.push_screen(EntryJsonScreen(self.session, entry))
            return
        from piview.screens.inspector import ToolInspector

        self.app.push_screen(ToolInspector(self.session, *ref))

    def action_tools(self) -> None:
        """Open the tools view; Enter there jumps to the call."""
        from piview.screens.tools_view import ToolsScreen

        transcript = self.query_one(Transcript)

        def jump(ref: tuple[int, int] | None) -> None:
            if ref is None:
                return
            entry, part = ref
            for k, item in enumerate(transcript.items):
                if item.entry == entry and (part < 0 or item.part == part):
                    transcript.focus_item(k)
                    return

        self.app.push_screen(ToolsScreen(self.session, transcript.path), jump)

    def action_context(self) -> None:
        """Show what the model had in context at the focused entry."""
        from piview.screens.context_view import ContextScreen

        entry = self.query_one(Transcript).current_entry
        if entry is None:
            entry = self.leaf
        if entry is None:
            return
        self.app.push_screen(ContextScreen(self.session, entry))

    def action_export(self) -> None:
        """Export the branch shown as one HTML file in the current directory."""
        from pathlib import Path

        from piview.export import export_branch

        leaf = self.leaf
        tag = self.session.ids[leaf][:8] if leaf is not None else "empty"
        out = Path.cwd() / f"{self.session.path.stem}-{tag}.html"
        try:
            written = export_branch(
                self.session, leaf, fmt="html", tools="preview", thinking=True, out=out
            )
        except OSError as exc:
            self.notify(f"Export failed: {exc}", severity="error", markup=False)
            return
        self.notify(f"Exported the branch to {written}", timeout=6, markup=False)
