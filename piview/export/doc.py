"""Provides the export document model: a branch as sections made of parts, and its helpers.

:mod:`piview.export.build` turns a branch into a :class:`Doc`; the writers
(:mod:`piview.export.markdown`, :mod:`piview.export.html`) only format it and, for HTML,
escape. Every string taken from the session goes through the sanitiser (control characters
and ANSI escapes removed) by the helpers here, while the document is built.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any, Literal

from pygments.lexers import find_lexer_class_for_filename

from piview.model.blobs import BLOB_PREFIX
from piview.model.names import SUBAGENT_TOOLS
from piview.model.toolargs import count_lines, read_range
from piview.model.types import ImageContent, TextContent
from piview.render.plugins import REGISTRY
from piview.render.roles.ext_tools import CARDS
from piview.render.roles.ext_tools import title as ext_title
from piview.render.roles.subagent import title
from piview.render.sanitize import sanitize, sanitize_line

ToolsMode = Literal["full", "preview", "none"]
PREVIEW_LINES = 10
"""Lines of tool output (and of long call content) shown first in ``preview`` mode."""
FULL_CAP = 100_000
"""Characters of one block's full text kept behind its preview (the rest is dropped)."""
_PREVIEW_LINE_CHARS = 400
_WRAPPER_RE = re.compile(
    r"<(?P<tag>file|skill)\b(?P<attrs>[^>]*)>\n?(?P<body>.*?)\n?</(?P=tag)>", re.DOTALL
)
_ATTR_RE = re.compile(r'(\w+)="([^"]*)"')
_MIME_RE = re.compile(r"^image/[a-z0-9.+-]{1,40}$")
_LANGS = {
    "py": "python", "js": "javascript", "ts": "typescript", "json": "json", "md": "markdown",
    "sh": "bash", "toml": "toml", "yaml": "yaml", "yml": "yaml", "rs": "rust", "go": "go",
    "c": "c", "h": "c", "cpp": "cpp", "java": "java", "html": "html", "css": "css", "sql": "sql",
}  # fmt: skip


# --------------------------------------------------------------------------- document model


class ExportCancelled(Exception):
    """The export was stopped (the viewer closing while it ran); nothing was written."""


def check_stop(should_stop: Callable[[], bool] | None, k: int) -> None:
    """Every 256th ``k``, raise :class:`ExportCancelled` if ``should_stop`` says so."""
    if should_stop is not None and not k & 255 and should_stop():
        raise ExportCancelled


@dataclass(slots=True)
class Image:
    """An image block: decoded bytes, or ``None`` with a ``note`` saying why not."""

    mime: str
    data: bytes | None
    entry_id: str
    n: int
    """1-based number of the image within its entry."""
    note: str = ""


PartKind = Literal[
    "markdown", "code", "diff", "wrapper", "thinking", "redacted", "image", "tool", "note",
    "details", "rich",
]  # fmt: skip


@dataclass(slots=True)
class Part:
    """One piece of a section; which fields matter depends on ``kind``.

    ``code``: ``text`` (``more`` lines left out after it, or before it when negative), ``lang``;
    in preview mode ``full`` holds the whole text behind the preview (``capped`` characters of
    it dropped beyond :data:`FULL_CAP`).
    ``diff``: ``text`` in Pi's numbered diff format (``+NN text``, ``-NN text``, `` NN text``).
    ``wrapper``/``details``/``tool``: ``title`` and ``children``; a tool also has ``status``
    (ok, error, no_result, orphan_result), ``info`` (latency), ``label`` (of its result) and
    ``anchors`` (the ids of its results, for links). ``note``: ``text`` and
    ``status`` (dim, warn, error). ``markdown``/``thinking``/``redacted``: ``text``.
    ``rich``: a plugin's renderable as plain ``text`` and an ``html`` fragment.
    """

    kind: PartKind
    text: str = ""
    lang: str = ""
    more: int = 0
    title: str = ""
    status: str = ""
    info: str = ""
    image: Image | None = None
    children: list[Part] = field(default_factory=list)
    full: str = ""
    capped: int = 0
    label: str = ""
    anchors: list[str] = field(default_factory=list)
    html: str = ""


@dataclass(slots=True)
class Section:
    """One entry of the branch (or a divider): a header line and its parts."""

    kind: str
    """user, assistant, tool, bash, custom, summary, compaction, system, divider or unknown."""
    title: str
    entry_id: str = ""
    time: str = ""
    label: str | None = None
    badges: list[tuple[str, str]] = field(default_factory=list)
    """``(text, kind)`` with kind error, warn or dim."""
    parts: list[Part] = field(default_factory=list)
    anchors: list[str] = field(default_factory=list)
    """Ids of entries shown nowhere (labels, extension state) that link here, the next shown."""
    from_id: str = ""
    """A branch summary's origin entry (linked when it is on the page)."""
    error: bool = False
    """The entry failed (an error stop, a shell command's non-zero exit)."""


