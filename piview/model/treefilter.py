"""Provides the branch panel's filter modes and which entries pass each (Pi's ``treeFilterMode``);
the current leaf is always shown (:func:`piview.model.treeview.flatten` adds it back)."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import compress
from typing import TYPE_CHECKING, Literal

from piview.model.decode import SkEntry
from piview.model.store import F_WHOLE, STOP_NAMES, TYPE_NAMES, as_store
from piview.model.types import OMP_SETTINGS_TYPES

if TYPE_CHECKING:
    from piview.model.session import Session

FilterMode = Literal["default", "no-tools", "user-only", "labeled-only", "all"]
"""Which entries the panel shows (Pi's ``treeFilterMode``)."""

FILTER_MODES: tuple[FilterMode, ...] = ("default", "no-tools", "user-only", "labeled-only", "all")
"""The filter modes in Pi's cycling order."""

_SETTINGS = (
    frozenset(
        {
            "label",
            "custom",
            "model_change",
            "thinking_level_change",
            "session_info",
            "archive",  # oh-my-pi
        }
    )
    | OMP_SETTINGS_TYPES
)
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
    """Whether an entry (``node``, ``labelled`` when it has a label) passes ``mode`` (the
    current leaf is shown whatever this says)."""
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


def visibility(nodes: Sequence[SkEntry], mode: FilterMode, labels: dict[int, str]) -> bytearray:
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
                kept = textless.get(at)
                if kept is None:
                    kept = textless[at] = _textless(None, store.patterns[at])
                empty = kept
            else:  # -2: string content, kept in texts; otherwise none
                empty = _textless(None, store.texts[i] if at == -2 else None)
        if empty:
            out[i] = 0
    return out


def archived(session: Session) -> bytearray | None:
    """One byte per entry, 1 inside a subtree oh-my-pi archived (the last ``archive`` entry for
    a target wins); ``None`` when nothing is archived. Linear."""
    store = session.nodes
    tree = session.tree
    state: dict[int, bool] = {}
    for i in store.of_type("archive"):
        node = store[i]
        target = tree.id_index.get(node.target_id or "")
        if target is not None:
            state[target] = node.archived is not False
    roots = [t for t, on in state.items() if on]
    if not roots:
        return None
    out = bytearray(len(store))
    children = tree.children
    start, packed = children.start, children.items
    for r in roots:
        stack = [r]
        while stack:
            j = stack.pop()
            if out[j]:
                continue
            out[j] = 1
            stack.extend(packed[start[j] : start[j + 1]])
    return out


def session_visibility(session: Session, mode: FilterMode) -> bytearray:
    """:func:`visibility` of ``session`` (archived subtrees hidden but in mode ``all``), kept
    per mode until entries are added; a fresh copy each time, for the caller to mark."""
    key = ("treefilter.visibility", mode)
    kept = session.derived.get(key)
    if kept is None:
        seen = visibility(session.nodes, mode, session.labels)
        hide = archived(session) if mode != "all" else None
        if hide is not None:
            for i in compress(range(len(hide)), hide):
                seen[i] = 0
        kept = session.derived[key] = bytes(seen)
    return bytearray(kept)
