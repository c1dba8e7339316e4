"""Provides the parts of a summary as Pi's summarizer writes it: the Markdown, then the
``<read-files>`` and ``<modified-files>`` lists (which Markdown renderers drop as HTML).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_BLOCK = re.compile(r"<(read-files|modified-files)>\n?(.*?)\n?</\1>", re.DOTALL)


@dataclass(slots=True)
class SummaryParts:
    """A summary's Markdown without the file blocks, and the files they list, in order."""

    text: str
    read: list[str] = field(default_factory=list)
    modified: list[str] = field(default_factory=list)


def split_summary(summary: str) -> SummaryParts:
    """Take the ``<read-files>`` and ``<modified-files>`` blocks out of ``summary``."""
    if "-files>" not in summary:
        return SummaryParts(summary)
    out = SummaryParts("")
    for m in _BLOCK.finditer(summary):
        files = [ln.strip() for ln in m.group(2).split("\n") if ln.strip()]
        (out.read if m.group(1) == "read-files" else out.modified).extend(files)
    out.text = _BLOCK.sub("", summary).rstrip()
    return out
