"""Provides the references for ``build_items`` and ``kept_from``: the per-item loop the first
replaced (every entry through one chain of tests, every item pushed as a tuple), and the map
of every entry's first item the second built; kept to compare the fast paths with."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from piview.model.store import F_ERROR, ROLE_NAMES, STOP_NAMES
from piview.model.types import OMP_SETTINGS_TYPES
from piview.render.item import Item, ItemList
from piview.render.items import _PEEK_LIMIT, _SMALL_LINE, _user_flags
from piview.render.roles import bash, omp, user

if TYPE_CHECKING:
    from piview.model.decode import SkBlock
    from piview.model.session import Session

# The rules as they were written in the chain of tests (the registry of kinds holds them now).
_DIVIDER_TYPES = frozenset(
    {"model_change", "thinking_level_change", "label", "session_info", "reset", "leaf"}
)
_DIVIDER_CUSTOM = frozenset({"model-snapshot", "openclaw:prompt-error"})
_OMP_DIVIDER_TYPES = OMP_SETTINGS_TYPES | {"reset_boundary", "archive"}
_OMP_ROLES = {"developer": "developer", "fileMention": "file_mention", "pythonExecution": "python"}
_BAD_STOPS = frozenset({"error", "aborted"})


def _user_collapsible(session: Session, i: int, content: object, cache: dict[int, bool]) -> bool:
    """The test as it was: every pattern looked for in turn, images last."""
    if isinstance(content, str):
        return (
            "<file name=" in content
            or "<skill name=" in content
            or len(content) > user.LONG_CHARS
            or content.count("\n") >= user.LONG_LINES
        )
    length = session.line_length(i)
    if length <= _SMALL_LINE:
        return False
    if length > _PEEK_LIMIT:
        return True
    try:
        raw = session.read_line(i)
    except OSError:
        raw = b""
    return (
        b"<file name=" in raw
        or b"<skill name=" in raw
        or raw.count(b"\\n") >= user.LONG_LINES
        or (length > user.LONG_CHARS + 200 and b'"image"' not in raw)
    )


def build_items_reference(
    session: Session, path: Sequence[int], *, show_hidden: bool = False
) -> ItemList:
    """``build_items`` as it was before its fast path: one ``push`` per item."""
    pairing = session.pairing
    result_call = pairing.result_call
    on_path = set(path)
    user_cache = _user_flags.get(session)
    if user_cache is None:
        user_cache = _user_flags[session] = {}
    # Calls with an error result on this path (errors are few: cheaper than a lookup per call).
    err_calls = {result_call[r] for r in pairing.errors if r in on_path and r in result_call}
    made: list[Item] = []
    add = made.append
    new = Item  # Item(kind, entry, part, hidden, collapsible, expanded, error, user)
    store = session.nodes
    whole = store.whole
    roles, stops, flags, content_at = store.roles, store.stops, store.flags, store.content_at
    for i in path:
        n = whole.get(i)
        if n is None:
            # A plain message: user, assistant or tool result, read from the columns.
            t = "message"
            role = ROLE_NAMES[roles[i]]
            m = None
            at = content_at[i]
            blocks: Sequence[SkBlock] = store.patterns[at] if at >= 0 else ()
            content: object = store.texts.get(i) if at == -2 else blocks
            bad_stop = STOP_NAMES[stops[i]] in _BAD_STOPS
            is_error = bool(flags[i] & F_ERROR)
        else:
            t = n.type or ""
            m = n.message
            role = m.role if m is not None else None
            content = m.content if m is not None else None
            blocks = content if isinstance(content, list) else ()
            bad_stop = m is not None and m.stop_reason in _BAD_STOPS
            is_error = bool(m is not None and m.is_error)
        if t == "message":
            if role == "assistant":
                # The turn's header (with its text) comes first, so that thinking which came
                # before the text is never read as part of the previous turn.
                add(new("assistant", i, -1, False, False, True, bad_stop))
                for k, b in enumerate(blocks):
                    bt = b.type
                    if bt == "thinking":
                        # A redacted block is a one-line placeholder: nothing to expand.
                        add(new("thinking", i, k, False, not b.redacted))
                    elif bt == "toolCall":
                        add(new("tool", i, k, False, True, False, (i, k) in err_calls))
            elif role == "toolResult":
                ref = result_call.get(i)
                if ref is not None and ref[0] in on_path:
                    continue
                add(new("orphan_result", i, -1, False, True, False, is_error))
            elif role == "user":
                c = _user_collapsible(session, i, content, user_cache)
                add(new("user", i, -1, False, c, not c, False, True))
            elif role == "bashExecution":
                assert m is not None
                add(new("bash", i, -1, False, True, False, bash.is_error(m.exit_code)))
            elif role in _OMP_ROLES:
                assert m is not None
                kind = _OMP_ROLES[role]
                failed = kind == "python" and bash.is_error(m.exit_code)
                add(new(kind, i, -1, False, True, False, failed))
            elif role == "custom" or role == "hookMessage":
                assert m is not None
                hidden = m.display is not True  # as Pi: shown only when true
                if hidden and not show_hidden:
                    continue
                add(new("custom_message", i, -1, hidden, True, not hidden))
            elif role == "system":
                add(new("system", i, -1, False, True))
            elif role == "compactionSummary":
                add(new("compaction", i, -1, False, True))
            elif role == "branchSummary":
                add(new("branch_summary", i, -1, False, True))
            else:
                add(new("unknown", i, -1, False, True))
        elif t == "custom_message":
            assert n is not None  # only plain messages come from the columns
            hidden = n.display is not True
            if hidden and not show_hidden:
                continue
            add(new("custom_message", i, -1, hidden, True, not hidden))
        elif t in _DIVIDER_TYPES:
            add(new("divider", i))
        elif t in _OMP_DIVIDER_TYPES:
            add(new("omp_divider", i))
        elif t == "session_init":
            add(new("session_init", i, -1, False, True))
        elif t == "compaction":
            add(new("compaction", i, -1, False, True))
        elif t == "branch_summary":
            assert n is not None
            add(new("branch_summary", i, -1, False, bool(n.summary and n.summary.strip())))
        elif t == "custom":
            assert n is not None
            if n.custom_type in _DIVIDER_CUSTOM:
                add(new("divider", i))
            elif show_hidden:
                if n.custom_type in omp.QUIET_CUSTOM_TYPES:  # oh-my-pi's run markers
                    add(new("omp_divider", i, -1, True))
                else:
                    add(new("custom", i, -1, True, True))
        else:
            add(new("unknown", i, -1, False, True))
    return ItemList(made)


def kept_from_reference(session: Session, items: ItemList) -> int:
    """``kept_from`` as it was: a map of every entry's first position for many compactions."""
    best: tuple[int, int] | None = None
    whole = session.nodes.whole
    compactions = [i for i in session.nodes.of_type("compaction") if i in whole]
    if len(compactions) > 8:
        first = items.first_positions()
        found = ((first.get(i), i) for i in compactions)
    else:
        found = ((items.first_of(i), i) for i in compactions)
    for pos, i in found:
        if pos is not None and (best is None or pos > best[0]):
            best = (pos, i)
    if best is None:
        return 0
    pos, c = best
    node = session.nodes[c]
    if node.has_retained_tail:
        return pos
    kept = session.tree.id_index.get(node.first_kept_entry_id or "")
    kept_pos = items.first_of(kept) if kept is not None else None
    return kept_pos if kept_pos is not None and kept_pos < pos else pos
