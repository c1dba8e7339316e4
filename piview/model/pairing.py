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


def pair_tool_calls(nodes: list[SkEntry], tree: Tree) -> Pairing:
    """Pair every tool result of the file with its call."""
    out = Pairing()
    scope: dict[str, list[CallRef]] = {}
    # Iterative DFS: on the way down push an assistant's call ids, on the way up pop them.
    stack: list[tuple[int, bool]] = [(r, False) for r in reversed(tree.roots)]
    calls_at: dict[int, list[tuple[int, str, str]]] = {}
    while stack:
        i, leaving = stack.pop()
        if leaving:
            for _k, cid, _name in calls_at.pop(i, ()):
                lst = scope[cid]
                lst.pop()
                if not lst:
                    del scope[cid]
            continue
        node = nodes[i]
        msg = node.message
        if msg is not None:
            if msg.role == "assistant":
                calls = tool_calls_of(node)
                if calls:
                    calls_at[i] = calls
                    for k, cid, name in calls:
                        ref = (i, k)
                        out.calls.append(ref)
                        out.call_ids[ref] = cid
                        out.call_names[ref] = name
                        scope.setdefault(cid, []).append(ref)
            elif msg.role == "toolResult":
                out.results.append(i)
                if msg.is_error:
                    out.errors.append(i)
                cid = msg.tool_call_id if isinstance(msg.tool_call_id, str) else None
                found = scope.get(cid) if cid is not None else None
                if found:
                    ref = found[-1]
                    out.result_call[i] = ref
                    out.call_results.setdefault(ref, []).append(i)
        stack.append((i, True))
        stack.extend((c, False) for c in reversed(tree.children[i]))
    out.calls.sort()
    out.results.sort()
    out.errors.sort()
    return out
