"""What the model saw: Pi's context building, and the system prompt state."""

from __future__ import annotations

import json

from piview.model import build_context, load_session, system_prompt_state

H = '{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}'


def E(i: str, parent: str | None, type: str = "message", **kw: object) -> str:
    e: dict[str, object] = {
        "type": type,
        "id": i,
        "parentId": parent,
        "timestamp": "2026-01-01T00:00:00.000Z",
    }
    e.update(kw)
    return json.dumps(e)


def U(i: str, parent: str | None) -> str:
    return E(i, parent, message={"role": "user", "content": i})


def test_context_without_compaction(write_session) -> None:
    s = load_session(
        write_session(
            [
                H,
                U("u1", None),
                E("m", "u1", "model_change", provider="p", modelId="big"),
                E("t", "m", "thinking_level_change", thinkingLevel="high"),
                E("bs0", "t", "branch_summary", fromId="t", summary=""),
                E("bs1", "bs0", "branch_summary", fromId="t", summary="went elsewhere"),
                E("cm", "bs1", "custom_message", customType="x", content="hidden", display=False),
                E("cu", "cm", "custom", customType="state", data={}),
                E(
                    "b1",
                    "cu",
                    message={
                        "role": "bashExecution",
                        "command": "ls",
                        "output": "",
                        "exitCode": 0,
                        "cancelled": False,
                        "truncated": False,
                    },
                ),
                E(
                    "b2",
                    "b1",
                    message={
                        "role": "bashExecution",
                        "command": "ls",
                        "output": "",
                        "exitCode": 0,
                        "cancelled": False,
                        "truncated": False,
                        "excludeFromContext": True,
                    },
                ),
                U("u2", "b2"),
            ]
        )
    )
    ctx = build_context(s)
    assert [(it.kind, s.ids[it.index]) for it in ctx.items] == [
        ("message", "u1"),
        ("branch_summary", "bs1"),
        ("custom_message", "cm"),
        ("message", "b1"),
        ("message", "u2"),
    ]
    assert ctx.thinking_level == "high" and ctx.model == "p/big"
    assert {s.ids[i] for i in ctx.excluded} == {"m", "t", "bs0", "cu", "b2"}


def test_context_with_two_compactions(write_session) -> None:
    s = load_session(
        write_session(
            [
                H,
                U("u1", None),
                U("u2", "u1"),
                E("c1", "u2", "compaction", summary="one", firstKeptEntryId="u2", tokensBefore=10),
                U("u3", "c1"),
                U("u4", "u3"),
                E("c2", "u4", "compaction", summary="two", firstKeptEntryId="u4", tokensBefore=20),
                U("u5", "c2"),
            ]
        )
    )
    ctx = build_context(s)
    assert [(it.kind, s.ids[it.index]) for it in ctx.items] == [
        ("compaction_summary", "c2"),
        ("message", "u4"),
        ("message", "u5"),
    ]
    assert [s.ids[i] for i in ctx.hidden_by_compaction] == ["u1", "u2", "c1", "u3"]
    # At an earlier entry the first compaction is the one in force.
    ctx1 = build_context(s, s.find("u3"))
    assert [(it.kind, s.ids[it.index]) for it in ctx1.items] == [
        ("compaction_summary", "c1"),
        ("message", "u2"),
        ("message", "u3"),
    ]


def test_compaction_with_dangling_first_kept(write_session) -> None:
    s = load_session(
        write_session(
            [
                H,
                U("u1", None),
                E("c1", "u1", "compaction", summary="s", firstKeptEntryId="nope", tokensBefore=1),
                U("u2", "c1"),
            ]
        )
    )
    ctx = build_context(s)
    assert [(it.kind, s.ids[it.index]) for it in ctx.items] == [
        ("compaction_summary", "c1"),
        ("message", "u2"),
    ]


def test_retained_tail_replaces_the_walk_back(write_session) -> None:
    s = load_session(
        write_session(
            [
                H,
                U("u1", None),
                E(
                    "c1",
                    "u1",
                    "compaction",
                    summary="s",
                    firstKeptEntryId="u1",
                    tokensBefore=1,
                    retainedTail=[{"role": "user", "content": "kept", "timestamp": 1}],
                ),
                U("u2", "c1"),
            ]
        )
    )
    ctx = build_context(s)
    assert [(it.kind, s.ids[it.index], it.tail_index) for it in ctx.items] == [
        ("compaction_summary", "c1", None),
        ("retained", "c1", 0),
        ("message", "u2", None),
    ]


def sysmsg(i: str, parent: str | None, **kw: object) -> str:
    return E(i, parent, message={"role": "system", "content": kw.pop("content", ""), **kw})


def test_system_prompt_replay(write_session) -> None:
    s = load_session(
        write_session(
            [
                H,
                sysmsg(
                    "s1",
                    None,
                    content="base",
                    sections={"a": "A", "b": "B"},
                    toolsAdded=[{"name": "read"}, {"name": "bash"}],
                ),
                U("u1", "s1"),
                sysmsg(
                    "s2",
                    "u1",
                    content="also this",
                    sections={"a": "A2", "b": None},
                    toolsRemoved=[{"name": "bash"}],
                    toolsAdded=[{"name": "grep"}],
                ),
                U("u2", "s2"),
                sysmsg(
                    "s3",
                    "u2",
                    content="fresh",
                    replace=True,
                    sections={"c": "C"},
                    toolsAdded=[{"name": "ls"}],
                ),
            ]
        )
    )
    mid = system_prompt_state(s, s.find("u2"))
    assert [t for _, t in mid.prompts] == ["base", "also this"]
    assert {k: v for k, (_, v) in mid.sections.items()} == {"a": "A2"}
    assert set(mid.removed_sections) == {"b"}
    assert list(mid.tools) == ["read", "grep"] and set(mid.removed_tools) == {"bash"}
    end = system_prompt_state(s)
    assert [t for _, t in end.prompts] == ["fresh"]
    assert list(end.sections) == ["c"] and list(end.tools) == ["ls"]
    assert s.ids[end.baseline] == "s3"
    first = system_prompt_state(s, s.find("u1"))
    assert list(first.tools) == ["read", "bash"]
