"""Generates the nasty session files of the fuzz suite, at run time, into a temporary folder.

Nothing here is committed as data: every file is written by a builder when a test asks for it
(the big ones weigh tens of MB). Each builder takes the path to write and returns nothing.

* :data:`NASTY` maps a name to its builder; :data:`BIG` names the ones too large to render
  every item of, or to print whole (the tests sample their items and print them as
  ``| head`` would).
* :data:`ESC_TEXTS`, :data:`NASTY_IDS` and :func:`kinds` are reused by the property tests.
"""

from __future__ import annotations

import base64
import copy
import io
import json
import random
import struct
import zlib
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

__all__ = [
    "BIG",
    "ESC_TEXTS",
    "IMAGE_MB",
    "LINE_MB",
    "NASTY",
    "NASTY_IDS",
    "NASTY_TEXT",
    "PWNED",
    "build",
    "chain",
    "header",
    "kinds",
]

LINE_MB = 50
"""Size of the one huge line of ``line_50mb``, in MB."""
IMAGE_MB = 20
"""Size of the base64 image of ``image_20mb``, in MB."""

PWNED = "/tmp/piview-fuzz-pwned"
"""A file that commands inside session text would create if anything executed them."""

TS = "2026-05-14T10:00:{:02d}.000Z"
MS = 1778752800000

# Text that must never reach a terminal raw: escape sequences of every family, C0 and C1
# controls, carriage-return tricks, Rich/Textual markup, bidi overrides, shell and HTML.
ESC_TEXTS: list[str] = [
    "\x1b[31mred\x1b[0m plain \x1b[38;2;255;0;0mtruecolor\x1b[m",
    "\x1b]0;pwned window title\x07after the title",
    "\x1b]52;c;cm0gLXJmIH4K\x07clipboard write",
    "\x1b]8;;https://evil.example/\x1b\\hyperlink\x1b]8;;\x1b\\",
    "\x1bP+q544e\x1b\\ device control string",
    "\x1b[2J\x1b[H\x1b[?1049l\x1b[?25l\x1b[?1000h screen cleared, mouse on",
    "\x9b31m8-bit CSI\x9b0m and \x9d0;8-bit OSC\x9c",
    "C1 controls: \x80 \x85 \x8d \x8e \x90 \x98 \x9a \x9c \x9d \x9e \x9f",
    "bell\x07 backspace\x08 vt\x0b ff\x0c nul\x00 del\x7f so\x0e si\x0f can\x18 sub\x1a",
    "progress 10%\rprogress 50%\rprogress 100%\r\ndone\r",
    "tabs\there\tand\tthere",
    "\x1b[6n\x1b[c\x1b[>c\x1b[?u\x1b[14t terminal queries",
    "\x1bc full reset \x1b7 save \x1b8 restore \x1b(0 lqqk \x1b(B \x1b=\x1b>",
    "unterminated OSC \x1b]0;this never ends",
    "lone ESC at the end \x1b",
    "[bold red]markup[/] [link=file:///etc/passwd]click[/link] [/] [ [[ ]] [@click=app.quit]x[/]",
    "\u202eevil RTL override\u202c \u200b zero width \ufeff BOM \u2028 LS \u2029 PS \u0085 NEL",
    "wide 日本語テキスト 🧨🧨 e\u0301\u0301\u0301 combining"
    " \U0001f468\u200d\U0001f469\u200d\U0001f467",
    f"$(touch {PWNED}) `touch {PWNED}` ; touch {PWNED} && rm -rf ~/nothing",
    "<script>alert(1)</script><img src=x onerror=alert(2)><!-- -->",
    "```python\n\x1b[31mcode\x1b[0m\n```\n# heading \x1b[1m\n> quote \x07\n"
    "- item \x9b2J\n| a | b |",
    "surrogate pair 𝄞 and replacement \ufffd and private use \ue000",
]
NASTY_TEXT = "\n".join(ESC_TEXTS)
"""All of :data:`ESC_TEXTS` in one string."""

NASTY_IDS: list[str] = [
    "\x1b[2J\x1b[31mid",
    "\x1b]0;title\x07",
    "id\x00nul",
    "id\nnewline",
    "id\rcr",
    "\x9b1;1H",
    "\x7f",
    "[bold]x[/bold]",
    "[/]",
    "\u202eevil",
    "",
    " ",
    "x" * 100_000,
    "ab",
    "abc",
    "🧨",
]
"""Ids with control characters, markup, bidi overrides, nothing at all, or 100,000 chars."""

# Values of every JSON type for the wrong-types file: each field gets one of each group.
WRONG_SCALARS: list[Any] = [None, True, 0, -1, 1.5, 1e308, 10**30]
WRONG_STRINGS: list[Any] = ["", "\x1b[31mstr"]
WRONG_CONTAINERS: list[Any] = [[], {}, [1, "x", None], {"type": "text", "k": [1]}]


# --------------------------------------------------------------------------- encoding


def dumps(obj: Any) -> bytes:
    """One JSON line (no newline); NaN and infinities are written as JS would not (literals)."""
    return json.dumps(obj, ensure_ascii=False, allow_nan=True).encode("utf-8", "surrogatepass")


def write_lines(path: Path, lines: Iterable[Any]) -> None:
    """Write objects (JSON-encoded) or raw bytes as lines, each ending in a newline."""
    with path.open("wb") as f:
        for line in lines:
            f.write(line if isinstance(line, bytes) else dumps(line))
            f.write(b"\n")


def header(**over: Any) -> dict[str, Any]:
    """A version 3 session header."""
    h = {
        "type": "session",
        "version": 3,
        "id": "019e0000-0000-7000-8000-00000000f022",
        "timestamp": TS.format(0),
        "cwd": "/tmp/fuzz",
    }
    h.update(over)
    return h


