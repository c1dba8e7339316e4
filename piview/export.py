"""Provides ``piview export``: one branch of a session as a Markdown or a self-contained HTML file.

Only the entries from the root to the chosen leaf are exported, in order. The branch is first
turned into a neutral document (:class:`Doc`: sections made of parts), which
:mod:`piview.export_md` and :mod:`piview.export_html` then write out. Every string taken from
the session goes through the sanitiser here; the HTML writer escapes it as well.
"""

from __future__ import annotations

import argparse
import base64
import binascii
import json
import re
import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from piview import __version__
from piview.model.context import build_context
from piview.model.session import Session
from piview.model.tools import ToolRow, tool_rows
from piview.model.types import (
    AssistantMessage,
    BashExecutionMessage,
    BranchSummaryEntry,
    BranchSummaryMessage,
    CompactionEntry,
    CompactionSummaryMessage,
    CustomEntry,
    CustomMessage,
    CustomMessageEntry,
    ImageContent,
    LabelEntry,
    MessageEntry,
    ModelChangeEntry,
    SessionInfoEntry,
    SystemMessage,
    TextContent,
    ThinkingContent,
    ThinkingLevelChangeEntry,
    ToolCall,
    ToolResultMessage,
    UnknownBlock,
    UnknownEntry,
    UnknownMessage,
    UserMessage,
)
from piview.model.usage import model_key, usage_report
from piview.render.format import fmt_cost, fmt_duration_ms, fmt_iso_short, fmt_tokens
from piview.render.sanitize import sanitize, sanitize_line

__all__ = [
    "Doc",
    "DiffLine",
    "Image",
    "Part",
    "Section",
    "build_doc",
    "cmd_export",
    "export_branch",
]

Format = Literal["md", "html"]
ToolsMode = Literal["full", "preview", "none"]
PREVIEW_LINES = 10
"""Lines of tool output (and of long call content) kept in ``preview`` mode."""
_PREVIEW_LINE_CHARS = 400
_WRAPPER_RE = re.compile(
    r"<(?P<tag>file|skill)\b(?P<attrs>[^>]*)>\n?(?P<body>.*?)\n?</(?P=tag)>", re.DOTALL
)
_ATTR_RE = re.compile(r'(\w+)="([^"]*)"')
_DIFF_LINE = re.compile(r"^([+\- ])( *\d+) (.*)$", re.DOTALL)
_DIFF_SKIP = re.compile(r"^ +\.\.\.\s*$")
_MIME_RE = re.compile(r"^image/[a-z0-9.+-]{1,40}$")
_BUILTIN = ("read", "bash", "edit", "write", "grep", "find", "ls")
_LANGS = {
    "py": "python",
    "js": "javascript",
    "ts": "typescript",
    "tsx": "tsx",
    "json": "json",
    "md": "markdown",
    "sh": "bash",
    "toml": "toml",
    "yaml": "yaml",
    "yml": "yaml",
    "rs": "rust",
    "go": "go",
    "c": "c",
    "h": "c",
    "cpp": "cpp",
    "java": "java",
    "html": "html",
    "css": "css",
    "sql": "sql",
    "rb": "ruby",
    "txt": "",
}


# --------------------------------------------------------------------------- document model


@dataclass(slots=True)
class Image:
    """An image block: decoded bytes, or ``None`` with a ``note`` saying why not."""

    mime: str
    data: bytes | None
    entry_id: str
    n: int
    """1-based number of the image within its entry."""
    note: str = ""

    @property
    def ext(self) -> str:
        """File extension for the MIME type."""
        sub = self.mime.partition("/")[2]
        return {"jpeg": "jpg", "svg+xml": "svg"}.get(sub, re.sub(r"[^a-z0-9]", "", sub) or "img")


@dataclass(slots=True)
class DiffLine:
    """One line of an edit diff: sign ``+ - (space) …`` (skip) or ``?``, number and text."""

    sign: str
    num: str
    text: str


