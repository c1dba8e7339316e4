"""Provides the rows of the branch panel: Pi's ``/tree`` selector, flattened, filtered and folded.

The layout follows Pi's ``tree-selector.ts`` (and the HTML export's sidebar, which copies it):

* entries are filtered first (:data:`FilterMode`); hidden entries never break the structure:
  a visible entry hangs under its nearest *visible* ancestor;
* single-child chains stay flat; a branch point indents its children by one level, and the
  first entry after a branch start is indented once more (Pi's "visual grouping");
* several visible roots hang under a virtual root that draws no connector;
* at every level the child holding the active leaf comes first, the rest keep tree order;
* a *segment start* (the first entry of each branch after a branch point, or a root) is
  foldable: folding hides everything under it. Segments off the active path start folded,
  which keeps a 20,000-entry file to a few hundred rows.

Row texts are not computed here (they cost a file read each): :func:`row_text` gives the text
of one entry, to be called for the rows on screen only. Every walk is iterative, so a chain
100,000 entries deep is fine. Nothing here imports Textual or Rich.
"""

from __future__ import annotations

import json
import os
from array import array
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal

from piview.model.decode import SkEntry
from piview.model.store import F_WHOLE, STOP_NAMES, TYPE_NAMES, as_store
from piview.model.types import (
    AssistantMessage,
    BashExecutionMessage,
    CustomMessage,
    CustomMessageEntry,
    ImageContent,
    MessageEntry,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UnknownMessage,
    UserMessage,
    number,
)

if TYPE_CHECKING:
    from piview.model.session import Session

__all__ = [
    "FILTER_MODES",
    "FilterMode",
    "Folds",
    "Gutter",
    "Row",
    "TreeRows",
    "entry_visible",
    "flatten",
    "next_filter",
    "row_kind",
    "row_text",
    "search",
    "refold",
    "search_entries",
]

FilterMode = Literal["default", "no-tools", "user-only", "labeled-only", "all"]
"""Which entries the panel shows (Pi's ``treeFilterMode``)."""

FILTER_MODES: tuple[FilterMode, ...] = ("default", "no-tools", "user-only", "labeled-only", "all")
"""The filter modes in Pi's cycling order."""

ROW_TEXT_MAX = 100
"""Row texts are cut to this many characters (as the HTML export does)."""

_SETTINGS = frozenset({"label", "custom", "model_change", "thinking_level_change", "session_info"})
"""Bookkeeping entry types hidden by ``default`` and ``no-tools``."""
_MESSAGE = TYPE_NAMES.index("message")
_QUIET = (None, "", "stop", "toolUse")
"""Stop reasons of an assistant turn that ended normally."""
_QUIET_STOPS = frozenset(STOP_NAMES.index(s) for s in _QUIET if s in STOP_NAMES)
"""The same, as the node store's codes."""


def next_filter(mode: FilterMode, step: int = 1) -> FilterMode:
    """The filter mode ``step`` places after ``mode`` in :data:`FILTER_MODES`, wrapping."""
    k = FILTER_MODES.index(mode) if mode in FILTER_MODES else 0
    return FILTER_MODES[(k + step) % len(FILTER_MODES)]


# --------------------------------------------------------------------------- visibility


def _textless(stop_reason: str | None, content: object) -> bool:
    """Whether an assistant turn with this stop reason and content is one Pi hides: it ended
    normally and has no text (only tool calls or thinking)."""
    if stop_reason not in _QUIET:
        return False  # error, aborted, length...: shown
    if isinstance(content, str):
        return not content.strip()
    if isinstance(content, (list, tuple)):
        # The skeleton keeps block types, not text: a text block counts as text.
        return not any(b.type == "text" for b in content)
    return True


def _assistant_is_empty(node: SkEntry) -> bool:
    """A tool-call-only (textless) assistant that ended normally: Pi hides it."""
    msg = node.message
    if msg is None or msg.role != "assistant":
        return False
    return _textless(msg.stop_reason, msg.content)


