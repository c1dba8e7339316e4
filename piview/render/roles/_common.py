"""Provides what the role renderers share: the render context, headers, previews and blocks.

Every role module exposes ``render(ctx) -> (header, body)`` and ``plain(ctx) -> str``. The
header is a one-line :class:`~rich.text.Text` (kind, details, time of day on the right); the
body is any renderable or ``None``. :func:`piview.render.items.render_item` puts them together.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from rich.console import Group, RenderableType
from rich.style import Style
from rich.text import Text

from piview.model.decode import SkEntry
from piview.model.toolargs import count_lines
from piview.model.tree import parse_iso_ms
from piview.model.types import (
    AnthropicServerToolContent,
    Entry,
    FallbackContent,
    ImageContent,
    RedactedThinkingContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    UnknownBlock,
)
from piview.render.cells import cells, truncate
from piview.render.format import fmt_count, fmt_time_of_day
from piview.render.image import image_info, image_label, render_image
from piview.render.lexers import lexer as cached_lexer
from piview.render.plain import is_plain, markdown_class, plain_code
from piview.render.roles._indent import BODY_INDENT, Indent, indent
from piview.render.sanitize import sanitize, sanitize_line
from piview.render.theme import CODE_THEME, style

if TYPE_CHECKING:
    from piview.model.session import Session
    from piview.render.item import Item

_M = TypeVar("_M")

__all__ = [
    "BODY_INDENT",
    "MAX_TEXT_CHARS",
    "MAX_TEXT_LINES",
    "PREVIEW_LINE_CHARS",
    "Ctx",
    "Indent",
    "Rendered",
    "blocks_plain",
    "blocks_renderables",
    "bound_raw",
    "clip",
    "code",
    "count_lines",
    "head_lines",
    "preview_lines",
    "header",
    "tag_header",
    "indent",
    "markdown",
    "marker",
    "more_line",
    "prepare",
    "sanitize_raw",
    "tail_lines",
]

Rendered = tuple[Text, RenderableType | None]
"""What a role renderer returns: the one-line header and the body (or ``None``)."""

MARK_COLLAPSED = "▸"
MARK_EXPANDED = "▾"


@dataclass(slots=True)
class Ctx:
    """Everything a role renderer needs about the item being drawn."""

    session: Session
    item: Item
    expanded: bool
    width: int
    head_only: bool = False
    """Only the header is wanted (``piview print --tools none``): a renderer may skip its body."""
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
        return _time_of_day(entry_timestamp(self.session, self.item.entry))

    @property
    def body_width(self) -> int:
        """Columns available to the body."""
        return max(10, self.width - BODY_INDENT)

    def image_key(self, *where: object) -> tuple[object, ...]:
        """Cache key of an image of this item at the current width."""
        return (str(self.session.path), self.item.entry, *where, self.body_width)


class ToolOwn(NamedTuple):
    """What the tool renderer hands its built-in bodies in ``ToolCallView.own``: the generic
    body (``roles/tool.py``) and the extension tools' cards (``roles/ext_tools.py``)."""

    ctx: Ctx
    msg: Any
    """The assistant message of the call (or None)."""
    view: Any
    """The call's ``ToolView``: its title and how to cut its result."""
    results: list[tuple[int, Any]]
    """The results with their entry indices (``ToolResultMessage``)."""
    diff: str | None
    """An edit's diff from its details."""
    loaded_line: str
    """The tools its results loaded (Pi 0.81.0), or ``""``."""


_TIMES: dict[tuple[object, ...], str] = {}
_TIMES_MAX = 4096


def _time_of_day(timestamp: str | None) -> str:
    """:func:`fmt_time_of_day`, remembered: an assistant turn's items (its thinking, text and
    tool calls) share their entry's timestamp. The local zone is part of the key."""
    key = (timestamp, time.timezone, time.altzone, time.tzname)
    out = _TIMES.get(key)
    if out is None:
        if len(_TIMES) >= _TIMES_MAX:
            _TIMES.clear()
        out = _TIMES[key] = fmt_time_of_day(timestamp)
    return out


def marker(ctx: Ctx, static: str = "•") -> str:
    """``▸``/``▾`` for a collapsible item (collapsed/expanded), ``static`` otherwise."""
    if not ctx.item.collapsible:
        return static
    return MARK_EXPANDED if ctx.expanded else MARK_COLLAPSED