PartKind = Literal[
    "markdown",
    "code",
    "diff",
    "wrapper",
    "thinking",
    "redacted",
    "image",
    "tool",
    "note",
    "details",
]


@dataclass(slots=True)
class Part:
    """One piece of a section. Which fields matter depends on ``kind``."""

    kind: PartKind
    text: str = ""
    lang: str = ""
    more: int = 0
    """``code``: lines left out (negative: left out before the text, i.e. a tail)."""
    title: str = ""
    """``wrapper``/``tool``/``details``: the one-line summary."""
    status: str = ""
    """``tool``: ok, error, no_result or orphan_result; ``note``: dim, warn or error."""
    info: str = ""
    """``tool``: latency and the like."""
    image: Image | None = None
    diff: list[DiffLine] = field(default_factory=list)
    children: list[Part] = field(default_factory=list)


@dataclass(slots=True)
class Section:
    """One rendered entry (or a divider): a header line and its parts."""

    kind: str
    """user, assistant, tool, bash, custom, summary, compaction, system, divider or unknown."""
    title: str
    entry_id: str = ""
    time: str = ""
    label: str | None = None
    badges: list[tuple[str, str]] = field(default_factory=list)
    """``(text, css class)``: error, warn or dim."""
    parts: list[Part] = field(default_factory=list)


@dataclass(slots=True)
class Doc:
    """The whole export: a title, key facts, notes about what was left out, and the sections."""

    title: str
    facts: list[tuple[str, str]]
    notes: list[str]
    sections: list[Section]


# --------------------------------------------------------------------------- small helpers


def _clock(ts: object) -> str:
    if not isinstance(ts, str) or not ts:
        return ""
    try:
        dt = datetime.fromisoformat(ts)
    except ValueError:
        return ""
    return (dt.astimezone(UTC) if dt.tzinfo else dt).strftime("%H:%M:%S")


def _blocks(content: object) -> list[Any]:
    if isinstance(content, str):
        return [TextContent(text=content)] if content else []
    return list(content) if isinstance(content, list) else []


def _lines(n: int) -> str:
    return f"{n:,} line" + ("" if n == 1 else "s")


def _lang(path: str) -> str:
    return _LANGS.get(path.rpartition(".")[2].lower(), "") if "." in path else ""


def _cut(text: str, mode: ToolsMode, *, tail: bool = False, lang: str = "") -> Part:
    """A code part, cut to :data:`PREVIEW_LINES` lines in preview mode."""
    lines = text.split("\n")
    if mode != "preview" or len(lines) <= PREVIEW_LINES:
        return Part("code", text=text, lang=lang)
    keep = lines[-PREVIEW_LINES:] if tail else lines[:PREVIEW_LINES]
    keep = [ln if len(ln) <= _PREVIEW_LINE_CHARS else ln[:_PREVIEW_LINE_CHARS] + "…" for ln in keep]
    cut = len(lines) - PREVIEW_LINES
    return Part("code", text="\n".join(keep), lang=lang, more=-cut if tail else cut)


def _image(block: ImageContent, entry_id: str, n: int) -> Image:
    mime = block.mime_type.strip().lower() if isinstance(block.mime_type, str) else ""
    if not _MIME_RE.match(mime):
        return Image("image/unknown", None, entry_id, n, f"unsupported image type {mime!r}")
    raw = re.sub(r"\s+", "", block.data) if isinstance(block.data, str) else ""
    try:
        data = base64.b64decode(raw, validate=True)
    except (binascii.Error, ValueError):
        return Image(mime, None, entry_id, n, "invalid base64 data")
    if not data:
        return Image(mime, None, entry_id, n, "no image data")
    return Image(mime, data, entry_id, n)


