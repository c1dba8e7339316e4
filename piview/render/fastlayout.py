"""Provides a faster way to lay out the renderers' renderables into lines, for ``piview print``.

The role renderers build Rich renderables (a header :class:`~rich.text.Text`, a
:class:`~rich.console.Group`, an indented body, Markdown); Rich lays them out through a
chain of generators, a :class:`~rich.text.Text` object per wrapped line and a crop pass per
line. Most lines of a transcript already fit the page. :func:`layout` gives the lines Rich's
``console.render_lines(renderable, options, pad=False)`` gives, segment for segment, laying
out a Text, a Group and an :class:`~piview.render.roles._common.Indent` itself and leaving
every other renderable to Rich. :class:`FastConsole` also lays out the Texts found inside
the renderables Rich draws (the paragraphs of Markdown) this way, and a word-wrapped
:class:`~rich.syntax.Syntax` (highlighted by Rich, its lines laid out here).

A Text is laid out here when Rich's rules for it are simple (no tab, justified by default or
on the left, its lines fitting the width once wrapped); otherwise Rich draws it. What is drawn
is the same: the tests compare these lines with Rich's on random styled texts and on whole
printed sessions.
"""

from __future__ import annotations

import re
import sys
import textwrap
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, cast

from rich.cells import cell_len, chop_cells
from rich.console import Console, ConsoleOptions, Group, RenderableType
from rich.containers import Renderables
from rich.padding import Padding
from rich.segment import Segment, Segments
from rich.style import Style
from rich.text import Text

from piview.render.cells import cells
from piview.render.pipe import PipeConsole
from piview.render.plain import MARKDOWN_TYPES
from piview.render.roles._common import Indent

if TYPE_CHECKING:
    from rich.syntax import Syntax

Lines = list[list[Segment]]
"""Lines of segments, without their new-line segments."""

_re_trailing_space = re.compile(r"\s+$")  # Rich's Text.rstrip_end rule
_NULL = Style.null()
_NEW_LINE = Segment("\n")

# A span of a line: (start, end, index); index 1 is the Text's own style, 2 + k its k-th span.
_Span = tuple[int, int, int]


def _syntax_type() -> type | None:
    """Rich's Syntax class if it is loaded, else None: no Syntax can exist before it is (the
    renderers import it when they first draw code), and importing it pulls in Pygments."""
    module = sys.modules.get("rich.syntax")
    return None if module is None else module.Syntax  # type: ignore[no-any-return]


_cells = cells  # cells ``s`` takes (printable ASCII: one a character)


_re_word = re.compile(r"\s*\S+\s*")  # Rich's _wrap.words


def _divide(text: str, width: int, fold: bool, measure: Callable[[str], int]) -> list[int]:
    """Where Rich's ``Text.wrap`` breaks a line of ``text`` (its ``divide_line``), words
    measured by ``measure`` (``len`` for printable ASCII, where a character is a cell)."""
    breaks: list[int] = []
    append = breaks.append
    offset = 0
    for m in _re_word.finditer(text):
        start = m.start()
        word = m.group()
        length = measure(word.rstrip())
        if width - offset >= length:
            offset += measure(word)
        elif length > width:
            if fold:
                folded = chop_cells(word, width=width)
                for n, piece in enumerate(folded):
                    if start:
                        append(start)
                    if n == len(folded) - 1:
                        offset = measure(piece)
                    else:
                        start += len(piece)
            else:
                if start:
                    append(start)
                offset = measure(word)
        elif offset and start:
            append(start)
            offset = measure(word)
    return breaks


def _clip(
    spans: list[_Span], starts: list[int], ranges: list[tuple[int, int]]
) -> list[list[_Span]]:
    """Each span cut to the ranges it overlaps (as ``Text.divide``: empty pieces dropped),
    kept in their order within each range."""
    out: list[list[_Span]] = [[] for _ in ranges]
    last = len(ranges) - 1
    for s, e, k in spans:
        r = max(0, bisect_right(starts, s) - 1)
        while r <= last:
            lo, hi = ranges[r]
            if lo >= e:
                break
            ns, ne = max(0, s - lo), min(e - lo, hi - lo)
            if ne > ns:
                out[r].append((ns, ne, k))
            r += 1
    return out


