"""Provides the facts behind ``piview info``: one plain dict, the scripting contract."""

from __future__ import annotations

from collections import Counter
from typing import Any

from piview.model.session import Session
from piview.model.store import OTHER, ROLE_NAMES, TYPE_NAMES
from piview.model.usage import UsageTotals, info_sums, pi_total

_MESSAGE = TYPE_NAMES.index("message")
_ONLY_MESSAGES = bytes(0xFF if k == _MESSAGE else 0 for k in range(256))
"""A table for ``bytes.translate``: 0xFF where an entry is a message, else 0."""


def _code_counts(types: bytearray, roles: bytearray) -> tuple[dict[int, int], dict[int, int]]:
    """How many entries of each type code but messages, and how many messages of each role
    code (only codes that occur), counted at C speed."""
    by_type = {t: types.count(t) for t in set(types)}
    messages = by_type.pop(_MESSAGE, 0)
    by_role: dict[int, int] = {}
    if messages:
        n = len(types)
        # The roles of messages, 0 elsewhere: the roles masked by the bytes of the table.
        mask = int.from_bytes(types.translate(_ONLY_MESSAGES), "little")
        picked = (int.from_bytes(roles, "little") & mask).to_bytes(n, "little")
        by_role = {r: picked.count(r) for r in set(picked) if r}
        if messages > sum(by_role.values()):
            by_role[0] = messages - sum(by_role.values())  # messages without a role
    return by_type, by_role


def session_info(session: Session) -> dict[str, Any]:
    """Summarise a loaded session with exactly the keys of ``piview info --json``.

    Id lists are in file order except ``path`` (root to leaf); ``usage.total`` is Pi's
    ``/session`` total; version 1 files list synthetic ids ``L<line>`` and ``leaf`` is null.
    """
    tree = session.tree
    nodes = session.nodes
    ids = session.ids
    header = session.header
    entry_types: Counter[str] = Counter()
    roles: Counter[str] = Counter()
    message = _MESSAGE
    # Counting the codes runs at C speed; only codes outside the tables need a look.
    by_type, by_role = _code_counts(nodes.types, nodes.roles)
    for t, count in by_type.items():
        if t != OTHER:
            name = TYPE_NAMES[t]
            entry_types[name if isinstance(name, str) else "?"] += count
    for r, count in by_role.items():
        if r != OTHER:
            entry_types["message"] += count
            role = ROLE_NAMES[r]
            roles[role if isinstance(role, str) else "?"] += count
    for i, n in nodes.whole.items():
        if nodes.types[i] == OTHER or (nodes.types[i] == message and nodes.roles[i] == OTHER):
            entry_types[n.type if isinstance(n.type, str) else "?"] += 1
            if n.type == "message":
                role = n.message.role if n.message is not None else None
                roles[role if isinstance(role, str) else "?"] += 1
    leaf = tree.leaf
    path = tree.path(leaf) if leaf is not None else []
    pairing = session.pairing
    sums = info_sums(session, leaf, path)
    side = UsageTotals()
    for i in nodes.of_type("model_usage"):  # oh-my-pi: model work outside the main loop
        side.add(nodes[i].usage)
    parent = None
    if header is not None:
        parent = next(
            (p for p in (header.parent_session, header.branched_from) if isinstance(p, str)),
            None,
        )
    out = {
        "version": session.version,
        "session_id": header.id if header is not None and isinstance(header.id, str) else None,
        "name": session.name,
        "title": session.title,
        "cwd": header.cwd if header is not None and isinstance(header.cwd, str) else None,
        "parent_session": parent,
        "entries": len(nodes),
        "bad_lines": [{"line": b.line, "reason": b.reason} for b in session.bad_lines],
        "entry_types": dict(sorted(entry_types.items())),
        "roles": dict(sorted(roles.items())),
        "leaf": None if leaf is None or session.legacy_ids else ids[leaf],
        "leaves": list(map(ids.__getitem__, tree.leaves())),
        "branch_points": list(map(ids.__getitem__, tree.branch_points())),
        "roots": list(map(ids.__getitem__, tree.roots)),
        "path": list(map(ids.__getitem__, path)),  # an id per entry on the branch: a map
        "tool_calls": {
            "calls": len(pairing.call_codes),
            "results": len(pairing.results),
            "paired": pairing.paired_count,
            "unanswered": pairing.unanswered_count,
            "orphan_results": len(pairing.results) - pairing.paired_count,
            "errors": len(pairing.errors),
        },
        "usage": {
            "path": sums["path"].as_json(),
            "all": sums["all"].as_json(),
            "tools": sums["tools"].as_json(),
            "summaries": sums["summaries"].as_json(),
            "total": pi_total(sums["all"], sums["tools"], sums["summaries"]).as_json(),
            "model_usage": side.as_json(),
        },
    }
    stream = session.stream_source
    if stream is not None:  # Pi's event stream: what it held beside the messages
        out["stream"] = stream.kind
        out["events"] = dict(sorted(stream.events.items()))
        out["extension_errors"] = list(stream.translator.extension_errors)
    return out
