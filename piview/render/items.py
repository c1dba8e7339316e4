"""Provides the transcript's items: what blocks a branch is made of, and how each one renders.

An :class:`Item` is one block of the transcript (the unit of navigation, collapsing and
caching). :func:`build_items` turns a path's entries into items from the skeletons the session
holds, fast enough to rerun on every branch switch. :func:`render_item` draws one item (its
entry fully decoded) as a Rich renderable whose first line is always a one-line header;
:func:`item_text` gives its plain text for search. Inside an assistant message the
``assistant`` item (the turn's header and its text) comes first, always; the thinking blocks
and tool calls follow in the order of the content blocks.
"""

from __future__ import annotations

import weakref
from array import array
from collections import deque
from collections.abc import Callable, Sequence
from functools import cache
from itertools import compress, repeat
from operator import attrgetter, not_
from typing import TYPE_CHECKING, NamedTuple

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.measure import Measurement
from rich.segment import Segment
from rich.text import Text

from piview.model.fsio import FileChangedError
from piview.model.store import F_ERROR, ROLE_NAMES, STOP_NAMES, TYPE_NAMES
from piview.render import kinds
from piview.render.item import Item, ItemKind, ItemList
from piview.render.kinds import COLLAPSIBLE, ERROR, EXPANDED, HIDDEN, KIND_CODE, USER
from piview.render.roles._limits import LONG_CHARS, LONG_LINES
from piview.render.sanitize import sanitize_line
from piview.render.theme import style

if TYPE_CHECKING:
    from piview.model.decode import SkBlock
    from piview.model.session import Session
    from piview.render.roles._common import Ctx, Rendered

__all__ = [
    "Item",
    "kept_from",
    "ItemKind",
    "ItemList",
    "build_items",
    "item_text",
    "print_lines",
    "print_options",
    "render_header",
    "render_item",
]


# --------------------------------------------------------------------------- building

# User messages are collapsible when they hold <file>/<skill> wrappers or are long. The
# skeleton has no text for array content, so the raw line is peeked at: only lines big
# enough to hold something worth folding, at most once per entry (cached per session).
_SMALL_LINE = 320  # bytes: the JSON envelope alone is ~200
_PEEK_LIMIT = 256 * 1024  # bytes: a line this big is long (text or images) without looking
_user_flags: weakref.WeakKeyDictionary[Session, dict[int, bool]] = weakref.WeakKeyDictionary()


def _user_collapsible(session: Session, i: int, content: object, cache: dict[int, bool]) -> bool:
    if isinstance(content, str):
        return (
            "<file name=" in content
            or "<skill name=" in content
            or len(content) > LONG_CHARS
            or content.count("\n") >= LONG_LINES
        )
    length = session.line_length(i)
    if length <= _SMALL_LINE:
        return False
    if length > _PEEK_LIMIT:
        return True
    hit = cache.get(i)
    if hit is not None:
        return hit
    try:
        raw = session.read_line(i)
    except OSError:
        raw = b""
    # One scan decides a long line without images; the other tests only when that fails
    # (the same answer: the tests are or-ed; a big session's user lines are long to scan).
    flag = (length > LONG_CHARS + 200 and b'"image"' not in raw) or (
        b"<file name=" in raw
        or b"<skill name=" in raw
        or raw.count(b"\\n") >= LONG_LINES  # escaped newlines inside JSON strings
    )
    cache[i] = flag
    return flag


