"""Provides the HTML writer of ``piview export``: one self-contained file, no scripts.

Every string from the session is escaped. Message text is Markdown, converted with
markdown-it with raw HTML disabled (so ``<script>`` shows as text) and links limited to
``http``, ``https``, ``mailto`` and in-page anchors. A Content-Security-Policy forbids scripts
and every remote load as a second line of defence; images are embedded as ``data:`` URIs.
Colours follow the reader's light or dark preference.
"""

from __future__ import annotations

import base64
import re
from html import escape
from typing import Any

from markdown_it import MarkdownIt

from piview.export.doc import Doc, Part, Section, more_text

__all__ = ["render_html"]

_STATUS = {"ok": "✓", "error": "✗ error", "no_result": "⋯ no result", "orphan_result": "orphan"}
_DIFF_LINE = re.compile(r"^([+\- ])( *\d+)(?: (.*))?$", re.DOTALL)
_DIFF_SKIP = re.compile(r"^ +\.\.\.\s*$")
_SAFE_LINK = re.compile(r"^(?:https?:|mailto:|#|/|\./|\.\./|[^:/?#]+(?:[/?#]|$))", re.IGNORECASE)
_CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; base-uri 'none'"

CSS = """
:root { color-scheme: light dark;
  --bg: #f6f7f9; --fg: #1f2328; --muted: #636c76; --card: #fff; --border: #d5dbe1;
  --user: #eaf2ff; --user-edge: #3b82f6; --asst-edge: #8b949e; --tool: #f6f8fa;
  --custom: #f4efff; --custom-edge: #8250df; --summary: #fff8e1; --summary-edge: #bf8700;
  --ok: #1a7f37; --err: #cf222e; --warn: #9a6700; --err-bg: #fff0f0; --code: #f3f4f6;
  --add: #e6ffec; --add-fg: #116329; --del: #ffebe9; --del-fg: #82071e;
  --add-mark: #abf2bc; --del-mark: #ffc1c0; --link: #0969da; }
@media (prefers-color-scheme: dark) { :root {
  --bg: #0d1117; --fg: #e6edf3; --muted: #8d96a0; --card: #151b23; --border: #30363d;
  --user: #14233a; --user-edge: #58a6ff; --asst-edge: #6e7681; --tool: #10151c;
  --custom: #221a33; --custom-edge: #a371f7; --summary: #2b2413; --summary-edge: #d29922;
  --ok: #3fb950; --err: #f85149; --warn: #d29922; --err-bg: #2d1416; --code: #0b0f14;
  --add: #12261a; --add-fg: #7ee787; --del: #2d1618; --del-fg: #ffa198;
  --add-mark: #1f6f3a; --del-mark: #8e2b30; --link: #58a6ff; } }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 15px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
main { max-width: 900px; margin: 0 auto; padding: 24px 16px 64px; }
a { color: var(--link); }
pre, code, .mono, .tool-head, .meta { font-family: ui-monospace, SFMono-Regular, Menlo,
  Consolas, "DejaVu Sans Mono", monospace; font-size: 13px; }
pre { background: var(--code); border: 1px solid var(--border); border-radius: 6px;
  padding: 8px 10px; margin: 8px 0; overflow: auto; max-height: 40em; line-height: 1.45;
  tab-size: 4; }
:not(pre) > code { background: var(--code); padding: 1px 4px; border-radius: 4px; }
h1 { font-size: 1.5em; margin: 0 0 12px; overflow-wrap: anywhere; }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 0; }
.facts dt { color: var(--muted); } .facts dd { margin: 0; overflow-wrap: anywhere; }
.notes { color: var(--muted); font-size: 13px; padding-left: 18px; }
header.doc { border-bottom: 1px solid var(--border); padding-bottom: 12px; margin-bottom: 20px; }
.msg { background: var(--card); border: 1px solid var(--border); border-left: 4px solid
  var(--asst-edge); border-radius: 8px; padding: 10px 14px; margin: 14px 0; }
.msg.user { background: var(--user); border-left-color: var(--user-edge); }
.msg.custom { background: var(--custom); border-left-color: var(--custom-edge); }
.msg.summary, .msg.compaction { background: var(--summary);
  border-left-color: var(--summary-edge); }
.msg.bash, .msg.tool, .msg.system { background: var(--tool); }
.msg.unknown { color: var(--muted); border-style: dashed; }
.msg.compacted { opacity: .72; }
.head { display: flex; flex-wrap: wrap; gap: 4px 10px; align-items: baseline; margin-bottom: 4px; }
.role { font-weight: 600; } .meta { color: var(--muted); margin-left: auto; font-size: 12px; }
.meta a { color: inherit; text-decoration: none; }
.badge { font-size: 12px; border: 1px solid var(--border); border-radius: 10px; padding: 0 7px; }
.badge.error { color: var(--err); border-color: var(--err); }
.badge.warn { color: var(--warn); border-color: var(--warn); }
.badge.dim { color: var(--muted); } .badge.label { color: var(--link); border-color: var(--link); }
.md h1, .md h2, .md h3, .md h4 { font-size: 1.08em; margin: .9em 0 .4em; }
.md > :first-child { margin-top: 0; } .md > :last-child { margin-bottom: 0; }
.md img { max-width: 100%; } .md table { border-collapse: collapse; }
.md th, .md td { border: 1px solid var(--border); padding: 3px 8px; }
.md blockquote { margin: 0; padding-left: 12px; border-left: 3px solid var(--border);
  color: var(--muted); }
.tool { border: 1px solid var(--border); border-radius: 6px; margin: 8px 0; padding: 4px 10px;
  background: var(--tool); }
.tool.error { background: var(--err-bg); border-color: var(--err); }
.tool-head { display: flex; gap: 10px; } .tool-title { overflow-wrap: anywhere; flex: 1; }
.st { white-space: nowrap; color: var(--muted); } .st.ok { color: var(--ok); }
.st.error { color: var(--err); } .st.no_result, .st.orphan_result { color: var(--warn); }
pre.error { border-color: var(--err); }
.note { margin: 6px 0; font-size: 13px; color: var(--muted); font-style: italic; }
.note.warn { color: var(--warn); } .note.error { color: var(--err); font-style: normal; }
.more { margin: -4px 0 6px; font-size: 12px; color: var(--muted); }
details { margin: 6px 0; } summary { cursor: pointer; color: var(--muted); }
details.thinking > div { white-space: pre-wrap; color: var(--muted); font-style: italic;
  border-left: 3px solid var(--border); padding-left: 10px; margin: 4px 0; }
.divider { display: flex; align-items: center; gap: 10px; color: var(--muted); font-size: 13px;
  margin: 18px 0; } .divider::before, .divider::after { content: ""; flex: 1;
  border-top: 1px dashed var(--border); }
pre.diff { padding: 6px 0; white-space: pre-wrap; overflow-wrap: anywhere; }
pre.diff span.l { display: block; padding: 0 10px; }
.l.add { background: var(--add); color: var(--add-fg); }
.l.del { background: var(--del); color: var(--del-fg); }
.l.add mark { background: var(--add-mark); color: inherit; }
.l.del mark { background: var(--del-mark); color: inherit; }
.l .n { color: var(--muted); user-select: none; } .l.skip { color: var(--muted); }
figure { margin: 8px 0; } figure img { max-width: 100%; height: auto; border-radius: 4px;
  border: 1px solid var(--border); }
footer { margin-top: 32px; color: var(--muted); font-size: 12px; text-align: center; }
"""