def _split_wrappers(text: str) -> list[str | tuple[str, dict[str, str], str]]:
    if "<file" not in text and "<skill" not in text:
        return [text]
    out: list[str | tuple[str, dict[str, str], str]] = []
    pos = 0
    for m in _WRAPPER_RE.finditer(text):
        if m.start() > pos:
            out.append(text[pos : m.start()])
        out.append((m.group("tag"), dict(_ATTR_RE.findall(m.group("attrs"))), m.group("body")))
        pos = m.end()
    out.append(text[pos:])
    return out


def parse_diff(diff: str) -> list[DiffLine]:
    """Pi's numbered diff (``+NN text``, ``-NN text``, `` NN text``, skips) as lines."""
    out: list[DiffLine] = []
    for line in sanitize(diff, tabs=False).split("\n"):
        if _DIFF_SKIP.match(line):
            out.append(DiffLine("…", "", ""))
        elif m := _DIFF_LINE.match(line):
            out.append(DiffLine(m.group(1), m.group(2), m.group(3)))
        elif line or out:
            out.append(DiffLine("?", "", line))
    while out and out[-1] == DiffLine("?", "", ""):
        out.pop()
    return out


def _args_diff(args: dict[str, Any]) -> list[DiffLine]:
    pairs: list[tuple[object, object]] = []
    if isinstance(args.get("edits"), list):
        pairs += [
            (e.get("oldText"), e.get("newText")) for e in args["edits"] if isinstance(e, dict)
        ]
    if "oldText" in args or "newText" in args:
        pairs.append((args.get("oldText"), args.get("newText")))
    out: list[DiffLine] = []
    for k, (old, new) in enumerate(pairs):
        if k:
            out.append(DiffLine("…", "", ""))
        for sign, text in (("-", old), ("+", new)):
            if isinstance(text, str) and text:
                out += [DiffLine(sign, "", ln) for ln in sanitize(text, tabs=False).split("\n")]
    return out


def _arg(a: dict[str, Any], *names: str) -> str:
    for n in names:
        if isinstance(a.get(n), str) and a[n]:
            return sanitize_line(a[n])
    return ""


def _json(value: Any, indent: int | None = 2) -> str:
    try:
        return sanitize(
            json.dumps(value, indent=indent, ensure_ascii=False, default=str), tabs=False
        )
    except (TypeError, ValueError, RecursionError):
        return repr(value)[:2000]


def tool_title(name: str, args: object, namespace: str | None = None) -> str:
    """The one-line form of a call: ``read path:10-29``, ``$ cmd``, ``grep /pat/ in p``, …"""
    a: dict[str, Any] = args if isinstance(args, dict) else {}
    path = _arg(a, "path", "file_path")
    if name == "read":
        off, lim = a.get("offset"), a.get("limit")
        rng = ""
        if isinstance(off, int) or isinstance(lim, int):
            start = off if isinstance(off, int) else 1
            rng = f":{start}" + (f"-{start + lim - 1}" if isinstance(lim, int) else "")
        return f"read {path or '?'}{rng}"
    if name == "bash":
        cmd = sanitize(a.get("command")).strip()
        first, _, rest = cmd.partition("\n")
        return f"$ {first or '?'}" + (" …" if rest.strip() else "")
    if name == "edit":
        return f"edit {path or '?'}"
    if name == "write":
        content = a.get("content")
        size = f" ({_lines(content.count(chr(10)) + 1)})" if isinstance(content, str) else ""
        return f"write {path or '?'}{size}"
    if name == "grep":
        glob = _arg(a, "glob")
        return f"grep /{_arg(a, 'pattern')}/ in {path or '.'}" + (f" ({glob})" if glob else "")
    if name == "find":
        return f"find {_arg(a, 'pattern') or '?'} in {path or '.'}"
    if name == "ls":
        return f"ls {path or '.'}"
    full = sanitize_line(name) or "?"
    if namespace:
        full = f"{sanitize_line(namespace)}.{full}"
    preview = _json(args, None) if args else ""
    return f"{full} {preview[:80]}{'…' if len(preview) > 80 else ''}".rstrip()


# --------------------------------------------------------------------------- building the document


