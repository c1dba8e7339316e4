"""Provides export: one branch of a session written out as Markdown, HTML or terminal text.

Only the entries from the root to the chosen leaf are exported, in order (abandoned branches
are left out). :mod:`piview.export.build` turns the branch into the neutral document of
:mod:`piview.export.doc`, which :mod:`piview.export.markdown` or :mod:`piview.export.html`
writes; :mod:`piview.export.text` writes a branch with the viewer's own renderers instead
(``piview print``). The session file is only ever read. Nothing here imports Textual.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from piview import __version__
from piview.export.doc import ExportCancelled, ToolsMode

if TYPE_CHECKING:
    from piview.model.session import Session

__all__ = ["ExportCancelled", "Format", "ToolsMode", "export_branch"]

Format = Literal["md", "html"]


def export_branch(
    session: Session,
    leaf: int | None,
    *,
    fmt: Format,
    tools: ToolsMode,
    thinking: bool,
    out: Path,
    hidden: bool = False,
    should_stop: Callable[[], bool] | None = None,
) -> Path:
    """Write the branch root → ``leaf`` (default: the current leaf) to ``out``; return ``out``.

    ``fmt="html"`` writes one self-contained file (inline CSS, images as ``data:`` URIs, no
    scripts); ``fmt="md"`` writes Markdown and puts images in ``<out stem>_files/`` next to it.
    ``tools`` is ``"none"`` (one line per call), ``"preview"`` (the call and the first lines of
    its output; in HTML the rest is behind them, one click away) or ``"full"``. Missing folders
    of ``out`` are created. Thinking is included only when ``thinking`` is true; ``display:
    false`` messages and extension state (``custom`` entries, with their data) only when
    ``hidden`` is.

    ``should_stop`` is asked now and then while the document is built and written; when it
    says yes, :class:`ExportCancelled` is raised and nothing is written.

    Raises:
        ExportCancelled: ``should_stop`` said yes.
        ValueError: ``out`` is the session file itself, or ``fmt``/``tools`` is unknown.
        OSError: the file (or the images folder) could not be written.
    """
    if fmt not in ("md", "html") or tools not in ("full", "preview", "none"):
        raise ValueError(f"unknown format or tools mode: {fmt!r}, {tools!r}")
    out = Path(out)
    # An OpenClaw database's session (DB#ID): protect the database itself.
    src = session.sqlite_ref.db if session.sqlite_ref is not None else Path(session.path)
    if out.exists() and src.exists() and out.samefile(src):
        raise ValueError(f"refusing to overwrite the session file {src}")
    from piview.export.build import build_doc

    out.parent.mkdir(parents=True, exist_ok=True)  # -o some/new/dir/x.html

    doc = build_doc(
        session, leaf, tools=tools, thinking=thinking, hidden=hidden, should_stop=should_stop
    )
    if fmt == "html":
        from piview.export.html import page_ids, render_html
        from piview.export.timeline_svg import timeline_figures

        doc.figures = timeline_figures(session, leaf, page_ids(doc))

        text = render_html(doc, generator=f"piview {__version__}", should_stop=should_stop)
    else:
        from piview.export.markdown import render_md

        text = render_md(doc, out, protect=src)
    from piview.model.fsio import atomic_write

    atomic_write(out, text)  # whole or not at all: an earlier export survives a full disk
    return out
