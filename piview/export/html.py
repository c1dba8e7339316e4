"""Provides the HTML writer of ``piview export``: one self-contained file, no scripts.

Every string from the session is escaped. Message text is Markdown, converted with
markdown-it with raw HTML disabled (so ``<script>`` shows as text) and links limited to
``http``, ``https``, ``mailto`` and in-page anchors. A Content-Security-Policy forbids scripts
and every remote load as a second line of defence; images are embedded as ``data:`` URIs.
Colours follow the reader's light or dark preference (:mod:`piview.export.html_style`).

What needs no script: a contents list of the user turns, an ``entry-<id>`` anchor on every
entry, tool calls and cut outputs as ``<details>`` (the preview is the summary, the whole
output behind it), and checkboxes styled as switches that show or hide thinking and output.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable
from html import escape
from typing import Any

from markdown_it import MarkdownIt
from mdit_py_plugins.tasklists import tasklists_plugin

from piview.export.doc import FULL_CAP, Doc, Part, Section, check_stop, more_text
from piview.export.html_style import HL_BUDGET, Highlighter, css

_STATUS = {"ok": "✓", "error": "✗ error", "no_result": "⋯ no result", "orphan_result": "orphan"}
_DIFF_LINE = re.compile(r"^([+\- ])( *\d+)(?: (.*))?$", re.DOTALL)
_DIFF_SKIP = re.compile(r"^ +\.\.\.\s*$")
_SAFE_LINK = re.compile(r"^(?:https?:|mailto:|#|/|\./|\.\./|[^:/?#]+(?:[/?#]|$))", re.IGNORECASE)
_CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; base-uri 'none'"
_TAG_SVG = (
    '<svg class="ico" viewBox="0 0 16 16" aria-hidden="true"><path fill="currentColor" '
    'fill-rule="evenodd" d="M1 1.5V7l8 8 6-6-8-8H1.5zM4.5 3a1.5 1.5 0 1 1 0 3 '
    '1.5 1.5 0 0 1 0-3z"/></svg>'
)
_TOC_WORDS = 60
_MD_MARKS = re.compile(r"`+|\*\*|__|^\s{0,3}(?:#{1,6}|>)\s*", re.M)


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


def _markdown(hl: Highlighter) -> MarkdownIt:
    md = MarkdownIt(
        "commonmark",
        {"html": False, "breaks": True, "linkify": False, "highlight": _fence_highlighter(hl)},
    )
    md.enable(["table", "strikethrough"])
    md.use(tasklists_plugin)
    md.validateLink = _validate_link  # type: ignore[method-assign]
    md.add_render_rule("image", _image_rule)
    md.add_render_rule("link_open", _link_rule)
    return md


def _fence_highlighter(hl: Highlighter) -> Any:
    def highlight(code: str, lang: str, _attrs: str) -> str:
        # markdown-it wraps the result in <pre><code class="language-…">; "" keeps it plain.
        name = lang.strip().split(maxsplit=1)[0] if lang.strip() else ""
        return hl.html(code, name) if name else ""

    return highlight


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


def _badge_label(label: str) -> str:
    return f'<span class="badge label" title="label">{_TAG_SVG}{escape(label)}</span>'


class _Writer:
    def __init__(self, ids: set[str]) -> None:
        self.hl = Highlighter()
        self.md = _markdown(self.hl)
        self.ids = ids
        """Entry ids that have an anchor on the page."""
        self.outputs = 0
        """Tool calls and shell commands drawn with their output."""
        self.expandable = 0
        """Outputs cut to a preview, with the whole behind them."""
        self.previews_only = False
        """The page has more code than the highlighting budget: highlight previews only."""

    def pre(self, text: str, lang: str, status: str = "", *, html: str | None = None) -> str:
        cls = f' class="language-{escape(lang)}"' if lang else ""
        st = f" {escape(status)}" if status else ""
        body = self.hl.html(text, lang) if html is None else html
        return f'<pre class="code{st}"><code{cls}>{body}</code></pre>'

    def code(self, p: Part) -> str:
        if not p.full:
            pre = self.pre(p.text, p.lang, p.status)
            if p.more < 0:
                return f'<p class="more">{more_text(p.more)}</p>{pre}'
            return pre + (f'<p class="more">{more_text(p.more)}</p>' if p.more > 0 else "")
        self.expandable += 1
        # The preview is the summary; the whole text is one click away. Highlight the whole
        # once and take the preview's lines from it (spans close at each line end); on a page
        # with more code than the budget, highlight only the previews, which show first.
        full_html = self.hl.html(p.full, "" if self.previews_only else p.lang)
        k = p.text.count("\n") + 1
        tail = p.more < 0

        def cut(text: str) -> str:  # the first (or last) k lines, without splitting them all
            return "\n".join(text.rsplit("\n", k)[-k:] if tail else text.split("\n", k)[:k])

        if not self.previews_only and cut(p.full) == p.text:
            pre = self.pre(p.text, p.lang, p.status, html=cut(full_html))
        else:  # preview lines were shortened, or only previews are highlighted
            pre = self.pre(p.text, p.lang, p.status)
        n = p.full.count("\n") + 1
        more = (
            f'<span class="more"><span class="c">▸ {more_text(p.more)} · show all</span>'
            f'<span class="o">▾ all {n:,} lines · hide</span></span>'
        )
        summary = more + pre if p.more < 0 else pre + more
        cap = ""
        if p.capped:
            where = "earlier" if p.more < 0 else "further"
            cap = (
                f'<p class="note">… {p.capped:,} {where} characters are not kept in this page '
                f"(one block keeps up to {FULL_CAP:,}).</p>"
            )
        body = self.pre(p.full, p.lang, p.status, html=full_html)
        body = cap + body if p.more < 0 else body + cap
        return f'<details class="out"><summary>{summary}</summary>{body}</details>'

    def tool(self, p: Part) -> str:
        st = escape(p.status)
        info = escape(_STATUS.get(p.status, p.status)) + (f" · {escape(p.info)}" if p.info else "")
        label = _badge_label(p.label) if p.label else ""
        ids = [f"entry-{a}" for a in p.anchors]
        ident = f' id="{escape(ids[0])}"' if ids else ""
        extra = "".join(f'<a id="{escape(x)}"></a>' for x in ids[1:])
        head = (
            f'<span class="tool-title">{escape(p.title)}</span>{label}'
            f'<span class="st {st}">{info}</span>'
        )
        kids = "".join(self.part(c) for c in p.children)
        self.outputs += bool(kids)
        if not kids:
            return f'<div class="tool {st}"{ident}><div class="tool-head">{head}</div>{extra}</div>'
        return (
            f'<details class="tool {st}" open{ident}><summary class="tool-head">{head}</summary>'
            f"{extra}{kids}</details>"
        )

    def part(self, p: Part) -> str:
        k = p.kind
        if k == "markdown":
            return f'<div class="md">{self.md.render(p.text)}</div>'
        if k == "code":
            return self.code(p)
        if k == "diff":
            return diff_html(p.text)
        if k in ("wrapper", "details"):
            kids = "".join(self.part(c) for c in p.children)
            return f'<details class="{k}"><summary>{escape(p.title)}</summary>{kids}</details>'
        if k == "thinking":
            body = f"<summary>Thinking</summary><div>{escape(p.text)}</div>"
            return f'<details class="thinking" open>{body}</details>'
        if k == "redacted":
            return f'<p class="note thinking">⊘ {escape(p.text)}</p>'
        if k == "image" and p.image is not None:
            img = p.image
            if img.data is None:
                return f'<p class="note warn">[image not shown: {escape(img.note)}]</p>'
            b64 = base64.b64encode(img.data).decode("ascii")
            alt = f"image {img.n} ({img.mime})"
            src = f"data:{img.mime};base64,{b64}"
            return f'<figure><img src="{escape(src)}" alt="{escape(alt)}"></figure>'
        if k == "tool":
            return self.tool(p)
        if k == "note":
            return f'<p class="note {escape(p.status)}">{escape(p.text)}</p>'
        if k == "rich":  # a plugin's drawing: Rich's HTML export, which escaped the text
            return p.html
        return ""

    def badge(self, s: Section, text: str, kind: str) -> str:
        if s.from_id and text == f"from {s.from_id}" and s.from_id in self.ids:
            href = escape(f"#entry-{s.from_id}")
            return f'<a class="badge {escape(kind)}" href="{href}">{escape(text)}</a>'
        return f'<span class="badge {escape(kind)}">{escape(text)}</span>'

    def section(self, s: Section) -> str:
        extra = "".join(f'<a id="{escape("entry-" + a)}"></a>' for a in s.anchors)
        if s.kind == "divider":
            label = f" {_badge_label(s.label)}" if s.label else ""
            ident = f' id="{escape("entry-" + s.entry_id)}"' if s.entry_id else ""
            return f'<div class="divider"{ident}>{extra}{escape(s.title)}{label}</div>'
        badges = [_badge_label(s.label)] if s.label else []
        badges += [self.badge(s, t, k) for t, k in s.badges]
        anchor = escape("entry-" + s.entry_id)
        meta = escape(s.time) + (
            f' <a href="#{anchor}">#{escape(s.entry_id)}</a>' if s.entry_id else ""
        )
        head = (
            f'<div class="head"><span class="role">{escape(s.title)}</span>{"".join(badges)}'
            f'<span class="meta">{meta}</span></div>'
        )
        body = "\n".join(self.part(p) for p in s.parts)
        self.outputs += s.kind == "bash" and len(s.parts) > 1
        cls = escape(s.kind) + (" compacted" if ("compacted", "dim") in s.badges else "")
        cls += " error" if s.error else ""
        ident = f' id="{anchor}"' if s.entry_id else ""
        return f'<section class="msg {cls}"{ident}>{extra}{head}\n{body}</section>'


def _first_words(s: Section) -> str:
    for p in s.parts:
        if p.kind == "markdown":
            # Plain words: the Markdown marks a reader would not see on the page.
            line = " ".join(_MD_MARKS.sub("", p.text).split())
            return line if len(line) <= _TOC_WORDS else line[: _TOC_WORDS - 1] + "…"
    return "(no text)"


def _errors(s: Section) -> list[str]:
    """Anchors (entry ids) of what failed in the section: the entry, or its failed tool calls."""
    out = [s.entry_id] if s.error else []
    for p in s.parts:
        if p.kind == "tool" and p.status == "error":
            out.append(p.anchors[0] if p.anchors else s.entry_id)
    return [e for e in out if e]


def toc_html(doc: Doc) -> tuple[str, int]:
    """The contents list and the number of user turns.

    One line per user turn (its first words, a mark linking its first error), and one per
    compaction and branch summary, each a link to its entry.
    """
    items: list[tuple[str, str, str, list[str]]] = []  # kind, anchor, text, errors
    turn = 0
    for s in doc.sections:
        if s.kind == "user":
            turn += 1
            items.append(("turn", s.entry_id, _first_words(s), []))
        elif s.kind in ("compaction", "summary"):
            text = "⇲ compaction" if s.kind == "compaction" else "⎇ branch summary"
            items.append(("mark", s.entry_id, text, []))
        errs = _errors(s)
        if errs:
            if not items or items[-1][0] != "turn":
                items.append(("turn", s.entry_id, "(before the first message)", []))
            items[-1][3].extend(errs)
    lines = []
    numbered = 0  # marks are not numbered: each turn says its number
    for kind, anchor, text, errs in items:
        href = escape(f"#entry-{anchor}")
        err = ""
        if errs:
            n = len(errs)
            what = f"{n} error{'' if n == 1 else 's'} in this turn: the first"
            err = (
                f' <a class="err" href="{escape("#entry-" + errs[0])}" title="{what}">✗'
                f"{f' {n}' if n > 1 else ''}</a>"
            )
        cls = ' class="mark"' if kind == "mark" else f' value="{numbered + 1}"'
        numbered += kind != "mark"
        lines.append(f'<li{cls}><a href="{href}">{escape(text)}</a>{err}</li>')
    return f'<ol class="toc-list">{"".join(lines)}</ol>', turn


def _code_size(sections: list[Section]) -> int:
    """Characters of the page's code blocks that have a language (what highlighting costs)."""
    total = 0
    stack = [p for s in sections for p in s.parts]
    while stack:
        p = stack.pop()
        if p.kind == "code" and p.lang:
            total += len(p.full or p.text)
        stack.extend(p.children)
    return total


