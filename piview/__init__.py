"""piview: a terminal viewer for Pi coding-agent session files."""

__version__ = "0.1.0"
