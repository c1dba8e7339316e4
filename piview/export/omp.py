"""Provides the export sections of what only oh-my-pi writes (its roles and settings entries),
kept beside :mod:`piview.export.build` so that the builder stays one screenful per concern."""

from __future__ import annotations

from typing import Any

from piview.export.doc import Part, Section, blocks, clean, lang_of, lines_label
from piview.model.types import (
    OMP_ENTRY_TYPES,
    CustomEntry,
    DeveloperMessage,
    FileMentionMessage,
    PythonExecutionMessage,
    SessionInitEntry,
)
from piview.render.roles.omp import entry_words
from piview.render.sanitize import sanitize_line

__all__ = ["omp_section"]


def omp_section(e: Any, msg: Any, sec: Section) -> bool:
    """Fill ``sec`` for an oh-my-pi entry or message; False when it is none of them."""
    if isinstance(msg, DeveloperMessage):
        sec.kind, sec.title = "system", "Developer instructions (from the host)"
        text = "\n".join(clean(getattr(b, "text", "")) for b in blocks(msg.content)).strip()
        if text:
            sec.parts.append(Part("markdown", text=text))
        return True
    if isinstance(msg, FileMentionMessage):
        sec.kind, sec.title = "user", "Files attached (@mention)"
        for f in msg.files:
            name = sanitize_line(f.path) or "?"
            body = clean(f.content or "")
            code = Part("code", text=body, lang=lang_of(name))
            title = f"file {name} ({lines_label(body)})"
            sec.parts.append(Part("wrapper", title=title, children=[code]))
        return True
    if isinstance(msg, PythonExecutionMessage):
        sec.kind, sec.title = "bash", "User Python cell"
        sec.parts.append(Part("code", text=clean(msg.code), lang="python"))
        if msg.output:
            sec.parts.append(Part("code", text=clean(msg.output), lang=""))
        return True
    if isinstance(e, SessionInitEntry):
        sec.kind, sec.title = "system", "Session init (subagent)"
        if e.task.strip():
            sec.parts.append(Part("markdown", text=clean(e.task)))
        if e.tools:
            tools = ", ".join(map(sanitize_line, e.tools))
            sec.parts.append(Part("note", text=f"Tools: {tools}", status="dim"))
        return True
    if isinstance(e, CustomEntry):
        return False  # extension state, left out like any other
    words = entry_words(e)
    if words is None and type(e).__struct_config__.tag in OMP_ENTRY_TYPES:
        words = sanitize_line(str(type(e).__struct_config__.tag))
    if words is not None:
        sec.kind, sec.title = "divider", words
        return True
    return False