def page_ids(doc: Doc) -> set[str]:
    """The entry ids with an ``entry-<id>`` anchor on the page."""
    return _page_ids(doc)


def _figures(doc: Doc) -> str:
    if not doc.figures:
        return ""
    body = "".join(
        f'<figure class="fig"><figcaption>{escape(title)}</figcaption>{html}</figure>'
        for title, html in doc.figures
    )
    return f'<section class="figures">{body}</section>\n'


_FIG_CSS = (
    ".figures{margin:1em 0}.fig{margin:0 0 1.5em;overflow-x:auto}"
    ".fig figcaption{font-weight:bold;margin-bottom:.3em}.fig svg{max-width:100%;height:auto}"
    ".fig .legend{font-size:.85em}.lg{margin-right:1em;white-space:nowrap}"
    ".lg .sw{display:inline-block;width:.8em;height:.8em;margin-right:.3em;"
    "vertical-align:middle}"
)


def _page_ids(doc: Doc) -> set[str]:
    ids: set[str] = set()
    for s in doc.sections:
        ids.update(x for x in (s.entry_id, *s.anchors) if x)
        ids.update(a for p in s.parts if p.kind == "tool" for a in p.anchors)
    return ids


_TOGGLES = (
    '<input type="checkbox" class="tg" id="tg-toc" aria-label="show the contents">'
    '<input type="checkbox" class="tg" id="tg-think" checked aria-label="show thinking">'
    '<input type="checkbox" class="tg" id="tg-out" checked aria-label="show tool output">'
    '<input type="checkbox" class="tg" id="tg-full" aria-label="expand all tool output">'
)


