"""Provides the builder of the export document: the sections of one branch, and its header.

What to show is decided here, once for both formats: tool output cut to a preview, thinking
left out unless asked for, hidden extension messages counted and skipped, results drawn with
their call, compacted-away entries marked.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from piview.export import omp
from piview.export.doc import (
    Doc,
    Part,
    Section,
    ToolsMode,
    arg_str,
    args_diff,
    blocks,
    check_stop,
    clean,
    clock,
    cut_code,
    decode_image,
    lang_of,
    lines_label,
    plugin_parts,
    split_wrappers,
    to_json,
    tool_title,
)
from piview.model.context import build_context
from piview.model.names import SUBAGENT_TOOLS
from piview.model.openclaw import gateway_origin
from piview.model.session import Session
from piview.model.summary import split_summary
from piview.model.tools import ToolRow, tool_rows
from piview.model.types import (
    CompactionEntry,
    CompactionSummaryMessage,
    CustomEntry,
    CustomMessage,
    ImageContent,
    LabelEntry,
    MessageEntry,
    ModelChangeEntry,
    SessionInfoEntry,
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
from piview.render.format import fmt_cost, fmt_duration_ms, fmt_iso_short, fmt_tokens, plural
from piview.render.item import Item
from piview.render.items import item_text
from piview.render.kinds import entry_kind
from piview.render.plugins import EntryView, MessageView, ToolCallView
from piview.render.roles._common import OMP_BLOCKS, omp_block_line
from piview.render.roles._fields import (
    assistant_extras,
    parent_session,
    raw_stop,
    result_extras,
    usage_label,
)
from piview.render.roles._json import safe_json
from piview.render.roles.subagent import plain_rows
from piview.render.sanitize import sanitize_line

_BUILTIN = ("read", "bash", "edit", "write", "grep", "find", "ls")
_STOPS = {
    "aborted": ("Aborted", "warn"),
    "error": ("Error", "error"),
    "length": ("Stopped: output token limit reached", "warn"),
    "deferred": ("Deferred: the response was never fetched", "warn"),
    "pending": ("Incomplete: still being written when saved", "warn"),
}


def _message(session: Session, i: int) -> Any:
    e = session.entry(i)
    return e.message if isinstance(e, MessageEntry) else None


# --------------------------------------------------------------------------- the builder

_DRAWN = frozenset({"truncation", "fullOutputPath", "diff", "firstChangedLine"})
"""Keys of a tool result's ``details`` the export draws (notes, the edit's diff)."""


def _json_part(value: Any, title: str) -> list[Part]:
    """A result's ``details`` or an entry's ``data`` as a folded JSON block (cut when huge)."""
    if value is None or value == {}:
        return []
    return [
        Part(
            "details",
            title=title,
            children=[Part("code", text=safe_json(value, max_str=2000), lang="json")],
        )
    ]


class DocBuilder:
    """Builds the sections of one branch; counts what it leaves out (for the header)."""

    def __init__(
        self, session: Session, path: list[int], tools: ToolsMode, thinking: bool, hidden: bool
    ):
        self.s = session
        self.hidden = hidden
        """Include ``display: false`` messages and extension state (else counted)."""
        self.on_path = set(path)
        self.tools: ToolsMode = tools
        self.thinking = thinking
        self.rows: dict[tuple[int, int], ToolRow] = {
            (r.entry, r.part): r for r in tool_rows(session, path)
        }
        self.hidden_custom = 0
        """``display: false`` custom messages left out."""
        self.state_entries = 0
        """``custom`` (extension state) entries left out."""
        ctx = build_context(session, path[-1]) if path else None
        self.compacted: set[int] = set(ctx.hidden_by_compaction) if ctx else set()
        """Entries the last compaction on the branch summarised away."""

    def sections(
        self, path: list[int], should_stop: Callable[[], bool] | None = None
    ) -> list[Section]:
        """One section per displayable entry of ``path``, in order."""
        out: list[Section] = []
        pending: list[str] = []
        for k, i in enumerate(path):
            check_stop(should_stop, k)
            sec = self.section(i)
            if sec is None:
                if i not in self.s.pairing.result_call:  # results get their anchor on the call
                    pending.append(sanitize_line(self.s.ids[i]))
                continue
            sec.anchors, pending = pending, []
            out.append(sec)
        if out and pending:  # entries shown nowhere after the last one link to it
            out[-1].anchors += pending
        return out

    def section(self, i: int) -> Section | None:
        """The section of entry ``i``, or ``None`` when it shows nothing by itself."""
        s = self.s
        e = s.entry(i)
        label = sanitize_line(s.labels[i]) if i in s.labels else None
        sec = Section("unknown", "", sanitize_line(s.ids[i]), clock(e.timestamp), label)
        if i in self.compacted:
            sec.badges.append(("compacted", "dim"))
        msg = e.message if isinstance(e, MessageEntry) else None
        kind = entry_kind(e)
        return _SECTIONS[kind.section](self, sec, i, e, msg, kind.name)

    def user(self, sec: Section, i: int, e: Any, msg: Any, kind: str) -> Section | None:
        """A user message: its text, wrappers and images."""
        sec.kind, sec.title = "user", "User"
        sec.parts = self.content(blocks(msg.content), sec.entry_id)
        return sec

    def orphan(self, sec: Section, i: int, e: Any, msg: Any, kind: str) -> Section | None:
        """A tool result, unless it is drawn with its call."""
        if i in self.s.pairing.result_call:
            return None
        sec.kind = "tool"
        sec.title = f"Tool result without a call: {sanitize_line(msg.tool_name) or '?'}"
        sec.parts = self.result(i, msg) if self.tools != "none" else []
        extra, loaded = result_extras([msg])
        sec.badges += [(extra.removeprefix(" · "), "dim")] if extra else []
        sec.parts += [Part("note", text=loaded, status="dim")] if loaded else []
        return sec

    def custom(self, sec: Section, i: int, e: Any, msg: Any, kind: str) -> Section | None:
        """An extension message (entry or message), unless it is hidden (counted)."""
        c: Any = msg if isinstance(msg, CustomMessage) else e
        if not c.display and not self.hidden:
            self.hidden_custom += 1
            return None
        sec.kind, sec.title = "custom", f"[{sanitize_line(c.custom_type) or 'custom'}]"
        sec.badges += [] if c.display else [("hidden (display: false)", "dim")]
        sec.parts = self.content(blocks(c.content), sec.entry_id)
        sec.parts += _json_part(c.details, "Details (not sent to the model)")
        text = "\n".join(b.text for b in blocks(c.content) if isinstance(b, TextContent))
        msg_view = lambda: MessageView(c.custom_type, clean(text), c.details, c.display)  # noqa: E731
        sec.parts = plugin_parts("message", c.custom_type, msg_view, sec.parts)
        return sec

    def plain(self, sec: Section, i: int, e: Any, msg: Any, kind: str) -> Section | None:
        """A kind without a section of its own: its plain text, under its first line."""
        title, _, text = item_text(self.s, Item(kind, i)).partition("\n")
        sec.kind, sec.title = "custom", sanitize_line(title) or kind
        sec.parts = [Part("code", text=text.strip("\n"))] if text.strip() else []
        return sec

    def rest(self, sec: Section, i: int, e: Any, msg: Any, kind: str) -> Section | None:
        """Pi's settings entries (dividers), labels, extension state and what is unknown."""
        if isinstance(e, ModelChangeEntry):
            sec.kind = "divider"
            sec.title = f"model → {sanitize_line(e.label())}"
        elif isinstance(e, ThinkingLevelChangeEntry):
            sec.kind, sec.title = "divider", f"thinking level → {sanitize_line(e.thinking_level)}"
        elif isinstance(e, SessionInfoEntry):
            name = sanitize_line(e.name).strip()
            sec.kind, sec.title = "divider", f"session named “{name}”" if name else "name cleared"
        elif isinstance(e, LabelEntry):
            return None  # shown next to the entry it labels
        elif isinstance(e, CustomEntry):
            sec.parts = plugin_parts(
                "entry", e.custom_type, lambda: EntryView(e.custom_type, e.data), []
            )
            if self.hidden and not sec.parts:
                sec.parts = _json_part(e.data, "Data") or [Part("note", text="(no data)")]
                sec.badges.append(("extension state, not in the context", "dim"))
            if sec.parts:  # drawn by a plugin, or asked for
                sec.kind, sec.title = "custom", f"[custom: {sanitize_line(e.custom_type)}]"
                return sec
            self.state_entries += 1
            return None
        elif isinstance(msg, UnknownMessage):
            sec.title = f"Message with unknown role “{sanitize_line(msg.unknown_role)}”"
        elif isinstance(e, UnknownEntry):
            sec.title = f"Unknown entry type “{sanitize_line(e.entry_type)}”"
        else:
            sec.title = "Entry without a message"
        return sec

    def content(self, content: list[Any], eid: str) -> list[Part]:
        """User-like content: markdown text, ``<file>``/``<skill>`` wrappers, images."""
        out: list[Part] = []
        for b in content:
            if isinstance(b, TextContent):
                for piece in split_wrappers(clean(b.text)):
                    if isinstance(piece, str):
                        out += [Part("markdown", text=piece.strip("\n"))] if piece.strip() else []
                        continue
                    tag, attrs, body = piece
                    name = sanitize_line(attrs.get("name", "")) or "?"
                    what = f" ({lines_label(body)})" if tag == "file" else ""
                    code = Part("code", text=body, lang=lang_of(name) if tag == "file" else "")
                    out.append(Part("wrapper", title=f"{tag} {name}{what}", children=[code]))
            elif isinstance(b, ImageContent):
                n = sum(1 for p in out if p.kind == "image") + 1
                out.append(Part("image", image=decode_image(b, eid, n)))
            elif isinstance(b, UnknownBlock):
                out.append(
                    Part("note", text=f"[{sanitize_line(b.block_type)} block]", status="dim")
                )
        return out

    def assistant(self, sec: Section, i: int, e: Any, msg: Any, kind: str) -> Section | None:
        """Text, thinking (when asked for), tool calls in their original order, stop reason."""
        sec.kind, sec.title = "assistant", f"Assistant · {sanitize_line(msg.model) or '?'}"
        origin = gateway_origin(msg.provider, msg.model)
        if origin is not None:  # OpenClaw's gateway wrote it, not a model
            sec.title = f"Assistant · {origin}"
        u = msg.usage
        if u is not None:
            parts = (u.input, u.output, u.cache_read, u.cache_write)
            tok = sum(x for x in parts if isinstance(x, int | float) and not isinstance(x, bool))
            cost = u.cost.total_cost() if u.cost is not None else 0.0
            sec.badges.append((f"{fmt_tokens(tok)} tok · {fmt_cost(cost)}", "dim"))
        # Reasoning, 1-hour cache writes, providerThinkingLevel, endTurn (Pi 0.80-0.85).
        sec.badges += [(w, "dim") for w in assistant_extras(msg)]
        for k, b in enumerate(msg.content):
            if isinstance(b, TextContent) and b.text.strip():
                sec.parts.append(Part("markdown", text=clean(b.text)))
            elif isinstance(b, ThinkingContent) and self.thinking:
                if b.redacted or (not b.thinking.strip() and b.thinking_signature):
                    sec.parts.append(Part("redacted", text="Thinking redacted by the provider"))
                elif b.thinking.strip():
                    sec.parts.append(Part("thinking", text=clean(b.thinking)))
            elif isinstance(b, ToolCall):
                sec.parts.append(self.tool(i, k, b))
            elif isinstance(b, UnknownBlock):
                sec.parts.append(Part("note", text=f"[{sanitize_line(b.block_type)} block]"))
            elif isinstance(b, ImageContent):  # oh-my-pi: images in assistant content
                sec.parts += self.content([b], sec.entry_id)
            elif isinstance(b, OMP_BLOCKS):
                sec.parts.append(Part("note", text=omp_block_line(b), status="dim"))
        stop = _STOPS.get(msg.stop_reason)
        if stop:
            err = sanitize_line(msg.error_message) if msg.error_message else ""
            raw = raw_stop(msg)  # the provider's own reason: "max_tokens" behind "length"
            text = stop[0] + (f" ({raw})" if raw else "")
            text += f": {err}" if err and err != "Request was aborted" else ""
            sec.parts.append(Part("note", text=text, status=stop[1]))
            sec.badges.append((msg.stop_reason + (f" · {raw}" if raw else ""), stop[1]))
            sec.error = stop[1] == "error"
        elif not sec.parts:
            only_thinking = any(isinstance(b, ThinkingContent) for b in msg.content)
            text = "(thinking only, left out)" if only_thinking else "(no text)"
            sec.parts.append(Part("note", text=text, status="dim"))
        return sec

    def tool(self, i: int, k: int, call: ToolCall) -> Part:
        """Call ``k`` of assistant ``i`` with its results on the branch."""
        row = self.rows.get((i, k))
        latency = row.latency_ms if row else None
        part = Part(
            "tool",
            title=tool_title(call.name, call.arguments, call.namespace),
            status=row.status if row else "no_result",
            info=fmt_duration_ms(latency) if latency is not None else "",
        )
        results = [r for r in self.s.pairing.call_results.get((i, k), []) if r in self.on_path]
        msgs = [(r, m) for r in results if isinstance(m := _message(self.s, r), ToolResultMessage)]
        # The results' own model work and the tools they loaded, beside the latency.
        extra, loaded = result_extras([m for _r, m in msgs])
        part.info = (part.info + extra) if part.info else extra.removeprefix(" · ")
        if row is not None and row.result is not None and row.result in self.s.labels:
            # The result is drawn inside the call, so its label goes there too.
            part.label = sanitize_line(self.s.labels[row.result])
        part.anchors = [sanitize_line(self.s.ids[r]) for r in results]
        if self.tools == "none":
            return part
        a: dict[str, Any] = call.arguments if isinstance(call.arguments, dict) else {}
        kids = part.children
        if call.name == "bash":
            cmd = clean(a.get("command")).strip()
            kids += [Part("code", text=cmd, lang="bash")] if "\n" in cmd else []
        elif call.name == "edit":
            diffs = [m.details.get("diff") for _r, m in msgs if isinstance(m.details, dict)]
            diff = next((d for d in diffs if isinstance(d, str)), None)
            text = clean(diff) if diff is not None else args_diff(a)
            kids += [Part("diff", text=text.strip("\n"))] if text.strip() else []
        elif call.name == "write" and isinstance(a.get("content"), str):
            lang = lang_of(arg_str(a, "path", "file_path"))
            kids.append(cut_code(clean(a["content"]), self.tools, lang=lang))
        elif call.name not in _BUILTIN and len(to_json(call.arguments, None)) > 80:
            # Short arguments are already whole in the title.
            kids.append(cut_code(to_json(call.arguments), self.tools, lang="json"))
        # A read's output is the file: highlight it as the file's language.
        lang = lang_of(arg_str(a, "path", "file_path")) if call.name == "read" else ""
        for r, m in msgs:
            kids += self.result(r, m, tail=call.name == "bash", lang=lang)
        kids += [Part("note", text=loaded, status="dim")] if loaded else []
        view = lambda: ToolCallView(call, [m for _r, m in msgs])  # noqa: E731
        if call.name in SUBAGENT_TOOLS:  # pi-subagents: a line per child run first
            rows = plain_rows(view())
            kids[:0] = [Part("note", text=row, status="dim") for row in rows]
        full = self.tools == "full"  # a built-in card is cut as the preview cuts the rest
        part.children = plugin_parts("tool", call.name, view, kids, expanded=full)
        return part

    def result(
        self, r: int, m: ToolResultMessage, *, tail: bool = False, lang: str = ""
    ) -> list[Part]:
        """The output of one tool result: text (cut in preview mode), images and notes."""
        texts = [clean(b.text) for b in m.content if isinstance(b, TextContent)]
        text = "\n".join(texts).strip("\n")
        out: list[Part] = []
        if text:
            out.append(cut_code(text, self.tools, tail=tail, lang="" if m.is_error else lang))
            out[-1].status = "error" if m.is_error else ""
        eid = sanitize_line(self.s.ids[r])
        out += [p for p in self.content(m.content, eid) if p.kind in ("image", "note")]
        d = m.details if isinstance(m.details, dict) else {}
        tr = d.get("truncation")
        if isinstance(tr, dict) and tr.get("truncated"):
            out.append(Part("note", text="Output truncated by the tool", status="dim"))
        if isinstance(d.get("fullOutputPath"), str):
            path = sanitize_line(d["fullOutputPath"])
            out.append(Part("note", text=f"Full output: {path}", status="dim"))
        if not out:
            out.append(Part("note", text="(no output)", status="dim"))
        drawn = _DRAWN if m.tool_name == "edit" else _DRAWN - {"diff", "firstChangedLine"}
        rest = {k: v for k, v in d.items() if k not in drawn} if d else m.details
        out += _json_part(rest, "Details")
        return out

    def bash(self, sec: Section, i: int, e: Any, m: Any, kind: str) -> Section | None:
        """A ``!cmd`` the user ran; ``!!`` ones never reached the model."""
        sec.kind, sec.title = "bash", "User shell command"
        if m.exclude_from_context:
            sec.badges.append(("!! not sent to the model", "warn"))
        if m.cancelled:
            sec.badges.append(("cancelled", "warn"))
        elif isinstance(m.exit_code, int | float) and m.exit_code != 0:
            sec.badges.append((f"exit {m.exit_code:g}", "error"))
            sec.error = True
        sec.parts.append(Part("code", text="$ " + clean(m.command), lang="bash"))
        out = clean(m.output).strip("\n")
        if self.tools != "none":
            empty = Part("note", text="(no output)", status="dim")
            sec.parts.append(cut_code(out, self.tools, tail=True) if out else empty)
            sec.parts[-1].status = "error" if sec.error and out else sec.parts[-1].status
        if m.truncated:
            where = f": {sanitize_line(m.full_output_path)}" if m.full_output_path else ""
            sec.parts.append(Part("note", text=f"Output truncated{where}", status="dim"))
        return sec

    def summary(self, sec: Section, i: int, e: Any, msg: Any, kind: str) -> Section | None:
        """A compaction or branch summary (entry or message), with the files it lists."""
        m = msg if msg is not None else e
        parts = split_summary(clean(m.summary))
        text = parts.text.strip("\n")
        files = [
            Part(
                "note", text=f"{what}: " + ", ".join(sanitize_line(f) for f in names), status="dim"
            )
            for what, names in (("read", parts.read), ("modified", parts.modified))
            if names
        ]
        used = usage_label(getattr(m, "usage", None))  # the summary's own model call
        sec.badges += [(used, "dim")] if used else []
        if isinstance(m, CompactionEntry | CompactionSummaryMessage):
            sec.kind, sec.title = "compaction", "Compaction"
            tokens = m.tokens_before if isinstance(m.tokens_before, int | float) else 0
            note = f"Earlier history ({fmt_tokens(tokens)} tokens) was replaced by this summary."
            summary = Part("details", title="Summary", children=[Part("markdown", text=text)])
            sec.parts += [Part("note", text=note, status="dim"), summary, *files]
            return sec
        sec.kind, sec.title = "summary", "Branch summary"
        if m.from_id:
            sec.from_id = sanitize_line(m.from_id)
            sec.badges.append((f"from {sec.from_id}", "dim"))
        empty = Part("note", text="(empty summary: not sent to the model)", status="dim")
        sec.parts.append(Part("markdown", text=text) if text.strip() else empty)
        sec.parts += files
        return sec

    def system(self, sec: Section, i: int, e: Any, m: Any, kind: str) -> Section | None:
        """A system prompt declaration: instructions, sections and tool changes, collapsed."""
        sec.kind, sec.title = "system", "System prompt"
        if m.replace:
            sec.badges.append(("replaces the previous one", "dim"))
        text = "\n".join(clean(b.text) for b in blocks(m.content) if isinstance(b, TextContent))
        if text.strip():
            code = Part("code", text=text)
            sec.parts.append(
                Part("details", title=f"Instructions ({lines_label(text)})", children=[code])
            )
        for name, value in (m.sections or {}).items():
            title = f"Section {sanitize_line(name)}"
            if isinstance(value, str):
                code = Part("code", text=clean(value))
                sec.parts.append(Part("details", title=title, children=[code]))
            else:
                sec.parts.append(Part("note", text=f"{title} removed", status="dim"))
        added = ", ".join(sanitize_line(t.name) for t in m.tools_added or [])
        removed = ", ".join(sanitize_line(t.name) for t in m.tools_removed or [])
        tools = [f"Tools added: {added}"] if added else []
        tools += [f"Tools removed: {removed}"] if removed else []
        if tools:
            sec.parts.append(Part("note", text=" · ".join(tools), status="dim"))
        return sec