def entry_visible(node: SkEntry, mode: FilterMode, labelled: bool) -> bool:
    """Whether an entry passes ``mode`` (the current leaf is shown whatever this says).

    Args:
        node: the entry's skeleton.
        mode: the filter mode.
        labelled: the entry has a resolved label.
    """
    if _assistant_is_empty(node):
        return False
    etype = node.type
    role = node.message.role if etype == "message" and node.message is not None else None
    if mode == "user-only":
        return role == "user"
    if mode == "labeled-only":
        return labelled
    if mode == "all":
        return True
    if etype in _SETTINGS:
        return False
    return not (mode == "no-tools" and role == "toolResult")


# --------------------------------------------------------------------------- rows

Gutter = tuple[int, bool, "Gutter | None"]
"""A vertical guide of an ancestor branch: (level, draw ``│``, the enclosing guide)."""


@dataclass(slots=True)
class Row:
    """One line of the branch panel (treat as read-only; not frozen because it is built
    100,000 times for a long chain and frozen dataclasses are twice as slow to build)."""

    entry: int
    """Entry index in file order."""
    indent: int
    """Display indentation in levels (three cells each)."""
    connector: str
    """``"├"`` or ``"└"`` when the row starts a branch, else ``""``."""
    gutters: Gutter | None
    """Guides of the enclosing branches (a linked list, shared between rows)."""
    on_path: bool
    """The entry is on the active path (root to the active leaf)."""
    label: str | None
    """The entry's label (bookmark), if any."""
    is_leaf: bool
    """The entry is the active leaf."""
    is_branch_point: bool
    """Two or more visible entries hang directly under this one."""
    foldable: bool
    """The row starts a segment (a root, or a child of a branch point) and has children."""
    folded: bool
    """The row is folded: its descendants are not in the rows."""
    hidden: int = 0
    """How many visible entries the fold hides (0 when not folded)."""

    @property
    def expanded(self) -> bool:
        """Foldable and currently unfolded."""
        return self.foldable and not self.folded

    def prefix(self) -> str:
        """The tree art before the row's text: guides, connector and fold marker.

        ``├─ `` / ``└─ `` start a branch; ``⊟`` replaces the ``─`` of a foldable row and
        ``⊞`` of a folded one; a folded row without a connector (a root) ends with ``⊞ ``.
        """
        cells = [" "] * (self.indent * 3)
        connector_level = self.indent - 1 if self.connector else -1
        guides: dict[int, bool] = {}
        g = self.gutters
        while g is not None:
            level, show, g = g
            guides[level] = show  # walking outwards: the outermost guide wins, as in Pi
        for level, show in guides.items():
            if show and level < self.indent:
                cells[level * 3] = "│"
        if connector_level >= 0 and connector_level not in guides:
            base = connector_level * 3
            cells[base] = self.connector
            cells[base + 1] = "⊞" if self.folded else "⊟" if self.foldable else "─"
        text = "".join(cells)
        if self.folded and not self.connector:
            text += "⊞ "
        return text


@dataclass(slots=True)
class Folds:
    """Which segments are folded: explicit choices over the default.

    By default a foldable row is folded unless it is on the active path.
    """

    opened: set[int] = field(default_factory=set)
    """Entries the user unfolded."""
    closed: set[int] = field(default_factory=set)
    """Entries the user folded."""

    def is_folded(self, entry: int, on_path: bool) -> bool:
        """Whether a foldable ``entry`` is folded."""
        if entry in self.closed:
            return True
        if entry in self.opened:
            return False
        return not on_path

    def set(self, entry: int, folded: bool) -> None:
        """Fold or unfold ``entry``."""
        if folded:
            self.opened.discard(entry)
            self.closed.add(entry)
        else:
            self.closed.discard(entry)
            self.opened.add(entry)

    def open_path(self, path: Iterable[int]) -> None:
        """Forget explicit folds on ``path`` so that it shows unfolded."""
        for i in path:
            self.closed.discard(i)


