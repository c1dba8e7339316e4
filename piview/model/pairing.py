"""Provides tool-call pairing: each tool result with the call it answers.

A ``toolResult`` pairs with the nearest *ancestor* assistant message holding a ``toolCall`` with
the same id. Ids repeat across turns (and across branches of a fork), so neither a global
lookup nor "first match in the file" (Pi's HTML export) is right. One depth-first walk with a
scoped id map does it in linear time.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from piview.model.decode import SkEntry
from piview.model.tree import Tree

__all__ = ["CallRef", "Pairing", "pair_tool_calls", "tool_calls_of"]

CallRef = tuple[int, int]
"""A tool call: (entry index of the assistant message, index of the block in its content)."""


@dataclass(slots=True)
class Pairing:
    """Tool calls and results of a whole file, and how they pair."""

    calls: list[CallRef] = field(default_factory=list)
    """Every tool call, in file order."""
    call_ids: dict[CallRef, str] = field(default_factory=dict)
    """The id and name of each call."""
    call_names: dict[CallRef, str] = field(default_factory=dict)
    results: list[int] = field(default_factory=list)
    """Every toolResult entry, in file order."""
    result_call: dict[int, CallRef] = field(default_factory=dict)
    """The call each paired result answers."""
    call_results: dict[CallRef, list[int]] = field(default_factory=dict)
    """The results of each answered call (usually one)."""
    errors: list[int] = field(default_factory=list)
    """Results with ``isError``."""

    @property
    def paired(self) -> list[int]:
        """Results that found their call."""
        return [r for r in self.results if r in self.result_call]

    @property
    def orphan_results(self) -> list[int]:
        """Results with no call among their ancestors."""
        return [r for r in self.results if r not in self.result_call]

    @property
    def unanswered(self) -> list[CallRef]:
        """Calls that no result answers."""
        return [c for c in self.calls if c not in self.call_results]


def tool_calls_of(node: SkEntry) -> list[tuple[int, str, str]]:
    """``(block index, id, name)`` of each tool call in an assistant skeleton."""
    msg = node.message
    if msg is None or msg.role != "assistant" or not isinstance(msg.content, list):
        return []
    out = []
    for k, b in enumerate(msg.content):
        if b.type == "toolCall":
            out.append((k, b.id if isinstance(b.id, str) else "", str(b.name or "")))
    return out


def _depths(parents: list[int]) -> list[int]:
    """Depth of every entry (roots are 0), without recursion."""
    n = len(parents)
    depth = [-1] * n
    for i in range(n):
        if depth[i] >= 0:
            continue
        walk = []
        j = i
        while j >= 0 and depth[j] < 0:
            walk.append(j)
            j = parents[j]
        d = depth[j] if j >= 0 else -1
        for k in reversed(walk):
            d += 1
            depth[k] = d
    return depth


def pair_tool_calls(nodes: list[SkEntry], tree: Tree) -> Pairing:
    """Pair every tool result of the file with its call.

    Candidates are the calls with the same id anywhere in the file; the nearest one that is an
    ancestor wins. Checking ancestry walks up only the depth difference, which is a few steps
    for a real result, so the whole pass is linear in practice.
    """
    out = Pairing()
    parents = tree.parents
    by_id: dict[str, list[CallRef]] = {}
    results: list[tuple[int, str | None]] = []
    for i, node in enumerate(nodes):
        msg = node.message
        if msg is None:
            continue
        role = msg.role
        if role == "assistant":
            content = msg.content
            if not isinstance(content, list):
                continue
            for k, b in enumerate(content):
                if b.type == "toolCall":
                    ref = (i, k)
                    cid = b.id or ""
                    out.calls.append(ref)
                    out.call_ids[ref] = cid
                    out.call_names[ref] = b.name or ""
                    by_id.setdefault(cid, []).append(ref)
        elif role == "toolResult":
            out.results.append(i)
            if msg.is_error:
                out.errors.append(i)
            results.append((i, msg.tool_call_id))
    depth: list[int] | None = None
    for r, cid in results:
        candidates = by_id.get(cid) if cid is not None else None
        if not candidates:
            continue
        if depth is None:
            depth = _depths(parents)
        dr = depth[r]
        best: CallRef | None = None
        best_depth = -1
        for ref in candidates:
            a = ref[0]
            da = depth[a]
            if da >= dr or da <= best_depth:
                continue
            j = r
            for _ in range(dr - da):
                j = parents[j]
            if j == a:
                best, best_depth = ref, da
        if best is not None:
            out.result_call[r] = best
            out.call_results.setdefault(best, []).append(r)
    return out