class _Builder:
    def __init__(self, session: Session, path: list[int], tools: ToolsMode, thinking: bool):
        self.s = session
        self.path = path
        self.on_path = set(path)
        self.tools = tools
        self.thinking = thinking
        self.rows: dict[tuple[int, int], ToolRow] = {}
        for r in tool_rows(session, path):
            self.rows[(r.entry, r.part)] = r
        self.hidden_custom = 0
        self.state_entries = 0
        self.images = 0
        leaf = path[-1] if path else None
        ctx = build_context(session, leaf) if leaf is not None else None
        self.compacted = set(ctx.hidden_by_compaction) if ctx else set()

    def content(self, blocks: list[Any], eid: str, *, markdown: bool = True) -> list[Part]:
        """User-like content: text (with file/skill wrappers), images, unknown blocks."""
        out: list[Part] = []
        for b in blocks:
            if isinstance(b, TextContent):
                for piece in _split_wrappers(sanitize(b.text, tabs=False)):
                    if isinstance(piece, str):
                        if piece.strip():
                            out.append(Part("markdown" if markdown else "code", text=piece))
                        continue
                    tag, attrs, body = piece
                    name = sanitize_line(attrs.get("name", "")) or "?"
                    what = f" ({_lines(body.count(chr(10)) + 1)})" if tag == "file" else ""
                    code = Part(
                        "code", text=body, lang=_lang(name) if tag == "file" else "markdown"
                    )
                    out.append(Part("wrapper", title=f"{tag} {name}{what}", children=[code]))
            elif isinstance(b, ImageContent):
                self.images += 1
                n = sum(1 for p in out if p.kind == "image") + 1
                out.append(Part("image", image=_image(b, eid, n)))
            elif isinstance(b, UnknownBlock):
                out.append(
                    Part("note", text=f"[{sanitize_line(b.block_type)} block]", status="dim")
                )
        return out

    def tool(self, i: int, k: int, call: ToolCall) -> Part:
        row = self.rows.get((i, k))
        status = row.status if row else "no_result"
        info = fmt_duration_ms(row.latency_ms) if row and row.latency_ms is not None else ""
        part = Part(
            "tool",
            title=tool_title(call.name, call.arguments, call.namespace),
            status=status,
            info=info,
        )
        if self.tools == "none":
            return part
        a: dict[str, Any] = call.arguments if isinstance(call.arguments, dict) else {}
        results = [r for r in self.s.pairing.call_results.get((i, k), []) if r in self.on_path]
        msgs = [(r, m) for r in results if isinstance(m := _message(self.s, r), ToolResultMessage)]
        kids = part.children
        if call.name == "bash":
            cmd = sanitize(a.get("command"), tabs=False).strip()
            if "\n" in cmd:
                kids.append(Part("code", text=cmd, lang="bash"))
        elif call.name == "edit":
            diff = next(
                (
                    m.details["diff"]
                    for _r, m in msgs
                    if isinstance(m.details, dict) and isinstance(m.details.get("diff"), str)
                ),
                None,
            )
            lines = parse_diff(diff) if diff is not None else _args_diff(a)
            if lines:
                kids.append(Part("diff", diff=lines))
        elif call.name == "write" and isinstance(a.get("content"), str):
            path = _arg(a, "path", "file_path")
            kids.append(_cut(sanitize(a["content"], tabs=False), self.tools, lang=_lang(path)))
        elif call.name not in _BUILTIN and call.arguments:
            kids.append(_cut(_json(call.arguments), self.tools, lang="json"))
        for r, m in msgs:
            kids.extend(self.result(r, m, tail=call.name == "bash"))
        if not msgs:
            kids.append(Part("note", text="no result", status="warn"))
        return part

    def result(self, r: int, m: ToolResultMessage, *, tail: bool = False) -> list[Part]:
        """The output of one tool result: text (cut in preview), images and notes."""
        eid = self.s.ids[r]
        text = "\n".join(
            sanitize(b.text, tabs=False) for b in m.content if isinstance(b, TextContent)
        ).strip("\n")
        out: list[Part] = []
        if text:
            out.append(_cut(text, self.tools, tail=tail))
            out[-1].status = "error" if m.is_error else ""
        out += [p for p in self.content(m.content, eid) if p.kind != "markdown"]
        d = m.details if isinstance(m.details, dict) else {}
        tr = d.get("truncation")
        notes = (
            ["output truncated by the tool"] if isinstance(tr, dict) and tr.get("truncated") else []
        )
        if isinstance(d.get("fullOutputPath"), str):
            notes.append(f"full output: {sanitize_line(d['fullOutputPath'])}")
        out += [Part("note", text=n, status="dim") for n in notes]
        if not text and not out:
            out.append(Part("note", text="(no output)", status="dim"))
        return out

    def assistant(self, i: int, msg: AssistantMessage, sec: Section) -> None:
        sec.title = f"Assistant · {sanitize_line(msg.model) or '?'}"
        u = msg.usage
        if u is not None:
            tok = sum(
                float(x)
                for x in (u.input, u.output, u.cache_read, u.cache_write)
                if isinstance(x, int | float)
            )
            cost = u.cost.total_cost() if u.cost is not None else 0.0
            sec.badges.append((f"{fmt_tokens(tok)} tok · {fmt_cost(cost)}", "dim"))
        for k, b in enumerate(msg.content):
            if isinstance(b, TextContent):
                if b.text.strip():
                    sec.parts.append(Part("markdown", text=sanitize(b.text, tabs=False)))
            elif isinstance(b, ThinkingContent):
                if not self.thinking:
                    continue
                if b.redacted or (not b.thinking.strip() and b.thinking_signature):
                    sec.parts.append(Part("redacted", text="thinking redacted by the provider"))
                elif b.thinking.strip():
                    sec.parts.append(Part("thinking", text=sanitize(b.thinking, tabs=False)))
            elif isinstance(b, ToolCall):
                sec.parts.append(self.tool(i, k, b))
            elif isinstance(b, UnknownBlock):
                sec.parts.append(Part("note", text=f"[{sanitize_line(b.block_type)} block]"))
        err = sanitize_line(msg.error_message) if msg.error_message else ""
        stop = {
            "aborted": (
                "Aborted" + (f": {err}" if err and err != "Request was aborted" else ""),
                "warn",
            ),
            "error": (f"Error: {err or 'unknown error'}", "error"),
            "length": ("Stopped: output token limit reached", "warn"),
            "deferred": ("Deferred: the response was not fetched", "warn"),
            "pending": ("Incomplete: still being written when saved", "warn"),
        }.get(msg.stop_reason)
        if stop:
            sec.parts.append(Part("note", text=stop[0], status=stop[1]))
            sec.badges.append((msg.stop_reason, stop[1]))
        elif not sec.parts:
            sec.parts.append(Part("note", text="(no text)", status="dim"))

    def section(self, i: int) -> Section | None:
        s = self.s
        e = s.entry(i)
        eid = s.ids[i]
        sec = Section("unknown", "", eid, _clock(e.timestamp), s.labels.get(i))
        if i in self.compacted:
            sec.badges.append(("compacted", "dim"))
        msg = e.message if isinstance(e, MessageEntry) else None
        if isinstance(msg, UserMessage):
            sec.kind, sec.title = "user", "User"
            sec.parts = self.content(_blocks(msg.content), eid)
        elif isinstance(msg, AssistantMessage):
            sec.kind = "assistant"
            self.assistant(i, msg, sec)
        elif isinstance(msg, ToolResultMessage):
            if i in s.pairing.result_call:
                return None  # drawn with its call
            sec.kind = "tool"
            sec.title = f"Tool result without a call: {sanitize_line(msg.tool_name) or '?'}"
            if self.tools != "none":
                sec.parts = self.result(i, msg)
        elif isinstance(msg, BashExecutionMessage):
            self.bash(msg, sec)
        elif isinstance(msg, CustomMessage) or isinstance(e, CustomMessageEntry):
            c = msg if isinstance(msg, CustomMessage) else e
            if not c.display:  # type: ignore[union-attr]
                self.hidden_custom += 1
                return None
            sec.kind, sec.title = "custom", f"[{sanitize_line(c.custom_type) or 'custom'}]"  # type: ignore[union-attr]
            sec.parts = self.content(_blocks(c.content), eid)  # type: ignore[union-attr]
        elif isinstance(msg, BranchSummaryMessage | CompactionSummaryMessage) or isinstance(
            e, BranchSummaryEntry | CompactionEntry
        ):
            self.summary(msg if msg is not None else e, sec)
        elif isinstance(msg, SystemMessage):
            self.system(msg, sec)
        elif isinstance(e, ModelChangeEntry):
            sec.kind, sec.title = (
                "divider",
                f"model → {sanitize_line(e.provider)}/{sanitize_line(e.model_id)}",
            )
        elif isinstance(e, ThinkingLevelChangeEntry):
            sec.kind, sec.title = "divider", f"thinking level → {sanitize_line(e.thinking_level)}"
        elif isinstance(e, SessionInfoEntry):
            name = sanitize_line(e.name).strip()
            sec.kind, sec.title = "divider", f"session named “{name}”" if name else "name cleared"
        elif isinstance(e, LabelEntry):
            return None  # shown next to the entry it labels
        elif isinstance(e, CustomEntry):
            self.state_entries += 1
            return None
        elif isinstance(msg, UnknownMessage):
            sec.title = f"Message with unknown role “{sanitize_line(msg.unknown_role)}”"
        elif isinstance(e, UnknownEntry):
            sec.title = f"Unknown entry type “{sanitize_line(e.entry_type)}”"
        else:
            sec.title = "Entry without a message"
        return sec

    def bash(self, m: BashExecutionMessage, sec: Section) -> None:
        sec.kind, sec.title = "bash", "Shell command (user)"
        if m.exclude_from_context:
            sec.badges.append(("!! not sent to the model", "warn"))
        if m.cancelled:
            sec.badges.append(("cancelled", "warn"))
        elif m.exit_code not in (0, None):
            sec.badges.append((f"exit {m.exit_code:g}", "error"))
        sec.parts.append(Part("code", text="$ " + sanitize(m.command, tabs=False), lang="bash"))
        out = sanitize(m.output, tabs=False).strip("\n")
        if self.tools != "none":
            sec.parts.append(
                _cut(out, self.tools, tail=True)
                if out
                else Part("note", text="(no output)", status="dim")
            )
        if m.truncated:
            where = f": {sanitize_line(m.full_output_path)}" if m.full_output_path else ""
            sec.parts.append(Part("note", text=f"output truncated{where}", status="dim"))

    def summary(self, m: Any, sec: Section) -> None:
        text = sanitize(m.summary, tabs=False)
        if isinstance(m, CompactionEntry | CompactionSummaryMessage):
            sec.kind, sec.title = "compaction", "Compaction"
            tokens = m.tokens_before if isinstance(m.tokens_before, int | float) else 0
            note = f"Earlier history ({fmt_tokens(tokens)} tokens) was replaced by this summary."
            sec.parts.append(Part("note", text=note, status="dim"))
            sec.parts.append(
                Part("details", title="Summary", children=[Part("markdown", text=text)])
            )
            return
        sec.kind, sec.title = "summary", "Branch summary"
        if m.from_id:
            sec.badges.append((f"from {sanitize_line(m.from_id)}", "dim"))
        sec.parts.append(
            Part("markdown", text=text)
            if text.strip()
            else Part("note", text="(empty summary: not sent to the model)", status="dim")
        )

    def system(self, m: SystemMessage, sec: Section) -> None:
        sec.kind, sec.title = (
            "system",
            "System prompt" + (" (replaces the previous one)" if m.replace else ""),
        )
        text = "\n".join(
            sanitize(b.text, tabs=False) for b in _blocks(m.content) if isinstance(b, TextContent)
        )
        if text.strip():
            sec.parts.append(
                Part(
                    "details",
                    title=f"Instructions ({_lines(text.count(chr(10)) + 1)})",
                    children=[Part("code", text=text)],
                )
            )
        for name, value in (m.sections or {}).items():
            if value is None:
                sec.parts.append(
                    Part("note", text=f"section {sanitize_line(name)} removed", status="dim")
                )
            else:
                body = Part("code", text=sanitize(value, tabs=False))
                sec.parts.append(
                    Part("details", title=f"Section {sanitize_line(name)}", children=[body])
                )
        added = ", ".join(sanitize_line(t.name) for t in m.tools_added or [])
        removed = ", ".join(sanitize_line(t.name) for t in m.tools_removed or [])
        if added or removed:
            tools = " · ".join(
                x
                for x in (added and f"tools added: {added}", removed and f"removed: {removed}")
                if x
            )
            sec.parts.append(Part("note", text=tools, status="dim"))