_COMBINED: dict[tuple[Style, ...], Style] = {}
_COMBINED_MAX = 8192  # combinations kept (a transcript uses a few hundred)


def _combine(styles: tuple[Style, ...]) -> Style:
    """``Style.combine(styles)``, remembered: the same few combinations recur in every item."""
    style = _COMBINED.get(styles)
    if style is None:
        if len(_COMBINED) >= _COMBINED_MAX:
            _COMBINED.clear()
        style = _COMBINED[styles] = Style.combine(styles)
    return style


class _Styler:
    """The styles of one Text's segments, combined as ``Text.render`` combines them."""

    __slots__ = ("cache", "styles")

    def __init__(self, styles: list[Style]) -> None:
        self.styles = styles
        self.cache: dict[tuple[int, ...], Style] = {}

    def combined(self, active: tuple[int, ...]) -> Style:
        """The style under the spans ``active`` (indices into :attr:`styles`, in order)."""
        style = self.cache.get(active)
        if style is None:
            styles = self.styles
            style = self.cache[active] = _combine(tuple(styles[k] for k in active))
        return style

    def segments(self, plain: str, spans: list[_Span]) -> list[Segment]:
        """The segments of one line: a segment between any two span edges, as Rich cuts."""
        if not plain:
            return []
        if not spans:
            return [Segment(plain, self.combined((0,)))]
        if len(spans) == 1 and spans[0][0] == 0 and spans[0][1] == len(plain):
            return [Segment(plain, self.combined((0, spans[0][2])))]
        linear = self._linear(plain, spans)
        if linear is not None:
            return linear
        events = [(0, False, 0)]
        events.extend((s, False, k) for s, _e, k in spans)
        events.extend((e, True, k) for _s, e, k in spans)
        events.append((len(plain), True, 0))
        events.sort(key=lambda ev: (ev[0], ev[1]))
        stack: list[int] = []
        out: list[Segment] = []
        for (offset, leaving, k), (next_offset, _l, _k) in zip(events, events[1:], strict=False):
            if leaving:
                stack.remove(k)
            else:
                stack.append(k)
            if next_offset > offset:
                piece = plain[offset:next_offset]
                if piece:  # a span past the end of the text gives an empty piece: dropped
                    out.append(Segment(piece, self.combined(tuple(sorted(stack)))))
        return out

    def _linear(self, plain: str, spans: list[_Span]) -> list[Segment] | None:
        """:meth:`segments` where the spans follow one another without overlapping (a
        header's pieces, a paragraph's inline styles), under the Text's own style or not:
        one pass, no sorting (``None`` for any other spans)."""
        base: tuple[int, ...] = (0,)
        if spans[0][2] == 1:  # the Text's own style, over the whole line
            base, spans = (0, 1), spans[1:]
        combined = self.combined
        n = len(plain)
        out: list[Segment] = []
        at = 0
        for s, e, k in spans:
            if s < at:
                return None  # overlapping or out of order: the general way
            if e > n:
                e = n  # a span past the end of the line: its piece there is empty
            if e <= s:
                if at < s < n:  # empty: styles nothing, but Rich still cuts the line there
                    out.append(Segment(plain[at:s], combined(base)))
                    at = s
                continue
            if s > at:
                out.append(Segment(plain[at:s], combined(base)))
            out.append(Segment(plain[s:e], combined((*base, k))))
            at = e
        if at < n:
            out.append(Segment(plain[at:], combined(base)))
        return out


def _right_crop(plain: str, spans: list[_Span], amount: int) -> tuple[str, list[_Span]]:
    """``Text.right_crop``: ``amount`` characters off the end, spans cut to match."""
    end = len(plain) - amount
    kept = [(s, e if e < end else min(end, e), k) for s, e, k in spans if s < end]
    return plain[:end], kept


