"""Provides what the role renderers share: the render context, headers, previews and blocks.

Every role module exposes ``render(ctx) -> (header, body)`` and ``plain(ctx) -> str``. The
header is a one-line :class:`~rich.text.Text` (kind, details, time of day on the right); the
body is any renderable or ``None``. :func:`piview.render.items.render_item` puts them together.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.markdown import Markdown
from rich.measure import Measurement
from rich.segment import Segment
from rich.style import Style
from rich.syntax import Syntax
from rich.text import Text

from piview.model.decode import SkEntry
from piview.model.tree import parse_iso_ms
from piview.model.types import (
    Entry,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    UnknownBlock,
)
from piview.render.format import fmt_count, fmt_time_of_day
from piview.render.image import image_info, image_label, render_image
from piview.render.sanitize import sanitize, sanitize_line
from piview.render.theme import CODE_THEME, style

if TYPE_CHECKING:
    from piview.model.session import Session
    from piview.render.items import Item

__all__ = [
    "BODY_INDENT",
    "Ctx",
    "Rendered",
    "blocks_plain",
    "blocks_renderables",
    "code",
    "count_lines",
    "head_lines",
    "header",
    "indent",
    "json_plain",
    "markdown",
    "marker",
    "more_line",
    "safe_json",
    "tail_lines",
]

Rendered = tuple[Text, RenderableType | None]
"""What a role renderer returns: the one-line header and the body (or ``None``)."""

BODY_INDENT = 2
"""Columns the body of an item is indented under its header."""

MARK_COLLAPSED = "▸"
MARK_EXPANDED = "▾"


@dataclass(slots=True)
class Ctx:
    """Everything a role renderer needs about the item being drawn."""

    session: Session
    item: Item
    expanded: bool
    width: int
    _entry: Entry | None = field(default=None, repr=False)

    @property
    def entry(self) -> Entry:
        """The item's entry, fully decoded (once)."""
        if self._entry is None:
            self._entry = self.session.entry(self.item.entry)
        return self._entry

    @property
    def node(self) -> SkEntry:
        """The item's entry skeleton."""
        return self.session.nodes[self.item.entry]

    @property
    def time(self) -> str:
        """Time of day of the entry (``HH:MM:SS``), or ``""``."""
        return fmt_time_of_day(self.node.timestamp)

    @property
    def body_width(self) -> int:
        """Columns available to the body."""
        return max(10, self.width - BODY_INDENT)

    def image_key(self, *where: object) -> tuple[object, ...]:
        """Cache key of an image of this item at the current width."""
        return (str(self.session.path), self.item.entry, *where, self.body_width)


def marker(ctx: Ctx, static: str = "•") -> str:
    """``▸``/``▾`` for a collapsible item (collapsed/expanded), ``static`` otherwise."""
    if not ctx.item.collapsible:
        return static
    return MARK_EXPANDED if ctx.expanded else MARK_COLLAPSED


def header(left: Text, right: str, width: int) -> Text:
    """One line: ``left`` (cut with an ellipsis when too long), then ``right`` right-aligned."""
    right = sanitize_line(right)
    rlen = len(right)
    avail = width - (rlen + 1 if rlen else 0)
    if width < 40 or avail < 8:  # too narrow for both: drop the time, keep the identity
        right, rlen, avail = "", 0, width
    if left.cell_len > avail:
        left.truncate(max(1, avail), overflow="ellipsis")
    if rlen:
        left.append(" " * max(1, width - left.cell_len - rlen))
        left.append(right, style=style("piview.time"))
    left.no_wrap = True
    left.overflow = "ellipsis"
    left.end = "\n"
    return left


class Indent:
    """A renderable shifted right by a few columns, without padding lines on the right.

    (:class:`rich.padding.Padding` fills every line to the full width, which leaves trailing
    spaces in ``piview print`` output.)
    """

    def __init__(self, renderable: RenderableType, columns: int = BODY_INDENT) -> None:
        self.renderable = renderable
        self.columns = columns

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = max(1, options.max_width - self.columns)
        lines = console.render_lines(
            self.renderable,
            options.update_width(width).reset_height(),
            pad=False,
            new_lines=False,
        )
        pad = Segment(" " * self.columns)
        new_line = Segment.line()
        for line in lines:
            line = _rstrip(line)
            if line:
                yield pad
                yield from line
            yield new_line

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        width = max(1, options.max_width - self.columns)
        m = Measurement.get(console, options.update_width(width), self.renderable)
        return Measurement(m.minimum + self.columns, m.maximum + self.columns)


