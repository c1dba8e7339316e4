"""Provides what deciding a branch's blocks needs of the role renderers, without them.

:func:`piview.render.items.build_items` asks whether a user message is long, a bash run
failed, or an oh-my-pi custom entry is a quiet marker; the renderers (and Rich's Markdown and
Pygments under them) are imported only when a block is drawn. The role modules re-export
these names.
"""

from __future__ import annotations

LONG_LINES = 24
"""A user message with more lines than this is collapsible (collapsed by default)."""
LONG_CHARS = 3000
"""… or with more characters than this."""

QUIET_CUSTOM_TYPES = frozenset({"tool_execution_start", "session_exit"})
"""oh-my-pi's custom entries drawn as quiet dividers (hidden by default like other custom
entries)."""


def is_error(exit_code: object) -> bool:
    """A real, non-zero exit code (absent/``null`` means cancelled or unknown, not an error)."""
    return isinstance(exit_code, int | float) and not isinstance(exit_code, bool) and exit_code != 0