def _message(session: Session, i: int) -> Any:
    e = session.entry(i)
    return e.message if isinstance(e, MessageEntry) else None


def _first_user_text(session: Session, path: list[int]) -> str:
    for i in path:
        msg = _message(session, i) if session.nodes[i].role == "user" else None
        if isinstance(msg, UserMessage):
            for b in _blocks(msg.content):
                if isinstance(b, TextContent):
                    for piece in _split_wrappers(b.text):
                        if isinstance(piece, str) and (line := sanitize_line(piece).strip()):
                            return line if len(line) <= 80 else line[:79] + "…"
    return ""


def build_doc(session: Session, leaf: int | None, *, tools: ToolsMode, thinking: bool) -> Doc:
    """The branch root → ``leaf`` (default: the current leaf) as a neutral document."""
    if leaf is None:
        leaf = session.tree.leaf
    path = session.tree.path(leaf) if leaf is not None else []
    b = _Builder(session, path, tools, thinking)
    sections = [sec for i in path if (sec := b.section(i)) is not None]
    h = session.header
    nodes = session.nodes
    models = list(dict.fromkeys(model_key(nodes[i]) for i in path if nodes[i].role == "assistant"))
    report = usage_report(nodes, path)
    u = report.path
    roles = [nodes[i].role for i in path]
    calls = sum(1 for r in b.rows.values() if r.part >= 0)
    facts = [
        ("Session", sanitize_line(h.id) if h and h.id else "(no header)"),
        ("File", sanitize_line(session.path.name)),
        ("Directory", sanitize_line(h.cwd) if h and h.cwd else "?"),
        ("Started", fmt_iso_short(h.timestamp) + " UTC" if h and h.timestamp else "?"),
        ("Models", ", ".join(sanitize_line(m) for m in models) or "–"),
        ("Branch", f"leaf {session.ids[leaf]} · {len(path)} entries" if leaf is not None else "–"),
        (
            "Messages",
            f"{roles.count('user')} user · {roles.count('assistant')} assistant · "
            f"{calls} tool calls",
        ),
        (
            "Tokens",
            f"↑{fmt_tokens(u.input)} ↓{fmt_tokens(u.output)} "
            f"R {fmt_tokens(u.cache_read)} W {fmt_tokens(u.cache_write)}",
        ),
        ("Cost", fmt_cost(u.cost)),
    ]
    if report.tools_path.count:
        t = report.tools_path
        facts.append(("Tool usage", f"{fmt_tokens(t.tokens)} tokens · {fmt_cost(t.cost)} (nested)"))
    notes = [f"Times are UTC. Tools: {tools}; thinking {'shown' if thinking else 'hidden'}."]
    others = len(session.tree.leaves()) - 1
    if others > 0:
        notes.append(f"Only this branch is exported; {others} other branch(es) left out.")
    if b.hidden_custom:
        notes.append(f"{b.hidden_custom} hidden extension message(s) (display: false) omitted.")
    if b.state_entries:
        notes.append(f"{b.state_entries} extension state entr(y/ies) omitted.")
    if b.compacted:
        notes.append(f"{len(b.compacted)} entries marked “compacted” were summarised away.")
    if session.bad_lines:
        notes.append(f"{len(session.bad_lines)} unreadable line(s) of the file skipped.")
    title = session.name or _first_user_text(session, path) or "Pi session"
    return Doc(sanitize_line(title), facts, notes, sections)


