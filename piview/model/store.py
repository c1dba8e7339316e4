"""Provides :class:`NodeStore`: the skeletons of a file's entries, kept in compact columns.

Plain messages are kept as codes in byte arrays and sparse tables (a msgspec skeleton per
entry is some twenty small objects); every other (rare) entry is kept whole. ``store[i]``
rebuilds an equal ``SkEntry``; the hot loops read the columns."""

from __future__ import annotations

import sys
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, get_args, overload

import msgspec
from msgspec.structs import astuple

from piview.model.decode import EntryType, Role, SkBlock, SkEntry, SkMessage, StopReason
from piview.model.fill import load as load_fill
from piview.model.store_ts import TS_GAP, TS_LEN, pack_ts, ts_string
from piview.model.types import Cost, Usage
from piview.model.usage_row import row_decoder, row_of, usage_of

__all__ = ["OTHER", "NodeStore", "ROLE_NAMES", "STOP_NAMES", "TS_LEN", "TYPE_NAMES", "as_store"]

# The closed sets of the skeleton decoder, in its order; code 0 is "absent".
TYPE_NAMES: tuple[str | None, ...] = (None, *get_args(EntryType))
ROLE_NAMES: tuple[str | None, ...] = (None, *get_args(Role))
STOP_NAMES: tuple[str | None, ...] = (None, *get_args(StopReason))
OTHER = _OTHER = 255
"""Code of a value outside the table: the entry is kept whole, read it from there."""

_TYPE_CODE = {name: k for k, name in enumerate(TYPE_NAMES)}
_ROLE_CODE = {name: k for k, name in enumerate(ROLE_NAMES)}
_STOP_CODE = {name: k for k, name in enumerate(STOP_NAMES)}
_MESSAGE = _TYPE_CODE["message"]

# Flag bits, one byte per entry.
F_NO_ID = 1
"""The entry has no ``id`` (version 1 files); :attr:`NodeStore.ids` holds a made-up one."""
F_ERROR_SET = 2
F_ERROR = 4
F_WHOLE = 32
"""The entry is kept whole in :attr:`NodeStore.whole`."""
F_NO_PARENT_REF = 64
"""The entry's ``parentId`` is absent (``None``)."""

_NO_CONTENT = -1
_TEXT_CONTENT = -2
_usage_encoder = msgspec.msgpack.Encoder()
_LAST_PLAIN_ROLE = ROLE_NAMES.index("toolResult")
"""Role codes 1-3 (user, assistant, toolResult) are plain; others are kept whole."""
_ENTRY_DEFAULTS = list(astuple(SkEntry()))[5:]
"""SkEntry's fields after ``message``, all at their defaults: only other entry types set them."""
_NO_ODD = [None] * 5
"""SkMessage's customType, display, excludeFromContext, exitCode and responseModel, absent."""
_NO_MESSAGE = (None,) * 14
"""SkMessage's fields for an entry without a message: its codes are 0 and it is kept whole."""
_fill = load_fill()
if _fill is not None:
    try:
        _fill.setup(SkEntry, SkMessage, SkBlock, Usage, Cost, array, _TYPE_CODE, _ROLE_CODE,
                    _STOP_CODE, tuple(_ENTRY_DEFAULTS), (OverflowError, TypeError, ValueError),
                    _MESSAGE, _LAST_PLAIN_ROLE)  # fmt: skip
    except (TypeError, ValueError):  # Structs not laid out as it reads them: the Python loop
        _fill = None
_ts_string = _fill.ts_string if _fill is not None else ts_string