def header(left: Text, right: str, width: int, keep: Text | None = None) -> Text:
    """One line: ``left`` (cut with an ellipsis when too long), then ``keep`` (a status, a size,
    a latency: never cut while ``left`` has room to give), then ``right`` right-aligned."""
    right = sanitize_line(right)
    rlen = len(right)
    avail = width - (rlen + 1 if rlen else 0)
    if width < 40 or avail < 8:  # too narrow for both: drop the time, keep the identity
        right, rlen, avail = "", 0, width
    # Measuring cells costs a lookup per character: cut a huge title (a pasted command) first.
    # A character is at most two cells wide, so this never cuts what would have shown.
    if len(left) > 2 * width + 8:
        left.right_crop(len(left) - (2 * width + 8))
    room = avail
    if keep is not None:
        # The title gives way to what is kept, down to a few characters of its own.
        room = max(min(12, avail), avail - cells(keep.plain))
    if cells(left.plain) > room:
        truncate(left, max(1, room))
    if keep is not None:
        left.append_text(keep)
        if cells(left.plain) > avail:
            truncate(left, max(1, avail))
    if rlen:
        left.append(" " * max(1, width - cells(left.plain) - rlen))
        left.append(right, style=style("piview.time"))
    left.no_wrap = True
    left.overflow = "ellipsis"
    left.end = "\n"
    return left


def tag_header(head: Text, tag: str, width: int) -> Text:
    """``head`` (a :func:`header` line) with ``tag`` after its first word, dim, taking the
    room from the padding before the time (the title is cut when there is none)."""
    words = Text(f" · {tag}", style=style("piview.dim"))
    n = words.cell_len
    plain = head.plain
    cut = plain.find("  ", plain.find(" ") + 1)  # after the marker and the kind
    at = cut if cut > 0 else len(plain.rstrip())
    out = head[:at]
    out.append_text(words)
    rest = head[at:]
    gap = rest.plain.rfind(" " * (n + 1))
    if gap >= 0:  # take the tag's width from the run of spaces before the time
        rest = rest[:gap] + rest[gap + n :]
    out.append_text(rest)
    if out.cell_len > width:
        out.truncate(width, overflow="ellipsis")
    out.no_wrap, out.overflow, out.end = True, "ellipsis", head.end
    return out


MAX_TEXT_LINES = 5_000
"""Lines of one text an expanded item draws at most; a note counts the rest."""
MAX_TEXT_CHARS = 200_000
"""Characters of one text an expanded item draws at most."""
PREVIEW_LINE_CHARS = 500
"""A line of a collapsed preview is cut to this many characters (minified code, base64)."""


def clip(
    text: str,
    max_lines: int = MAX_TEXT_LINES,
    max_chars: int = MAX_TEXT_CHARS,
    *,
    tail: bool = False,
) -> tuple[str, int]:
    """At most ``max_lines`` lines and ``max_chars`` characters of ``text`` (its first ones, or
    its last ones with ``tail``), and how many lines were left out. A line cut short gets an
    ellipsis and counts as shown.

    Expanded items show whole texts; this bounds what one item costs to wrap and draw (a
    huge tool output would otherwise become millions of lines).
    """
    if len(text) <= max_chars and text.count("\n") < max_lines:
        return text, 0
    if tail:
        piece = text[-max_chars:]
        cut = len(piece)
        for _ in range(max_lines):
            cut = piece.rfind("\n", 0, cut)
            if cut < 0:
                break
        kept = piece if cut < 0 else piece[cut + 1 :]
        if cut < 0 and len(piece) < len(text) and text[-len(piece) - 1] != "\n":
            kept = "…" + kept
    else:
        piece = text[:max_chars]
        cut = -1
        for _ in range(max_lines):
            cut = piece.find("\n", cut + 1)
            if cut < 0:
                break
        kept = piece if cut < 0 else piece[:cut]
        if cut < 0 and len(piece) < len(text) and text[len(piece)] != "\n":
            kept += "…"
    return kept, max(0, count_lines(text) - count_lines(kept))


def _short_lines(text: str, limit: int = PREVIEW_LINE_CHARS) -> str:
    """Every line of ``text`` cut to ``limit`` characters (with an ellipsis)."""
    if len(text) <= limit:
        return text
    lines = text.split("\n")
    if all(len(line) <= limit for line in lines):
        return text
    return "\n".join(line if len(line) <= limit else line[:limit] + "…" for line in lines)