@dataclass(slots=True)
class TreeRows:
    """The flattened rows, with the visible tree they were drawn from."""

    rows: list[Row]
    """The rows, top to bottom."""
    mode: FilterMode
    """The filter mode used."""
    leaf: int | None
    """The active leaf."""
    shown: int
    """Entries passing the filter, folded ones included."""
    row_of: dict[int, int]
    """Row index of each entry that has a row."""
    vparent: list[int]
    """Per entry: nearest visible ancestor (``-1`` none); meaningful for visible entries."""
    parents: list[int]
    """The tree's parents (to find the nearest row of an entry that has none)."""
    walk: _Walk | None = None
    """The visible tree the rows were laid out from (for :func:`refold`)."""

    def __len__(self) -> int:
        return len(self.rows)

    def nearest_row(self, entry: int | None) -> int | None:
        """Row of ``entry``, else of its nearest ancestor that has a row."""
        while entry is not None and entry >= 0:
            r = self.row_of.get(entry)
            if r is not None:
                return r
            entry = self.parents[entry]
        return None

    def segment_start(self, row: int) -> int | None:
        """Row of the foldable segment start enclosing ``row`` (itself excluded)."""
        if not 0 <= row < len(self.rows):
            return None
        entry = self.vparent[self.rows[row].entry]
        while entry >= 0:
            r = self.row_of.get(entry)
            if r is not None and self.rows[r].foldable:
                return r
            entry = self.vparent[entry]
        return None


def _visibility(nodes: Sequence[SkEntry], mode: FilterMode, labels: dict[int, str]) -> bytearray:
    """One byte per entry: 1 when it passes ``mode``."""
    store = as_store(nodes)
    n = len(store)
    if mode == "labeled-only":
        out = bytearray(n)
        for i in labels:
            out[i] = 1
    elif mode == "user-only":
        out = bytearray(n)
        for i in store.of_role("user"):
            if store.types[i] == _MESSAGE:
                out[i] = 1
        return out
    elif mode == "all":
        out = bytearray(b"\x01") * n
    else:
        out = bytearray(b"\x01") * n
        for name in _SETTINGS:
            for i in store.of_type(name):
                out[i] = 0
        if mode == "no-tools":
            for i in store.of_role("toolResult"):
                if store.types[i] == _MESSAGE:
                    out[i] = 0
    # Messages: the settings types never hold one, so only textless assistants change. The
    # columns give the same answer as _assistant_is_empty, without rebuilding each node.
    textless: dict[int, bool] = {}  # per shared block list
    flags, stops, content_at = store.flags, store.stops, store.content_at
    for i in store.of_role("assistant"):
        if not out[i] or store.types[i] != _MESSAGE:
            continue
        if flags[i] & F_WHOLE:
            empty = _assistant_is_empty(store[i])
        elif stops[i] not in _QUIET_STOPS:
            empty = False
        else:
            at = content_at[i]
            if at >= 0:
                empty = textless.get(at)
                if empty is None:
                    empty = textless[at] = _textless(None, store.patterns[at])
            else:  # -2: string content, kept in texts; otherwise none
                empty = _textless(None, store.texts[i] if at == -2 else None)
        if empty:
            out[i] = 0
    return out


def _visible(session: Session, mode: FilterMode) -> bytearray:
    """:func:`_visibility` of ``session``, kept per mode until entries are added: folding,
    unfolding and switching branch reuse it (a fresh copy each time, for the caller to mark)."""
    key = ("treeview.visibility", mode)
    kept = session.derived.get(key)
    if kept is None:
        kept = session.derived[key] = bytes(_visibility(session.nodes, mode, session.labels))
    return bytearray(kept)


def _ordered(children: list[int], on_path: bytearray) -> list[int]:
    """``children`` with the one on the active path first."""
    for k, c in enumerate(children):
        if on_path[c]:
            return children if k == 0 else [c, *children[:k], *children[k + 1 :]]
    return children


