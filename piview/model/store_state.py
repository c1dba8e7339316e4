"""Provides :class:`StoreState`: a :class:`~piview.model.store.NodeStore` as the index cache
writes and reads it, columns as raw bytes converted back one field at a time.
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Callable
from functools import partial
from typing import Any

import msgspec
from msgspec.structs import astuple

from piview.model.decode import SkBlock, SkEntry, SkMessage
from piview.model.store import TS_LEN, NodeStore
from piview.model.store_lazy import Frame, shared_ids
from piview.model.types import Usage


class LooseBlock(msgspec.Struct):
    """:class:`~piview.model.decode.SkBlock`'s fields without its literal types (cache reads)."""

    type: str | None = None
    id: str | None = None
    name: str | None = None
    redacted: bool | None = None


class StoreState(msgspec.Struct, array_like=True):
    """The columns and tables of a :class:`NodeStore`, as the index cache writes them."""

    types: bytes
    roles: bytes
    stops: bytes
    flags: bytes
    ids: list[str]
    parent_at: bytes
    forward_refs: dict[int, str]
    ts: bytes
    ts_other: dict[int, str | None]
    models: bytes
    model_table: list[tuple[str | None, str | None]]
    content_at: bytes
    patterns: list[list[LooseBlock]]
    """Written from SkBlocks, read as LooseBlocks: a skeleton from the tolerant path can hold
    values outside SkBlock's literal types."""
    texts: dict[int, str]
    usage_at: bytes
    usage_blob: bytes
    usage_end: bytes
    result_at: bytes
    result_ids: list[str | None]
    result_names: list[str | None]
    whole: dict[int, dict[str, Any]]
    """Entries as plain dicts, for the same reason (see :func:`_plain`)."""
    missing_ids: list[int]


def _patterns(read: list[list[SkBlock]] | list[list[LooseBlock]]) -> list[tuple[SkBlock, ...]]:
    canon: dict[tuple[Any, ...], SkBlock] = {}
    out: list[tuple[SkBlock, ...]] = []
    for p in read:
        if p and isinstance(p[0], SkBlock):  # read as SkBlocks (the usual case): keep them
            shared = [b if b.id is not None else canon.setdefault(astuple(b), b) for b in p]
            out.append(tuple(shared))
        else:
            out.append(
                tuple(
                    [
                        SkBlock(*k) if k[1] is not None else canon.setdefault(k, SkBlock(*k))
                        for k in map(astuple, p)
                    ]
                )
            )
    return out


def _interned(names: list[str | None]) -> list[str | None]:
    """``names`` interned, as a load keeps them: a tool's name is one string however many
    results name it (a map of the few distinct names, applied at C speed)."""
    table: dict[str | None, str | None] = {n: sys.intern(n) for n in set(names) if n is not None}
    table[None] = None
    return list(map(table.__getitem__, names))


_COLUMN: dict[str, Callable[[Any], Any]] = {
    "types": bytearray,
    "roles": bytearray,
    "stops": bytearray,
    "flags": bytearray,
    "ts": bytearray,
    "usage_blob": bytearray,
    "parent_at": partial(array, "q"),
    "usage_end": partial(array, "q"),
    "models": partial(array, "I"),
    "content_at": partial(array, "i"),
    "usage_at": partial(array, "i"),
    "result_at": partial(array, "i"),
    "model_table": lambda table: [(p[0], p[1]) for p in table],
    "patterns": _patterns,
    "result_names": lambda names: _interned(names),
    "whole": lambda whole: {i: _from_plain(d) for i, d in whole.items()},
}


def column(name: str, value: Any) -> Any:
    """A field of :class:`StoreState` as read, converted to what the store keeps."""
    convert = _COLUMN.get(name)
    return convert(value) if convert is not None else value


_STATE = StoreState.__struct_fields__


