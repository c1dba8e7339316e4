"""Provides the resolution of oh-my-pi's blob references: images stored beside the sessions.

A block's ``data`` ``blob:sha256:<hex>`` is the file ``<agent dir>/blobs/<hex>``; a missing
or unreadable blob leaves the reference as it is.
"""

from __future__ import annotations

import base64
import os
import re
from pathlib import Path
from typing import Any

from piview.model.types import ImageContent

BLOB_PREFIX = "blob:sha256:"
_HASH_RE = re.compile(r"[0-9a-f]{64}")
_MAX_BLOB = 64 * 1024 * 1024
"""Larger blobs are left unresolved: no preview of an image that big anyway."""


def blob_hash(data: object) -> str | None:
    """The hash of a blob reference, or ``None`` when ``data`` is not one (as oh-my-pi checks:
    64 lowercase hex characters, nothing that could leave the blob folder)."""
    if not isinstance(data, str) or not data.startswith(BLOB_PREFIX):
        return None
    h = data[len(BLOB_PREFIX) :]
    return h if _HASH_RE.fullmatch(h) else None


def blob_dir(session_path: Path) -> Path | None:
    """``<agent dir>/blobs`` for a session file under ``<agent dir>/sessions/…``."""
    for parent in session_path.resolve().parents:
        if parent.name == "sessions":
            return parent.parent / "blobs"
    return None


def read_blob(session_path: Path, data: object) -> bytes | None:
    """The bytes a blob reference names, read-only; ``None`` when missing or unreadable."""
    h = blob_hash(data)
    folder = blob_dir(session_path) if h is not None else None
    if h is None or folder is None:
        return None
    try:
        fd = os.open(folder / h, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        if os.fstat(fd).st_size > _MAX_BLOB:
            return None
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def resolve_blobs(entry: Any, session_path: Path) -> None:
    """Replace the blob references of ``entry``'s image blocks by the images' base64 (in
    place, on the decoded entry only: the file is never touched)."""
    message = getattr(entry, "message", None)
    for holder in (message, entry):
        content = getattr(holder, "content", None)
        if not isinstance(content, list):
            continue
        for block in content:
            if isinstance(block, ImageContent) and block.data.startswith(BLOB_PREFIX):
                raw = read_blob(session_path, block.data)
                if raw is not None:
                    block.data = base64.b64encode(raw).decode("ascii")
