"""Provides the form a message's usage takes in :attr:`NodeStore.usage_blob
<piview.model.store.NodeStore.usage_blob>`: a msgpack array of
:class:`~piview.model.types.Usage`'s values, trailing ``None`` values left out.
"""

from __future__ import annotations

from typing import Any

import msgspec

from piview.model.numbers import Number
from piview.model.types_base import Cost, Usage

_FIRST_OPTIONAL = 4
"""Values before this index are numbers (default 0), never ``None``: never trimmed."""


class CostRow(msgspec.Struct, array_like=True, gc=False):
    """A :class:`~piview.model.types.Cost` as a row's array (decoding only)."""

    input: Number = 0
    output: Number = 0
    cache_read: Number = 0
    cache_write: Number = 0
    total: Number | None = None


class UsageRow(msgspec.Struct, array_like=True, gc=False):
    """A :class:`~piview.model.types.Usage` as a row's array (decoding only), in the order
    :func:`row_of` writes."""

    input: Number = 0
    output: Number = 0
    cache_read: Number = 0
    cache_write: Number = 0
    total_tokens: Number | None = None
    cost: CostRow | None = None
    cache_write1h: Number | None = None
    reasoning: Number | None = None


def row_of(usage: Usage) -> tuple[Any, ...]:
    """The values of ``usage`` as its row holds them (the reference ``_fill.c`` follows)."""
    c = usage.cost
    cost: tuple[Any, ...] | None = None
    if c is not None:
        cost = (c.input, c.output, c.cache_read, c.cache_write, c.total)
        if c.total is None:
            cost = cost[:4]
    row = (
        usage.input,
        usage.output,
        usage.cache_read,
        usage.cache_write,
        usage.total_tokens,
        cost,
        usage.cache_write1h,
        usage.reasoning,
    )
    n = len(row)
    while n > _FIRST_OPTIONAL and row[n - 1] is None:
        n -= 1
    return row[:n]


_encode = msgspec.msgpack.Encoder().encode


def encode_row(usage: Usage) -> bytes:
    """The bytes of ``usage``'s row (raises OverflowError for an int msgpack cannot hold)."""
    return _encode(row_of(usage))


row_decoder = msgspec.msgpack.Decoder(UsageRow)
"""Decodes one row."""


def usage_of(row: UsageRow) -> Usage:
    """The :class:`~piview.model.types.Usage` a decoded row stands for."""
    c = row.cost
    return Usage(
        input=row.input,
        output=row.output,
        cache_read=row.cache_read,
        cache_write=row.cache_write,
        cache_write1h=row.cache_write1h,
        reasoning=row.reasoning,
        total_tokens=row.total_tokens,
        cost=None
        if c is None
        else Cost(
            input=c.input,
            output=c.output,
            cache_read=c.cache_read,
            cache_write=c.cache_write,
            total=c.total,
        ),
    )