@dataclass(slots=True)
class Doc:
    """The whole export: a title, key facts, notes about what was left out, and the sections."""

    title: str
    facts: list[tuple[str, str]]
    notes: list[str]
    sections: list[Section]
    figures: list[tuple[str, str]] = field(default_factory=list)
    """``(title, html)`` of pictures above the sections (the HTML export's timeline and
    context picture, inline SVG made by :mod:`piview.export.timeline_svg`)."""


# --------------------------------------------------------------------------- helpers


def clock(ts: object) -> str:
    """``HH:MM:SS`` (UTC) of an ISO timestamp; ``""`` when absent or unparsable."""
    if not isinstance(ts, str) or not ts:
        return ""
    try:
        dt = datetime.fromisoformat(ts)
    except ValueError:
        return ""
    return (dt.astimezone(UTC) if dt.tzinfo else dt).strftime("%H:%M:%S")


def blocks(content: object) -> list[Any]:
    """Message content as a list of blocks (a string becomes one text block)."""
    if isinstance(content, str):
        return [TextContent(text=content)] if content else []
    return list(content) if isinstance(content, list) else []


def split_wrappers(text: str) -> list[str | tuple[str, dict[str, str], str]]:
    """User text split into plain pieces and ``(tag, attrs, body)`` for ``<file>``/``<skill>``."""
    if "<file" not in text and "<skill" not in text:
        return [text]
    out: list[str | tuple[str, dict[str, str], str]] = []
    pos = 0
    for m in _WRAPPER_RE.finditer(text):
        out.append(text[pos : m.start()])
        out.append((m.group("tag"), dict(_ATTR_RE.findall(m.group("attrs"))), m.group("body")))
        pos = m.end()
    out.append(text[pos:])
    return out


def more_text(more: int) -> str:
    """``… 3 more lines`` for a code part's ``more`` (``… 3 earlier lines`` when negative)."""
    n = abs(more)
    return f"… {n:,} {'more' if more > 0 else 'earlier'} line{'' if n == 1 else 's'}"


def lines_label(text: str) -> str:
    """``1 line`` / ``12 lines``: how many lines ``text`` has."""
    n = count_lines(text)
    return f"{n:,} line" + ("" if n == 1 else "s")


def lang_of(path: str) -> str:
    """Code-fence language for a file name (``""`` when unknown), as a Pygments lexer alias."""
    name = path.replace("\\", "/").rpartition("/")[2]
    ext = name.rpartition(".")[2].lower() if "." in name else ""
    if ext in _LANGS:
        return _LANGS[ext]
    # Pygments' own file-name patterns (Makefile, *.tsx, …), looked up once per pattern.
    return _lexer_alias("*." + ext if ext else name)


@lru_cache(maxsize=512)
def _lexer_alias(name: str) -> str:
    try:
        cls = find_lexer_class_for_filename(name.replace("*", "x", 1))
    except (ValueError, TypeError):
        return ""
    aliases = getattr(cls, "aliases", None) if cls is not None else None
    return str(aliases[0]) if aliases else ""


def clean(text: object) -> str:
    """Session text made safe: escapes and control characters removed, tabs kept."""
    return sanitize(text, tabs=False)


def cut_code(text: str, mode: ToolsMode, *, tail: bool = False, lang: str = "") -> Part:
    """A code part, cut to :data:`PREVIEW_LINES` lines (head, or tail) in preview mode.

    The whole text stays in ``full`` (up to :data:`FULL_CAP` characters, the head kept, or the
    tail), so a writer can put it one click away.
    """
    if mode != "preview" or text.count("\n") < PREVIEW_LINES:
        return Part("code", text=text, lang=lang)
    # Only the kept lines are split off: outputs can be long.
    if tail:
        keep = text.rsplit("\n", PREVIEW_LINES)[-PREVIEW_LINES:]
    else:
        keep = text.split("\n", PREVIEW_LINES)[:PREVIEW_LINES]
    keep = [ln if len(ln) <= _PREVIEW_LINE_CHARS else ln[:_PREVIEW_LINE_CHARS] + "…" for ln in keep]
    cut = text.count("\n") + 1 - PREVIEW_LINES
    full, capped = text, max(0, len(text) - FULL_CAP)
    if capped:
        full = text[-FULL_CAP:] if tail else text[:FULL_CAP]
    part = Part("code", text="\n".join(keep), lang=lang, more=-cut if tail else cut)
    part.full, part.capped = full, capped
    return part