def text_lines(
    console: Console,
    text: Text,
    options: ConsoleOptions,
    *,
    allow_blank: bool = True,
    by_row: bool = False,
) -> tuple[Lines, bool] | None:
    """The lines Rich draws for ``text`` with ``options`` and whether the last one is left
    open (``end=""``), or ``None`` when its rules are not simple enough to follow here.
    Without ``allow_blank``, the empty line after a final new line is left out (as
    ``Text.split`` does); with ``by_row``, each line of the text is drawn as a Text of its
    own (as Syntax draws the lines of its highlighted text).

    The lines are what ``Text.__rich_console__`` yields, cut at its new lines: each line's
    segments with the same text and the same style.
    """
    plain = text.plain
    if "\t" in plain:
        return None
    justify = text.justify or options.justify or "default"
    overflow = text.overflow or options.overflow or "fold"
    if overflow == "ignore" or justify not in ("default", "left"):
        return None
    end = text.end
    if end != "\n" and end != "":
        return None
    width = options.max_width
    own_style = text.style
    raw_spans = text.spans
    if (
        not raw_spans
        and "\n" not in plain
        and plain
        and plain.isascii()
        and plain.isprintable()
        and len(plain) <= width
    ):
        # Most Texts: one line that fits, no spans (wrapping and justifying change nothing
        # but the left padding).
        if justify == "left" and len(plain) < width:
            plain += " " * (width - len(plain))
        if own_style:
            base = console.get_style("", default=_NULL)
            under = console.get_style(own_style, default=_NULL)
            return [[Segment(plain, _combine((base, under)))]], end == ""
        return [[Segment(plain)]], end == ""
    if text.no_wrap is not None:
        no_wrap = text.no_wrap
    else:
        no_wrap = bool(options.no_wrap) if options.no_wrap is not None else False
    spans: list[_Span] = [(sp.start, sp.end, k) for k, sp in enumerate(raw_spans, 2)]
    pad_left = justify == "left"

    # The lines of the text (Text.split): one line keeps its spans whole; several cut them.
    if "\n" not in plain:
        rows: list[tuple[str, list[_Span]]] = [(plain, spans)]
    else:
        pieces = plain.split("\n")
        ranges: list[tuple[int, int]] = []
        at = 0
        for piece in pieces:
            ranges.append((at, at + len(piece)))
            at += len(piece) + 1
        clipped = _clip(spans, [r[0] for r in ranges], ranges) if spans else [[]] * len(ranges)
        rows = list(zip(pieces, clipped, strict=True))
        if not allow_blank and len(rows) > 1 and not rows[-1][0]:
            rows.pop()

    out: list[tuple[str, list[_Span]]] = []
    row_starts: list[int] = []
    for line, line_spans in rows:
        row_starts.append(len(out))
        # Text.wrap: divided at the words where the line is too wide.
        if no_wrap:
            parts = [(line, line_spans)]
        else:
            if line.isascii() and line.isprintable():
                # One cell a character: a line that fits is never divided.
                if len(line) <= width:
                    offsets: list[int] = []
                else:
                    offsets = _divide(line, width, overflow == "fold", len)
            else:
                offsets = _divide(line, width, overflow == "fold", cell_len)
            if not offsets:
                parts = [(line, line_spans)]
            else:
                bounds = [0, *offsets, len(line)]
                pr = list(zip(bounds, bounds[1:], strict=False))
                cut = _clip(line_spans, bounds[:-1], pr) if line_spans else [[]] * len(pr)
                parts = [(line[a:b], c) for (a, b), c in zip(pr, cut, strict=True)]
            for n, (p, ps) in enumerate(parts):
                if len(p) > width:  # Text.rstrip_end: whitespace beyond the width goes
                    m = _re_trailing_space.search(p)
                    if m is not None:
                        parts[n] = _right_crop(p, ps, min(len(m.group(0)), len(p) - width))
        for p, ps in parts:
            cells = _cells(p)
            if cells > width:
                return None  # truncation (crop, ellipsis): Rich's own rules
            if pad_left and cells < width:
                p += " " * (width - cells)
            out.append((p, ps))

    # Text.render of the joined lines: the base style, the Text's style on every line, then
    # its spans in their order; no spans at all is one unstyled segment.
    get_style = console.get_style
    styles = [get_style("", default=_NULL)]  # Text("\n").join's own style
    styles.append(get_style(own_style, default=_NULL) if own_style else _NULL)
    styles.extend(get_style(sp.style, default=_NULL) for sp in raw_spans)
    whole = bool(own_style)
    styler = _Styler(styles)
    lines: Lines = []
    groups = (
        [out[a:b] for a, b in zip(row_starts, [*row_starts[1:], len(out)], strict=True)]
        if by_row
        else [out]
    )
    for group in groups:
        if not whole and not any(ps for _p, ps in group):
            if len(group) == 1 and not group[0][0]:
                lines.append([Segment("")])  # Rich keeps the one empty segment of an empty text
            else:
                lines.extend([Segment(p)] if p else [] for p, _ps in group)
        else:
            for p, ps in group:
                if whole:
                    ps = [(0, len(p), 1), *ps]
                lines.append(styler.segments(p, ps))
    open_end = end == ""
    if open_end and not lines[-1]:
        lines.pop()  # an empty open line draws nothing
        open_end = False
    return lines, open_end