def build_items(session: Session, path: Sequence[int], *, show_hidden: bool = False) -> ItemList:
    """Items for the entries of ``path`` (root→leaf), in order.

    Uses only skeletons and the pairing (no full decode): a tool result paired with a call on
    the path is drawn inside that call's item, so it gets no item of its own. Each entry's
    kind is :func:`piview.render.kinds.classify`'s; an item hidden by default is left out
    unless ``show_hidden``.

    A big session's branch has hundreds of thousands of entries and items: a plain message's
    kind is its role's (read from the columns), its items are written straight into the list's
    arrays, and an assistant message's blocks are one run of items made once per block list.
    """
    pairing = session.pairing
    result_call = pairing.result_call
    on_path = _membership(path, len(session.nodes))
    user_cache = _user_flags.get(session)
    if user_cache is None:
        user_cache = _user_flags[session] = {}
    # Calls with an error result on this path (errors are few: cheaper than a lookup per call).
    err_calls = {result_call[r] for r in pairing.errors if on_path(r) and r in result_call}
    err_entries = {e for e, _part in err_calls}
    items = ItemList()
    codes, entries, parts, iflags = items.columns()
    store = session.nodes
    whole_get = store.whole.get
    roles, stops, flags, content_at = store.roles, store.stops, store.flags, store.content_at
    patterns, texts = store.patterns, store.texts
    # A result answering a call on the path is drawn inside the call's item: such results
    # (a large share of a big branch) are left out at C speed, before the loop.
    call_of = result_call.call_entries
    if len(call_of) < len(store):
        call_of = call_of + array("i", [-1]) * (len(store) - len(call_of))
    odd = [j for j in store.whole if call_of[j] >= 0 and store.types[j] != _MESSAGE]
    if odd:  # a result that is not a message entry: it has an item of its own
        call_of = array("i", call_of)
        for j in odd:
            call_of[j] = -1
    inside = map(on_path, map(call_of.__getitem__, path))
    # The run of each block list (and stop), by 2 × its index + 4 + stopped badly: a list, not
    # a dict of int keys (which raised the peak of a big view); -1 and -2 (no list,
    # text) come first.
    runs: list[tuple[bytes, array[int], bytes] | None] = [None] * (2 * len(patterns) + 4)
    shapes: dict[tuple[object, ...], tuple[bytes, array[int], bytes]] = {}
    for i in compress(path, map(not_, inside)):
        n = whole_get(i)
        if n is None:  # a plain message: user, assistant or tool result
            kind = _PLAIN_KINDS[roles[i]]
        else:
            m = n.message
            kind = kinds.classify(n.type, m.role if m is not None else None, n.custom_type)
        if kind is _ASSISTANT:
            # The turn's header (with its text) comes first, so that thinking which came
            # before the text is never read as part of the previous turn; then its blocks,
            # one run of items per block list (made once per distinct one).
            bad = stops[i] in _BAD_STOP_CODES
            if n is None:
                at = content_at[i]
                key = 2 * at + 4 + bad
                run = runs[key]
                if run is None:
                    run = runs[key] = _assistant_run(patterns[at] if at >= 0 else (), bad, shapes)
            else:
                content = n.message.content  # type: ignore[union-attr]
                run = _assistant_run(content if isinstance(content, list) else (), bad, shapes)
            ks, ps, fs = run
            codes += ks
            parts += ps
            iflags += fs
            if len(ks) == 1:
                entries.append(i)
            else:
                first = len(entries)
                entries.extend((i,) * len(ks))
                if i in err_entries:
                    for k in range(first, len(codes)):
                        if codes[k] == _K_TOOL and (i, parts[k]) in err_calls:
                            iflags[k] |= ERROR
            continue
        if kind is _USER:
            if n is None:
                at = content_at[i]
                content = texts.get(i) if at == -2 else (patterns[at] if at >= 0 else ())
            else:
                content = n.message.content  # type: ignore[union-attr]
            c = _user_collapsible(session, i, content, user_cache)
            bits = COLLAPSIBLE | USER if c else EXPANDED | USER
        elif kind is _ORPHAN:  # its call is not on the path (or it has none)
            bits = COLLAPSIBLE | ERROR if flags[i] & F_ERROR else COLLAPSIBLE
        else:  # only whole entries come here
            bits = kind.state(n) if kind.state is not None else kind.flags
            if bits & HIDDEN and not show_hidden:
                continue
        codes.append(KIND_CODE[kind.name])
        entries.append(i)
        parts.append(-1)
        iflags.append(bits)
    return items


def _membership(path: Sequence[int], n: int) -> Callable[[int], object]:
    """Whether an entry (or -1, none) is on ``path``, among ``n`` entries: for a long path a
    byte per entry, set at C speed (a set of a long branch holds far more), else a
    set (the search builds the items of one entry at a time)."""
    if len(path) * 16 < n:
        return set(path).__contains__
    mask = bytearray(n + 1)  # mask[-1], "no entry", stays 0
    deque(map(mask.__setitem__, path, repeat(1)), maxlen=0)
    return mask.__getitem__