def chain(
    entries: Iterable[dict[str, Any]], *, prefix: str = "e", parent: str | None = None
) -> Iterator[dict[str, Any]]:
    """Give each entry (missing) id, parentId (the previous entry) and timestamp, in order."""
    prev = parent
    for k, e in enumerate(entries):
        e = dict(e)
        e.setdefault("id", f"{prefix}{k:07d}")
        e.setdefault("parentId", prev)
        e.setdefault("timestamp", TS.format(k % 60))
        prev = e["id"] if isinstance(e["id"], str) else prev
        yield e


# --------------------------------------------------------------------------- images


def png_bytes(width: int, height: int, *, seed: int = 0, noise: bool = False) -> bytes:
    """A real PNG (uncompressed noise when ``noise``, else a small gradient)."""
    from PIL import Image

    if noise:
        rnd = random.Random(seed)
        img = Image.frombytes("RGB", (width, height), rnd.randbytes(width * height * 3))
        level = 0
    else:
        img = Image.new("RGB", (width, height))
        img.putdata(
            [((x * 7) % 256, (y * 5) % 256, 128) for y in range(height) for x in range(width)]
        )
        level = 6
    out = io.BytesIO()
    img.save(out, format="PNG", compress_level=level)
    return out.getvalue()


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def lying_png(width: int, height: int, idat: bytes = b"") -> bytes:
    """A PNG whose IHDR claims ``width``×``height`` but whose pixel data is ``idat``."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _png_chunk(b"IHDR", ihdr)
        + _png_chunk(b"IDAT", idat)
        + _png_chunk(b"IEND", b"")
    )


def b64(data: bytes) -> str:
    """Base64 text of bytes."""
    return base64.b64encode(data).decode("ascii")


SMALL_PNG = b64(png_bytes(8, 6))
"""A valid 8×6 PNG, base64."""


def image_block(data: Any, mime: Any = "image/png") -> dict[str, Any]:
    """An image content block."""
    return {"type": "image", "data": data, "mimeType": mime}


def text_block(text: Any) -> dict[str, Any]:
    """A text content block."""
    return {"type": "text", "text": text}


# --------------------------------------------------------------------------- entry kinds


def _usage(n: Any = 10) -> dict[str, Any]:
    return {
        "input": n,
        "output": n,
        "cacheRead": n,
        "cacheWrite": n,
        "totalTokens": n,
        "cost": {"input": 0.01, "output": 0.02, "cacheRead": 0, "cacheWrite": 0, "total": 0.03},
    }


def _msg(message: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"type": "message", "message": {"timestamp": MS, **message}, **extra}


def _entry_keys(extra: dict[str, Any]) -> dict[str, Any]:
    """Pop the entry-level keys (``id``, ``parentId``) out of message fields."""
    return {k: extra.pop(k) for k in ("id", "parentId") if k in extra}


def _assistant(*blocks: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """An assistant message entry; ``id``/``parentId`` go on the entry, the rest on the
    message."""
    keys = _entry_keys(extra)
    return _msg(
        {
            "role": "assistant",
            "content": list(blocks),
            "api": "anthropic-messages",
            "provider": "anthropic",
            "model": "claude-sonnet-4-5",
            "usage": _usage(),
            "stopReason": "toolUse",
            **extra,
        },
        **keys,
    )


def _call(cid: str, name: str, args: Any, **extra: Any) -> dict[str, Any]:
    return {"type": "toolCall", "id": cid, "name": name, "arguments": args, **extra}


def _result(cid: Any, name: Any, content: Any, **extra: Any) -> dict[str, Any]:
    """A tool result entry; ``id``/``parentId`` go on the entry, the rest on the message."""
    keys = _entry_keys(extra)
    return _msg(
        {"role": "toolResult", "toolCallId": cid, "toolName": name, "content": content, **extra},
        **keys,
    )


def kinds(text: str = NASTY_TEXT, *, tag: str = "k") -> list[dict[str, Any]]:
    """One of every entry type, message role, content block and built-in tool, all carrying
    ``text`` wherever a string goes (ids and parent links are left to :func:`chain`).

    Tool-call ids are prefixed with ``tag`` so that several copies pair independently.
    """
    t = text
    diff = f"-  1 {t}\n+  1 changed\n   2 same\n   ...\n+ 40 {t}"
    return [
        {"type": "model_change", "provider": t, "modelId": t},
        {"type": "thinking_level_change", "thinkingLevel": t},
        _msg({"role": "user", "content": t}),
        _msg(
            {
                "role": "user",
                "content": [
                    text_block(f'<file name="{t}">\n{t}\n</file>\n<skill name="{t}">{t}</skill>'),
                    image_block(SMALL_PNG, t),
                    {"type": "mystery", "payload": t},
                ],
            }
        ),
        _assistant(
            {"type": "thinking", "thinking": t, "thinkingSignature": "sig"},
            {"type": "thinking", "thinking": "", "redacted": True},
            text_block(t),
            _call(f"{tag}-bash", "bash", {"command": f"{t}\nsecond line", "timeout": 5}),
            _call(f"{tag}-read", "read", {"path": f"{t}.py", "offset": 3, "limit": 10}),
            _call(f"{tag}-edit1", "edit", {"path": t, "oldText": t, "newText": t}),
            _call(
                f"{tag}-edit2", "edit", {"file_path": t, "edits": [{"oldText": t, "newText": t}]}
            ),
            _call(f"{tag}-write", "write", {"path": f"{t}.md", "content": t}),
            _call(f"{tag}-grep", "grep", {"pattern": t, "path": t, "glob": t, "ignoreCase": True}),
            _call(f"{tag}-find", "find", {"pattern": t, "path": t}),
            _call(f"{tag}-ls", "ls", {"path": t, "limit": 3}),
            _call(f"{tag}-mcp", t, {"q": t, "n": [1, {"k": t}]}, namespace=t),
            _call(f"{tag}-none", "bash", {}, partialJson='{"comm'),
        ),
        _result(f"{tag}-bash", "bash", [text_block(t)], isError=False),
        _result(f"{tag}-read", "read", [text_block(t), image_block(SMALL_PNG, t)]),
        _result(
            f"{tag}-edit1",
            "edit",
            [text_block(t)],
            details={"diff": diff, "firstChangedLine": 1},
        ),
        _result(f"{tag}-edit2", "edit", [text_block(t)], isError=True),
        _result(f"{tag}-write", "write", [text_block(t)]),
        _result(
            f"{tag}-grep",
            "grep",
            [text_block(t)],
            details={
                "truncation": {"truncated": True, "outputLines": 3, "totalLines": 10},
                "matchLimitReached": True,
                "fullOutputPath": t,
            },
        ),
        _result(f"{tag}-find", "find", []),
        _result(f"{tag}-ls", "ls", [text_block(t)], usage=_usage()),
        _result(f"{tag}-mcp", t, [text_block(t), {"type": t}]),
        _result(f"{tag}-orphan", t, [text_block(t)], isError=True),
        _assistant(text_block(t), stopReason="error", errorMessage=t),
        _assistant(_call(f"{tag}-aborted", "bash", {"command": t}), stopReason="aborted"),
        _assistant(),
        _msg(
            {
                "role": "bashExecution",
                "command": t,
                "output": t,
                "exitCode": 1,
                "cancelled": False,
                "truncated": True,
                "fullOutputPath": t,
            }
        ),
        _msg({"role": "bashExecution", "command": t, "output": t, "excludeFromContext": True}),
        _msg({"role": "custom", "customType": t, "content": t, "display": True, "details": t}),
        _msg({"role": "custom", "customType": t, "content": [text_block(t)], "display": False}),
        _msg(
            {
                "role": "system",
                "content": t,
                "sections": {t: t, "empty": None},
                "toolsAdded": [{"name": t, "description": t, "parameters": {"x": t}}],
                "toolsRemoved": [{"name": t}],
                "replace": True,
            }
        ),
        _msg({"role": "system", "content": [text_block(t)]}),
        _msg({"role": "branchSummary", "summary": t, "fromId": t}),
        _msg({"role": "compactionSummary", "summary": t, "tokensBefore": 123}),
        _msg({"role": "hookMessage", "customType": t, "content": t, "display": True}),
        _msg({"role": t, "content": t}),
        {
            "type": "compaction",
            "summary": t,
            "firstKeptEntryId": "missing",
            "tokensBefore": 1000,
            "details": {"readFiles": [t], "modifiedFiles": [t]},
            "retainedTail": [
                {"role": "user", "content": t, "timestamp": MS},
                {"role": "assistant", "content": [text_block(t)], "timestamp": MS},
                {"role": t},
            ],
        },
        {"type": "branch_summary", "fromId": t, "summary": t, "details": t},
        {"type": "custom", "customType": t, "data": {"t": t}},
        {"type": "custom_message", "customType": t, "content": t, "display": True},
        {"type": "custom_message", "customType": t, "content": [text_block(t)], "display": False},
        {"type": "label", "targetId": "e0000002", "label": t},
        {"type": "label", "targetId": t, "label": t},
        {"type": "session_info", "name": t},
        {"type": t, "payload": t},
        {"type": "frobnicate", "message": {"role": "user", "content": t}},
    ]


# --------------------------------------------------------------------------- builders


def ansi_everywhere(path: Path) -> None:
    """Every kind of entry with escape sequences, controls and markup in every string; plus
    lines that hold raw (unescaped) control bytes, which are not valid JSON."""
    lines: list[Any] = [header(cwd=NASTY_TEXT)]
    main = list(chain(kinds(NASTY_TEXT)))
    lines.extend(main)
    for k, t in enumerate(ESC_TEXTS):
        lines.extend(
            chain([_msg({"role": "user", "content": t})], prefix=f"s{k}-", parent="e0000001")
        )
    raw = b'{"type":"message","id":"raw1","parentId":"e0000001","message":{"role":"user",'
    lines.append(raw + b'"content":"raw \x1b[31m esc \x07 \x9b bytes"}}')
    lines.append(raw.replace(b"raw1", b"raw2") + b'"content":"\xc2\x9b31m c1 as utf-8"}}')
    # The last line continues the main chain: the current branch holds every kind of entry.
    lines.append({"type": "label", "id": "end", "parentId": main[-1]["id"], "targetId": "e0000002"})
    write_lines(path, lines)


def control_ids(path: Path) -> None:
    """Ids, parent ids, tool-call ids, names, labels and types full of control characters."""
    lines: list[Any] = [header(id=NASTY_IDS[0])]
    prev: str | None = None
    for k, nid in enumerate(NASTY_IDS):
        for e in kinds(f"text {k}", tag=nid)[2:8]:
            e = dict(e, id=nid, parentId=prev, timestamp=TS.format(k))
            lines.append(e)
        prev = nid
    for k, nid in enumerate(NASTY_IDS):
        lines.append(
            {"type": "label", "id": f"L{k}", "parentId": nid, "targetId": nid, "label": nid}
        )
        lines.append({"type": "session_info", "id": f"S{k}", "parentId": f"L{k}", "name": nid})
        lines.append(
            _msg(
                {"role": "toolResult", "toolCallId": nid, "toolName": nid, "content": []},
                id=f"R{k}",
                parentId=nid,
            )
        )
    # The current leaf has a markup id too (the status line shows it).
    lines.append(_msg({"role": "user", "content": "leaf"}, id="[/]", parentId="R14"))
    write_lines(path, lines)


def _paths(value: Any, prefix: tuple[Any, ...] = (), depth: int = 0) -> Iterator[tuple[Any, ...]]:
    if depth > 4:
        return
    items: Iterable[tuple[Any, Any]]
    if isinstance(value, dict):
        items = value.items()
    elif isinstance(value, list):
        items = enumerate(value[:3])
    else:
        return
    for k, v in items:
        yield (*prefix, k)
        yield from _paths(v, (*prefix, k), depth + 1)


def _set(obj: Any, path: tuple[Any, ...], value: Any) -> None:
    for step in path[:-1]:
        obj = obj[step]
    obj[path[-1]] = value


def _wrong_values(k: int) -> list[Any]:
    """Three wrong values for the ``k``-th field: a scalar, a string and a container."""
    return [
        WRONG_SCALARS[k % len(WRONG_SCALARS)],
        WRONG_STRINGS[k % len(WRONG_STRINGS)],
        WRONG_CONTAINERS[k % len(WRONG_CONTAINERS)],
    ]


def wrong_types(path: Path) -> None:
    """Every field (down to five levels) of every kind of entry, and of the header, replaced
    by a scalar, a string and a container of the wrong type, one mutation per line.

    Mutated ids and parent ids come first (each breaks the chain); every other mutation is
    chained in file order, so that the current branch runs through all of them.
    """
    templates = list(chain(kinds("plain text\nline two", tag="w")))
    head = header()
    lines: list[Any] = [head]
    for k, p in enumerate(_paths(head)):
        for v in _wrong_values(k):
            h = copy.deepcopy(head)
            _set(h, p, v)
            lines.append(h)  # extra headers: each is a bad line, never a crash
    links: list[dict[str, Any]] = []
    chained: list[dict[str, Any]] = []
    k = 0
    for template in templates:
        for p in _paths(template):
            k += 1
            for v in _wrong_values(k):
                e = copy.deepcopy(template)
                _set(e, p, v)
                (links if p[0] in ("id", "parentId") else chained).append(e)
    lines.extend(links)
    for n, e in enumerate(chained):
        e["id"] = f"w{n:06d}"
        e["parentId"] = f"w{n - 1:06d}" if n else None
        lines.append(e)
    write_lines(path, lines)


def nan_and_huge_numbers(path: Path) -> None:
    """NaN, infinities, 1e308, 10**400 and friends in usage, costs, exit codes, timestamps,
    token counts, tool arguments and tool details."""
    weird: list[Any] = [
        float("nan"),
        float("inf"),
        float("-inf"),
        1e308,
        -1e308,
        5e-324,
        -0.0,
        10**30,
        -(10**30),
        10**400,
        2**63,
        -(2**63) - 1,
        "12",
        "NaN",
    ]
    lines: list[Any] = [header()]
    entries: list[dict[str, Any]] = []
    for k, w in enumerate(weird):
        usage = {f: w for f in ("input", "output", "cacheRead", "cacheWrite", "totalTokens")}
        usage["cost"] = {f: w for f in ("input", "output", "cacheRead", "cacheWrite", "total")}
        usage["cacheWrite1h"] = w
        usage["reasoning"] = w
        entries.append(_msg({"role": "user", "content": f"number {k}", "timestamp": w}))
        entries.append(
            _assistant(
                text_block(f"weird {k}"),
                _call(f"n{k}", "read", {"path": "a.py", "offset": w, "limit": w}),
                _call(f"m{k}", "bash", {"command": "ls", "timeout": w}),
                usage=usage,
                timestamp=w,
            )
        )
        entries.append(
            _result(
                f"n{k}",
                "read",
                [text_block("x\n" * 3)],
                usage=usage,
                details={
                    "truncation": {"truncated": True, "outputLines": w, "totalLines": w},
                    "firstChangedLine": w,
                },
            )
        )
        entries.append(
            _result(f"m{k}", "edit", [], details={"diff": "+ 1 x", "firstChangedLine": w})
        )
        entries.append(
            _msg({"role": "bashExecution", "command": "x", "output": "y", "exitCode": w})
        )
        entries.append({"type": "compaction", "summary": "s", "tokensBefore": w, "usage": usage})
    lines.extend(chain(entries))
    write_lines(path, lines)


def v1_numbers(path: Path) -> None:
    """A version 1 file (no ids) whose compactions point at weird entry indices."""
    lines: list[Any] = [{"type": "session", "id": "v1", "timestamp": TS.format(0), "cwd": "/"}]
    for w in (0, -1, 1, 2, 10**20, 1e308, float("nan"), "3", None, [], 99):
        lines.append(
            {
                "type": "message",
                "timestamp": TS.format(1),
                "message": {"role": "user", "content": "u"},
            }
        )
        lines.append(
            {"type": "compaction", "summary": "c", "firstKeptEntryIndex": w, "tokensBefore": w}
        )
    write_lines(path, lines)


def _nested(depth: int, kind: str) -> bytes:
    if kind == "list":
        return b"[" * depth + b"]" * depth
    return b'{"a":' * depth + b"1" + b"}" * depth


def deep_nesting(path: Path) -> None:
    """JSON nested 50 to 100,000 deep in content, arguments, details, usage, custom data, the
    raw value of unknown entries and types, and whole lines."""
    lines: list[bytes] = [dumps(header())]
    k = 0
    for depth in (50, 500, 900, 990, 1000, 5000, 100_000):
        for kind in ("list", "dict"):
            nest = _nested(depth, kind)
            templates = [
                b'{"type":"message","message":{"role":"user","content":%s}',
                b'{"type":"message","message":{"role":"assistant","content":[{"type":"toolCall",'
                b'"id":"d","name":"mcp","arguments":%s}]}',
                b'{"type":"message","message":{"role":"toolResult","toolCallId":"d","toolName":'
                b'"mcp","content":[],"details":%s}',
                b'{"type":"message","message":{"role":"assistant","content":[],"usage":%s}',
                b'{"type":"custom","customType":"x","data":%s',
                b'{"type":"frobnicate","payload":%s',
                b'{"type":"message","message":{"role":"telemetry","payload":%s}',
                b'{"type":%s',
                b'{"type":"message","message":{"role":"custom","customType":"x","content":"c",'
                b'"details":%s}',
            ]
            for tpl in templates:
                body = tpl % nest
                ids = b',"id":"d%d","parentId":%s,"timestamp":"%s"}' % (
                    k,
                    b'"d%d"' % (k - 1) if k else b"null",
                    TS.format(k % 60).encode(),
                )
                lines.append(body + ids)
                k += 1
            lines.append(nest)  # a whole line that is nothing but nesting
    write_lines(path, lines)


def images(path: Path) -> None:
    """Invalid base64, PNG/GIF/JPEG/WebP headers lying about their size, decompression bombs,
    random bytes, data URLs and wrong-typed image fields, in every place an image can go."""
    junk = random.Random(1).randbytes(3000)
    bomb = zlib.compress(b"\x00" * (1 + 3000 * 3) * 3000, 9)  # 3000×3000 of zeros, ~80 KB
    cases: list[tuple[Any, Any]] = [
        (SMALL_PNG, "image/png"),
        ("!!!not base64$$$", "image/png"),
        ("====", "image/png"),
        ("a", "image/png"),
        ("QUJD\nREVG\r\n R0hJ", "image/png"),
        ("data:image/png;base64," + SMALL_PNG, "image/png"),
        ("data:garbage", "image/png"),
        ("\x1b[31m" + SMALL_PNG, "\x1b]0;mime\x07image/png"),
        ("é" * 100 + SMALL_PNG, "image/png"),
        ("A" * 200_001, "image/png"),
        ("!" * 300_000, "image/png"),
        (b64(junk), "image/png"),
        (b64(junk), "application/octet-stream"),
        (b64(lying_png(100_000, 100_000, b"garbage")), "image/png"),
        (b64(lying_png(7_000, 7_000, zlib.compress(b"\x00" * 100))), "image/png"),
        (b64(lying_png(0, 0)), "image/png"),
        (b64(lying_png(2**32 - 1, 2**32 - 1)), "image/png"),
        (b64(lying_png(1, 1, zlib.compress(b"\x00" * 100_000))), "image/png"),
        (b64(lying_png(3000, 3000, bomb)), "image/png"),
        (b64(b"\x89PNG\r\n\x1a\n"), "image/png"),
        (b64(b"GIF89a" + struct.pack("<HH", 65535, 65535) + b"\x00" * 20), "image/gif"),
        (b64(b"\xff\xd8\xff\xc0\x00\x11\x08\xff\xff\xff\xff\x03" + b"\x00" * 40), "image/jpeg"),
        (b64(b"\xff\xd8" + b"\xff" * 5000), "image/jpeg"),
        (
            b64(
                b"RIFF\x00\x00\x00\x00WEBPVP8X"
                + b"\x00" * 8
                + b"\xff\xff\xff\xff\xff\xff"
                + b"\x00" * 20
            ),
            "image/webp",
        ),
        (None, "image/png"),
        (12345, None),
        ([SMALL_PNG], {"mime": 1}),
        ("", ""),
    ]
    entries: list[dict[str, Any]] = []
    for k, (data, mime) in enumerate(cases):
        img = image_block(data, mime)
        entries.append(_msg({"role": "user", "content": [text_block(f"case {k}"), img]}))
        entries.append(
            _assistant(text_block("look"), img, _call(f"i{k}", "read", {"path": "x.png"}))
        )
        entries.append(_result(f"i{k}", "read", [text_block("Read image"), img]))
        entries.append(
            {"type": "custom_message", "customType": "img", "content": [img], "display": True}
        )
        entries.append(
            _msg({"role": "custom", "customType": "img", "content": [img], "display": True})
        )
    write_lines(path, [header(), *chain(entries)])


def cycles(path: Path) -> None:
    """Parent cycles through forward references (2, 3 and 10,000 long), self parents, a cycle
    the leaf hangs from, and cycles made of duplicate ids."""
    lines: list[Any] = [header()]
    u = {"type": "message", "message": {"role": "user", "content": "cycle"}}
    # self parents
    lines += [dict(u, id="self", parentId="self"), dict(u, id="self2", parentId="self2")]
    # 2- and 3-cycles through forward references
    lines += [dict(u, id="a", parentId="b"), dict(u, id="b", parentId="a")]
    lines += [
        dict(u, id="c1", parentId="c3"),
        dict(u, id="c2", parentId="c1"),
        dict(u, id="c3", parentId="c2"),
    ]
    # a 10,000-long ring: entry i points at entry i+1, the last at the first
    n = 10_000
    lines += [dict(u, id=f"r{i}", parentId=f"r{(i + 1) % n}") for i in range(n)]
    # duplicate ids making a cycle
    lines += [
        dict(u, id="d", parentId="x"),
        dict(u, id="x", parentId="d"),
        dict(u, id="d", parentId="d"),
        dict(u, id="x", parentId="x"),
    ]
    # the leaf hangs from a cycle
    lines += [
        dict(u, id="leafy", parentId="c2"),
        {"type": "label", "id": "lab", "parentId": "a", "targetId": "b", "label": "cyc"},
    ]
    write_lines(path, lines)


def duplicate_ids(path: Path) -> None:
    """1,000 entries sharing one id, ids equal to the header's, tool calls sharing ids across
    turns, results answering calls twice, and labels on duplicated targets."""
    lines: list[Any] = [header(id="dup")]
    for k in range(1000):
        lines.append(
            _msg(
                {"role": "user" if k % 2 else "assistant", "content": f"dup {k}"},
                id="dup",
                parentId="dup" if k else None,
            )
        )
    for k in range(50):
        lines.append(
            _assistant(
                _call("same", "bash", {"command": f"echo {k}"}),
                _call("same", "read", {"path": "p"}),
                id=f"as{k}",
                parentId="dup" if k == 0 else f"rs{k - 1}",
            )
        )
        lines.append(
            _result("same", "bash", [text_block(f"out {k}")], id=f"rs{k}", parentId=f"as{k}")
        )
        lines.append(
            _result("same", "read", [text_block(f"again {k}")], id=f"rs{k}", parentId=f"rs{k}")
        )
    lines.append(
        {"type": "label", "id": "dup", "parentId": "dup", "targetId": "dup", "label": "which?"}
    )
    write_lines(path, lines)


def non_utf8(path: Path) -> None:
    """Invalid UTF-8 everywhere: lone continuation bytes, overlong encodings, encoded
    surrogates, truncated sequences at the end of strings and lines, NUL bytes, Latin-1."""
    bad = [
        b"\xff",
        b"\xfe\xff",
        b"\x80",
        b"\xc0\xaf",
        b"\xe0\x80\xaf",
        b"\xed\xa0\x80",
        b"\xf4\x90\x80\x80",
        b"\xe2\x82",
        b"\xf0\x9f\x92",
    ]
    lines: list[bytes] = [dumps(header())]
    prev: str | None = None
    for k, b in enumerate(bad):

        def put(obj: dict[str, Any], raw: bytes = b) -> None:
            lines.append(dumps(obj).replace(_HOLE.encode(), raw))

        h = _HOLE
        put(_msg({"role": "user", "content": f"bad {h} bytes"}, id=f"u{k}", parentId=prev))
        call = _call(f"c{k}{h}", f"bash{h}", {"command": h})
        put(_assistant(text_block(h), call, id=f"i{k}{h}", parentId=f"u{k}"))
        put(_result(f"c{k}{h}", "bash", [text_block(h)], id=f"r{k}", parentId=f"i{k}{h}"))
        put({"type": "message", "id": f"x{k}", "parentId": f"r{k}", "message": {"a": h}})
        lines[-1] = lines[-1][: lines[-1].index(b)] + b  # cut inside the bad bytes
        put(_msg({"role": "user", "con\x00tent": "n\x00ul"}, id=f"n{k}", parentId=f"r{k}"))
        lines[-1] = lines[-1].replace(b"\\u0000", b"\x00")  # raw NUL bytes, not escapes
        lines.append(b"\x00" * 50)
        put({"type": f"la{h}bel", "id": f"l{k}", "parentId": f"r{k}", "targetId": f"r{k}"})
        prev = f"r{k}"
    latin = {"type": "message", "id": "lat", "message": {"role": "user", "content": "café naïve"}}
    lines.append(json.dumps(latin, ensure_ascii=False).encode("latin-1"))
    path.write_bytes(b"\n".join(lines) + b"\n\xe2\x82")  # ends inside a multi-byte sequence


def utf16(path: Path) -> None:
    """A whole session written in UTF-16 (with its BOM): every line is garbage."""
    buf = io.BytesIO()
    write_lines_to = [dumps(header()), *[dumps(e) for e in chain(kinds("utf16"))]]
    buf.write(b"\n".join(write_lines_to).decode("utf-8").encode("utf-16"))
    path.write_bytes(buf.getvalue())


def structure(path: Path) -> None:
    """Headers out of place (twice, last, future version, wrong types), a BOM on a later
    line, CRLF, bare CR line ends, blank and whitespace lines, non-object JSON lines."""
    lines: list[bytes] = [
        b"\xef\xbb\xbf" + dumps(header(version=99, cwd=None, parentSession="/no/such/file")),
        b"",
        b"   \t  ",
        dumps(header(version="3")),
        *[dumps(e) + b"\r" for e in chain(kinds("crlf"), prefix="c")],
        b"\xef\xbb\xbf"
        + dumps(
            {
                "type": "message",
                "id": "bom",
                "parentId": "c0000002",
                "message": {"role": "user", "content": "bom"},
            }
        ),
        b"[]",
        b'"a string"',
        b"12",
        b"null",
        b"true",
        b"{}",
        b'{"type":null}',
        b"{" + b'"a":1,' * 10_000 + b'"type":"message"}',
        dumps(
            {
                "type": "message",
                "id": "cr1",
                "parentId": "c0000002",
                "message": {"role": "user", "content": "a"},
            }
        )
        + b"\r"
        + dumps(
            {
                "type": "message",
                "id": "cr2",
                "parentId": "cr1",
                "message": {"role": "user", "content": "b"},
            }
        ),
        dumps(header(id="late header")),
    ]
    path.write_bytes(
        b"\n".join(lines)
        + b"\n"
        + dumps({"type": "message", "id": "torn", "message": {"role": "user", "content": "torn"}})[
            :-7
        ]
    )


def no_header_v1(path: Path) -> None:
    """No header at all, no ids (version 1 style), hookMessage roles, torn last line."""
    lines: list[Any] = []
    for e in kinds("no header"):
        lines.append(e)
    write_lines(path, lines)
    with path.open("ab") as f:
        f.write(b'{"type":"message","message":{"role":"user","content":"torn')


def empty(path: Path) -> None:
    """An empty file."""
    path.write_bytes(b"")


def blank_lines(path: Path) -> None:
    """200,000 blank or whitespace-only lines and nothing else."""
    path.write_bytes(b"\n \r\n\t\n" * 66_667)


def header_only(path: Path) -> None:
    """Just a header, without a final newline."""
    path.write_bytes(dumps(header()))


def timestamps(path: Path) -> None:
    """Timestamps that are invalid, far future or past, numbers, huge strings, or missing."""
    weird: list[Any] = [
        "9999-12-31T23:59:59.999Z",
        "0001-01-01T00:00:00Z",
        "+275760-09-13T00:00:00Z",
        "2026-02-30T25:61:61Z",
        "2026-05-14",
        "2026-05-14T10:00:00+99:00",
        "not a time",
        "",
        "\x1b[31m2026",
        "9" * 100_000,
        1e300,
        -1,
        None,
        [],
    ]
    entries = []
    for k, w in enumerate(weird):
        entries.append(_msg({"role": "user", "content": f"ts {k}", "timestamp": w}, timestamp=w))
        entries.append(_assistant(_call(f"t{k}", "bash", {"command": "x"}), timestamp=w))
        entries.append(_result(f"t{k}", "bash", [text_block("out")], timestamp=w))
    lines: list[Any] = [header(timestamp="\x1b[2Jnot a time"), *chain(entries)]
    # siblings sorted by those timestamps
    lines += [
        _msg(
            {"role": "user", "content": f"sib {k}"}, id=f"sib{k}", parentId="e0000000", timestamp=w
        )
        for k, w in enumerate(weird)
    ]
    write_lines(path, lines)


def pairing_mess(path: Path) -> None:
    """Tool results before their calls, answering calls on other branches, answering twice,
    with wrong-typed ids; 2,000 calls with one id in one message; calls with no id."""
    lines: list[Any] = [header()]
    many = [_call("same", "bash", {"command": f"echo {k}"}) for k in range(2000)]
    e: list[dict[str, Any]] = [
        _result("early", "bash", [text_block("before its call")]),
        _assistant(_call("early", "bash", {"command": "late"})),
        _assistant(*many),
        *[_result("same", "bash", [text_block(f"r{k}")]) for k in range(100)],
        _assistant(_call("", "bash", {"command": "no id"}), {"type": "toolCall"}),
        _result("", "bash", [text_block("empty id")]),
        _result(None, None, None),
        _msg({"role": "toolResult", "content": [text_block("no id at all")]}),
        _msg(
            {
                "role": "toolResult",
                "toolCallId": 5,
                "toolName": ["x"],
                "content": "not a list",
                "isError": "yes",
            }
        ),
    ]
    lines.extend(chain(e))
    # a branch whose call is answered on another branch
    lines.append(
        _assistant(_call("cross", "bash", {"command": "x"}), id="br1", parentId="e0000000")
    )
    lines.append(_result("cross", "bash", [text_block("cross")], id="br2", parentId="e0000001"))
    write_lines(path, lines)


def compaction_mess(path: Path) -> None:
    """Compactions whose firstKeptEntryId is missing, itself, in the future or on another
    branch; nested compactions; retainedTail of wrong types; branch summaries from nowhere."""
    base = list(chain([_msg({"role": "user", "content": f"m{k}"}) for k in range(6)]))
    lines: list[Any] = [header(), *base]
    other = _msg({"role": "user", "content": "other"}, id="other", parentId="e0000001")
    lines.append(other)
    prev = "e0000005"
    for k, kept in enumerate(["missing", f"cp{0}", "future", "other", None, "", 5, "e0000000"]):
        lines.append(
            {
                "type": "compaction",
                "id": f"cp{k}",
                "parentId": prev,
                "summary": f"summary {k}",
                "firstKeptEntryId": kept,
                "tokensBefore": 10,
                "retainedTail": [
                    None,
                    1,
                    "x",
                    {"role": "user"},
                    {"role": "assistant", "content": "bad"},
                ][: k + 1],
            }
        )
        prev = f"cp{k}"
    lines.append(_msg({"role": "user", "content": "after"}, id="future", parentId=prev))
    lines.append(
        {
            "type": "branch_summary",
            "id": "bs",
            "parentId": "future",
            "fromId": "nowhere",
            "summary": "",
        }
    )
    lines.append(
        {"type": "branch_summary", "id": "bs2", "parentId": "bs", "fromId": "root", "summary": None}
    )
    write_lines(path, lines)


def huge_fields(path: Path) -> None:
    """Big but not gigantic values: 100,000 argument keys, a 1 MB command, 10,000 edits, a
    100,000-line diff, 200,000-line tool output, a 1 MB line without a newline in its text,
    a user message of 100,000 lines, a 1 MB id and a 1 MB label."""
    long_line = "x" * 1_000_000
    entries = [
        _msg({"role": "user", "content": "line\n" * 100_000}),
        _assistant(
            _call("h1", "mcp", {f"k{k}": k for k in range(100_000)}),
            _call("h2", "bash", {"command": "echo " + long_line}),
            _call(
                "h3",
                "edit",
                {
                    "path": "a.py",
                    "edits": [{"oldText": f"o{k}", "newText": f"n{k}"} for k in range(10_000)],
                },
            ),
            _call("h4", "edit", {"path": "b.py", "oldText": "a", "newText": "b"}),
            _call("h5", "read", {"path": "big.py"}),
            _call("h6", "write", {"path": "w.py", "content": "print(1)\n" * 50_000}),
        ),
        _result("h1", "mcp", [text_block(long_line)]),
        _result("h2", "bash", [text_block("out\n" * 200_000)]),
        _result("h4", "edit", [text_block("ok")], details={"diff": "+ 1 added\n" * 100_000}),
        _result("h5", "read", [text_block("def f():\n    pass\n" * 20_000)]),
        _msg({"role": "bashExecution", "command": "yes", "output": "y\n" * 200_000, "exitCode": 0}),
        {"type": "label", "targetId": "e0000000", "label": "L" * 1_000_000},
        {"type": "session_info", "name": "N" * 1_000_000},
    ]
    lines: list[Any] = [header(), *chain(entries)]
    lines.append(
        _msg({"role": "user", "content": "long id"}, id="I" * 1_000_000, parentId="e0000008")
    )
    write_lines(path, lines)


def siblings_100k(path: Path) -> None:
    """100,000 children of one root entry."""
    with path.open("wb") as f:
        f.write(dumps(header()) + b"\n")
        f.write(
            dumps(
                _msg(
                    {"role": "user", "content": "root"},
                    id="root",
                    parentId=None,
                    timestamp=TS.format(0),
                )
            )
            + b"\n"
        )
        for k in range(100_000):
            f.write(
                b'{"type":"message","id":"s%d","parentId":"root","timestamp":"%s","message":'
                b'{"role":"assistant","content":[{"type":"text","text":"sibling %d"}],'
                b'"usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0}}}\n'
                % (k, TS.format(k % 60).encode(), k)
            )


def chain_100k(path: Path) -> None:
    """A single branch 100,000 entries deep: user, assistant with a tool call, tool result."""
    with path.open("wb") as f:
        f.write(dumps(header()) + b"\n")
        prev = b"null"
        for k in range(100_000):
            kind = k % 3
            if kind == 0:
                body = b'{"role":"user","content":"step %d"}' % k
            elif kind == 1:
                body = (
                    b'{"role":"assistant","content":[{"type":"text","text":"ok %d"},'
                    b'{"type":"toolCall","id":"c%d","name":"bash","arguments":{"command":"ls"}}],'
                    b'"usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0},'
                    b'"stopReason":"toolUse"}' % (k, k)
                )
            else:
                body = (
                    b'{"role":"toolResult","toolCallId":"c%d","toolName":"bash",'
                    b'"content":[{"type":"text","text":"out"}],"isError":false}' % (k - 1)
                )
            f.write(
                b'{"type":"message","id":"n%d","parentId":%s,"timestamp":"%s","message":%s}\n'
                % (k, prev, TS.format(k % 60).encode(), body)
            )
            prev = b'"n%d"' % k


def line_50mb(path: Path) -> None:
    """A bash call whose result is one line of :data:`LINE_MB` MB, its text full of escape
    sequences, carriage returns and tabs; then a short final entry."""
    size = LINE_MB * 1024 * 1024
    chunk = ("build step \x1b[32mok\x1b[0m 42%\rbuild step 99%\t\x07done\n" * 64).encode()
    chunk = json.dumps(chunk.decode())[1:-1].encode()  # JSON-escaped
    with path.open("wb") as f:
        f.write(dumps(header()) + b"\n")
        f.write(
            dumps(_msg({"role": "user", "content": "run the build"}, id="u", parentId=None)) + b"\n"
        )
        f.write(
            dumps(_assistant(_call("big", "bash", {"command": "make"}), id="a", parentId="u"))
            + b"\n"
        )
        head = (
            b'{"type":"message","id":"r","parentId":"a","timestamp":"%s","message":{"role":"toolResult","toolCallId":"big","toolName":"bash","content":[{"type":"text","text":"'
            % TS.format(2).encode()
        )
        tail = b'"}],"isError":false}}\n'
        f.write(head)
        left = size - len(head) - len(tail)
        while left >= len(chunk):  # whole chunks only: never cut inside a JSON escape
            f.write(chunk)
            left -= len(chunk)
        f.write(b"x" * left)
        f.write(tail)
        f.write(
            dumps(_assistant(text_block("done"), id="z", parentId="r", stopReason="stop")) + b"\n"
        )


def image_20mb(path: Path) -> None:
    """A user message holding a real PNG of :data:`IMAGE_MB` MB of base64 (noise, stored
    uncompressed), and the assistant's answer."""
    side = int(((IMAGE_MB * 1024 * 1024 * 3 // 4) / 3) ** 0.5)
    data = b64(png_bytes(side, side, noise=True))
    with path.open("wb") as f:
        f.write(dumps(header()) + b"\n")
        f.write(
            dumps(
                _msg(
                    {"role": "user", "content": [text_block("what is this?"), image_block(data)]},
                    id="u",
                    parentId=None,
                )
            )
            + b"\n"
        )
        f.write(
            dumps(_assistant(text_block("noise"), id="a", parentId="u", stopReason="stop")) + b"\n"
        )


_HOLE = "\ue000"  # placeholder replaced by raw bytes after JSON encoding


Builder = Callable[[Path], None]

NASTY: dict[str, Builder] = {
    "ansi_everywhere": ansi_everywhere,
    "control_ids": control_ids,
    "wrong_types": wrong_types,
    "nan_and_huge_numbers": nan_and_huge_numbers,
    "v1_numbers": v1_numbers,
    "deep_nesting": deep_nesting,
    "images": images,
    "cycles": cycles,
    "duplicate_ids": duplicate_ids,
    "non_utf8": non_utf8,
    "utf16": utf16,
    "structure": structure,
    "no_header_v1": no_header_v1,
    "empty": empty,
    "blank_lines": blank_lines,
    "header_only": header_only,
    "timestamps": timestamps,
    "pairing_mess": pairing_mess,
    "compaction_mess": compaction_mess,
    "huge_fields": huge_fields,
    "siblings_100k": siblings_100k,
    "chain_100k": chain_100k,
    "line_50mb": line_50mb,
    "image_20mb": image_20mb,
}
"""Every nasty file, by name."""

BIG = frozenset({"siblings_100k", "chain_100k", "line_50mb", "image_20mb", "cycles", "huge_fields"})
"""Files whose items are sampled and whose branch is printed as ``| head`` would read it."""


def build(name: str, folder: Path) -> Path:
    """Write the nasty file ``name`` into ``folder`` and return its path."""
    path = folder / f"{name}.jsonl"
    NASTY[name](path)
    return path
