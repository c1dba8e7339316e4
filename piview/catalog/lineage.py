"""Provides the lineage of session files: which session each was forked from, and subagents.

A fork's header names its source (``parentSession``, ``branchedFrom`` in older files) by an
absolute path, matched exactly first, then by file name (for a moved folder). A subagent's
file is inside a folder named after its parent's file. A cycle in bad headers is cut.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from piview.catalog.discovery import HEAD_BYTES, read_json_line, walk_jsonl

SUBAGENT_DEPTH = 3
"""How deep below a session's own folder subagent files are looked for."""


@dataclass(frozen=True, slots=True)
class Link:
    """Where one session file comes from."""

    path: str
    parent: str | None
    """The parent's path among the files linked, or None (a root, or a parent not found)."""
    kind: str
    """``"subagent"`` (nested in the parent's own folder: started by one of its tool calls),
    ``"fork"`` (elsewhere, the header names the parent) or ``""`` (no parent)."""
    declared: str | None
    """The header's ``parentSession`` (or ``branchedFrom``) as written, found or not."""

    @property
    def copies(self) -> bool:
        """Whether the file starts with a copy of its parent's history (a fork, or a
        subagent run with ``context: "fork"``, whose header names its parent too)."""
        return self.kind == "fork" or (self.kind == "subagent" and self.declared is not None)

    @property
    def label(self) -> str:
        """``"fork"``, ``"subagent"``, ``"subagent (fork)"`` or ``""``."""
        if self.kind == "subagent" and self.declared is not None:
            return "subagent (fork)"
        return self.kind


def header_of(path: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The file's session header (its first line; the second after oh-my-pi's title slot),
    else None (never raises)."""
    try:
        with open(path, "rb") as f:
            first = f.readline(HEAD_BYTES).removeprefix(b"\xef\xbb\xbf").strip()
            obj = read_json_line(first)
            if isinstance(obj, dict) and obj.get("type") == "title":
                obj = read_json_line(f.readline(HEAD_BYTES).strip())
    except OSError:
        return None
    return obj if isinstance(obj, dict) and obj.get("type") == "session" else None


def parent_ref(header: Mapping[str, Any] | None) -> str | None:
    """``parentSession``, else ``branchedFrom`` (older files), when it is a non-empty string."""
    if header is None:
        return None
    for key in ("parentSession", "branchedFrom"):
        value = header.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def subagent_files(path: str | os.PathLike[str]) -> list[Path]:
    """The ``.jsonl`` files inside the folder named after session file ``path`` (sorted)."""
    folder = Path(path).with_suffix("")
    if not folder.is_dir():
        return []
    return sorted(walk_jsonl(folder, SUBAGENT_DEPTH))


def with_subagents(paths: Sequence[Path]) -> list[Path]:
    """``paths`` and, after each, its subagents' files (and theirs), each file once."""
    seen = {str(p) for p in paths}
    out: list[Path] = []
    stack = list(reversed(paths))
    while stack:
        p = stack.pop()
        out.append(p)
        nested = [q for q in subagent_files(p) if str(q) not in seen]
        seen.update(str(q) for q in nested)
        stack.extend(reversed(nested))
    return out


def link_sessions(paths: Sequence[str], refs: Mapping[str, str | None]) -> dict[str, Link]:
    """The :class:`Link` of every path; ``refs[path]`` is its header's parent reference
    (a file without one, nested in another's own folder, is that one's subagent)."""
    exact = {os.path.normpath(p): p for p in paths}
    by_name: dict[str, str | None] = {}
    for p in paths:
        name = os.path.basename(p)
        by_name[name] = None if name in by_name else p  # None: the name is not unique
    out: dict[str, Link] = {}
    for p in paths:
        ref = refs.get(p)
        # Nested in a session's own folder: its subagent, even when the header names the
        # parent too (pi-subagents' fork context), which is a fork's link otherwise.
        parent = _nesting_parent(p, exact)
        kind = "subagent" if parent is not None else ""
        if parent is None and ref:
            parent = exact.get(os.path.normpath(ref)) or by_name.get(os.path.basename(ref))
            kind = "fork" if parent is not None else ""
        if parent == p:
            parent, kind = None, ""
        out[p] = Link(p, parent, kind, ref)
    return out


def link_files(paths: Sequence[str]) -> dict[str, Link]:
    """:func:`link_sessions` over ``paths``, reading each file's header line."""
    return link_sessions(paths, {p: parent_ref(header_of(p)) for p in paths})


def find_parent(
    path: str | os.PathLike[str], ref: str | None, roots: Sequence[Path] = ()
) -> tuple[Path | None, str]:
    """The file session ``path`` was forked from, or is a subagent of, and ``"fork"`` or
    ``"subagent"``; ``(None, "")`` when not found (looked for beside it and in ``roots``)."""
    here = Path(path)
    folder = here.parent
    for _ in range(SUBAGENT_DEPTH):
        if folder.parent == folder:  # the root folder has no name to own it
            break
        owner = folder.with_name(folder.name + ".jsonl")
        if owner.is_file():
            return owner, "subagent"
        folder = folder.parent
    if ref:
        name = os.path.basename(ref)
        candidates = [Path(ref), here.parent / name]
        for root in (here.parent.parent, *roots):
            candidates.append(root / name)
            try:
                candidates.extend(Path(e.path) / name for e in os.scandir(root) if e.is_dir())
            except OSError:
                continue
        for c in candidates:
            if c.is_file() and c.resolve() != here.resolve():
                return c, "fork"
    return None, ""


def fork_point(child_ids: Sequence[str], find: Callable[[str], int | None]) -> int | None:
    """Where a fork left its parent: the parent's index (``find``) of the last of the fork's
    first entries that the parent has (the first entry it lacks ends the copied history)."""
    at: int | None = None
    for ref in child_ids:
        hit = find(ref) if ref else None
        if hit is None:
            break
        at = hit
    return at


def _nesting_parent(path: str, exact: Mapping[str, str]) -> str | None:
    """The session whose own folder holds ``path`` (the nearest, at most a few levels up)."""
    folder = os.path.dirname(os.path.normpath(path))
    for _ in range(SUBAGENT_DEPTH):
        hit = exact.get(folder + ".jsonl")
        if hit is not None:
            return hit
        up = os.path.dirname(folder)
        if up == folder:
            break
        folder = up
    return None


def thread_order(paths: Sequence[str], parents: Mapping[str, str | None]) -> list[tuple[str, int]]:
    """``(path, depth)`` for every path: each under its parent, siblings in the given order;
    a path whose parent is not among ``paths``, or the first of a cycle, is a root."""
    known = set(paths)
    children: dict[str, list[str]] = {}
    roots: list[str] = []
    for p in paths:
        parent = parents.get(p)
        if parent is None or parent not in known or parent == p:
            roots.append(p)
        else:
            children.setdefault(parent, []).append(p)
    out: list[tuple[str, int]] = []
    done: set[str] = set()

    def visit(root: str) -> None:
        stack = [(root, 0)]
        while stack:
            p, depth = stack.pop()
            if p in done:
                continue
            done.add(p)
            out.append((p, depth))
            stack.extend((c, depth + 1) for c in reversed(children.get(p, ())))

    for r in roots:
        visit(r)
    for p in paths:  # only cycles are left
        if p not in done:
            visit(p)
    return out