def _validate_link(url: str) -> bool:
    return bool(_SAFE_LINK.match(url.strip()))


def _image_rule(self: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
    # Images in message Markdown would load remote content: show them as links instead.
    tok = tokens[idx]
    alt = escape(self.renderInlineAsText(tok.children or [], options, env) or "image")
    src = str(tok.attrGet("src") or "")
    if src.lower().startswith(("http:", "https:")):
        return f'<a href="{escape(src)}" rel="noopener noreferrer">[image: {alt}]</a>'
    return f"[image: {alt}]"


def _link_rule(self: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
    tokens[idx].attrSet("rel", "noopener noreferrer")
    return self.renderToken(tokens, idx, options, env)


def _markdown() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "breaks": True, "linkify": False})
    md.enable(["table", "strikethrough"])
    md.validateLink = _validate_link  # type: ignore[method-assign]
    md.add_render_rule("image", _image_rule)
    md.add_render_rule("link_open", _link_rule)
    return md


def _mark(a: str, b: str) -> tuple[str, str]:
    """Both lines escaped, with the span where they differ wrapped in ``<mark>``."""
    p, n = 0, min(len(a), len(b))
    while p < n and a[p] == b[p]:
        p += 1
    s = 0
    while s < n - p and a[-1 - s] == b[-1 - s]:
        s += 1
    if p == 0 and s == 0:
        return escape(a), escape(b)

    def m(t: str) -> str:
        mid = t[p : len(t) - s]
        mid_html = f"<mark>{escape(mid)}</mark>" if mid else ""
        return escape(t[:p]) + mid_html + escape(t[len(t) - s :])

    return m(a), m(b)


