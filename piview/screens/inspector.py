"""Provides :class:`ToolInspector`: everything about one tool call and its result."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.binding import Binding

from piview.model.tree import parse_iso_ms
from piview.model.types import (
    AssistantMessage,
    ImageContent,
    MessageEntry,
    TextContent,
    ToolCall,
    ToolResultMessage,
    Usage,
)
from piview.render.format import fmt_cost, fmt_duration_ms, fmt_tokens
from piview.render.image import render_image
from piview.render.jsonview import json_syntax
from piview.render.roles._fields import loaded_tools
from piview.render.sanitize import sanitize, sanitize_line
from piview.widgets.pager import PagerModal

if TYPE_CHECKING:
    from piview.model import Session


def _usage(u: Usage) -> str:
    parts = [
        f"in {fmt_tokens(u.input)}",
        f"out {fmt_tokens(u.output)}",
        f"cache r {fmt_tokens(u.cache_read)} w {fmt_tokens(u.cache_write)}",
    ]
    if u.reasoning:
        parts.append(f"reasoning {fmt_tokens(u.reasoning)}")
    if u.cache_write1h:
        parts.append(f"1h cache write {fmt_tokens(u.cache_write1h)}")
    if u.cost is not None:
        parts.append(fmt_cost(u.cost.total_cost()))
    return " · ".join(parts)


def _section(title: str) -> Text:
    return Text(f"\n{title}", style="bold underline")


def inspector_renderable(session: Session, entry: int, part: int, width: int = 100) -> Group:
    """The inspector's content for the call at ``(entry, part)``, or the orphan result
    ``entry`` when ``part`` is -1."""
    call: ToolCall | None = None
    assistant = session.entry(entry)
    results: list[int]
    if (
        part >= 0
        and isinstance(assistant, MessageEntry)
        and isinstance(assistant.message, AssistantMessage)
    ):
        block = assistant.message.content[part]
        call = block if isinstance(block, ToolCall) else None
        results = session.pairing.call_results.get((entry, part), [])
    else:
        results = [entry]
    out: list[RenderableType] = []
    # Cells from the file are Text: a str cell would be parsed as Rich markup ("[/x]" raised).
    head = Table.grid(padding=(0, 2))
    head.add_column(style="bold")
    head.add_column()
    if call is not None:
        head.add_row("tool", Text(sanitize_line(call.name), style="bold yellow"))
        if call.namespace:
            head.add_row("namespace", Text(sanitize_line(call.namespace)))
        head.add_row("call id", Text(sanitize_line(call.id)))
        head.add_row("call entry", Text(f"{session.ids[entry]} (line {session.line_of(entry)})"))
    else:
        head.add_row("tool", Text("result without a call", style="magenta"))
    if not results:
        head.add_row("result", Text("no result", style="yellow"))
    for r in results:
        head.add_row("result entry", Text(f"{session.ids[r]} (line {session.line_of(r)})"))
        if call is not None:
            a, b = (
                parse_iso_ms(session.nodes[entry].timestamp),
                parse_iso_ms(session.nodes[r].timestamp),
            )
            head.add_row(
                "latency", fmt_duration_ms(b - a) if a is not None and b is not None else "–"
            )
    out.append(head)
    if call is not None:
        out += [_section("arguments"), json_syntax(call.arguments)]
    for r in results:
        e = session.entry(r)
        msg = e.message if isinstance(e, MessageEntry) else None
        if not isinstance(msg, ToolResultMessage):
            continue
        status = (
            Text("error (isError: true)", style="bold red")
            if msg.is_error
            else Text("ok (isError: false)", style="green")
        )
        out += [
            _section("result"),
            Text.assemble("status: ", status, f"   toolName: {sanitize_line(msg.tool_name)}"),
        ]
        for k, block in enumerate(msg.content):
            if isinstance(block, TextContent):
                out.append(Text(sanitize(block.text)))
            elif isinstance(block, ImageContent):
                out.append(
                    render_image(
                        block.data,
                        block.mime_type,
                        width=width,
                        key=(str(session.path), r, k, width),
                    )
                )
            else:
                out.append(json_syntax(getattr(block, "raw", None)))
        if msg.details is not None:
            out += [_section("details"), json_syntax(msg.details)]
        if msg.added_tool_names:
            names = ", ".join(loaded_tools([msg]))
            out += [_section("loaded tools"), Text(names)]
        if msg.usage is not None:
            out += [_section("nested usage (not main-model usage)"), Text(_usage(msg.usage))]
    return Group(*out)


class ToolInspector(PagerModal):
    """A modal with the full call and result of one tool use. Escape closes it; the content
    scrolls like a pager (j k, space b, g G, Home End)."""

    HELP_TITLE = "Tool-call inspector"

    BINDINGS = [
        Binding("question_mark", "app.help", "Help", tooltip="this help"),
        Binding("escape,i", "dismiss", "Close"),
        Binding("q", "app.quit", "Quit", show=False, tooltip="quit"),
    ]

    DEFAULT_CSS = """
    ToolInspector { align: center middle; }
    ToolInspector > PagerScroll {
        width: 90%; height: 90%; border: round $primary; background: $surface; padding: 0 1;
    }
    """

    def __init__(self, session: Session, entry: int, part: int) -> None:
        super().__init__()
        self.session = session
        self.entry = entry
        self.part = part

    def content(self) -> RenderableType:
        """The call and its result, images as wide as the box."""
        width = max(40, self.app.size.width * 9 // 10 - 4)
        return inspector_renderable(self.session, self.entry, self.part, width=width)
