"""Provides the one registry of the transcript's kinds of blocks.

:func:`classify` says which kind an entry is (:func:`block_kind`, a block of an assistant
message); :data:`KINDS` holds, for each kind, the entries and blocks that make it, the flags
of its item, the role module that draws it (``render``/``plain``, imported when the first
block of the kind is drawn), its export section and its copy text. The transcript's items
(:mod:`piview.render.items`), the export (:mod:`piview.export.build`) and the copied text
(:mod:`piview.render.copytext`) all read it.

A new kind is a role module in ``piview/render/roles/`` and one :class:`Kind` line in
:data:`KINDS`; its export section and copy text default to its plain text.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, get_args

from piview.model.types import OMP_SETTINGS_TYPES, UNKNOWN_TAG, Entry
from piview.render.roles._limits import QUIET_CUSTOM_TYPES, is_error

if TYPE_CHECKING:
    from piview.render.roles._common import Ctx, Rendered

HIDDEN, COLLAPSIBLE, EXPANDED, ERROR, USER = 1, 2, 4, 8, 16
"""An item's flag bits: shown only with "show hidden", collapsible, built expanded, an error
(the ``e`` key), a user message (``[``/``]``)."""


@dataclass(frozen=True, slots=True)
class Kind:
    """One kind of block: which entries (or blocks) make it, and what draws, exports and
    copies it."""

    name: str
    module: str
    """The role module under ``piview.render.roles`` that draws it."""
    render: str = "render"
    """Its function ``(ctx) -> (header, body)`` in ``module``."""
    plain: str = "plain"
    """Its function ``(ctx) -> str`` in ``module`` (search, and the defaults below)."""
    section: str = "plain"
    """Its export section (``DocBuilder``'s table); ``plain``: its plain text."""
    copy: str = "plain"
    """Its copy text (``copytext``'s table); ``plain``: its plain text."""
    types: Iterable[str] = ()
    """The entry types it is made of."""
    roles: Iterable[str] = ()
    """The message roles it is made of (entries of type ``message``)."""
    custom_types: Iterable[str] = ()
    """The ``customType`` of ``custom`` entries it is made of (before ``types``)."""
    blocks: Iterable[str] = ()
    """The content blocks of an assistant message it is made of."""
    flags: int = COLLAPSIBLE
    """Its item's flag bits, unless ``state`` says."""
    state: Callable[[Any], int] | None = None
    """The flag bits from the entry's skeleton (or the block), where they depend on it."""


def _exit_flags(n: Any) -> int:
    return COLLAPSIBLE | ERROR if is_error(n.message.exit_code) else COLLAPSIBLE


def _display_flags(n: Any) -> int:
    m = n.message
    # As Pi: shown only when display is true.
    shown = (m.display if m is not None else n.display) is True
    return COLLAPSIBLE | EXPANDED if shown else HIDDEN | COLLAPSIBLE


def _summary_flags(n: Any) -> int:
    empty = n.type == "branch_summary" and not (n.summary and n.summary.strip())
    return 0 if empty else COLLAPSIBLE


KINDS: tuple[Kind, ...] = (
    # A user message's and an assistant message's items are built by build_items.
    Kind("user", "user", roles=("user",), section="user", copy="user"),
    Kind("assistant", "assistant", roles=("assistant",), section="assistant", copy="assistant"),
    Kind("thinking", "thinking", blocks=("thinking",), copy="thinking",
         state=lambda b: 0 if b.redacted else COLLAPSIBLE),  # redacted: a one-line placeholder
    Kind("tool", "tool", blocks=("toolCall",), copy="tool"),
    Kind("orphan_result", "tool", "render_orphan", "plain_orphan", "result", "result",
         roles=("toolResult",)),
    Kind("bash", "bash", roles=("bashExecution",), section="bash", copy="bash", state=_exit_flags),
    Kind("custom_message", "custom", section="custom_message", copy="custom_message",
         roles=("custom", "hookMessage"), types=("custom_message",), state=_display_flags),
    Kind("custom", "custom", "render_state", "plain_state", "rest", "json", types=("custom",),
         flags=HIDDEN | COLLAPSIBLE),  # extension state
    Kind("compaction", "summaries", "render_compaction", "plain_compaction", "summary", "summary",
         roles=("compactionSummary",), types=("compaction",)),
    Kind("branch_summary", "summaries", "render_branch", "plain_branch", "summary", "summary",
         roles=("branchSummary",), types=("branch_summary",), state=_summary_flags),
    Kind("system", "system", section="system", copy="system", roles=("system",)),
    Kind("divider", "dividers", section="rest", copy="json", flags=0,
         types=("model_change", "thinking_level_change", "label", "session_info", "reset", "leaf"),
         custom_types=("model-snapshot", "openclaw:prompt-error")),  # reset, leaf: OpenClaw's
    Kind("unknown", "unknown", section="rest", copy="json"),
    # Pi's event stream (piview.model.stream): what a session file never holds
    Kind("stream_error", "stream", "render_error", "plain_error", types=("piview_error",),
         flags=COLLAPSIBLE | EXPANDED | ERROR),
    Kind("tool_progress", "stream", "render_progress", "plain_progress",
         types=("piview_progress",)),
    Kind("stream_event", "stream", "render_event", "plain_event", types=("piview_event",),
         flags=0),
    # oh-my-pi
    Kind("developer", "omp", "render_developer", "plain_developer", "developer", "developer",
         roles=("developer",)),
    Kind("file_mention", "omp", "render_file_mention", "plain_file_mention", "file_mention",
         "file_mention", roles=("fileMention",)),
    Kind("python", "omp", "render_python", "plain_python", "python", "python",
         roles=("pythonExecution",), state=_exit_flags),
    Kind("session_init", "omp", "render_session_init", "plain_session_init", "session_init", "json",
         types=("session_init",)),
    Kind("omp_divider", "omp", "render_divider", "plain_divider", "omp_divider", "json", flags=0,
         types=OMP_SETTINGS_TYPES | {"reset_boundary", "archive"}, custom_types=QUIET_CUSTOM_TYPES,
         state=lambda n: HIDDEN if n.type == "custom" else 0),  # run markers: hidden
)  # fmt: skip

KIND_NAMES: tuple[str, ...] = tuple(k.name for k in KINDS)
"""The kinds by code: the code of an item's kind in an ``ItemList``."""
KIND_CODE: dict[str, int] = {name: c for c, name in enumerate(KIND_NAMES)}
_BY_NAME = {k.name: k for k in KINDS}
_BY_TYPE = {t: k for k in KINDS for t in k.types}
_BY_ROLE = {r: k for k in KINDS for r in k.roles}
_BY_CUSTOM = {c: k for k in KINDS for c in k.custom_types}
_BY_BLOCK = {b: k for k in KINDS for b in k.blocks}
UNKNOWN = _BY_NAME["unknown"]
_TYPED_TYPES = frozenset(t.__struct_config__.tag for t in get_args(Entry))


def classify(entry_type: str | None, role: str | None, custom_type: str | None) -> Kind:
    """The kind of an entry of ``entry_type`` (its message's ``role``, a ``custom`` entry's
    ``custom_type``): from a skeleton (the items) or a decoded entry (:func:`entry_kind`)."""
    if entry_type == "message":
        return _BY_ROLE.get(role, UNKNOWN)  # type: ignore[arg-type]
    if entry_type == "custom" and custom_type in _BY_CUSTOM:
        return _BY_CUSTOM[custom_type]  # type: ignore[index]
    return _BY_TYPE.get(entry_type, UNKNOWN)  # type: ignore[arg-type]


def entry_kind(entry: Any) -> Kind:
    """The kind of a decoded entry, by its Struct's tags. An entry (or message) of a type (or
    role) no Struct decodes, an extension's or OpenClaw's, is of the kind its own ``type``
    (``role``) names; one of a known type kept as raw JSON (it could not be repaired) is
    ``unknown``."""
    m = getattr(entry, "message", None)
    t, role = entry.__struct_config__.tag, m.__struct_config__.tag if m is not None else None
    if t == UNKNOWN_TAG and entry.entry_type not in _TYPED_TYPES:
        t = entry.entry_type
    if role == UNKNOWN_TAG:
        role = m.unknown_role  # type: ignore[union-attr]
    return classify(t, role, getattr(entry, "custom_type", None))


def block_kind(block_type: str | None) -> Kind | None:
    """The kind of an assistant message's content block, or ``None`` (text: the message's
    own item)."""
    return _BY_BLOCK.get(block_type)  # type: ignore[arg-type]


def kind_named(name: str) -> Kind:
    """The kind called ``name`` (``unknown`` for a name not registered)."""
    return _BY_NAME.get(name, UNKNOWN)


_drawers: dict[str, tuple[Callable[[Ctx], Rendered], Callable[[Ctx], str]]] = {}


def renderers(name: str) -> tuple[Callable[[Ctx], Rendered], Callable[[Ctx], str]]:
    """The ``render`` and ``plain`` functions of kind ``name``, its module imported the first
    time (the first screen's blocks are drawn by the prerender child: the role modules, with
    Rich's Markdown and Pygments under them, are not imported with the items)."""
    fns = _drawers.get(name)
    if fns is None:
        kind = kind_named(name)
        module = importlib.import_module(f"piview.render.roles.{kind.module}")
        fns = _drawers[name] = (getattr(module, kind.render), getattr(module, kind.plain))
    return fns