# --------------------------------------------------------------------------- API and command


def export_branch(
    session: Session,
    leaf: int | None,
    *,
    fmt: Format,
    tools: ToolsMode,
    thinking: bool,
    out: Path,
) -> Path:
    """Write the branch root → ``leaf`` (default: the current leaf) to ``out``; return ``out``.

    ``fmt`` "html" writes one self-contained file (images as ``data:`` URIs); "md" writes
    Markdown and puts images in ``<out stem>_files/`` next to it. ``tools`` is "none" (one line
    per call), "preview" (the call and the first lines of output) or "full"; thinking is
    included only with ``thinking``. Nothing is written next to or over the session file.

    Raises:
        ValueError: ``out`` is the session file itself, or ``fmt``/``tools`` is unknown.
        OSError: the file (or the images folder) could not be written.
    """
    out = Path(out)
    if fmt not in ("md", "html") or tools not in ("full", "preview", "none"):
        raise ValueError(f"unknown format or tools mode: {fmt!r}, {tools!r}")
    src = Path(session.path)
    if out.exists() and src.exists() and out.resolve() == src.resolve():
        raise ValueError(f"refusing to overwrite the session file {src}")
    doc = build_doc(session, leaf, tools=tools, thinking=thinking)
    if fmt == "html":
        from piview.export_html import render_html

        text = render_html(doc, generator=f"piview {__version__}")
    else:
        from piview.export_md import render_md

        text = render_md(doc, out, protect=src)
    out.write_text(text, encoding="utf-8", errors="replace")
    return out


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="piview export",
        description="Export one branch of a session (root to leaf) as Markdown or HTML.",
    )
    p.add_argument("file", help="a Pi session file (.jsonl)")
    p.add_argument("--leaf", metavar="ID", help="the branch through this entry (id prefix)")
    p.add_argument("--format", choices=("md", "html"), help="default: from -o, else md")
    p.add_argument(
        "--tools",
        choices=("full", "preview", "none"),
        default="preview",
        help="tool output: everything, the first lines (default), or one line per call",
    )
    p.add_argument("--thinking", action="store_true", help="include the model's thinking")
    p.add_argument(
        "-o",
        "--output",
        metavar="OUT",
        help="output file or directory (default: <session name>.<format> here)",
    )
    return p


def cmd_export(argv: list[str]) -> int:
    """``piview export FILE [--leaf ID] [--format md|html] [--tools …] [--thinking] [-o OUT]``.

    Prints the written path on stdout. Raises ``CliError`` (one line for the user) when the file
    cannot be read, the id is unknown or the output cannot be written.
    """
    from piview.cli import CliError, _load, resolve_branch

    args = _parser().parse_args(argv)
    session = _load(args.file)
    leaf, _entry = resolve_branch(session, args.leaf, args.file)
    out = Path(args.output) if args.output else None
    fmt = args.format
    if fmt is None:
        fmt = "html" if out is not None and out.suffix.lower() in (".html", ".htm") else "md"
    if out is None or out.is_dir():
        out = (out or Path.cwd()) / f"{Path(args.file).stem}.{fmt}"
    try:
        written = export_branch(
            session, leaf, fmt=fmt, tools=args.tools, thinking=args.thinking, out=out
        )
    except (OSError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise CliError(f"cannot export to {out}: {reason}") from None
    finally:
        session.close()
    sys.stdout.write(f"{written}\n")
    return 0