def render_html(
    doc: Doc, *, generator: str = "piview", should_stop: Callable[[], bool] | None = None
) -> str:
    """The document as one self-contained HTML page (inline CSS, no scripts, no remote loads).

    A contents list (sticky beside the page on wide screens, behind a button at the top on
    narrow ones) links every user turn, compaction and branch summary; every entry has an
    ``entry-<id>`` anchor. The reader can hide thinking or tool output and expand all outputs
    with CSS-only switches; printing opens everything.
    """
    w = _Writer(_page_ids(doc))
    w.previews_only = _code_size(doc.sections) > w.hl.budget
    facts = "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in doc.facts)
    parts: list[str] = []
    for k, s in enumerate(doc.sections):
        check_stop(should_stop, k)
        parts.append(w.section(s))
    sections = "\n".join(parts)
    toc, turns = toc_html(doc)
    notes_list = list(doc.notes)
    if w.previews_only:
        notes_list.append(
            "This page holds more code than is highlighted at export: the previews of tool "
            "output are highlighted, the whole outputs behind them are plain."
        )
    if w.hl.skipped:
        notes_list.append(
            f"{w.hl.skipped:,} code blocks are not highlighted: the page's highlighting budget "
            f"({HL_BUDGET:,} characters) was spent."
        )
    notes = "".join(f"<li>{escape(n)}</li>" for n in notes_list)
    kinds = {p.kind for sec in doc.sections for p in sec.parts}
    switches = "".join(
        f'<label class="sw {cls}" for="tg-{cls}" title="{escape(title)}">{text}</label>'
        for cls, text, title, shown in (
            ("think", "thinking", "show or hide the model's thinking", "thinking" in kinds),
            ("out", "tool output", "show tool output, or calls only", w.outputs > 0),
            ("full", "expand all", "show every output whole", w.expandable > 0),
        )
        if shown
    )
    switches = f'<div class="toggles">{switches}</div>' if switches else ""
    nav = (
        f'<nav class="toc" aria-label="contents"><label class="toc-btn" for="tg-toc">'
        f"Contents · {turns:,} turn{'' if turns == 1 else 's'}</label>"
        f'<div class="toc-body">{switches}{toc}</div></nav>'
    )
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{escape(_CSP)}">\n'
        f'<meta name="generator" content="{escape(generator)}">\n'
        f"<title>{escape(doc.title)}</title>\n<style>{css()}{_FIG_CSS}</style>\n</head>\n<body>\n"
        f'<div class="page">{_TOGGLES}\n{nav}\n<main>\n'
        f'<header class="doc"><h1>{escape(doc.title)}</h1><dl class="facts">{facts}</dl>'
        f'<ul class="notes">{notes}</ul></header>\n{_figures(doc)}{sections}\n'
        f"<footer>Exported by {escape(generator)}</footer>\n</main>\n</div>\n</body>\n</html>\n"
    )
