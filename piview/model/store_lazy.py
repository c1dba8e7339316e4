"""Provides a node store restored from the index cache whose block lists, result ids and
names and texts are decoded on first use (``piview info`` with cached extras reads none).

Until then the store is a :class:`DeferredStore`; the first read decodes them all, under a
lock, and makes it a plain :class:`~piview.model.store.NodeStore` again.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from piview.model.decode import SkBlock
from piview.model.store import NodeStore

DEFERRED = ("patterns", "result_ids", "result_names", "texts")
"""The columns read on first use (the index cache passes them as :class:`Frame`): ``piview
info`` with the cache's extras reads none of them."""

_SLOTS: dict[str, Any] = {name: NodeStore.__dict__[name] for name in DEFERRED}
"""The store's own slots for them (member descriptors)."""
_LOCK = threading.Lock()


class Frame:
    """A column's frame, not decoded yet: its bytes, how many values it holds (for the checks
    made when the store is restored), and how to decode it into the column."""

    __slots__ = ("data", "count", "decode")

    def __init__(self, data: bytes, count: int, decode: Callable[[bytes], Any]) -> None:
        self.data = data
        self.count = count
        self.decode = decode

    def __len__(self) -> int:
        return self.count


_SIZES = {0xC4: 1, 0xC5: 2, 0xC6: 4, 0xDC: 2, 0xDD: 4, 0xDE: 2, 0xDF: 4}
"""Bytes of the length after the first byte of a msgpack bin, array or map."""


def frame_count(data: bytes) -> int:
    """How many values the msgpack array or map in ``data`` holds, or how many bytes its bin
    holds (from its header; ``ValueError`` for anything else)."""
    if not data:
        raise ValueError("empty frame")
    b = data[0]
    if 0x90 <= b <= 0x9F or 0x80 <= b <= 0x8F:  # fixarray, fixmap
        return b & 0x0F
    size = _SIZES.get(b)
    if size is None or len(data) < 1 + size:
        raise ValueError("not an array, a map or bytes")
    return int.from_bytes(data[1 : 1 + size], "big")


class _Column:
    """A deferred column of :class:`DeferredStore`: read through :func:`_read`, written to
    the store's own slot."""

    __slots__ = ("name", "slot")

    def __init__(self, name: str) -> None:
        self.name = name
        self.slot = _SLOTS[name]

    def __get__(self, store: NodeStore | None, owner: type | None = None) -> Any:
        return self if store is None else _read(store, self.name)

    def __set__(self, store: NodeStore, value: Any) -> None:
        self.slot.__set__(store, value)


class DeferredStore(NodeStore):
    """A :class:`NodeStore` whose :data:`DEFERRED` columns are still frames (no slot of its
    own, so that it can become a plain store in place)."""

    __slots__ = ()

    patterns = _Column("patterns")
    result_ids = _Column("result_ids")
    result_names = _Column("result_names")
    texts = _Column("texts")


def _read(store: NodeStore, name: str) -> Any:
    value = _SLOTS[name].__get__(store, NodeStore)
    if isinstance(value, Frame):
        _decode(store)
        value = _SLOTS[name].__get__(store, NodeStore)
    return value


def _decode(store: NodeStore) -> None:
    """Decode every deferred column of ``store`` and make it a plain store (once, whatever
    the threads reading it)."""
    with _LOCK:
        if type(store) is not DeferredStore:
            return  # another thread did it while this one waited
        decoded: dict[str, Any] = {}
        for name in DEFERRED:
            frame = _SLOTS[name].__get__(store, NodeStore)
            value = frame.decode(frame.data) if isinstance(frame, Frame) else frame
            if len(value) != len(frame):
                raise ValueError(f"inconsistent cached index: {name}")
            if isinstance(frame, Frame):
                frame.data = b""  # its bytes go now, not after the last column
            if name == "result_ids":
                # A result's toolCallId was read as a new string: share its call's, as a load
                # does (here, so that the new strings go before the next column is decoded).
                value = shared_ids(decoded["patterns"], value)
            decoded[name] = value
        for name, value in decoded.items():
            _SLOTS[name].__set__(store, value)
        plain: Any = store
        plain.__class__ = NodeStore  # the same object, read without the properties from now


def shared_ids(
    patterns: list[tuple[SkBlock, ...]], result_ids: list[str | None]
) -> list[str | None]:
    """``result_ids`` with each id that some block of ``patterns`` has replaced by that
    block's string (one string per id, as a load keeps them)."""
    calls = [b.id for p in patterns for b in p if b.id is not None]
    out: list[str | None] = []
    add = out.append
    j, end = 0, len(calls)
    lookup: dict[str, str] | None = None
    for x in result_ids:
        if x is None:
            add(None)
        elif j < end and calls[j] == x:
            add(calls[j])
            j += 1
        elif j + 1 < end and calls[j + 1] == x:  # a call left unanswered
            add(calls[j + 1])
            j += 2
        else:
            if lookup is None:
                lookup = {c: c for c in calls}
            add(lookup.get(x, x))
    return out


def defer(store: NodeStore) -> NodeStore:
    """``store`` (restored with :class:`Frame` values for the deferred columns) made to decode
    them on first read; a store without frames is left as it is."""
    if any(isinstance(_SLOTS[name].__get__(store, NodeStore), Frame) for name in DEFERRED):
        store.__class__ = DeferredStore
    return store