def _syntax_lines(
    console: Console, syntax: Syntax, options: ConsoleOptions
) -> tuple[Lines, Style] | None:
    """The lines Rich draws of a word-wrapped Syntax without line numbers, range or guides,
    and its base style (``None`` for any other): the highlighted text laid out at once
    rather than split into a Text per line, each laid out through the console."""
    if (
        not syntax.word_wrap
        or syntax.line_numbers
        or syntax.line_range
        or syntax.indent_guides
        or syntax.code_width is not None
        or options.no_wrap
    ):
        return None
    _top, right, _bottom, left = syntax.padding
    code_width = max(0, options.max_width - left - right)
    if code_width < 1:
        return None  # no room for the code (a block deep in nested lists): Rich's own rules
    # The code as Syntax prepares it: ended by a new line, dedented if asked, tabs expanded.
    code = syntax.code
    ends_on_nl = code.endswith("\n")
    processed = code if ends_on_nl else code + "\n"
    if syntax.dedent:
        processed = textwrap.dedent(processed)
    text = syntax.highlight(processed.expandtabs(syntax.tab_size), None)
    base = console.get_style(text.style)  # the theme's background and the Syntax's own style
    background = None if base.transparent_background else base
    line_options = options.update(width=code_width, height=None, justify="left")
    got = text_lines(console, text, line_options, allow_blank=ends_on_nl, by_row=True)
    if got is None or got[1]:
        return None
    lines = got[0]
    if background:
        add = background.__add__
        lines = [[Segment(t, None if c else add(s), c) for t, s, c in line] for line in lines]
        lines = [Segment.adjust_line_length(line, code_width, background) for line in lines]
    return lines, base


def _padding_lines(console: Console, padding: Padding, options: ConsoleOptions) -> Lines | None:
    """The lines of ``Padding.__rich_console__`` for an expanded padding (a code block's in
    plain mode), its content laid out here; ``None`` for any other."""
    width = options.max_width
    inner = width - padding.left - padding.right
    if not padding.expand or inner < 1:
        return None
    style = console.get_style(padding.style)
    inner_options = options.update_width(inner)
    if inner_options.height is not None:
        return None
    content = console.render_lines(padding.renderable, inner_options, style=style, pad=True)
    blank = [Segment(" " * width, style)]
    lines: Lines = [list(blank) for _ in range(padding.top)]
    left = [Segment(" " * padding.left, style)] if padding.left else []
    right = [Segment(" " * padding.right, style)] if padding.right else []
    lines.extend([*left, *line, *right] for line in content)
    lines.extend(list(blank) for _ in range(padding.bottom))
    return lines


def _rich_lines(
    console: Console, renderable: RenderableType, options: ConsoleOptions
) -> tuple[Lines, bool]:
    """Rich's own lines, and whether the last is left open (no new line after it)."""
    lines = Console.render_lines(console, renderable, options, pad=False, new_lines=True)
    # Rich ends every line but a last one left open with a new-line segment.
    open_end = bool(lines) and not (lines[-1] and lines[-1][-1].text == "\n")
    out: Lines = []
    for line in lines:
        if line and line[-1].text == "\n" and not line[-1].control:
            line = line[:-1]
        out.append(line)
    return out, open_end


