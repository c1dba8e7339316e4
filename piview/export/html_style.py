"""Provides the look of the HTML export: its stylesheet and the syntax highlighting of code.

Code is highlighted once, at export time, with Pygments: tokens become ``t-…`` classes and
one embedded stylesheet colours them, in a light and a dark variant that follow the reader's
preference. The page needs no script: the contents list, the reader's toggles and the
expandable outputs are CSS and ``<details>``.
"""

from __future__ import annotations

from functools import lru_cache
from html import escape

from pygments import format as pyg_format
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

HL_BLOCK_CAP = 100_000
"""Blocks longer than this (characters) are shown plain: highlighting them costs too much."""
HL_BUDGET = 600_000
"""Characters highlighted in one page at most (Pygments lexes slowly beside the rest of the
export, and a big session must still export quickly); later blocks are plain, and the page
says how many."""
_CACHE_MAX = 20_000
_LIGHT, _DARK = "default", "github-dark"


@lru_cache(maxsize=128)
def _lexer(lang: str) -> Lexer | None:
    if not lang or lang in ("text", "plain", "txt"):
        return None
    try:
        return get_lexer_by_name(lang, stripnl=False, ensurenl=False, stripall=False)
    except (ClassNotFound, ValueError):
        return None


class Highlighter:
    """Highlights code blocks for one page, within :data:`HL_BUDGET` characters."""

    def __init__(self, budget: int = HL_BUDGET) -> None:
        self.budget = budget
        self.skipped = 0
        """Blocks with a known language left plain because the budget was spent."""
        self.formatter = HtmlFormatter(nowrap=True, classprefix="t-")
        self.cache: dict[tuple[str, str], str] = {}
        """Short blocks already highlighted: a file read again costs nothing."""

    def html(self, text: str, lang: str) -> str:
        """``text`` escaped, its tokens wrapped in ``<span class="t-…">`` when ``lang`` is known.

        Spans never cross a line end (Pygments closes them), so the result can be cut into lines.
        """
        lexer = _lexer(lang.lower())
        if lexer is None or len(text) > HL_BLOCK_CAP:
            return escape(text, quote=False)
        key = (lang, text)
        if (hit := self.cache.get(key)) is not None:
            return hit
        if len(text) > self.budget:
            self.skipped += 1
            return escape(text, quote=False)
        self.budget -= len(text)
        out = str(pyg_format(lexer.get_tokens(text), self.formatter))
        if len(text) <= _CACHE_MAX:
            self.cache[key] = out
        return out


def _token_rules(style: str) -> str:
    """The Pygments rules of ``style`` for ``t-`` classes, backgrounds left to the page."""
    defs = HtmlFormatter(style=style, classprefix="t-").get_style_defs("")
    rules = [ln.split(" /*")[0].strip() for ln in defs.splitlines()]
    return "\n".join(r for r in rules if r.startswith(".t-"))


_LIGHT_VARS = """
  --bg: #f6f7f9; --fg: #1f2328; --muted: #636c76; --card: #fff; --border: #d5dbe1;
  --user: #eaf2ff; --user-edge: #3b82f6; --asst-edge: #8b949e; --tool: #f6f8fa;
  --custom: #f4efff; --custom-edge: #8250df; --summary: #fff8e1; --summary-edge: #bf8700;
  --ok: #1a7f37; --err: #cf222e; --warn: #9a6700; --err-bg: #fff0f0; --code: #f3f4f6;
  --add: #e6ffec; --add-fg: #116329; --del: #ffebe9; --del-fg: #82071e;
  --add-mark: #abf2bc; --del-mark: #ffc1c0; --link: #0969da; --side: #eef1f4;
"""