class NodeStore(Sequence[SkEntry]):
    """Skeletons of every entry, in file order, as columns (see the module docstring)."""

    __slots__ = (
        "types",
        "roles",
        "stops",
        "flags",
        "ids",
        "parent_at",
        "forward_refs",
        "ts",
        "ts_other",
        "models",
        "model_table",
        "_model_code",
        "content_at",
        "patterns",
        "_pattern_code",
        "texts",
        "whole",
        "missing_ids",
        "usage_at",
        "usage_blob",
        "usage_end",
        "result_at",
        "result_ids",
        "result_names",
        "_recent",
        "_base",
        "_open_calls",
        "_canon",
    )

    def __init__(self) -> None:
        self.types = bytearray()
        self.roles = bytearray()
        self.stops = bytearray()
        self.flags = bytearray()
        self.ids: list[str] = []
        """The raw id of each entry (``""`` when it has none: see :data:`F_NO_ID`)."""
        self.parent_at = array("q")
        """Index of the nearest preceding entry whose id the ``parentId`` names; -1 when it
        names none (see :attr:`forward_refs`) or is null."""
        self.forward_refs: dict[int, str] = {}
        """``parentId`` values that name no preceding entry (forward references, orphans)."""
        self.ts = bytearray()
        """Per entry: its timestamp's milliseconds, 8 bytes (:mod:`piview.model.store_ts`), or
        the gap: then the timestamp as written (any other form, or None) is in :attr:`ts_other`."""
        self.ts_other: dict[int, str | None] = {}
        self.models = array("I")
        self.model_table: list[tuple[str | None, str | None]] = [(None, None)]
        self._model_code: dict[tuple[str | None, str | None], int] = {(None, None): 0}
        self.content_at = array("i")
        """Per entry: an index into :attr:`patterns`, or -1 (no content) or -2 (text)."""
        self.patterns: list[tuple[SkBlock, ...]] = []
        """Distinct block lists; those without tool calls are shared by many entries."""
        self._pattern_code: dict[tuple[Any, ...], int] | None = {}
        self.texts: dict[int, str] = {}
        """String content of messages (user text is kept: it decides what folds)."""
        self.usage_at = array("i")
        """Per entry: the row of its usage, or -1; row ``r`` is ``usage_blob[usage_end[r - 1] :
        usage_end[r]]``, a msgpack array of the values (:mod:`piview.model.usage_row`)."""
        self.usage_blob = bytearray()
        self.usage_end = array("q")
        self.result_at = array("i")
        """Per entry: a row of :attr:`result_ids` / :attr:`result_names`, or -1."""
        self.result_ids: list[str | None] = []
        self.result_names: list[str | None] = []
        self.whole: dict[int, SkEntry] = {}
        self.missing_ids: list[int] = []
        """Entries without an ``id``, in file order."""
        self._recent: dict[str, int] | None = {}
        self._base: Mapping[str, int] | None = None
        self._open_calls: dict[str, str] = {}
        self._canon: dict[tuple[Any, ...], SkBlock] = {}

    # ----------------------------------------------------------------- building

    def rebase(self, id_index: Mapping[str, int]) -> None:
        """Resolve later ``parentId`` values through ``id_index`` (the tree's, which covers
        every entry so far) instead of a second map of all ids."""
        self._base = id_index
        self._recent = {}

    def append(self, sk: SkEntry) -> None:
        """Add the skeleton of the next entry in file order."""
        self.extend((sk,))

    def extend(self, sks: Iterable[SkEntry]) -> None:
        """Add the skeletons of the next entries in file order: in the compiled loop
        (:mod:`piview.model.fill`) when it is there, else (or for what it leaves) in Python."""
        if _fill is None or type(self) is not NodeStore:
            self._extend_py(sks)
            return
        seq = sks if type(sks) is list or type(sks) is tuple else list(sks)
        self._recent_ids()
        encode_into = _usage_encoder.encode_into
        k, n = 0, len(seq)
        while k < n:
            done = _fill.fill(self, seq, k, encode_into)
            if done < 0:  # columns of other types (nothing was added): the Python loop
                self._extend_py(seq[k:])
                return
            if done < n:
                self._extend_py(seq[done : done + 1])
            k = done + 1

    def _recent_ids(self) -> dict[str, int]:
        recent = self._recent
        if recent is None:
            recent = self._recent = {}
            if self._base is None:
                recent.update((own, k) for k, own in enumerate(self.ids) if own)
        return recent

    def _extend_py(self, sks: Iterable[SkEntry]) -> None:
        """:meth:`extend` in Python (the reference the compiled loop follows); run once per
        line, so lookups are hoisted into locals and fields read with one ``astuple``."""
        recent = self._recent_ids()
        base = self._base
        ids = self.ids
        flags_col = self.flags
        parent_at = self.parent_at
        forward_refs = self.forward_refs
        ts = self.ts
        types = self.types
        roles = self.roles
        stops = self.stops
        models = self.models
        content_at = self.content_at
        usage_at = self.usage_at
        result_at = self.result_at
        whole = self.whole
        model_code = self._model_code
        open_calls = self._open_calls
        usage_blob = self.usage_blob
        usage_end = self.usage_end
        encode = _usage_encoder.encode
        last_provider: str | None = None
        last_model: str | None = None
        code = 0
        i = len(types)
        for sk in sks:
            etype, own, ref, t, m, *rest = astuple(sk)
            flags = 0
            if own is None:
                flags = F_NO_ID
                own = ""
                self.missing_ids.append(i)
            if ref is None:
                flags |= F_NO_PARENT_REF
                parent_at.append(-1)
            else:
                p = recent.get(ref)
                if p is None:
                    p = base.get(ref) if base is not None else None
                    if p is None:
                        p = -1
                        forward_refs[i] = ref
                parent_at.append(p)
            if own:
                recent[own] = i
            ids.append(own)
            ms = pack_ts(t)
            if ms is not None:
                ts += ms.to_bytes(TS_LEN, "little", signed=True)
            else:
                ts += TS_GAP
                self.ts_other[i] = t
            tcode = _TYPE_CODE.get(etype, _OTHER)
            types.append(tcode)
            (role, content, usage, stop, call_id, tool_name, is_error, provider, model,
             *odd) = astuple(m) if m is not None else _NO_MESSAGE  # fmt: skip
            rcode = _ROLE_CODE.get(role, _OTHER)
            roles.append(rcode)
            scode = _STOP_CODE.get(stop, _OTHER)
            stops.append(scode)
            if provider != last_provider or model != last_model:
                key = (provider, model)
                found = model_code.get(key)
                if found is None:
                    found = model_code[key] = len(self.model_table)
                    self.model_table.append(key)
                code = found
                last_provider, last_model = key
            models.append(code)
            if is_error is not None:
                flags |= F_ERROR_SET | (F_ERROR if is_error else 0)
            odd_usage = False
            if usage is not None:
                mark = len(usage_blob)
                try:
                    # Not encode_into the blob: msgspec grows it to 1.5 times what it needs.
                    usage_blob += encode(row_of(usage))
                except (OverflowError, TypeError, ValueError):
                    # An integer msgpack cannot hold (hand-edited file): keep the entry whole.
                    odd_usage = True
            if (
                m is None
                or tcode != _MESSAGE
                or rcode > _LAST_PLAIN_ROLE
                or scode == _OTHER
                or odd != _NO_ODD
                or rest != _ENTRY_DEFAULTS
                or odd_usage
            ):
                if usage is not None and not odd_usage:
                    del usage_blob[mark:]
                content_at.append(_NO_CONTENT)
                usage_at.append(-1)
                result_at.append(-1)
                flags_col.append(flags | F_WHOLE)
                whole[i] = sk
                i += 1
                continue
            if content is None:
                content_at.append(_NO_CONTENT)
            elif isinstance(content, str):
                content_at.append(_TEXT_CONTENT)
                self.texts[i] = content
            else:
                content_at.append(self._pattern(content, open_calls))
            if usage is None:
                usage_at.append(-1)
            else:
                usage_at.append(len(usage_end))
                usage_end.append(len(usage_blob))
            if call_id is not None or tool_name is not None:
                result_at.append(len(self.result_ids))
                # The call's id string serves the result too (most calls are answered).
                self.result_ids.append(
                    open_calls.pop(call_id, call_id) if call_id is not None else None
                )
                self.result_names.append(sys.intern(tool_name) if tool_name else tool_name)
            else:
                result_at.append(-1)
            flags_col.append(flags)
            i += 1

    def prepare(self) -> None:
        """Build now the lookups the next :meth:`extend` would build first (a poll's worker
        calls this, so that the UI thread's append is linear in what it appends)."""
        if self._pattern_code is None:
            self._pattern_code = {
                tuple(map(astuple, p)): k
                for k, p in enumerate(self.patterns)
                if all(b.id is None for b in p)
            }

    def _pattern(self, blocks: list[SkBlock], open_calls: dict[str, str]) -> int:
        for b in blocks:
            if b.id is not None:
                break
        else:
            return self._shared_pattern(blocks)
        # Tool-call ids make a list unique (never looked up); the other blocks in it can
        # still be shared.
        canon = self._canon
        out = []
        for b in blocks:
            own = b.id
            if b.name is not None:
                b.name = sys.intern(b.name)
            if own is not None:
                open_calls[own] = own
                out.append(b)
            else:
                out.append(canon.setdefault(astuple(b), b))
        self.patterns.append(tuple(out))
        return len(self.patterns) - 1

    def _shared_pattern(self, blocks: list[SkBlock]) -> int:
        key = tuple(map(astuple, blocks))
        shared = self._pattern_code
        if shared is None:
            self.prepare()
            shared = self._pattern_code
            assert shared is not None
        code = shared.get(key)
        if code is not None:
            return code
        for b in blocks:
            if b.name is not None:
                b.name = sys.intern(b.name)
        code = shared[key] = len(self.patterns)
        self.patterns.append(tuple(blocks))
        return code

    def truncate(self, n: int) -> None:
        """Drop every entry from index ``n`` on (an unterminated last line read again)."""
        for col in (self.types, self.roles, self.stops, self.flags, self.ids):
            del col[n:]
        for arr in (
            self.parent_at,
            self.models,
            self.content_at,
            self.usage_at,
            self.result_at,
        ):
            del arr[n:]
        del self.ts[n * TS_LEN :]
        self.missing_ids = [k for k in self.missing_ids if k < n]
        for table in (self.forward_refs, self.ts_other, self.texts, self.whole):
            for k in [k for k in table if k >= n]:
                del table[k]
        # Rows past the last kept entry's rows are left in place: they are never read.
        self._recent = None  # rebuilt (from every id) on the next append
        self._base = None

    def snapshot(self) -> NodeStore:
        """A copy of the columns and tables as they are now (skeletons and strings shared), for
        the index cache to encode in a worker while the file is followed."""
        out = NodeStore.__new__(NodeStore)
        for name in NodeStore.__slots__:
            value = getattr(self, name)
            if name.startswith("_"):
                pass  # the lookups kept for appending: the copy never appends
            elif isinstance(value, bytearray | array):
                value = value[:]
            elif isinstance(value, list | dict):
                value = value.copy()
            setattr(out, name, value)
        return out

    def reset_lookups(self) -> None:
        """Rebuild the lookups kept beside the columns once these were set from a cache: the
        model codes now; the shared block lists and the id map on the next append."""
        self._model_code = {p: k for k, p in enumerate(self.model_table)}
        self._pattern_code = None
        self._recent = None

    # ----------------------------------------------------------------- reading

    def __len__(self) -> int:
        return len(self.types)

    @overload
    def __getitem__(self, i: int) -> SkEntry: ...
    @overload
    def __getitem__(self, i: slice) -> list[SkEntry]: ...
    def __getitem__(self, i: int | slice) -> SkEntry | list[SkEntry]:
        """The skeleton of entry ``i`` (built on demand: treat it as read-only)."""
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        n = len(self.types)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(i)
        whole = self.whole.get(i)
        if whole is not None:
            return whole
        flags = self.flags[i]
        at = self.content_at[i]
        content: str | list[SkBlock] | None
        if at == _NO_CONTENT:
            content = None
        elif at == _TEXT_CONTENT:
            content = self.texts[i]
        else:
            content = list(self.patterns[at])
        provider, model = self.model_table[self.models[i]]
        r = self.result_at[i]
        msg = SkMessage(
            role=ROLE_NAMES[self.roles[i]],  # type: ignore[arg-type]
            content=content,
            usage=self.message_usage(i),
            stop_reason=STOP_NAMES[self.stops[i]],  # type: ignore[arg-type]
            tool_call_id=self.result_ids[r] if r >= 0 else None,
            tool_name=self.result_names[r] if r >= 0 else None,
            is_error=bool(flags & F_ERROR) if flags & F_ERROR_SET else None,
            provider=provider,
            model=model,
        )
        return SkEntry(
            type="message",
            id=self.raw_id(i),
            parent_id=self.parent_ref(i),
            timestamp=self.timestamp(i),
            message=msg,
        )

    def __iter__(self) -> Iterator[SkEntry]:
        for i in range(len(self.types)):
            yield self[i]

    def raw_id(self, i: int) -> str | None:
        """The ``id`` as written (``None`` when absent)."""
        return None if self.flags[i] & F_NO_ID else self.ids[i]

    def parent_ref(self, i: int) -> str | None:
        """The ``parentId`` as written."""
        if self.flags[i] & F_NO_PARENT_REF:
            return None
        p = self.parent_at[i]
        return self.ids[p] if p >= 0 else self.forward_refs[i]

    def timestamp(self, i: int) -> str | None:
        """The entry's ``timestamp`` as written."""
        t = _ts_string(self.ts, i)
        return self.ts_other.get(i) if t is None else t

    def etype(self, i: int) -> str | None:
        """The entry's ``type``."""
        code = self.types[i]
        return self.whole[i].type if code == _OTHER else TYPE_NAMES[code]

    def role(self, i: int) -> str | None:
        """The message role (``None`` for entries that are not messages)."""
        code = self.roles[i]
        if code == _OTHER:
            m = self.whole[i].message
            return m.role if m is not None else None
        return ROLE_NAMES[code]

    def stop_reason(self, i: int) -> str | None:
        """The assistant's ``stopReason``."""
        code = self.stops[i]
        if code == _OTHER:
            m = self.whole[i].message
            return m.stop_reason if m is not None else None
        return STOP_NAMES[code]

    def is_error(self, i: int) -> bool:
        """The tool result's ``isError`` (false when absent)."""
        return bool(self.flags[i] & F_ERROR)

    def model(self, i: int) -> tuple[str | None, str | None]:
        """``(provider, model)`` of a message."""
        return self.model_table[self.models[i]]

    def message_usage(self, i: int) -> Usage | None:
        """The usage a message carries (decoded from its row: a new object each call)."""
        r = self.usage_at[i]
        if r >= 0:
            return self.usage_of_row(r)
        whole = self.whole.get(i)
        if whole is not None and whole.message is not None:
            return whole.message.usage
        return None

    def usage_of_row(self, r: int) -> Usage:
        """The usage in row ``r``."""
        start = self.usage_end[r - 1] if r > 0 else 0
        with memoryview(self.usage_blob) as view:
            return usage_of(row_decoder.decode(view[start : self.usage_end[r]]))

    def blocks(self, i: int) -> Sequence[SkBlock]:
        """The content blocks of a message (empty for text or no content)."""
        at = self.content_at[i]
        if at >= 0:
            return self.patterns[at]
        whole = self.whole.get(i)
        if whole is not None and whole.message is not None:
            c = whole.message.content
            if isinstance(c, list):
                return c
        return ()

    def tool_call_id(self, i: int) -> str | None:
        """The tool result's ``toolCallId``."""
        r = self.result_at[i]
        if r >= 0:
            return self.result_ids[r]
        whole = self.whole.get(i)
        return whole.message.tool_call_id if whole is not None and whole.message else None

    def of_type(self, name: str, start: int = 0) -> Iterator[int]:
        """Entries of type ``name`` (one in the closed set), from ``start`` on, in file order,
        found at C speed."""
        return _positions(self.types, _TYPE_CODE[name], start)

    def of_role(self, name: str, start: int = 0) -> Iterator[int]:
        """Messages with role ``name`` (one in the closed set), from ``start`` on, in file
        order."""
        return _positions(self.roles, _ROLE_CODE[name], start)

    def whole_indices(self) -> list[int]:
        """Entries kept whole (not plain messages), in file order."""
        return sorted(self.whole)


def _positions(codes: bytearray, code: int, start: int = 0) -> Iterator[int]:
    # memchr from one hit to the next: most codes are rare (a session_info, a label), and the
    # header, title and status read these on every poll.
    needle = bytes((code,))
    find = codes.find
    i = find(needle, start)
    while i >= 0:
        yield i
        i = find(needle, i + 1)


def as_store(nodes: Sequence[SkEntry]) -> NodeStore:
    """``nodes`` as a store: itself when it is one, else a new store of them (for callers,
    such as tests, that hold a plain list of skeletons)."""
    if isinstance(nodes, NodeStore):
        return nodes
    store = NodeStore()
    store.extend(nodes)
    return store
