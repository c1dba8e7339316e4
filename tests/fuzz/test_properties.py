"""Property tests: random sessions, then random damage, through the whole pipeline.

Sessions are drawn entry by entry: random types (known and unknown), roles, content blocks,
tool calls and results, usage numbers, and ids and parent links from a small pool (so that
duplicates, orphans and cycles are common). Every string may carry escape sequences, control
characters or markup. The lines are then damaged (cut, spliced, raw bytes inserted). The
pipeline must not raise, and nothing it renders may contain ESC, another C0 control but
``\\n``, DEL, or a C1 control (:func:`tests.fuzz.pipeline.assert_clean_segments`).
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from piview.render.sanitize import sanitize, sanitize_line
from tests.fuzz.nasty import ESC_TEXTS, NASTY_IDS, SMALL_PNG, b64, lying_png
from tests.fuzz.pipeline import FORBIDDEN, Report, exercise, hang_guard

pytestmark = pytest.mark.fuzz


SCALE = int(os.environ.get("PIVIEW_FUZZ_SCALE", "1"))
"""Multiplies every example count: ``PIVIEW_FUZZ_SCALE=20 pytest tests/fuzz`` hunts longer."""


def fuzz_settings(examples: int) -> settings:
    """No deadline (rendering a big example takes a while), ``examples`` examples (times
    :data:`SCALE`); a hang is caught by :func:`~tests.fuzz.pipeline.hang_guard` instead."""
    return settings(
        deadline=None,
        max_examples=examples * SCALE,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


# ----------------------------------------------------------------------------- values

nasty_chars = st.characters(
    min_codepoint=0, max_codepoint=0x2FF, blacklist_categories=("Cs",)
) | st.sampled_from("\x1b\x9b\x9d\x07\r\t\u202e\u200b\ufeff[]/`$<>")
text = (
    st.sampled_from(ESC_TEXTS)
    | st.text(nasty_chars, max_size=40)
    | st.lists(st.sampled_from(ESC_TEXTS) | st.text(nasty_chars, max_size=10), max_size=4).map(
        "\n".join
    )
)
numbers = (
    st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from([0, 1, -1, 1e308, -1e308, 10**30, 2**63])
)
json_values = st.recursive(
    st.none() | st.booleans() | numbers | text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text, inner, max_size=3),
    max_leaves=8,
)
ids = st.sampled_from(["a", "b", "c", "d", "e", "root", *NASTY_IDS[:12]]) | st.text(max_size=2)
tool_names = st.sampled_from(["bash", "read", "edit", "write", "grep", "find", "ls", "mcp"]) | text
images = (
    st.sampled_from(
        [SMALL_PNG, "!!!", "", "QUJD", b64(lying_png(100_000, 100_000)), b64(lying_png(0, 0))]
    )
    | text
)


def maybe(value: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """The value, or a value of any type (a wrong type), or nothing."""
    return st.one_of(value, value, json_values, st.just(None))


@st.composite
def blocks(draw: st.DrawFn) -> dict[str, Any]:
    """One content block of any kind, fields possibly of the wrong type."""
    kind = draw(st.sampled_from(["text", "thinking", "toolCall", "image", "other"]))
    if kind == "text":
        return {"type": "text", "text": draw(maybe(text))}
    if kind == "thinking":
        return {
            "type": "thinking",
            "thinking": draw(maybe(text)),
            "redacted": draw(maybe(st.booleans())),
        }
    if kind == "toolCall":
        args = draw(
            st.fixed_dictionaries(
                {},
                optional={
                    "command": text,
                    "path": text,
                    "file_path": text,
                    "offset": numbers,
                    "limit": numbers,
                    "timeout": numbers,
                    "oldText": text,
                    "newText": text,
                    "content": text,
                    "pattern": text,
                    "edits": st.lists(
                        st.fixed_dictionaries({"oldText": maybe(text), "newText": maybe(text)}),
                        max_size=3,
                    ),
                },
            )
            | json_values
        )
        return {
            "type": "toolCall",
            "id": draw(maybe(ids)),
            "name": draw(maybe(tool_names)),
            "arguments": args,
            "namespace": draw(st.none() | text),
        }
    if kind == "image":
        return {"type": "image", "data": draw(maybe(images)), "mimeType": draw(maybe(text))}
    return {"type": draw(text), "value": draw(json_values)}


content = maybe(text | st.lists(blocks(), max_size=4))
usage = st.fixed_dictionaries(
    {},
    optional={
        "input": maybe(numbers),
        "output": maybe(numbers),
        "cacheRead": maybe(numbers),
        "cacheWrite": maybe(numbers),
        "totalTokens": maybe(numbers),
        "cost": maybe(st.dictionaries(st.sampled_from(["input", "output", "total"]), numbers)),
    },
)


@st.composite
def messages(draw: st.DrawFn) -> dict[str, Any]:
    """A message of any role (known or not), with the fields of several roles mixed in."""
    role = draw(
        st.sampled_from(
            [
                "user",
                "assistant",
                "toolResult",
                "bashExecution",
                "custom",
                "system",
                "branchSummary",
                "compactionSummary",
                "hookMessage",
            ]
        )
        | text
    )
    msg: dict[str, Any] = {"role": role, "content": draw(content)}
    msg.update(
        draw(
            st.fixed_dictionaries(
                {},
                optional={
                    "usage": maybe(usage),
                    "stopReason": maybe(st.sampled_from(["stop", "toolUse", "error", "aborted"])),
                    "errorMessage": maybe(text),
                    "toolCallId": maybe(ids),
                    "toolName": maybe(tool_names),
                    "isError": maybe(st.booleans()),
                    "details": json_values,
                    "command": maybe(text),
                    "output": maybe(text),
                    "exitCode": maybe(numbers),
                    "excludeFromContext": maybe(st.booleans()),
                    "customType": maybe(text),
                    "display": maybe(st.booleans()),
                    "summary": maybe(text),
                    "sections": maybe(st.dictionaries(text, st.none() | text, max_size=2)),
                    "timestamp": maybe(numbers),
                    "provider": maybe(text),
                    "model": maybe(text),
                },
            )
        )
    )
    return msg


@st.composite
def entries(draw: st.DrawFn) -> dict[str, Any]:
    """One entry of any type, known or not, linked to a random id."""
    etype = draw(
        st.sampled_from(
            [
                "message",
                "message",
                "message",
                "model_change",
                "thinking_level_change",
                "compaction",
                "branch_summary",
                "custom",
                "custom_message",
                "label",
                "session_info",
                "session",
            ]
        )
        | text
    )
    e: dict[str, Any] = {
        "type": etype,
        "id": draw(maybe(ids)),
        "parentId": draw(st.none() | ids),
        "timestamp": draw(
            maybe(st.sampled_from(["2026-05-14T10:00:00.000Z", "2026-05-14T10:00:00Z", "x"]))
        ),
    }
    if etype == "message":
        e["message"] = draw(maybe(messages()))
    else:
        e.update(
            draw(
                st.fixed_dictionaries(
                    {},
                    optional={
                        "summary": maybe(text),
                        "firstKeptEntryId": maybe(ids),
                        "tokensBefore": maybe(numbers),
                        "fromId": maybe(ids),
                        "targetId": maybe(ids),
                        "label": maybe(text),
                        "name": maybe(text),
                        "provider": maybe(text),
                        "modelId": maybe(text),
                        "thinkingLevel": maybe(text),
                        "customType": maybe(text),
                        "data": json_values,
                        "content": content,
                        "display": maybe(st.booleans()),
                        "retainedTail": maybe(st.lists(messages(), max_size=2)),
                    },
                )
            )
        )
    return e


@st.composite
def bodies(draw: st.DrawFn, min_size: int = 0, max_size: int = 12) -> list[dict[str, Any]]:
    """Entries of a session: mostly chained (so that branches are long enough to render
    much), some with the random ids and parent links they were drawn with."""
    out = draw(st.lists(entries(), min_size=min_size, max_size=max_size))
    prev: str | None = None
    for k, e in enumerate(out):
        if draw(st.integers(0, 3)):  # three in four continue the chain
            e["id"], e["parentId"] = f"n{k}", prev
        if isinstance(e.get("id"), str):
            prev = e["id"]
    return out


headers = st.fixed_dictionaries(
    {"type": st.just("session")},
    optional={
        "version": maybe(st.sampled_from([1, 2, 3, 4, 99])),
        "id": maybe(text),
        "cwd": maybe(text),
        "timestamp": maybe(text),
    },
)

# A mutation: (kind, line, position, bytes).
mutations = st.tuples(
    st.sampled_from(["cut", "insert", "drop", "duplicate", "swap", "splice"]),
    st.integers(0, 1000),
    st.integers(0, 10_000),
    st.binary(max_size=4) | st.sampled_from([b"\x1b[31m", b"\xff\xfe", b"\x00", b"\r", b"\n"]),
)


def encode(value: Any) -> bytes:
    """JSON line (lone surrogates become invalid UTF-8, as a broken writer would leave them)."""
    return json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogatepass")


def damage(lines: list[bytes], muts: list[tuple[str, int, int, bytes]]) -> bytes:
    """Apply the mutations to the encoded lines and join them into a file."""
    lines = list(lines)
    for kind, li, pos, data in muts:
        if not lines:
            break
        k = li % len(lines)
        line = lines[k]
        p = pos % (len(line) + 1)
        if kind == "cut":
            lines[k] = line[:p]
        elif kind == "insert":
            lines[k] = line[:p] + data + line[p:]
        elif kind == "drop":
            del lines[k]
        elif kind == "duplicate":
            lines.insert(k, line)
        elif kind == "swap":
            j = pos % len(lines)
            lines[k], lines[j] = lines[j], lines[k]
        else:  # splice two lines into one
            j = pos % len(lines)
            lines[k] = line[:p] + lines[j][p:]
    return b"\n".join(lines) + b"\n"


def run(data: bytes, *, cli: bool) -> Report:
    """Write ``data`` to a session file and run the whole pipeline over it, time-limited."""
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "s.jsonl"
        path.write_bytes(data)
        with hang_guard(30, "one example"):
            report = exercise(path, cli=cli)
    # Shown by --hypothesis-show-statistics: how much of what was drawn got rendered.
    n = report.items_rendered
    event(f"items rendered: {'5+' if n >= 5 else n}")
    event(f"bad lines: {'some' if report.bad_lines else 'none'}")
    return report


# ----------------------------------------------------------------------------- properties


@fuzz_settings(250)
@given(header=st.none() | headers, body=bodies())
def test_random_sessions(header: dict[str, Any] | None, body: list[dict[str, Any]]) -> None:
    """Random sessions, undamaged: the pipeline (with ``piview print``, ``info`` and ``tools``)
    never raises and renders nothing a terminal would act on."""
    lines = ([encode(header)] if header is not None else []) + [encode(e) for e in body]
    run(b"\n".join(lines) + b"\n", cli=True)


@fuzz_settings(250)
@given(
    header=headers,
    body=bodies(min_size=1, max_size=10),
    muts=st.lists(mutations, min_size=1, max_size=6),
)
def test_damaged_sessions(
    header: dict[str, Any],
    body: list[dict[str, Any]],
    muts: list[tuple[str, int, int, bytes]],
) -> None:
    """The same sessions cut, spliced and sprinkled with raw bytes (ESC, NUL, invalid UTF-8,
    CR, newlines): still no exception and nothing forbidden on screen."""
    lines = [encode(header)] + [encode(e) for e in body]
    run(damage(lines, muts), cli=False)


@fuzz_settings(300)
@given(st.text(nasty_chars | st.characters(), max_size=200))
def test_sanitize_leaves_nothing_a_terminal_acts_on(value: str) -> None:
    """Whatever the text, its sanitised forms hold no escape or control character."""
    for out in (
        sanitize(value),
        sanitize(value, tabs=False).replace("\t", ""),
        sanitize_line(value),
    ):
        bad = FORBIDDEN.search(out)
        assert bad is None, (value, out)
    assert "\n" not in sanitize_line(value)