def head_lines(text: str, n: int) -> tuple[str, int]:
    """The first ``n`` lines of ``text`` (each cut to :data:`PREVIEW_LINE_CHARS`) and how
    many lines were left out."""
    text = text.rstrip("\n")
    kept, more = clip(text, n, n * (PREVIEW_LINE_CHARS + 1))
    return _short_lines(kept), more


def preview_lines(text: str, n: int) -> tuple[str, int]:
    """The first ``n`` lines of ``text`` that hold something (blank lines between Markdown
    blocks would waste a short preview), and how many lines come after the last one shown."""
    lines = text.split("\n")
    kept: list[str] = []
    end = len(lines)
    for k, line in enumerate(lines):
        if line.strip():
            kept.append(line)
            if len(kept) == n:
                end = k + 1
                break
    return head_lines("\n".join(kept), n)[0], len(lines) - end


def tail_lines(text: str, n: int) -> tuple[str, int]:
    """The last ``n`` lines of ``text`` (each cut to :data:`PREVIEW_LINE_CHARS`) and how
    many lines were left out."""
    text = text.rstrip("\n")
    kept, more = clip(text, n, n * (PREVIEW_LINE_CHARS + 1), tail=True)
    return _short_lines(kept), more


_RAW_FACTOR = 4
"""Raw characters read per character drawn: escape sequences take room that sanitising frees."""


def bound_raw(
    raw: object,
    max_lines: int = MAX_TEXT_LINES,
    max_chars: int = MAX_TEXT_CHARS,
    *,
    tail: bool = False,
) -> tuple[str, int]:
    """A raw string field cut before it is sanitised (sanitising a huge field is slow): its
    first (or, with ``tail``, last) lines, a few more than ``max_lines`` and ``max_chars``
    will show, and how many lines were cut. Anything that is not a string gives ``("", 0)``.
    """
    if not isinstance(raw, str):
        return "", 0
    if len(raw) <= _RAW_FACTOR * max_chars:
        return raw, 0
    raw = raw.strip("\n")
    return clip(raw, 2 * max_lines + 2, _RAW_FACTOR * max_chars, tail=tail)


def sanitize_raw(raw: object) -> str:
    """:func:`sanitize` of a raw string field, a huge one cut first (see :func:`bound_raw`)."""
    return sanitize(bound_raw(raw)[0])


def prepare(raw: object, lines: int | None = None, *, tail: bool = False) -> tuple[str, int]:
    """The sanitised text to draw for a raw string field, bounded, and how many lines it
    leaves out.

    With ``lines``: a collapsed preview, the first (or, with ``tail``, last) ``lines`` lines.
    Without: the whole text, up to :data:`MAX_TEXT_LINES` lines and :data:`MAX_TEXT_CHARS`
    characters. Leading and trailing newlines are dropped. Only a bounded slice of ``raw`` is
    sanitised, so the cost does not grow with the size of the field.
    """
    if lines is None:
        piece, cut = bound_raw(raw, tail=tail)
        text, more = clip(sanitize(piece).strip("\n"), tail=tail)
    else:
        n = max(1, lines)
        piece, cut = bound_raw(raw, n, n * (PREVIEW_LINE_CHARS + 1), tail=tail)
        text, more = (tail_lines if tail else head_lines)(sanitize(piece).strip("\n"), n)
    return text, more + cut


def more_line(n: int, *, earlier: bool = False, what: str = "line") -> Text:
    """``… (+N more lines)`` (or ``earlier lines``), dim."""
    word = "earlier" if earlier else "more"
    noun = what if n == 1 else what + "s"
    return Text(f"… (+{n:,} {word} {noun})", style=style("piview.notice"), no_wrap=True)


def markdown(text: str) -> RenderableType:
    """Markdown of (already sanitised) text; plain text when there is nothing to format.

    Links are printed with their target instead of terminal hyperlinks, so what is shown is
    exactly what is in the file. At most :data:`MAX_TEXT_LINES` lines are drawn (a note
    counts the rest).
    """
    text, more = clip(text)
    if not _MARKDOWNISH.search(text):
        out: RenderableType = Text(text)  # cheaper, and keeps hard line breaks as typed
    else:
        # Imported here: rich.markdown pulls in markdown-it and Pygments, which a first
        # screen without Markdown does not need.
        out = markdown_class(is_plain())(text, code_theme=CODE_THEME, hyperlinks=False)
    return Group(out, more_line(more)) if more else out