def _layout(
    console: Console, renderable: RenderableType, options: ConsoleOptions
) -> tuple[Lines, bool]:
    if options.max_width < 1:
        return [], False
    kind = type(renderable)
    if kind is Text:
        got = text_lines(console, renderable, options)  # type: ignore[arg-type]
        if got is not None:
            return got
    elif kind is Group or kind is Renderables:  # Renderables: a Markdown list item's
        lines: Lines = []
        open_end = False
        children = (
            cast(Group, renderable).renderables
            if kind is Group
            else cast("Iterable[RenderableType]", renderable)  # Renderables iterates its own
        )
        for child in children:
            if open_end:
                break  # a child left its line open: the next one goes on it (Rich's way)
            child_lines, open_end = _layout(console, child, options)
            lines.extend(child_lines)
        else:
            return lines, open_end
    elif kind is _syntax_type() and not any(renderable.padding):  # type: ignore[union-attr]
        syntax_lines = _syntax_lines(console, renderable, options)  # type: ignore[arg-type]
        if syntax_lines is not None:
            return syntax_lines[0], False
    elif kind is Padding:
        padded = _padding_lines(console, renderable, options)  # type: ignore[arg-type]
        if padded is not None:
            return padded, False
    elif kind in MARKDOWN_TYPES:
        from piview.render.fastmarkdown import markdown_lines  # rich.markdown: on first use

        got = markdown_lines(console, renderable, options, _layout, _rich_lines)  # type: ignore[arg-type]
        if got is not None:
            return got
    elif kind is Indent and options.max_width > renderable.columns:  # type: ignore[union-attr]
        indent: Indent = renderable  # type: ignore[assignment]
        inner, _open = _layout(console, indent.renderable, indent.inner_options(options))
        return indent.shift(inner), False
    if MARKDOWN_TYPES:  # Markdown has been drawn: its elements may be inside (a list's items)
        from piview.render.fastmarkdown import ELEMENT, element_lines

        if isinstance(renderable, ELEMENT):
            return element_lines(console, renderable, options, _layout, _rich_lines)
    return _rich_lines(console, renderable, options)


def layout(console: Console, renderable: RenderableType, options: ConsoleOptions) -> Lines:
    """The lines of ``console.render_lines(renderable, options, pad=False)``, faster."""
    if options.height is not None:
        return Console.render_lines(console, renderable, options, pad=False)
    return _layout(console, renderable, options)[0]


class FastConsole(PipeConsole):
    """A console (for ``piview print``) that lays out Texts, Groups and indented bodies
    itself, in whatever renderable they are found: the same lines, drawn faster."""

    def render(
        self, renderable: RenderableType, options: ConsoleOptions | None = None
    ) -> Iterable[Segment]:
        """Rich's segments of ``renderable``; a Text's from :func:`text_lines` when it can."""
        if type(renderable) is Text:
            opts = options or self.options
            if opts.max_width < 1:
                return ()
            got = text_lines(self, renderable, opts)
            if got is not None:
                return _segments(*got)
        elif type(renderable) is _syntax_type():
            syntax = cast("Syntax", renderable)
            opts = options or self.options
            drawn = _syntax_lines(self, syntax, opts) if opts.max_width >= 1 else None
            if drawn is not None:
                lines, base = drawn
                segments = Segments(_segments(lines, False))
                if any(syntax.padding):
                    # Syntax's own padding around its lines, drawn by Rich.
                    padding = Padding(segments, style=base, pad=syntax.padding)
                    return super().render(padding, opts)
                return segments.segments
        return super().render(renderable, options)

    def render_lines(
        self,
        renderable: RenderableType,
        options: ConsoleOptions | None = None,
        *,
        style: Style | None = None,
        pad: bool = True,
        new_lines: bool = False,
    ) -> Lines:
        """Rich's lines of ``renderable`` (``style`` under every segment), laid out by
        :func:`layout`."""
        opts = options or self.options
        if opts.height is not None:
            return super().render_lines(renderable, opts, style=style, pad=pad, new_lines=new_lines)
        lines, open_end = _layout(self, renderable, opts)
        if style:
            # Segment.apply_style: the style under every segment but a control code.
            add = style.__add__
            lines = [[Segment(t, None if c else add(s), c) for t, s, c in line] for line in lines]
        if pad:
            width = opts.max_width
            lines = [Segment.adjust_line_length(line, width, style, pad=True) for line in lines]
        if new_lines:
            last = len(lines) - 1
            lines = [
                line if (open_end and n == last) else [*line, _NEW_LINE]
                for n, line in enumerate(lines)
            ]
        return lines


def _segments(lines: Lines, open_end: bool) -> Iterator[Segment]:
    last = len(lines) - 1
    for n, line in enumerate(lines):
        yield from line
        if not (open_end and n == last):
            yield _NEW_LINE