def _visible_blank(seg: Segment) -> bool:
    # Spaces that show something (a background, reverse, underline) must stay.
    s = seg.style
    return s is None or (s.bgcolor is None and not s.reverse and not s.underline)


def _rstrip(line: list[Segment]) -> list[Segment]:
    """A line without its trailing plain spaces (Markdown pads every line to the width)."""
    end = len(line)
    while end and not line[end - 1].control and _visible_blank(line[end - 1]):
        seg = line[end - 1]
        stripped = seg.text.rstrip(" ")
        if stripped:
            return [*line[: end - 1], Segment(stripped, seg.style)]
        end -= 1
    return line[:end]


def indent(*renderables: RenderableType | None) -> RenderableType:
    """The renderables stacked and indented under a header."""
    parts = [r for r in renderables if r is not None]
    inner: RenderableType = parts[0] if len(parts) == 1 else Group(*parts)
    return Indent(inner)


def count_lines(text: str) -> int:
    """Lines in ``text`` (a trailing newline does not start a line)."""
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def head_lines(text: str, n: int) -> tuple[str, int]:
    """The first ``n`` lines of ``text`` and how many lines were left out."""
    text = text.rstrip("\n")
    total = count_lines(text)
    if total <= n:
        return text, 0
    cut = -1
    for _ in range(n):
        cut = text.find("\n", cut + 1)
    return text[:cut], total - n


def tail_lines(text: str, n: int) -> tuple[str, int]:
    """The last ``n`` lines of ``text`` and how many lines were left out."""
    text = text.rstrip("\n")
    total = count_lines(text)
    if total <= n:
        return text, 0
    cut = len(text)
    for _ in range(n):
        cut = text.rfind("\n", 0, cut)
    return text[cut + 1 :], total - n


def more_line(n: int, *, earlier: bool = False, what: str = "line") -> Text:
    """``… (+N more lines)`` (or ``earlier lines``), dim."""
    word = "earlier" if earlier else "more"
    noun = what if n == 1 else what + "s"
    return Text(f"… (+{n:,} {word} {noun})", style=style("piview.notice"), no_wrap=True)


def markdown(text: str) -> RenderableType:
    """Markdown of (already sanitised) text; plain text when there is nothing to format.

    Links are printed with their target instead of terminal hyperlinks, so what is shown is
    exactly what is in the file.
    """
    if not _MARKDOWNISH.search(text):
        return Text(text)  # cheaper, and keeps hard line breaks as typed
    return Markdown(text, code_theme=CODE_THEME, hyperlinks=False)


# Characters that make Markdown render differently from plain text.
_MARKDOWNISH = re.compile(r"[*_`#>\[|~]|^\s*(?:[-+]\s|\d+[.)]\s)", re.MULTILINE)


@lru_cache(maxsize=256)
def _lexer_for(path: str) -> str | None:
    try:
        name = Syntax.guess_lexer(path)
    except Exception:  # noqa: BLE001 - pygments plugins can raise anything
        return None
    return None if name in ("default", "text") else name


_MAX_HIGHLIGHT = 200_000  # characters: beyond this, highlighting costs more than it helps


def code(text: str, path: str | None, *, style_: Style | None = None) -> RenderableType:
    """File content highlighted by its extension (plain text when unknown or huge)."""
    lexer = _lexer_for(path) if path else None
    if lexer is None or len(text) > _MAX_HIGHLIGHT:
        return Text(text, style=style_ or Style())
    return Syntax(text, lexer, theme=CODE_THEME, word_wrap=True, background_color="default")


# ----------------------------------------------------------------------------- JSON


_B64_RE = re.compile(r"^[A-Za-z0-9+/=\s]{64,}$")