CSS_BASE = (
    """
:root { color-scheme: light dark;
"""
    + _LIGHT_VARS
    + """ }
@media (prefers-color-scheme: dark) { :root {
  --bg: #0d1117; --fg: #e6edf3; --muted: #8d96a0; --card: #151b23; --border: #30363d;
  --user: #14233a; --user-edge: #58a6ff; --asst-edge: #6e7681; --tool: #10151c;
  --custom: #221a33; --custom-edge: #a371f7; --summary: #2b2413; --summary-edge: #d29922;
  --ok: #3fb950; --err: #f85149; --warn: #d29922; --err-bg: #2d1416; --code: #0b0f14;
  --add: #12261a; --add-fg: #7ee787; --del: #2d1618; --del-fg: #ffa198;
  --add-mark: #1f6f3a; --del-mark: #8e2b30; --link: #58a6ff; --side: #10151c; } }
* { box-sizing: border-box; }
html { scroll-padding-top: 8px; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 15px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
main { max-width: 900px; margin: 0 auto; padding: 24px 16px 64px; min-width: 0; }
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
.msg.error { border-left-color: var(--err); }
.msg.unknown { color: var(--muted); border-style: dashed; }
.msg.compacted { border-left-style: dashed; }
.msg.compacted > .head .role { color: var(--muted); }
.head { display: flex; flex-wrap: wrap; gap: 4px 10px; align-items: baseline; margin-bottom: 4px; }
.role { font-weight: 600; } .meta { color: var(--muted); margin-left: auto; font-size: 12px; }
.meta a { color: inherit; text-decoration: none; }
.badge { font-size: 12px; border: 1px solid var(--border); border-radius: 10px; padding: 0 7px;
  white-space: nowrap; }
a.badge { text-decoration: none; }
.badge.error { color: var(--err); border-color: var(--err); }
.badge.warn { color: var(--warn); border-color: var(--warn); }
.badge.dim { color: var(--muted); } .badge.label { color: var(--link); border-color: var(--link); }
.ico { width: 11px; height: 11px; vertical-align: -1px; margin-right: 3px; }
.md h1, .md h2, .md h3, .md h4 { font-size: 1.08em; margin: .9em 0 .4em; }
.md > :first-child { margin-top: 0; } .md > :last-child { margin-bottom: 0; }
.md img { max-width: 100%; } .md table { border-collapse: collapse; }
.md th, .md td { border: 1px solid var(--border); padding: 3px 8px; }
.md blockquote { margin: 0; padding-left: 12px; border-left: 3px solid var(--border);
  color: var(--muted); }
.md .task-list-item { list-style: none; } .md .task-list-item input { margin: 0 6px 0 -18px; }
summary { cursor: pointer; color: var(--muted); }
summary::-webkit-details-marker { display: none; }
details { margin: 6px 0; }
details.wrapper > summary, details.details > summary, details.thinking > summary {
  list-style: none; }
details.wrapper > summary::before, details.details > summary::before,
details.thinking > summary::before, .tool > summary::before { content: "▸ "; color: var(--muted); }
details[open].wrapper > summary::before, details[open].details > summary::before,
details[open].thinking > summary::before, details[open].tool > summary::before { content: "▾ "; }
.tool { border-left: 3px solid var(--border); margin: 10px 0; padding: 0 0 0 10px; }
.tool.error { border-left-color: var(--err); }
.tool.error > .tool-head .tool-title { color: var(--err); }
.tool-head { display: flex; gap: 10px; list-style: none; color: var(--fg); }
.tool-title { overflow-wrap: anywhere; flex: 1; min-width: 0; }
.st { white-space: nowrap; color: var(--muted); } .st.ok { color: var(--ok); }
.st.error { color: var(--err); } .st.no_result, .st.orphan_result { color: var(--warn); }
pre.error { border-color: var(--err); background: var(--err-bg); }
.note { margin: 6px 0; font-size: 13px; color: var(--muted); font-style: italic; }
.note.warn { color: var(--warn); } .note.error { color: var(--err); font-style: normal; }
.more { margin: -4px 0 6px; font-size: 12px; color: var(--muted); }
details.out { margin: 8px 0; } details.out > summary { list-style: none; }
details.out > summary > pre { margin-bottom: 2px; }
details.out > summary .more { display: block; margin: 0 0 2px; }
details.out > summary .more:hover { color: var(--link); }
details.out .o, details[open].out > summary .c, details[open].out > summary > pre { display: none; }
details[open].out > summary .o { display: inline; }
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
/* The contents and the reader's toggles: checkboxes styled through their labels. */
.tg { position: absolute; opacity: 0; width: 1px; height: 1px; pointer-events: none; }
nav.toc { background: var(--side); border-bottom: 1px solid var(--border); font-size: 13px; }
.toc-btn { display: block; padding: 8px 16px; cursor: pointer; font-weight: 600; }
.toc-btn::before { content: "☰ "; }
.toc-body { display: none; padding: 0 12px 12px; }
#tg-toc:checked ~ nav .toc-body { display: block; }
#tg-toc:focus-visible ~ nav .toc-btn, #tg-think:focus-visible ~ nav .sw.think,
#tg-out:focus-visible ~ nav .sw.out, #tg-full:focus-visible ~ nav .sw.full {
  outline: 2px solid var(--link); }
.toggles { display: flex; flex-wrap: wrap; gap: 4px 12px; margin: 0 0 8px; color: var(--muted); }
.sw { cursor: pointer; white-space: nowrap; } .sw::before { content: "☐ "; }
#tg-think:checked ~ nav .sw.think::before, #tg-out:checked ~ nav .sw.out::before,
#tg-full:checked ~ nav .sw.full::before { content: "☑ "; }
#tg-think:not(:checked) ~ main .thinking { display: none; }
#tg-out:not(:checked) ~ main .tool > :not(summary) { display: none; }
#tg-out:not(:checked) ~ main .msg.bash > .head ~ pre ~ *,
#tg-out:not(:checked) ~ main .msg.tool > :not(.head) { display: none; }
.toc ol { margin: 0; padding: 0 0 0 2.4em; }
.toc li { margin: 1px 0; white-space: nowrap; color: var(--muted); }
.toc li a { color: var(--fg); text-decoration: none; } .toc li a:hover { color: var(--link); }
.toc li a:first-child { display: inline-block; max-width: calc(100% - 2.6em); overflow: hidden;
  text-overflow: ellipsis; vertical-align: bottom; }
.toc li.mark { list-style: none; margin-left: -1.2em; }
.toc li.mark a { color: var(--muted); font-style: italic; }
.toc li a.err { color: var(--err); margin-left: 4px; font-size: 12px; }
@supports selector(::details-content) {
  #tg-full:checked ~ main details.out::details-content { content-visibility: visible;
    display: contents; }
  #tg-full:checked ~ main details.out > summary > pre,
  #tg-full:checked ~ main details.out > summary .more { display: none; }
}
@media (min-width: 1180px) {
  .page { display: grid; grid-template-columns: 300px minmax(0, 1fr); }
  nav.toc { position: sticky; top: 0; height: 100vh; overflow: auto; border-bottom: 0;
    border-right: 1px solid var(--border); padding-top: 12px; }
  .toc-btn { cursor: default; } .toc-btn::before { content: ""; }
  .toc-body { display: block; }
}
@media (max-width: 640px) {
  main { padding: 12px 8px 48px; }
  .msg { padding: 8px 8px; margin: 10px 0; border-radius: 6px; }
  .tool { padding-left: 6px; }
  pre { white-space: pre-wrap; overflow-wrap: anywhere; max-height: none; padding: 6px; }
  .meta { margin-left: 0; }
}
@media print {
  :root { color-scheme: light; """
    + _LIGHT_VARS
    + """ }
  nav.toc, .tg { display: none !important; }
  body { background: #fff; }
  main { max-width: none; padding: 0 2px; }
  pre { max-height: none; overflow: visible; white-space: pre-wrap; overflow-wrap: anywhere; }
  .msg { break-inside: auto; }
  .msg .head { break-after: avoid; }
  details::details-content { content-visibility: visible; display: contents; }
  details.out > summary > pre, details.out > summary .more { display: none; }
  details > summary::before { content: "" !important; }
}
"""
)


@lru_cache(maxsize=1)
def css() -> str:
    """The page's whole stylesheet: layout, colours, and the token colours light and dark."""
    dark = _token_rules(_DARK)
    return (
        CSS_BASE
        + _token_rules(_LIGHT)
        + "\n@media (prefers-color-scheme: dark) {\n"
        + dark
        + "\n}\n@media print {\n"
        + _token_rules(_LIGHT)
        + "\n}\n"
    )