_ASSISTANT = kinds.kind_named("assistant")
_USER = kinds.kind_named("user")
_ORPHAN = kinds.kind_named("orphan_result")
_PLAIN_KINDS = [kinds.classify("message", role, None) for role in ROLE_NAMES]
"""A plain message's kind by its role code."""
_K_TOOL = KIND_CODE["tool"]
_MESSAGE = TYPE_NAMES.index("message")
_BAD_STOP_CODES = frozenset(k for k, name in enumerate(STOP_NAMES) if name in ("error", "aborted"))


_type_redacted = attrgetter("type", "redacted")


def _assistant_run(
    blocks: Sequence[SkBlock],
    bad_stop: bool,
    shapes: dict[tuple[object, ...], tuple[bytes, array[int], bytes]],
) -> tuple[bytes, array[int], bytes]:
    """The items an assistant message makes, as the kinds, parts and flags of
    :class:`ItemList`: its header (expanded; an error when it stopped badly), then an item
    for each block :func:`~piview.render.kinds.block_kind` gives a kind (a thinking block, a
    tool call), in block order; a tool call's error is marked by the caller. ``shapes``: the
    runs made so far, by the blocks' types (tool-call ids make most block lists unique, their
    shapes repeat)."""
    key = (bad_stop, *map(_type_redacted, blocks))
    run = shapes.get(key)
    if run is not None:
        return run
    ks, ps = bytearray([KIND_CODE["assistant"]]), array("i", [-1])
    fs = bytearray([EXPANDED | ERROR if bad_stop else EXPANDED])
    for k, b in enumerate(blocks):
        kind = kinds.block_kind(b.type)
        if kind is not None:
            ks.append(KIND_CODE[kind.name])
            ps.append(k)
            fs.append(kind.state(b) if kind.state is not None else kind.flags)
    run = shapes[key] = (bytes(ks), ps, bytes(fs))
    return run


# --------------------------------------------------------------------------- rendering

_Renderer = Callable[["Ctx"], "Rendered"]
_Plain = Callable[["Ctx"], str]


class _Roles(NamedTuple):
    """What drawing needs beside the kinds' renderers, imported with the first block drawn:
    the prerender child's first screen, and building a branch's blocks, never need them."""

    ctx: type[Ctx]
    tag_header: Callable[[Text, str, int], Text]
    layout: Callable[[Console, RenderableType, ConsoleOptions], list[list[Segment]]]


@cache
def _roles() -> _Roles:
    from piview.render.fastlayout import layout
    from piview.render.roles._common import Ctx, tag_header

    return _Roles(Ctx, tag_header, layout)


def _failure(item: Item, exc: BaseException, width: int) -> Text:
    if isinstance(exc, FileChangedError):  # only a command reads strictly: it stops
        raise exc
    msg = sanitize_line(f"{type(exc).__name__}: {exc}")
    t = Text(
        f"⚠ cannot render {item.kind} (entry {item.entry}): {msg}",
        style=style("piview.error"),
        no_wrap=True,
        overflow="ellipsis",
    )
    t.truncate(max(20, width), overflow="ellipsis")
    return t


class _Safe:
    """Renders its content, or a one-line red notice if rendering it raises.

    Rich renderables (Markdown, Syntax) do their work lazily, when the console renders them,
    after :func:`render_item` has returned; this catches failures there too.
    """

    def __init__(self, content: RenderableType, item: Item, width: int) -> None:
        self.content = content
        self.item = item
        self.width = width

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        try:
            lines = console.render_lines(
                self.content, options.reset_height(), pad=False, new_lines=False
            )
        except Exception as exc:  # noqa: BLE001 - a bad entry must never break the view
            yield _failure(self.item, exc, options.max_width)
            return
        new_line = Segment.line()
        for line in lines:
            yield from line
            yield new_line

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        try:
            return Measurement.get(console, options, self.content)
        except Exception:  # noqa: BLE001
            return Measurement(1, options.max_width)