# Characters that make Markdown render differently from plain text.
_MARKDOWNISH = re.compile(r"[*_`#>\[|~]|^\s*(?:[-+]\s|\d+[.)]\s)", re.MULTILINE)


@lru_cache(maxsize=256)
def _lexer_for(path: str) -> str | None:
    from rich.syntax import Syntax  # imported here: Pygments is slow to import (see markdown())

    try:
        name = Syntax.guess_lexer(path)
    except Exception:  # noqa: BLE001 - pygments plugins can raise anything
        return None
    return None if name in ("default", "text") else name


_MAX_HIGHLIGHT = 200_000  # characters: beyond this, highlighting costs more than it helps


def code(text: str, path: str | None, *, style_: Style | None = None) -> RenderableType:
    """File content highlighted by its extension (plain text when unknown or huge); at most
    :data:`MAX_TEXT_LINES` lines are drawn (a note counts the rest)."""
    text, more = clip(text)
    lexer = _lexer_for(path) if path else None
    out: RenderableType
    if lexer is None or len(text) > _MAX_HIGHLIGHT:
        out = Text(text, style=style_ or Style())
    elif is_plain():
        out = plain_code(text)  # without colour the lexer's work would be thrown away
    else:
        from rich.syntax import Syntax

        # A lexer made once, not looked up by name for every text (the same highlighting).
        out = Syntax(
            text, cached_lexer(lexer), theme=CODE_THEME, word_wrap=True, background_color="default"
        )
    return Group(out, more_line(more)) if more else out


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
    dropped = [0]  # lines of huge blocks cut before sanitising

    def flush() -> None:
        if not pending:
            return
        text = "\n".join(pending).strip("\n")
        pending.clear()
        cut, dropped[0] = dropped[0], 0
        if not text:
            return
        if budget[0] is not None:
            text, more = head_lines(text, max(1, budget[0]))
            budget[0] = max(0, budget[0] - count_lines(text))
        else:
            text, more = clip(text)
        more += cut
        if md and text_style is None:
            out.append(markdown(text))
        else:
            out.append(Text(text, style=text_style or Style()))
        if more:
            out.append(more_line(more))

    for k, b in enumerate(blocks):
        if isinstance(b, TextContent):
            piece, cut = bound_raw(b.text)
            pending.append(sanitize(piece))
            dropped[0] += cut
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
        elif isinstance(b, OMP_BLOCKS):
            flush()
            out.append(Text(omp_block_line(b), style=style("piview.notice"), no_wrap=True))
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
        elif isinstance(b, OMP_BLOCKS):
            parts.append(omp_block_line(b))
    return "\n".join(p for p in parts if p)


OMP_BLOCKS = (RedactedThinkingContent, FallbackContent, AnthropicServerToolContent)
"""oh-my-pi's blocks, each drawn as one quiet line."""


def omp_block_line(b: Any) -> str:
    """The line of an oh-my-pi block: redacted thinking, a model fallback, a server tool."""
    if isinstance(b, RedactedThinkingContent):
        return f"🔒 redacted thinking ({len(b.data):,} chars, encrypted by the provider)"
    if isinstance(b, FallbackContent):
        return f"↪ fallback from {sanitize_line(str(b.from_))} to {sanitize_line(str(b.to))}"
    return f"⚙ server tool {sanitize_line(str(b.name or '?'))}"


def count_images(blocks: Iterable[Any]) -> int:
    """Number of image blocks."""
    return sum(1 for b in blocks if isinstance(b, ImageContent))


def entry_timestamp(session: Session, i: int) -> str | None:
    """``session.nodes[i].timestamp``, read from its column without building the skeleton."""
    nodes = session.nodes
    whole = nodes.whole.get(i)  # an entry kept whole (as nodes[i] gives it)
    return whole.timestamp if whole is not None else nodes.timestamp(i)


def entry_ms(session: Session, i: int) -> float | None:
    """The entry's ISO timestamp in ms since the epoch."""
    return parse_iso_ms(entry_timestamp(session, i))


def lines_label(n: int) -> str:
    """``1 line`` / ``12 lines``."""
    return fmt_count(n, "line")


def message_as(ctx: Ctx, cls: type[_M]) -> _M | None:
    """The message of the item's entry when it is a ``cls`` (else ``None``)."""
    m = getattr(ctx.entry, "message", None)
    return m if isinstance(m, cls) else None
