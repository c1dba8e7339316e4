"""Provides number, size and time formatting used everywhere in piview."""

from __future__ import annotations

from datetime import UTC, datetime

from piview.model.numbers import number


def fmt_tokens(n: float) -> str:
    """Compact token count: 950, 12.3k, 4.56M (0 for what is not a sane number)."""
    n = float(number(n))
    if abs(n) < 1000:
        return f"{n:.0f}"
    if abs(n) < 1_000_000:
        return f"{n / 1000:.1f}k"
    # At most 6 characters: they fill fixed columns (the usage sidebar).
    for unit, scale in (("M", 1e6), ("B", 1e9), ("T", 1e12)):
        v = n / scale
        if abs(v) < 1000 or unit == "T":
            return f"{v:.2f}{unit}" if abs(v) < 100 else f"{v:.1f}{unit}"
    return f"{n:.0f}"  # not reached


_PLURALS = {"leaf": "leaves", "entry": "entries", "match": "matches", "branch": "branches"}


def plural(n: int, word: str, many: str | None = None) -> str:
    """``1 leaf``, ``3 leaves``, ``1,200 calls``: a count with its noun (``many`` when the
    plural is not the usual one)."""
    return f"{n:,} {word if n == 1 else many or _PLURALS.get(word, word + 's')}"


def fmt_cost(c: float) -> str:
    """Dollars with sensible precision."""
    if c == 0:
        return "$0"
    if abs(c) < 0.01:
        return f"${c:.4f}"
    return f"${c:,.2f}"


def fmt_cost_short(c: float) -> str:
    """Dollars in at most 7 characters, for fixed columns: $0.0123, $12.34, $5.72k, $1.20M."""
    if abs(c) < 1000:
        return fmt_cost(c)
    if abs(c) < 1_000_000:
        return f"${c / 1000:.2f}k" if abs(c) < 100_000 else f"${c / 1000:.0f}k"
    return f"${c / 1_000_000:.2f}M"


def fmt_bytes(n: float) -> str:
    """Human byte size."""
    n = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if abs(n) < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GB"


def fmt_duration_ms(ms: float | None) -> str:
    """Latency: 850ms, 3.2s, 4m05s."""
    if ms is None:
        return "–"
    if ms < 1000:
        return f"{ms:.0f}ms"
    s = ms / 1000
    if s < 60:
        return f"{s:.1f}s"
    m, s = divmod(int(s), 60)
    if m < 60:
        return f"{m}m{s:02d}s"
    h, m = divmod(m, 60)
    return f"{h}h{m:02d}m"


def fmt_iso_short(value: object) -> str:
    """``2026-05-12 13:40`` (UTC) from an ISO timestamp; the input itself when unparsable."""
    if not isinstance(value, str):
        return ""
    try:
        dt = datetime.fromisoformat(value)
    except ValueError:
        return value[:19]
    if dt.tzinfo is not None:
        dt = dt.astimezone(UTC)
    return dt.strftime("%Y-%m-%d %H:%M")


def fmt_time_of_day(value: object) -> str:
    """``13:40:05`` (local time) from an ISO timestamp; ``""`` when absent or unparsable."""
    if not isinstance(value, str) or not value:
        return ""
    try:
        dt = datetime.fromisoformat(value)
    except ValueError:
        return ""
    if dt.tzinfo is not None:
        try:
            dt = dt.astimezone()
        except (OverflowError, OSError, ValueError):
            pass
    return dt.strftime("%H:%M:%S")


def fmt_count(n: int, word: str, plural: str | None = None) -> str:
    """``1 line``, ``12 lines`` (``plural`` defaults to ``word + "s"``)."""
    return f"{n:,} {word if n == 1 else (plural or word + 's')}"


def header_line(
    title: str, cwd: str | None, models: list[str], started: str | None, width: int
) -> list[tuple[str, str]]:
    """The session header's pieces, ``(text, kind)`` with kind ``title``, ``cwd``, ``models``
    or ``date``, fitted to ``width`` cells: the name is shortened first, then the folder
    (keeping its end), then the date and the extra models go; a separator or a comma is never
    left hanging."""
    sep = 5  # "  ·  "
    title_min = 20

    def fit(text: str, room: int) -> str:
        return text if len(text) <= room else (text[: max(1, room - 1)] + "…" if room > 1 else "")

    # From everything to the title alone: the first layout that leaves the name its room.
    for with_date, n_models, with_cwd in (
        (True, len(models), True),
        (False, len(models), True),
        (False, 1, True),
        (False, 1, False),
        (False, 0, False),
    ):
        shown = models[:n_models]
        rest: list[tuple[str, str]] = []
        if with_cwd and cwd:
            rest.append((cwd, "cwd"))
        if shown:
            extra = len(models) - len(shown)
            rest.append((", ".join(shown) + (f" +{extra}" if extra else ""), "models"))
        if with_date and started:
            rest.append((started, "date"))
        room = width - sum(len(t) + sep for t, _k in rest)
        if with_cwd and cwd and room < title_min:
            # The folder gives way before anything else is dropped: keep its end.
            cut = max(8, len(cwd) - (title_min - room))
            if cut < len(cwd):
                rest[0] = ("…" + cwd[-(cut - 1) :], "cwd")
            room = width - sum(len(t) + sep for t, _k in rest)
        if room >= title_min or not rest:
            return [(fit(title, max(1, room)), "title"), *rest]
    return [(fit(title, width), "title")]
