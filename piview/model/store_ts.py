"""Provides the form of an entry's timestamp in :attr:`NodeStore.ts
<piview.model.store.NodeStore.ts>`: the milliseconds of Pi's ``toISOString()`` as 8 bytes.
A timestamp that does not format back to the same string is :data:`TS_GAP`, its string kept.
"""

from __future__ import annotations

from typing import Protocol

TS_LEN = 8
"""Bytes of one timestamp in the column."""
GAP_MS = -(2**63)
"""The value of an entry whose timestamp is kept aside (never a real one, in years 1-9999)."""
TS_GAP = GAP_MS.to_bytes(TS_LEN, "little", signed=True)

_DAY_MS = 86_400_000
_DAYS_IN_MONTH = (0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _days_from_civil(y: int, m: int, d: int) -> int:
    # Howard Hinnant's days_from_civil (proleptic Gregorian), floor divisions throughout.
    y -= m <= 2
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (m - 3 if m > 2 else m + 9) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def pack_ts(t: object) -> int | None:
    """The milliseconds of ``t`` when it is in Pi's exact form, else None."""
    if (
        not isinstance(t, str)
        or len(t) != 24
        or not t.isascii()
        or t[4] != "-"
        or t[7] != "-"
        or t[10] != "T"
        or t[13] != ":"
        or t[16] != ":"
        or t[19] != "."
        or t[23] != "Z"
    ):
        return None
    digits = t[0:4] + t[5:7] + t[8:10] + t[11:13] + t[14:16] + t[17:19] + t[20:23]
    if not digits.isdigit():  # ASCII here: only 0-9 (int() would take "+1" or " 1")
        return None
    y, mo, d = int(t[0:4]), int(t[5:7]), int(t[8:10])
    h, mi, s, ms = int(t[11:13]), int(t[14:16]), int(t[17:19]), int(t[20:23])
    if y < 1 or not 1 <= mo <= 12 or h > 23 or mi > 59 or s > 59 or d < 1:
        return None
    leap = y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)
    if d > _DAYS_IN_MONTH[mo] + (mo == 2 and leap):
        return None
    return _days_from_civil(y, mo, d) * _DAY_MS + ((h * 60 + mi) * 60 + s) * 1000 + ms


def unpack_ts(v: int) -> str:
    """The timestamp string :func:`pack_ts` made ``v`` of."""
    z, rest = divmod(v, _DAY_MS)
    # Hinnant's civil_from_days.
    z += 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + 3 if mp < 10 else mp - 9
    y = yoe + era * 400 + (m <= 2)
    sec, ms = divmod(rest, 1000)
    mi, s = divmod(sec, 60)
    h, mi = divmod(mi, 60)
    return f"{y:04d}-{m:02d}-{d:02d}T{h:02d}:{mi:02d}:{s:02d}.{ms:03d}Z"


def ts_string(column: bytes | bytearray, i: int) -> str | None:
    """The ``i``-th timestamp of a column as written, or None for the gap (``_fill.c`` has
    it in C: the store's :meth:`~piview.model.store.NodeStore.timestamp` uses that one)."""
    k = i * TS_LEN
    v = int.from_bytes(column[k : k + TS_LEN], "little", signed=True)
    return None if v == GAP_MS else unpack_ts(v)


class _Store(Protocol):
    """What :class:`StoreTimestamps` reads of a :class:`~piview.model.store.NodeStore`
    (which imports this module)."""

    ts: bytearray
    ts_other: dict[int, str | None]

    def timestamp(self, i: int) -> str | None: ...

    def __len__(self) -> int: ...


class StoreTimestamps:
    """The entries' timestamps for the tree (:class:`~piview.model.tree.Timestamps`), read
    from the store when sorting; :meth:`ms` gives milliseconds without making the strings."""

    __slots__ = ("_store",)

    def __init__(self, store: _Store) -> None:
        self._store = store

    def __getitem__(self, i: int) -> str | None:
        return self._store.timestamp(i)

    def __len__(self) -> int:
        return len(self._store)

    def ms(self, i: int) -> float | None:
        """``parse_iso_ms(self[i])``: for a packed one, what ``datetime.timestamp() * 1000.0``
        gives (microseconds / 10**6, correctly rounded, is the same quotient)."""
        store = self._store
        k = i * TS_LEN
        v = int.from_bytes(store.ts[k : k + TS_LEN], "little", signed=True)
        if v == GAP_MS:
            from piview.model.tree import parse_iso_ms  # noqa: PLC0415 - the store needs no tree

            return parse_iso_ms(store.ts_other.get(i))
        return v / 1000 * 1000.0
