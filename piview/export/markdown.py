"""Provides the Markdown writer of ``piview export``.

Message text is Markdown already and is kept as such, but made to render as the HTML export
shows it: what an HTML-enabled renderer would take as a tag (``my <Widget> component``) is
escaped outside code, and the message's single line breaks are kept as hard breaks (two
trailing spaces). Everything else taken from the session (titles, labels, tool output, code)
is escaped or fenced so it cannot change the document's structure. Images are written as files
in ``<out stem>_files/`` next to the output and linked with relative paths.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import quote

from markdown_it import MarkdownIt

from piview.export.doc import Doc, Image, Part, Section, more_text
from piview.model.fsio import atomic_write

_STATUS = {"ok": "✓", "error": "✗ error", "no_result": "⋯ no result", "orphan_result": "orphan"}
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>#|~&])")


def esc(text: str) -> str:
    """Escape Markdown syntax in one line of plain text."""
    return _MD_SPECIAL.sub(r"\\\1", " ".join(text.split("\n")))


def code_span(text: str) -> str:
    """``text`` as an inline code span, whatever backticks it holds."""
    text = " ".join(text.split("\n"))
    runs = [len(r) for r in re.findall(r"`+", text)]
    ticks = "`" * (max(runs, default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def fence(text: str, lang: str = "") -> str:
    """``text`` as a fenced code block longer than any backtick run inside it."""
    runs = [len(r) for r in re.findall(r"`{3,}", text)]
    ticks = "`" * max(3, max(runs, default=0) + 1)
    return f"{ticks}{re.sub(r'[^A-Za-z0-9_+-]', '', lang)}\n{text}\n{ticks}"


_FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def close_fences(text: str) -> str:
    """Verbatim Markdown with an unclosed code fence closed, so it cannot swallow the rest."""
    opener = ""
    for line in text.split("\n"):
        m = _FENCE_RE.match(line)
        if not m:
            continue
        run = m.group(1)
        if not opener:
            opener = run
        elif run[0] == opener[0] and len(run) >= len(opener) and not line.strip(" `~"):
            opener = ""
    return f"{text}\n{opener}" if opener else text


_PARSER = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])
_TICKS = re.compile(r"`+")
_LT = re.compile(r"<(?![A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*>|[^\s<>@]+@[^\s<>@]+>)")
"""A ``<`` that does not start an autolink (``<https://…>``, ``<a@b.c>``)."""


def _escape_tags(text: str) -> str:
    """``<`` outside code spans escaped, so that no renderer takes it for HTML."""
    out: list[str] = []
    pos = 0
    while (m := _TICKS.search(text, pos)) is not None:
        out.append(_LT.sub(r"\\<", text[pos : m.start()]))
        # A code span runs to the next run of as many backticks; an unmatched run is text.
        end = re.search(rf"(?<!`){m.group()}(?!`)", text[m.end() :])
        stop = m.end() + end.end() if end else m.end()
        out.append(text[m.start() : stop])
        pos = stop
    out.append(_LT.sub(r"\\<", text[pos:]))
    return "".join(out)


def message_md(text: str) -> str:
    """Message Markdown that renders anywhere as the HTML export shows it.

    Code blocks are left alone; elsewhere a ``<`` that would open an HTML tag is escaped, and
    each line break inside a paragraph becomes a hard break, as the HTML writer's
    ``breaks`` option draws it.
    """
    text = close_fences(text)
    lines = text.split("\n")
    code: set[int] = set()
    breaks: set[int] = set()
    for tok in _PARSER.parse(text):
        if tok.map is None:
            continue
        start, end = tok.map
        if tok.type in ("fence", "code_block"):
            code.update(range(start, end))
        elif tok.type == "paragraph_open":
            breaks.update(range(start, end - 1))
    out: list[str] = []
    run: list[str] = []
    for n, line in enumerate(lines):
        if n in code:
            if run:
                out.append(_escape_tags("\n".join(run)))
                run = []
            out.append(line)
            continue
        if n in breaks and line.strip() and not line.endswith(("  ", "\\")):
            line = line.rstrip(" ") + "  "
        run.append(line)
    if run:
        out.append(_escape_tags("\n".join(run)))
    return "\n".join(out)


def plain_md(text: str) -> str:
    """Plain text (not Markdown) as Markdown: every special character escaped, lines kept."""
    return "  \n".join(_MD_SPECIAL.sub(r"\\\1", ln) for ln in text.split("\n"))


def _ext(mime: str) -> str:
    sub = mime.partition("/")[2]
    return {"jpeg": "jpg", "svg+xml": "svg"}.get(sub, re.sub(r"[^a-z0-9]", "", sub)[:10] or "bin")


class _Writer:
    def __init__(self, out: Path, protect: Path | None) -> None:
        self.folder = out.parent / f"{out.stem}_files"
        self.rel = f"{out.stem}_files"
        self.protect = protect.resolve() if protect is not None else None
        self.used: set[str] = set()

    def image(self, img: Image) -> str:
        if img.data is None:
            return f"*\\[image not shown: {esc(img.note)}\\]*"
        stem = re.sub(r"[^A-Za-z0-9_-]", "_", img.entry_id)[:64] or "entry"
        name = f"img-{stem}-{img.n}.{_ext(img.mime)}"
        k = 2
        while name in self.used:
            name, k = f"img-{stem}-{img.n}-{k}.{_ext(img.mime)}", k + 1
        self.used.add(name)
        path = self.folder / name
        if self.protect is not None and path.resolve() == self.protect:
            return "*\\[image not shown: its file name is the session file's\\]*"
        self.folder.mkdir(exist_ok=True)
        atomic_write(path, img.data)
        return f"![image {img.n} ({esc(img.mime)})]({quote(self.rel)}/{quote(name)})"

    def part(self, p: Part) -> str:
        k = p.kind
        if k == "markdown":
            return message_md(p.text)
        if k == "code":
            before = f"*{more_text(p.more)}*\n\n" if p.more < 0 else ""
            after = f"\n\n*{more_text(p.more)}*" if p.more > 0 else ""
            return before + fence(p.text, p.lang) + after
        if k == "diff":
            return fence(p.text, "diff")
        if k == "wrapper":
            return f"> ▸ {esc(p.title)} *(content not included)*"
        if k == "thinking":
            # The HTML shows thinking as plain text: escape it all, keep its lines.
            body = "\n".join("> " + ln if ln else ">" for ln in plain_md(p.text).split("\n"))
            return "> **Thinking**\n>\n" + body
        if k == "redacted":
            return f"> *{esc(p.text)}*"
        if k == "image":
            return self.image(p.image) if p.image is not None else ""
        if k == "tool":
            status = _STATUS.get(p.status, p.status)
            info = f" · {esc(p.info)}" if p.info else ""
            info += f" · 🏷 {esc(p.label)}" if p.label else ""
            head = f"- ▸ {code_span(p.title)} — {status}{info}"
            return "\n\n".join([head, *(self.part(c) for c in p.children)])
        if k == "note":
            return f"**⚠ {esc(p.text)}**" if p.status == "error" else f"*{esc(p.text)}*"
        if k == "details":
            return "\n\n".join([f"**{esc(p.title)}**", *(self.part(c) for c in p.children)])
        if k == "rich":  # a plugin's drawing, as its plain text
            return fence(p.text)
        return ""

    def section(self, s: Section) -> str:
        if s.kind == "divider":
            label = f" 🏷 {esc(s.label)}" if s.label else ""
            return f"*── {esc(s.title)} ──*{label}"
        meta = [esc(s.title)]
        meta += [s.time] if s.time else []
        meta += [code_span(s.entry_id)] if s.entry_id else []
        meta += [f"🏷 {esc(s.label)}"] if s.label else []
        meta += [f"**{esc(t)}**" if kind == "error" else f"*{esc(t)}*" for t, kind in s.badges]
        body = [self.part(p) for p in s.parts]
        return "\n\n".join(["### " + " · ".join(meta), *(b for b in body if b)])


def render_md(doc: Doc, out: Path, *, protect: Path | None = None) -> str:
    """The document as Markdown; images are written to ``<out stem>_files/`` next to ``out``.

    ``protect`` is a path never to write (the session file).
    """
    w = _Writer(Path(out), protect)
    lines = [f"# {esc(doc.title)}", "", "| | |", "|---|---|"]
    lines += [f"| **{esc(k)}** | {esc(v)} |" for k, v in doc.facts]
    lines += [""] + [f"> {esc(n)}  " for n in doc.notes]
    body = "\n\n".join(w.section(s) for s in doc.sections)
    return "\n".join(lines).rstrip() + "\n\n---\n\n" + body + "\n"
