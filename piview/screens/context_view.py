"""Provides :class:`ContextScreen`: what the model had in context at one entry."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.binding import Binding

from piview.model import build_context, system_prompt_state
from piview.model.context_report import token_shares
from piview.model.types import (
    BranchSummaryEntry,
    CompactionEntry,
    CustomMessageEntry,
    MessageEntry,
    TextContent,
)
from piview.render.format import fmt_tokens, plural
from piview.render.sanitize import sanitize_line
from piview.widgets.pager import PagerModal

if TYPE_CHECKING:
    from piview.model import ContextItem, Session


_HIDDEN = " (hidden in the chat, seen by the model)"


_CONTEXT_TYPES = ("message", "custom_message", "branch_summary", "compaction")


def _preview(session: Session, item: ContextItem) -> tuple[str, str]:
    """(label, one-line text) of a context item."""
    e = session.entry(item.index)
    if item.kind == "compaction_summary" and isinstance(e, CompactionEntry):
        return "compaction summary", e.summary
    if item.kind == "retained" and isinstance(e, CompactionEntry) and e.retained_tail:
        m = e.retained_tail[item.tail_index or 0]
        return f"retained {type(m).__name__}", _text(getattr(m, "content", ""))
    if isinstance(e, BranchSummaryEntry):
        return "branch summary", e.summary
    if isinstance(e, CustomMessageEntry):
        hidden = "" if e.display else _HIDDEN
        return f"[{e.custom_type}]{hidden}", _text(e.content)
    if isinstance(e, MessageEntry) and e.message is not None:
        m = e.message
        role = getattr(m, "unknown_role", None) or m.__struct_config__.tag
        if role == "toolResult":
            return f"toolResult {getattr(m, 'tool_name', '')}", _text(getattr(m, "content", ""))
        if role == "bashExecution":
            return "bash (as user text)", "$ " + getattr(m, "command", "")
        if role == "custom":
            hidden = "" if getattr(m, "display", True) else _HIDDEN
            return f"[{getattr(m, 'custom_type', '')}]{hidden}", _text(getattr(m, "content", ""))
        if role == "assistant":
            parts = [b.text for b in getattr(m, "content", []) if isinstance(b, TextContent)]
            calls = [
                getattr(b, "name", "")
                for b in getattr(m, "content", [])
                if type(b).__name__ == "ToolCall"
            ]
            text = " ".join(parts) or ("calls " + ", ".join(calls) if calls else "")
            return "assistant", text
        return str(role), _text(getattr(m, "content", ""))
    return item.kind, ""


def _text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(
            b.text if isinstance(b, TextContent) else f"[{type(b).__name__}]" for b in content
        )
    return ""


def context_renderable(session: Session, at: int) -> Group:
    """The context view's content at entry ``at``."""
    ctx = build_context(session, at)
    out: list[RenderableType] = []
    out.append(
        Text.assemble(
            ("context at ", "bold"),
            (session.ids[at], "bold cyan"),
            f"  ·  {plural(len(ctx.items), 'message')}  ·  model {ctx.model or '?'}"
            f"  ·  thinking {ctx.thinking_level}",
        )
    )
    sp = system_prompt_state(session, at)
    if sp.messages:
        out.append(Text("\nsystem prompt", style="bold underline"))
        for i, text in sp.prompts:
            out.append(Text(f"  {session.ids[i]}  " + sanitize_line(text)[:200]))
        for name, (_i, text) in sp.sections.items():
            out.append(Text(f"  § {name}: " + sanitize_line(text)[:160], style="cyan"))
        for name in sp.removed_sections:
            out.append(Text(f"  § {name}: removed", style="dim strike"))
        tools = ", ".join(sp.tools) or "none"
        out.append(Text(f"  tools: {tools}", style="yellow"))
        if sp.removed_tools:
            out.append(Text("  removed: " + ", ".join(sp.removed_tools), style="dim"))
    if ctx.compaction is not None:
        # Count what the model would otherwise have seen, not settings or labels.
        replaced = sum(
            1 for i in ctx.hidden_by_compaction if session.nodes[i].type in _CONTEXT_TYPES
        )
        out.append(
            Text(
                f"\ncompaction {session.ids[ctx.compaction]} replaced "
                f"{plural(replaced, 'earlier message')} with its summary "
                f"({plural(len(ctx.hidden_by_compaction), 'entry')})",
                style="yellow",
            )
        )
    total, shares = token_shares(session, ctx)
    table = Table(show_edge=False, expand=True, pad_edge=False)
    table.add_column("#", justify="right", width=4)
    table.add_column("entry", width=8, no_wrap=True)
    # Wraps: a hidden custom message's mark must stay readable.
    table.add_column("kind", width=22)
    table.add_column("text", ratio=1, no_wrap=True, overflow="ellipsis")
    table.add_column("≈ tokens", justify="right", width=9)
    for n, (item, tokens) in enumerate(zip(ctx.items, shares, strict=True), 1):
        label, text = _preview(session, item)
        share = fmt_tokens(tokens) if tokens is not None else "–"
        # Text, not str: a str cell would be parsed as Rich markup ("[git-context]", "[/x]").
        table.add_row(
            str(n),
            Text(session.ids[item.index][:8]),
            Text(sanitize_line(label)),
            Text(sanitize_line(text)[:300]),
            share,
        )
    out.append(Text("\nmessages", style="bold underline"))
    out.append(table)
    if total:
        out.append(
            Text(
                f"\n≈ token shares split the next turn's {fmt_tokens(total)} input tokens "
                "(input + cache) by each message's size in the file.",
                style="dim",
            )
        )
    if ctx.excluded:
        out.append(
            Text(
                f"{len(ctx.excluded)} entries on the path are not sent to the model "
                "(settings, labels, extension state, !! bash).",
                style="dim",
            )
        )
    return Group(*out)


class ContextScreen(PagerModal):
    """A modal with the model's context at one entry. Escape closes it."""

    HELP_TITLE = "Context view"

    BINDINGS = [
        Binding("question_mark", "app.help", "Help", tooltip="this help"),
        Binding("escape,c", "dismiss", "Close"),
        Binding("q", "app.quit", "Quit", show=False, tooltip="quit"),
    ]

    DEFAULT_CSS = """
    ContextScreen { align: center middle; }
    ContextScreen > PagerScroll {
        width: 96%; height: 92%; border: round $primary; background: $surface; padding: 0 1;
    }
    """

    def __init__(self, session: Session, at: int) -> None:
        super().__init__()
        self.session = session
        self.at = at

    def content(self) -> RenderableType:
        """The context at the entry."""
        return context_renderable(self.session, self.at)