def store_state(store: NodeStore) -> StoreState:
    """Everything in ``store``, for the index cache."""

    # Views, not copies: the cache encodes them frame by frame.
    def raw(values: bytearray | array[Any]) -> memoryview:
        return memoryview(values).cast("B")

    return StoreState(
        types=raw(store.types),  # type: ignore[arg-type]
        roles=raw(store.roles),  # type: ignore[arg-type]
        stops=raw(store.stops),  # type: ignore[arg-type]
        flags=raw(store.flags),  # type: ignore[arg-type]
        ids=store.ids,
        parent_at=raw(store.parent_at),  # type: ignore[arg-type]
        forward_refs=store.forward_refs,
        ts=raw(store.ts),  # type: ignore[arg-type]
        ts_other=store.ts_other,
        models=raw(store.models),  # type: ignore[arg-type]
        model_table=store.model_table,
        content_at=raw(store.content_at),  # type: ignore[arg-type]
        patterns=store.patterns,  # type: ignore[arg-type]
        texts=store.texts,
        usage_at=raw(store.usage_at),  # type: ignore[arg-type]
        usage_blob=raw(store.usage_blob),  # type: ignore[arg-type]
        usage_end=raw(store.usage_end),  # type: ignore[arg-type]
        result_at=raw(store.result_at),  # type: ignore[arg-type]
        result_ids=store.result_ids,
        result_names=store.result_names,
        whole={i: _plain(sk) for i, sk in store.whole.items()},
        missing_ids=store.missing_ids,
    )


def store_from_state(st: StoreState) -> NodeStore:
    """A store from :func:`store_state`; raises ``ValueError`` when the columns disagree."""
    return store_from_columns({name: column(name, getattr(st, name)) for name in _STATE})


def store_from_columns(columns: dict[str, Any]) -> NodeStore:
    """A store from every field of :class:`StoreState`, each passed through :func:`column`;
    raises ``ValueError`` when they disagree."""
    out = NodeStore()
    for name in _STATE:
        setattr(out, name, columns[name])
    out.reset_lookups()
    if not isinstance(out.patterns, Frame) and not isinstance(out.result_ids, Frame):
        # A result's toolCallId was read as a new string: share its call's, as a load does.
        out.result_ids = shared_ids(out.patterns, out.result_ids)
    n = len(out.types)
    sizes = (
        len(out.roles),
        len(out.stops),
        len(out.flags),
        len(out.ids),
        len(out.parent_at),
        len(out.ts) // TS_LEN,
        len(out.models),
        len(out.content_at),
        len(out.usage_at),
        len(out.result_at),
    )
    rows = len(out.usage_end)
    if (
        any(k != n for k in sizes)
        or (n and max(out.content_at) >= len(out.patterns))
        or (n and max(out.usage_at) >= rows)
        or (n and max(out.result_at) >= len(out.result_ids))
        or len(out.result_names) != len(out.result_ids)
        or (rows and out.usage_end[-1] != len(out.usage_blob))
    ):
        raise ValueError("inconsistent cached index")
    return out


def _plain(sk: SkEntry) -> dict[str, Any]:
    """A skeleton as plain values, restored by :func:`_from_plain` without validation (a
    skeleton from the tolerant path may hold types and roles outside the literal sets)."""
    d = msgspec.structs.asdict(sk)
    d["usage"] = msgspec.to_builtins(sk.usage)
    m = sk.message
    if m is not None:
        md = msgspec.structs.asdict(m)
        md["usage"] = msgspec.to_builtins(m.usage)
        if isinstance(m.content, list):
            md["content"] = [(b.type, b.id, b.name, b.redacted) for b in m.content]
        d["message"] = md
    return d


def _from_plain(d: dict[str, Any]) -> SkEntry:
    d = dict(d)
    if d.get("usage") is not None:
        d["usage"] = msgspec.convert(d["usage"], Usage)
    md = d.get("message")
    if md is not None:
        md = dict(md)
        if md.get("usage") is not None:
            md["usage"] = msgspec.convert(md["usage"], Usage)
        if isinstance(md.get("content"), list):
            md["content"] = [SkBlock(*b) for b in md["content"]]
        d["message"] = SkMessage(**md)
    return SkEntry(**d)