def _parts(
    session: Session, item: Item, expanded: bool, width: int, head_only: bool = False
) -> Rendered:
    roles = _roles()
    ctx = roles.ctx(session, item, expanded or not item.collapsible, max(20, width), head_only)
    head, body = kinds.renderers(item.kind)[0](ctx)
    # OpenClaw's side notes (appendMode: "side"): known from the entry the renderer decoded.
    if item.part == -1 and item.kind != "divider" and session.is_side_note(item.entry):
        head = roles.tag_header(head, "side note", max(20, width))
    return head, body


def render_item(session: Session, item: Item, *, expanded: bool, width: int) -> RenderableType:
    """The Rich renderable of one item in its collapsed or expanded state.

    The first line is always a one-line header (kind, details, time of day). Works at any
    width ≥ 20 and never raises: a failure renders as a one-line red notice.
    """
    width = max(20, int(width))
    try:
        head, body = _parts(session, item, expanded, width)
    except Exception as exc:  # noqa: BLE001 - a bad entry must never break the view
        return _failure(item, exc, width)
    return _Safe(Group(head, body) if body is not None else Group(head), item, width)


def print_lines(
    session: Session,
    item: Item,
    *,
    expanded: bool,
    width: int,
    console: Console,
    options: ConsoleOptions | None = None,
) -> list[list[Segment]]:
    """The lines of one item at ``width`` as ``piview print`` writes them (not padded).

    The same lines as rendering :func:`render_item`'s renderable, in one console pass fewer
    (that renderable lays its content out once more to catch failures), laid out by
    :func:`piview.render.fastlayout.layout`; a failure is the same one-line red notice.
    ``options`` are :func:`print_options` made once by a caller drawing many items.
    """
    width = max(20, int(width))
    if options is None:
        options = print_options(console, width)
    layout = _roles().layout
    try:
        head, body = _parts(session, item, expanded, width)
        content = Group(head, body) if body is not None else Group(head)
        return layout(console, content, options)
    except Exception as exc:  # noqa: BLE001 - a bad entry must never break the output
        return layout(console, _failure(item, exc, width), options)


def print_options(console: Console, width: int) -> ConsoleOptions:
    """The options :func:`print_lines` lays an item out with at ``width``."""
    return console.options.update_width(max(20, int(width))).reset_height()


def render_header(session: Session, item: Item, *, expanded: bool, width: int) -> Text:
    """Only the one-line header of an item (never raises); its body is not built where the
    renderer can tell it apart (a tool call's results)."""
    width = max(20, int(width))
    try:
        return _parts(session, item, expanded, width, head_only=True)[0]
    except Exception as exc:  # noqa: BLE001
        return _failure(item, exc, width)


def item_text(session: Session, item: Item) -> str:
    """Plain text of an item for search: everything expanded rendering shows, unstyled."""
    roles = _roles()
    try:
        return kinds.renderers(item.kind)[1](roles.ctx(session, item, True, 100))
    except Exception:  # noqa: BLE001 - search just skips what cannot be read
        return ""


def kept_from(session: Session, items: ItemList) -> int:
    """Position of the first item the model still sees after the branch's last compaction
    (0 without one): the items before it were replaced by the compaction's summary.

    Compactions are rare entries: only they are looked at, and each one's place in the branch
    is found at C speed, so even a branch of hundreds of thousands of items costs little.
    """
    best: tuple[int, int] | None = None  # (item position of the compaction, entry)
    whole = session.nodes.whole
    compactions = [i for i in session.nodes.of_type("compaction") if i in whole]
    if len(compactions) > 8:
        # Many (a big session has hundreds): one pass over the items for all of them (a map
        # of every entry's first position raised the peak of a big view).
        shown = items.first_positions_of(set(compactions))
        if shown:
            best = (shown[-1], items.entry(shown[-1]))
    else:
        for i in compactions:
            pos = items.first_of(i)
            if pos is not None and (best is None or pos > best[0]):
                best = (pos, i)
    if best is None:
        return 0
    pos, c = best
    node = session.nodes[c]
    if node.has_retained_tail:
        return pos  # the summary carries the kept tail itself: nothing before it is seen
    kept = session.tree.id_index.get(node.first_kept_entry_id or "")
    kept_pos = items.first_of(kept) if kept is not None else None
    return kept_pos if kept_pos is not None and kept_pos < pos else pos