_SECTIONS: dict[str, Callable[[DocBuilder, Section, int, Any, Any, str], Section | None]] = {
    "user": DocBuilder.user, "assistant": DocBuilder.assistant, "result": DocBuilder.orphan,
    "bash": DocBuilder.bash, "custom_message": DocBuilder.custom, "summary": DocBuilder.summary,
    "system": DocBuilder.system, "rest": DocBuilder.rest, "plain": DocBuilder.plain,
    "developer": lambda b, sec, i, e, msg, kind: omp.developer(sec, msg),
    "file_mention": lambda b, sec, i, e, msg, kind: omp.file_mention(sec, msg),
    "python": lambda b, sec, i, e, msg, kind: omp.python(sec, msg),
    "session_init": lambda b, sec, i, e, msg, kind: omp.session_init(sec, e),
    "omp_divider": lambda b, sec, i, e, msg, kind: (
        b.rest(sec, i, e, msg, kind) if isinstance(e, CustomEntry) else omp.divider(sec, e)),
}  # fmt: skip
"""The export section of each ``Kind.section`` (:mod:`piview.render.kinds`): a
``DocBuilder`` method given the section to fill, the entry's index, the entry, its message
and its kind's name."""


def _first_user_text(session: Session, path: list[int]) -> str:
    for i in path:
        if session.nodes[i].role != "user":
            continue
        e = session.entry(i)
        msg = e.message if isinstance(e, MessageEntry) else None
        if not isinstance(msg, UserMessage):
            continue
        for b in blocks(msg.content):
            if isinstance(b, TextContent):
                for piece in split_wrappers(b.text):
                    if isinstance(piece, str) and (line := sanitize_line(piece).strip()):
                        return line if len(line) <= 80 else line[:79] + "…"
    return ""