def decode_image(block: ImageContent, entry_id: str, n: int) -> Image:
    """Decode an image block strictly; a bad MIME type or bad base64 gives a note instead."""
    mime = block.mime_type.strip().lower() if isinstance(block.mime_type, str) else ""
    if not _MIME_RE.match(mime):
        return Image(
            "image/unknown", None, entry_id, n, f"unsupported type {sanitize_line(mime)!r}"
        )
    raw = re.sub(r"\s+", "", block.data) if isinstance(block.data, str) else ""
    if raw.startswith(BLOB_PREFIX):  # oh-my-pi's blob, not found beside the sessions
        return Image(mime, None, entry_id, n, "blob missing from the agent's blobs folder")
    try:
        data = base64.b64decode(raw, validate=True)
    except (binascii.Error, ValueError):
        return Image(mime, None, entry_id, n, "invalid base64 data")
    return Image(mime, data, entry_id, n) if data else Image(mime, None, entry_id, n, "no data")


def args_diff(args: dict[str, Any]) -> str:
    """A diff from the call's ``oldText``/``newText`` or ``edits[]`` (no line numbers)."""
    raw = args.get("edits")
    edits: list[Any] = raw if isinstance(raw, list) else []
    pairs = [(e.get("oldText"), e.get("newText")) for e in edits if isinstance(e, dict)]
    if "oldText" in args or "newText" in args:
        pairs.append((args.get("oldText"), args.get("newText")))
    out: list[str] = []
    for k, (old, new) in enumerate(pairs):
        out += ["    ..."] if k else []
        for sign, text in (("-", old), ("+", new)):
            if isinstance(text, str) and text:
                out += [sign + ln for ln in clean(text).split("\n")]
    return "\n".join(out)


def arg_str(a: dict[str, Any], *names: str) -> str:
    """The first non-empty string argument among ``names``, as one sanitised line."""
    return next((sanitize_line(a[n]) for n in names if isinstance(a.get(n), str) and a[n]), "")


def to_json(value: Any, indent: int | None = 2) -> str:
    """Any JSON value as sanitised text (``repr`` when it cannot be dumped)."""
    try:
        return clean(json.dumps(value, indent=indent, ensure_ascii=False, default=str))
    except (TypeError, ValueError, RecursionError):
        return clean(repr(value)[:2000])


def plugin_parts(
    kind: str, name: str, view: Callable[[], Any], parts: list[Part], *, expanded: bool = True
) -> list[Part]:
    """``parts``, or what a plugin's renderer of ``name`` draws instead (a ``rich`` part); the
    built-in ``parts`` with a warning note when it failed. A tool with a built-in card (the
    extensions' tools of ``ext_tools``) gets its card, ``expanded`` or not, where it draws one
    (else ``parts``, without a note: the generic form is what a card falls back to)."""
    fn = REGISTRY.plugin(kind, name)
    if fn is None:
        card = CARDS.get(name) if kind == "tool" else None
        if card is None:
            return parts
        v = view()
        v.expanded = expanded
        drawn = REGISTRY.record(card[0], v)
        if isinstance(drawn, str):
            return parts
        # The card draws an image as one line: the export's own image parts follow it.
        images = [p for p in parts if p.kind == "image"]
        return [Part("rich", text=drawn[0].rstrip("\n"), html=drawn[1]), *images]
    got = REGISTRY.record(fn, view())
    if isinstance(got, str):
        return [*parts, Part("note", text=got, status="warn")]
    return [Part("rich", text=got[0].rstrip("\n"), html=got[1])]


def tool_title(name: str, args: object, namespace: str | None = None) -> str:
    """The one-line form of a call: ``read path:10-29``, ``$ cmd``, ``grep /pat/ in p``, …"""
    a: dict[str, Any] = args if isinstance(args, dict) else {}
    path = arg_str(a, "path", "file_path")
    if name == "read":
        return f"read {path or '?'}{read_range(a)}"
    if name == "bash":
        first, _, rest = sanitize(a.get("command")).strip().partition("\n")
        return f"$ {first or '?'}" + (" …" if rest.strip() else "")
    if name in ("edit", "write"):
        content = a.get("content") if name == "write" else None
        return f"{name} {path or '?'}" + (
            f" ({lines_label(content)})" if isinstance(content, str) else ""
        )
    if name in ("grep", "find", "ls"):
        pat = arg_str(a, "pattern")
        what = {"grep": f"/{pat}/ in ", "find": f"{pat or '?'} in "}.get(name, "")
        glob = arg_str(a, "glob")
        return f"{name} {what}{path or '.'}" + (f" ({glob})" if glob else "")
    if name in SUBAGENT_TOOLS and not namespace:
        own = title(args)
        if own is not None:
            return own.plain
    ext = None if namespace else ext_title(name, a)  # mcp, web_search, fetch_content, todo
    if ext is not None:
        return ext.plain
    full = (f"{sanitize_line(namespace)}." if namespace else "") + (sanitize_line(name) or "?")
    preview = to_json(args, None) if args else ""
    return f"{full} {preview[:80]}{'…' if len(preview) > 80 else ''}".rstrip()