def _shrink(value: Any, max_str: int, depth: int = 0) -> Any:
    """A copy of a JSON value safe to show: long strings cut, base64 never included."""
    if depth > 50:
        return "…"
    if isinstance(value, str):
        if len(value) >= 64 and _B64_RE.match(value[:4096]):
            return f"<base64, {len(value):,} chars>"
        if len(value) > max_str:
            return value[:max_str] + f"… (+{len(value) - max_str:,} chars)"
        return value
    if isinstance(value, dict):
        return {str(k): _shrink(v, max_str, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_shrink(v, max_str, depth + 1) for v in value]
    return value


def safe_json(value: Any, *, indent: int | None = 2, max_str: int = 400) -> str:
    """Pretty JSON of ``value`` with long strings cut and base64 replaced; sanitised."""
    try:
        text = json.dumps(_shrink(value, max_str), indent=indent, ensure_ascii=False, default=repr)
    except (TypeError, ValueError, RecursionError):
        text = repr(value)[: max_str * 4]
    return sanitize(text)


def json_plain(value: Any) -> str:
    """Compact one-line JSON for headers."""
    return sanitize_line(safe_json(value, indent=None, max_str=120))


def json_renderable(value: Any, *, max_str: int = 400) -> RenderableType:
    """Highlighted pretty JSON (strings cut, no base64)."""
    from rich.highlighter import JSONHighlighter

    text = Text(safe_json(value, max_str=max_str))
    JSONHighlighter().highlight(text)
    return text


# ----------------------------------------------------------------------------- content blocks


def blocks_of(content: object) -> list[Any]:
    """Content as a list of blocks (a bare string is one text block)."""
    if isinstance(content, str):
        return [TextContent(text=content)]
    if isinstance(content, list):
        return content
    return []


def text_of(blocks: Iterable[Any], sep: str = "\n") -> str:
    """The text blocks joined (sanitised)."""
    return sep.join(sanitize(b.text) for b in blocks if isinstance(b, TextContent))


def blocks_renderables(
    ctx: Ctx,
    blocks: Sequence[Any],
    *,
    md: bool = True,
    text_style: Style | None = None,
    key: object = "c",
    max_lines: int | None = None,
    images: bool = True,
) -> list[RenderableType]:
    """Renderables for text/image/unknown blocks, in order.

    Consecutive text blocks are joined. ``max_lines`` cuts the text to its first lines (with a
    ``+N more lines`` note). Image previews are cached per block and width.
    """
    out: list[RenderableType] = []
    pending: list[str] = []
    budget = [max_lines]

    def flush() -> None:
        if not pending:
            return
        text = "\n".join(pending).strip("\n")
        pending.clear()
        if not text:
            return
        more = 0
        if budget[0] is not None:
            text, more = head_lines(text, max(1, budget[0]))
            budget[0] = max(0, budget[0] - count_lines(text))
        if md and text_style is None:
            out.append(markdown(text))
        else:
            out.append(Text(text, style=text_style or Style()))
        if more:
            out.append(more_line(more))

    for k, b in enumerate(blocks):
        if isinstance(b, TextContent):
            pending.append(sanitize(b.text))
        elif isinstance(b, ImageContent):
            flush()
            if images:
                out.append(
                    render_image(
                        b.data, b.mime_type, width=ctx.body_width, key=ctx.image_key(key, k)
                    )
                )
            else:
                out.append(_image_line(b))
        elif isinstance(b, UnknownBlock):
            flush()
            out.append(
                Text(
                    f'? unknown block "{sanitize_line(b.block_type)}"',
                    style=style("piview.unknown"),
                )
            )
        elif isinstance(b, ThinkingContent | ToolCall):
            continue  # drawn as their own items
    flush()
    return out


def _image_line(b: ImageContent) -> Text:
    return Text(
        f"▣ {image_label(image_info(b.data, b.mime_type))}",
        style=style("piview.image"),
        no_wrap=True,
        overflow="ellipsis",
    )


def blocks_plain(blocks: Iterable[Any]) -> str:
    """Plain text of text/image/unknown blocks, for search."""
    parts: list[str] = []
    for b in blocks:
        if isinstance(b, TextContent):
            parts.append(sanitize(b.text))
        elif isinstance(b, ImageContent):
            parts.append(f"[image {image_label(image_info(b.data, b.mime_type))}]")
        elif isinstance(b, UnknownBlock):
            parts.append(f"[{sanitize_line(b.block_type)}]")
    return "\n".join(p for p in parts if p)


def count_images(blocks: Iterable[Any]) -> int:
    """Number of image blocks."""
    return sum(1 for b in blocks if isinstance(b, ImageContent))


def entry_ms(session: Session, i: int) -> float | None:
    """The entry's ISO timestamp in ms since the epoch."""
    return parse_iso_ms(session.nodes[i].timestamp)


def lines_label(n: int) -> str:
    """``1 line`` / ``12 lines``."""
    return fmt_count(n, "line")


def notice_text(message: str) -> Text:
    """A one-line red notice."""
    return Text(sanitize_line(message), style=style("piview.error.text"), no_wrap=True)