def build_doc(
    session: Session,
    leaf: int | None,
    *,
    tools: ToolsMode,
    thinking: bool,
    hidden: bool = False,
    should_stop: Callable[[], bool] | None = None,
) -> Doc:
    """The branch root → ``leaf`` (default: the current leaf) as a neutral document.

    The header facts are the session's name (or its first user message), id, file, directory,
    start date, the models used on the branch, the leaf, message counts, the branch's token
    and cost totals (the usage of tool results and summaries apart) and the session's total
    as Pi's ``/session`` counts it; the notes say what was left out.
    """
    if leaf is None:
        leaf = session.tree.leaf
    path = session.tree.path(leaf) if leaf is not None else []
    b = DocBuilder(session, path, tools, thinking, hidden)
    sections = b.sections(path, should_stop)
    h = session.header
    nodes = session.nodes
    roles = [nodes[i].role for i in path]
    models = [model_key(nodes[i]) for i, r in zip(path, roles, strict=True) if r == "assistant"]
    report = usage_report(nodes, path)
    u = report.path
    calls = sum(1 for key in b.rows if key[1] >= 0)
    messages = (
        f"{plural(roles.count('user'), 'user message')} · "
        f"{plural(roles.count('assistant'), 'assistant message')} · {plural(calls, 'tool call')}"
    )
    tokens = (
        f"↑{fmt_tokens(u.input)} in · ↓{fmt_tokens(u.output)} out · "
        f"{fmt_tokens(u.cache_read)} cache read · {fmt_tokens(u.cache_write)} cache write"
    )
    facts = [
        ("Session", sanitize_line(h.id) if h is not None and h.id else "(no header)"),
        ("File", sanitize_line(str(session.path.name))),
        ("Directory", sanitize_line(h.cwd) if h is not None and h.cwd else "?"),
        ("Started", fmt_iso_short(h.timestamp) + " UTC" if h is not None and h.timestamp else "?"),
        *([("Forked from", sanitize_line(ref))] if (ref := parent_session(session)) else []),
        ("Models", ", ".join(sanitize_line(m) for m in dict.fromkeys(models)) or "–"),
        ("Branch", f"leaf {sanitize_line(session.ids[leaf])} · "
                   f"{plural(len(path), 'entry', 'entries')}"
                   if leaf is not None else "(empty)"),
        ("Messages", messages),
        ("Tokens", tokens),
        ("Cost", fmt_cost(u.cost)),
    ]  # fmt: skip
    if report.tools_path.count:
        t = report.tools_path
        facts.append(("Tool usage", f"{fmt_tokens(t.tokens)} tokens · {fmt_cost(t.cost)}"))
    if report.side_path.count:  # oh-my-pi's model_usage entries (titles, summaries)
        t = report.side_path
        facts.append(("Other model work", f"{fmt_tokens(t.tokens)} tokens · {fmt_cost(t.cost)}"))
    if report.summaries_path.count:  # the model calls that wrote the branch's summaries
        t = report.summaries_path
        facts.append(("Summary usage", f"{fmt_tokens(t.tokens)} tokens · {fmt_cost(t.cost)}"))
    # Pi's /session total (model calls, tool results, summaries; every branch): the usage
    # sidebar's "Session total", in the same figures.
    t = report.total_all
    facts.append(("Session total", f"{fmt_tokens(t.tokens)} tokens · {fmt_cost(t.cost)}"))
    notes = [
        f"Times are UTC. Tool output: {tools}. Thinking: {'shown' if thinking else 'left out'}."
    ]
    others = len(session.tree.leaves()) - 1
    if others > 0:
        n = plural(others, "other branch", "other branches")
        notes.append(f"Only this branch is exported: {n} left out.")
    if b.hidden_custom:
        n = plural(b.hidden_custom, "hidden extension message")
        notes.append(f"{n} (display: false) left out; the model still saw them.")
    if b.state_entries:
        n = plural(b.state_entries, "extension state entry", "extension state entries")
        notes.append(f"{n} left out.")
    if b.compacted:
        n = plural(len(b.compacted), "entry", "entries")
        notes.append(f"{n} marked “compacted” were replaced by a summary in the model's context.")
    if session.bad_lines:
        notes.append(f"{plural(len(session.bad_lines), 'unreadable line')} of the file skipped.")
    first = session.name or session.title or _first_user_text(session, path)
    title = sanitize_line(first or "Pi session")
    return Doc(title, facts, notes, sections)