def flatten(
    session: Session,
    leaf: int | None = None,
    mode: FilterMode = "default",
    folds: Folds | None = None,
) -> TreeRows:
    """Compute the panel rows of ``session``.

    Args:
        session: the loaded session.
        leaf: the active leaf (default: the file's leaf, its last entry).
        mode: the filter mode.
        folds: fold choices (default: fold every segment off the active path).
    """
    nodes = session.nodes
    tree = session.tree
    n = len(nodes)
    if leaf is None or not 0 <= leaf < n:
        leaf = tree.leaf
    folds = folds if folds is not None else Folds()
    labels = session.labels
    on_path = bytearray(n)
    if leaf is not None:
        for i in tree.path(leaf):
            on_path[i] = 1
    visible = _visible(session, mode)
    if leaf is not None:
        visible[leaf] = 1

    # 1. Visible tree: preorder walk, active child first; hidden entries pass their
    # nearest visible ancestor down to their children.
    vparent = [-1] * n
    vchildren: dict[int, list[int]] = {}
    order: list[int] = []
    children = tree.children
    start, packed = children.start, children.items
    stack: list[tuple[int, int]] = [(r, -1) for r in reversed(_ordered(tree.roots, on_path))]
    while stack:
        i, anc = stack.pop()
        # Down a single-child chain without the stack: most of a long session is one.
        while True:
            if visible[i]:
                vparent[i] = anc
                sib = vchildren.get(anc)
                if sib is None:
                    vchildren[anc] = [i]
                else:
                    sib.append(i)
                order.append(i)
                anc = i
            a = start[i]
            count = start[i + 1] - a
            if count != 1:
                break
            i = packed[a]
        if count:
            stack.extend([(c, anc) for c in reversed(_ordered(children[i], on_path))])

    # 2. Visible subtree sizes (for the hidden counts of folded rows).
    size = array("q", [1]) * n  # arrays: kept with the rows, no int object each
    for i in reversed(order):
        p = vparent[i]
        if p >= 0:
            size[p] += size[i]

    # 3. Pi's flatten over the visible tree, skipping folded subtrees.
    roots = vchildren.get(-1, [])
    multi = len(roots) > 1
    pre = array("q", bytes(8 * n))
    for k, i in enumerate(order):
        pre[i] = k
    walk = _Walk(vchildren, vparent, size, pre, on_path, leaf, multi, labels)
    rows: list[Row] = []
    row_of: dict[int, int] = {}
    work: list[_Work] = [
        (r, 1 if multi else 0, multi, multi, k == len(roots) - 1, None, multi)
        for k, r in reversed(list(enumerate(roots)))
    ]
    _emit(walk, folds, work, rows, row_of)
    return TreeRows(
        rows=rows,
        mode=mode,
        leaf=leaf,
        shown=len(order),
        row_of=row_of,
        vparent=vparent,
        parents=tree.parents,
        walk=walk,
    )


_Work = tuple[int, int, bool, bool, bool, "Gutter | None", bool]
"""A node to lay out: (entry, indent, just_branched, show_connector, is_last, gutters,
virtual_root_child), as in Pi's flatten."""


@dataclass(slots=True)
class _Walk:
    """The visible tree of one :func:`flatten`: enough to lay out any part of it again."""

    vchildren: dict[int, list[int]]
    """Visible children of each visible entry (``-1``: the roots), active path first."""
    vparent: list[int]
    size: array[int]
    """Visible subtree size of each visible entry, itself included."""
    pre: array[int]
    """Preorder position of each visible entry: a subtree is one run of positions."""
    on_path: bytearray
    leaf: int | None
    multi: bool
    """More than one visible root: every level is shifted by one."""
    labels: dict[int, str]


