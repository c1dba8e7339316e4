"""Provides the path of the demo session bundled with piview."""

from __future__ import annotations

from pathlib import Path


def demo_path() -> Path:
    """The bundled demo session (a realistic session showing every role and feature)."""
    return Path(__file__).resolve().parent.parent / "data" / "demo.jsonl"
