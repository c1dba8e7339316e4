"""Provides the export sections of what only oh-my-pi writes (its roles and settings entries),
kept beside :mod:`piview.export.build` so that the builder stays one screenful per concern.
Each fills the section of an entry of its kind (:mod:`piview.render.kinds`)."""

from __future__ import annotations

from typing import Any

from piview.export.doc import Part, Section, blocks, clean, lang_of, lines_label
from piview.render.roles.omp import entry_words
from piview.render.sanitize import sanitize_line


def developer(sec: Section, msg: Any) -> Section:
    """The host's instructions."""
    sec.kind, sec.title = "system", "Developer instructions (from the host)"
    text = "\n".join(clean(getattr(b, "text", "")) for b in blocks(msg.content)).strip()
    if text:
        sec.parts.append(Part("markdown", text=text))
    return sec


def file_mention(sec: Section, msg: Any) -> Section:
    """Files attached with ``@``, each collapsed."""
    sec.kind, sec.title = "user", "Files attached (@mention)"
    for f in msg.files:
        name = sanitize_line(f.path) or "?"
        body = clean(f.content or "")
        code = Part("code", text=body, lang=lang_of(name))
        title = f"file {name} ({lines_label(body)})"
        sec.parts.append(Part("wrapper", title=title, children=[code]))
    return sec


def python(sec: Section, msg: Any) -> Section:
    """A Python cell the user ran, and its output."""
    sec.kind, sec.title = "bash", "User Python cell"
    sec.parts.append(Part("code", text=clean(msg.code), lang="python"))
    if msg.output:
        sec.parts.append(Part("code", text=clean(msg.output), lang=""))
    return sec


def session_init(sec: Section, e: Any) -> Section:
    """A subagent's task and tools."""
    sec.kind, sec.title = "system", "Session init (subagent)"
    if e.task.strip():
        sec.parts.append(Part("markdown", text=clean(e.task)))
    if e.tools:
        tools = ", ".join(map(sanitize_line, e.tools))
        sec.parts.append(Part("note", text=f"Tools: {tools}", status="dim"))
    return sec


def divider(sec: Section, e: Any) -> Section:
    """A settings entry, as one line."""
    words = entry_words(e)
    sec.kind, sec.title = "divider", words or sanitize_line(str(type(e).__struct_config__.tag))
    return sec