def _emit(
    walk: _Walk,
    folds: Folds,
    work: list[_Work],
    rows: list[Row],
    row_of: dict[int, int] | None = None,
) -> None:
    """Lay out the nodes on the ``work`` stack and their unfolded descendants, appending a
    row for each (Pi's flatten, without recursion)."""
    vchildren, vparent, size, on_path = walk.vchildren, walk.vparent, walk.size, walk.on_path
    leaf, multi, get_label = walk.leaf, walk.multi, walk.labels.get
    no_kids: list[int] = []
    while work:
        i, indent, just_branched, show_conn, is_last, gutters, vroot = work.pop()
        kids = vchildren.get(i, no_kids)
        parent = vparent[i]
        foldable = bool(kids) and (parent < 0 or len(vchildren[parent]) > 1)
        folded = foldable and folds.is_folded(i, bool(on_path[i]))
        display = (indent - 1 if indent > 0 else 0) if multi else indent
        connector = ("└" if is_last else "├") if show_conn and not vroot else ""
        if row_of is not None:
            row_of[i] = len(rows)
        rows.append(
            Row(
                i,
                display,
                connector,
                gutters,
                on_path[i] == 1,
                get_label(i),
                i == leaf,
                len(kids) > 1,
                foldable,
                folded,
                size[i] - 1 if folded else 0,
            )
        )
        if folded or not kids:
            continue
        _push_children(work, kids, indent, just_branched, display, connector, is_last, gutters)


def _push_children(
    work: list[_Work],
    kids: list[int],
    indent: int,
    just_branched: bool,
    display: int,
    connector: str,
    is_last: bool,
    gutters: Gutter | None,
) -> None:
    if connector:
        gutters = (display - 1 if display > 0 else 0, not is_last, gutters)
    if len(kids) == 1:
        child_indent = indent + 1 if just_branched and indent > 0 else indent
        work.append((kids[0], child_indent, False, False, True, gutters, False))
        return
    last = len(kids) - 1
    work.extend(
        [
            (c, indent + 1, True, True, k == last, gutters, False)
            for k, c in reversed(list(enumerate(kids)))
        ]
    )


def refold(tree_rows: TreeRows, index: int, folds: Folds) -> TreeRows:
    """``tree_rows`` once the fold of row ``index`` follows ``folds`` (changed for that row
    only): its subtree's rows are cut out or laid out again, nothing else is redone. Equal
    to a new :func:`flatten` with ``folds``."""
    walk = tree_rows.walk
    rows = tree_rows.rows
    assert walk is not None
    row = rows[index]
    i = row.entry
    # The rows shown for i's subtree follow it: one run of preorder positions.
    lo, hi = walk.pre[i], walk.pre[i] + walk.size[i]
    end = index + 1
    while end < len(rows) and lo <= walk.pre[rows[end].entry] < hi:
        end += 1
    folded = row.foldable and folds.is_folded(i, bool(walk.on_path[i]))
    new = replace(row, folded=folded, hidden=walk.size[i] - 1 if folded else 0)
    sub: list[Row] = []
    kids = walk.vchildren.get(i)
    if kids and not folded:
        # The state Pi's flatten had at i: a foldable row is a root or a branch's child.
        parent = walk.vparent[i]
        if parent < 0:
            roots = walk.vchildren[-1]
            just_branched, is_last = walk.multi, i == roots[-1]
        else:
            just_branched, is_last = True, i == walk.vchildren[parent][-1]
        indent = row.indent + 1 if walk.multi else row.indent
        work: list[_Work] = []
        _push_children(
            work, kids, indent, just_branched, row.indent, row.connector, is_last, row.gutters
        )
        _emit(walk, folds, work, sub)
    out = [*rows[:index], new, *sub, *rows[end:]]
    return TreeRows(
        rows=out,
        mode=tree_rows.mode,
        leaf=tree_rows.leaf,
        shown=tree_rows.shown,
        row_of={r.entry: k for k, r in enumerate(out)},
        vparent=tree_rows.vparent,
        parents=tree_rows.parents,
        walk=walk,
    )


# --------------------------------------------------------------------------- row text


