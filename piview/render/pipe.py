"""Provides :class:`PipeConsole`: a Rich console for commands whose output may be piped.

Rich's answer to a closed pipe (``piview print FILE | head``) is ``SystemExit(1)``. This
console does the rest of what Rich does (stdout goes to ``/dev/null``, so that flushing it at
exit cannot fail again) and raises :class:`BrokenPipeError` instead, which the command line
turns into status 0.
"""

from __future__ import annotations

import os
import sys

from rich.console import Console


class PipeConsole(Console):
    """A console that lets a reader stop reading (``| head``) without an error status."""

    def on_broken_pipe(self) -> None:
        """Silence the console and stdout, then raise :class:`BrokenPipeError`."""
        self.quiet = True
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
        except (OSError, ValueError, AttributeError):
            pass  # stdout is not a file (tests capture it): nothing to silence
        raise BrokenPipeError(32, "Broken pipe")