def diff_html(diff: str) -> str:
    """Pi's numbered diff as coloured lines; a lone ``-``/``+`` pair gets the change marked."""
    rows: list[tuple[str, str, str]] = []
    for line in diff.split("\n"):
        if _DIFF_SKIP.match(line):
            rows.append(("skip", "", "⋮"))
        elif m := _DIFF_LINE.match(line):
            kind = {"+": "add", "-": "del"}.get(m.group(1), "ctx")
            rows.append((kind, m.group(2), m.group(3) or ""))
        else:
            sign = line[:1]
            kind = {"+": "add", "-": "del"}.get(sign, "ctx")
            rows.append((kind, "", line[1:] if kind != "ctx" or sign == " " else line))
    texts = [escape(t) for _k, _n, t in rows]
    for j in range(1, len(rows)):
        lone_del = rows[j - 1][0] == "del" and (j < 2 or rows[j - 2][0] != "del")
        lone_add = rows[j][0] == "add" and (j + 1 == len(rows) or rows[j + 1][0] != "add")
        if lone_del and lone_add:
            texts[j - 1], texts[j] = _mark(rows[j - 1][2], rows[j][2])
    out = []
    for (kind, num, _t), text in zip(rows, texts, strict=True):
        sign = {"add": "+", "del": "-"}.get(kind, " ")
        n = f'<span class="n">{escape(num)} </span>' if num else ""
        out.append(f'<span class="l {kind}">{n}{sign}{text}\n</span>')
    return '<pre class="diff">' + "".join(out) + "</pre>"


class _Writer:
    def __init__(self) -> None:
        self.md = _markdown()

    def part(self, p: Part) -> str:
        k = p.kind
        if k == "markdown":
            return f'<div class="md">{self.md.render(p.text)}</div>'
        if k == "code":
            cls = f' class="language-{escape(p.lang)}"' if p.lang else ""
            st = f" {escape(p.status)}" if p.status else ""
            pre = f'<pre class="code{st}"><code{cls}>{escape(p.text)}</code></pre>'
            if p.more < 0:
                return f'<p class="more">{more_text(p.more)}</p>{pre}'
            return pre + (f'<p class="more">{more_text(p.more)}</p>' if p.more > 0 else "")
        if k == "diff":
            return diff_html(p.text)
        if k in ("wrapper", "details"):
            kids = "".join(self.part(c) for c in p.children)
            return f'<details class="{k}"><summary>{escape(p.title)}</summary>{kids}</details>'
        if k == "thinking":
            body = f"<summary>Thinking</summary><div>{escape(p.text)}</div>"
            return f'<details class="thinking" open>{body}</details>'
        if k == "redacted":
            return f'<p class="note">⊘ {escape(p.text)}</p>'
        if k == "image" and p.image is not None:
            img = p.image
            if img.data is None:
                return f'<p class="note warn">[image not shown: {escape(img.note)}]</p>'
            b64 = base64.b64encode(img.data).decode("ascii")
            alt = f"image {img.n} ({img.mime})"
            src = f"data:{img.mime};base64,{b64}"
            return f'<figure><img src="{escape(src)}" alt="{escape(alt)}"></figure>'
        if k == "tool":
            st = escape(p.status)
            info = escape(_STATUS.get(p.status, p.status)) + (
                f" · {escape(p.info)}" if p.info else ""
            )
            head = (
                f'<div class="tool-head"><span class="tool-title">▸ {escape(p.title)}</span>'
                f'<span class="st {st}">{info}</span></div>'
            )
            kids = "".join(self.part(c) for c in p.children)
            return f'<div class="tool {st}">{head}{kids}</div>'
        if k == "note":
            return f'<p class="note {escape(p.status)}">{escape(p.text)}</p>'
        return ""

    def section(self, s: Section) -> str:
        if s.kind == "divider":
            label = f' <span class="badge label">🏷 {escape(s.label)}</span>' if s.label else ""
            return f'<div class="divider">{escape(s.title)}{label}</div>'
        badges = [f'<span class="badge label">🏷 {escape(s.label)}</span>'] if s.label else []
        badges += [f'<span class="badge {escape(k)}">{escape(t)}</span>' for t, k in s.badges]
        anchor = escape("e-" + s.entry_id)
        meta = escape(s.time) + (
            f' <a href="#{anchor}">#{escape(s.entry_id)}</a>' if s.entry_id else ""
        )
        head = (
            f'<div class="head"><span class="role">{escape(s.title)}</span>{"".join(badges)}'
            f'<span class="meta">{meta}</span></div>'
        )
        body = "\n".join(self.part(p) for p in s.parts)
        cls = escape(s.kind) + (" compacted" if ("compacted", "dim") in s.badges else "")
        ident = f' id="{anchor}"' if s.entry_id else ""
        return f'<section class="msg {cls}"{ident}>{head}\n{body}</section>'


def render_html(doc: Doc, *, generator: str = "piview") -> str:
    """The document as one self-contained HTML page (inline CSS, no scripts, no remote loads)."""
    w = _Writer()
    facts = "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in doc.facts)
    notes = "".join(f"<li>{escape(n)}</li>" for n in doc.notes)
    sections = "\n".join(w.section(s) for s in doc.sections)
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{escape(_CSP)}">\n'
        f'<meta name="generator" content="{escape(generator)}">\n'
        f"<title>{escape(doc.title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n<main>\n"
        f'<header class="doc"><h1>{escape(doc.title)}</h1><dl class="facts">{facts}</dl>'
        f'<ul class="notes">{notes}</ul></header>\n{sections}\n'
        f"<footer>Exported by {escape(generator)}</footer>\n</main>\n</body>\n</html>\n"
    )