def _one_line(text: str, limit: int = ROW_TEXT_MAX) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _blocks_text(content: Any, limit: int = 400) -> str:
    """Text of a content value (string or blocks), ``[image]`` when only images."""
    if isinstance(content, str):
        return content[:limit]
    if not isinstance(content, list):
        return ""
    parts: list[str] = []
    length = 0
    images = 0
    for b in content:
        if isinstance(b, TextContent):
            parts.append(b.text)
            length += len(b.text)
            if length >= limit:
                break
        elif isinstance(b, ImageContent):
            images += 1
    text = "".join(parts)[:limit]
    if not text.strip() and images:
        return "[image]" if images == 1 else f"[{images} images]"
    return text


def _home() -> str:
    return os.environ.get("HOME") or os.environ.get("USERPROFILE") or ""


def _short_path(p: object) -> str:
    s = str(p) if p is not None else ""
    home = _home()
    if home and home != "/" and s.startswith(home):
        return "~" + s[len(home) :]
    return s


def _tool_call_text(name: str, args: Any) -> str:
    """Pi's one-line form of a tool call: ``[read: ~/p:10-29]``, ``[bash: cmd]``..."""
    a: dict[str, Any] = args if isinstance(args, dict) else {}
    path = a.get("path") or a.get("file_path") or ""
    if name == "read":
        shown = _short_path(path)
        offset, limit = a.get("offset"), a.get("limit")
        if offset is not None or limit is not None:
            start = offset if isinstance(offset, int) else 1
            end = start + limit - 1 if isinstance(limit, int) else None
            shown += f":{start}" + (f"-{end}" if end else "")
        return f"[read: {shown}]"
    if name in ("write", "edit"):
        return f"[{name}: {_short_path(path)}]"
    if name == "bash":
        raw = str(a.get("command") or "")
        cmd = " ".join(raw.split())[:50]
        return f"[bash: {cmd}{'...' if len(raw) > 50 else ''}]"
    if name == "grep":
        return f"[grep: /{a.get('pattern') or ''}/ in {_short_path(a.get('path') or '.')}]"
    if name == "find":
        return f"[find: {a.get('pattern') or ''} in {_short_path(a.get('path') or '.')}]"
    if name == "ls":
        return f"[ls: {_short_path(a.get('path') or '.')}]"
    try:
        js = json.dumps(args, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):
        js = str(args)
    return f"[{name}: {js[:40]}{'...' if len(js) > 40 else ''}]"


def _tool_result_text(session: Session, i: int, msg: ToolResultMessage) -> str:
    ref = session.pairing.result_call.get(i)
    if ref is not None:
        call_entry = session.entry(ref[0])
        call_msg = call_entry.message if isinstance(call_entry, MessageEntry) else None
        if isinstance(call_msg, AssistantMessage) and ref[1] < len(call_msg.content):
            block = call_msg.content[ref[1]]
            if isinstance(block, ToolCall):
                return _tool_call_text(block.name, block.arguments)
    return f"[{msg.tool_name or 'tool'}]"


def _message_text(session: Session, i: int, entry: MessageEntry) -> str:
    m = entry.message
    if isinstance(m, UserMessage):
        return "user: " + _blocks_text(m.content)
    if isinstance(m, AssistantMessage):
        text = _blocks_text(m.content)
        if text.strip():
            return "assistant: " + text
        if m.stop_reason == "aborted":
            return "assistant: (aborted)"
        if m.error_message:
            return "assistant: " + " ".join(m.error_message.split())[:80]
        return "assistant: (no content)"
    if isinstance(m, ToolResultMessage):
        return _tool_result_text(session, i, m)
    if isinstance(m, BashExecutionMessage):
        return f"[bash]: {m.command}"
    if isinstance(m, CustomMessage):
        return f"[{m.custom_type or 'custom'}]: {_blocks_text(m.content)}"
    if isinstance(m, UnknownMessage):
        return f"[{m.unknown_role}]"
    if m is None:
        return "[message]"
    return f"[{m.__struct_config__.tag}]"


def row_text(session: Session, i: int) -> str:
    """The one-line text of entry ``i`` as Pi's ``/tree`` shows it (at most ~100 chars).

    Messages and custom messages are decoded from the file (one read each); other entries
    come from the skeleton.
    """
    node = session.nodes[i]
    t = node.type
    if t == "compaction":
        # NaN, infinities and 10**400 would make round() raise: number() reads them as 0.
        return f"[compaction: {round(number(node.tokens_before) / 1000)}k tokens]"
    if t == "branch_summary":
        return _one_line(f"[branch summary]: {node.summary or ''}")
    if t == "model_change":
        return _one_line(f"[model: {node.model_id or ''}]")
    if t == "thinking_level_change":
        return _one_line(f"[thinking: {node.thinking_level or ''}]")
    if t == "custom":
        return _one_line(f"[custom: {node.custom_type or ''}]")
    if t == "label":
        return _one_line(f"[label: {node.label or '(cleared)'}]")
    if t == "session_info":
        name = node.name.strip() if isinstance(node.name, str) else ""
        return _one_line(f"[title: {name or 'empty'}]")
    if t not in ("message", "custom_message"):
        return _one_line(f"[{t}]")
    entry = session.entry(i)
    if isinstance(entry, MessageEntry):
        return _one_line(_message_text(session, i, entry))
    if isinstance(entry, CustomMessageEntry):
        return _one_line(f"[{entry.custom_type or 'custom'}]: {_blocks_text(entry.content)}")
    return _one_line(f"[{t}]")


def row_kind(node: SkEntry) -> str:
    """A style class for a row: user, assistant, error, tool, tool-error, bash, custom,
    summary, compaction or meta."""
    t = node.type
    if t == "message" and node.message is not None:
        msg = node.message
        role = msg.role
        if role == "user":
            return "user"
        if role == "assistant":
            return "error" if msg.stop_reason in ("error", "aborted") else "assistant"
        if role == "toolResult":
            return "tool-error" if msg.is_error else "tool"
        if role == "bashExecution":
            return "bash"
        if role == "custom":
            return "custom"
        if role in ("branchSummary", "compactionSummary"):
            return "summary"
        return "meta"
    if t == "custom_message":
        return "custom"
    if t == "branch_summary":
        return "summary"
    if t == "compaction":
        return "compaction"
    return "meta"


def search(
    session: Session,
    rows: Sequence[Row],
    query: str,
    text: Callable[[Session, int], str] = row_text,
) -> list[Row]:
    """The rows matching ``query``: every whitespace token is a case-insensitive substring
    of the row's label plus its text.

    Args:
        session: the session the rows come from.
        rows: the rows to search (flatten with everything unfolded to search all).
        query: the search text; blank matches every row.
        text: the row-text function (pass a cached one to avoid re-reading the file).
    """
    tokens = query.lower().split()
    if not tokens:
        return list(rows)
    return [r for r in rows if _matches(tokens, r.label, text(session, r.entry))]


def _matches(tokens: list[str], label: str | None, text: str) -> bool:
    """Every token is a substring of the label plus the text (tokens are lower case)."""
    hay = f"{label or ''} {text}".lower()
    return all(t in hay for t in tokens)


def search_entries(
    session: Session,
    query: str,
    mode: FilterMode = "default",
    text: Callable[[Session, int], str] = row_text,
) -> list[int]:
    """The entries, in file order, that pass ``mode`` and match ``query`` as :func:`search`
    matches rows: every whitespace token is a case-insensitive substring of the entry's
    label plus its row text. Folded or not, every entry is looked at; blank matches none."""
    tokens = query.lower().split()
    if not tokens:
        return []
    labels = session.labels
    visible = _visible(session, mode)
    return [
        i
        for i in range(len(session))
        if visible[i] and _matches(tokens, labels.get(i), text(session, i))
    ]
