"""render_item for every kind of item: headers, collapsed/expanded bodies, marks."""

from __future__ import annotations

import pytest

from piview.model import load_session
from piview.render.items import Item, item_text, render_header, render_item
from tests.conftest import fixture
from tests.render.helpers import (
    assistant,
    call,
    items_of,
    load,
    message,
    only,
    render,
    result,
    text,
    to_str,
    user,
)

# ----------------------------------------------------------------------------- thinking


def thinking_items(write_session) -> tuple[object, list[Item]]:
    s = load(
        write_session,
        user("hi"),
        assistant(
            {"type": "thinking", "thinking": "Let me check the config first. " * 5},
            {"type": "thinking", "thinking": "", "thinkingSignature": "c2lnbmF0dXJl"},
            {"type": "thinking", "thinking": "secret", "redacted": True},
            text("Done."),
        ),
    )
    return s, [i for i in items_of(s) if i.kind == "thinking"]


def test_thinking_collapsed_is_one_line(write_session) -> None:
    s, items = thinking_items(write_session)
    out = render(s, items[0], expanded=False)
    lines = out.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("▸ thinking · 154 chars · Let me check the config first.")
    assert "…" in lines[0]
    assert "10:00:01" in lines[0]


def test_thinking_expanded_shows_text(write_session) -> None:
    s, items = thinking_items(write_session)
    out = render(s, items[0], expanded=True)
    assert out.splitlines()[0].startswith("▾ thinking · 154 chars")
    assert " ".join(out.split()).count("Let me check the config first.") == 5


def test_thinking_redacted_is_a_placeholder(write_session) -> None:
    s, items = thinking_items(write_session)
    for item in items[1:]:
        for expanded in (False, True):
            out = render(s, item, expanded=expanded)
            assert out.strip().splitlines() == [out.strip().splitlines()[0]]
            assert "redacted by the provider" in out
            assert "secret" not in out


# ----------------------------------------------------------------------------- tools


def tools_session(write_session):
    return load(
        write_session,
        user("go"),
        assistant(
            text("Running."),
            call("c1", "bash", {"command": "seq 1 20"}),
            call("c2", "read", {"path": "src/app.py", "offset": 10, "limit": 20}),
            call("c3", "grep", {"pattern": "TODO", "path": "src", "glob": "*.py"}),
            call("c4", "frobnicate", {"level": 3}),
            stop="toolUse",
        ),
        result("c1", "bash", "\n".join(str(n) for n in range(1, 21)) + "\n"),
        result("c2", "read", "".join(f"line {n}\n" for n in range(10, 30))),
        result("c3", "grep", "boom: \x1b[31mbad regex\x1b[0m\x07", error=True),
        result("zz", "ls", "a\nb\n"),
    )


def test_tool_collapsed_previews(write_session) -> None:
    s = tools_session(write_session)
    tools = [i for i in items_of(s) if i.kind == "tool"]
    bash_out = render(s, tools[0], expanded=False)
    head = bash_out.splitlines()[0]
    assert head.startswith("▸ $ seq 1 20  ✓ 20 lines · 1.0s")
    assert "(+15 earlier lines)" in bash_out
    assert "\n  20\n" in bash_out and "\n  15\n" not in bash_out  # the last 5 lines
    read_out = render(s, tools[1], expanded=False)
    assert read_out.splitlines()[0].startswith("▸ read src/app.py:10-29  ✓ 20 lines")
    assert "line 10" in read_out and "line 19" in read_out and "line 20" not in read_out
    assert "(+10 more lines)" in read_out


def test_tool_expanded_shows_everything(write_session) -> None:
    s = tools_session(write_session)
    tools = [i for i in items_of(s) if i.kind == "tool"]
    out = render(s, tools[0], expanded=True)
    assert out.splitlines()[0].startswith("▾ $ seq 1 20")
    assert all(f"\n  {n}\n" in out for n in range(1, 21))
    assert "more lines" not in out and "earlier lines" not in out


def test_tool_error_is_marked_and_sanitised(write_session) -> None:
    s = tools_session(write_session)
    grep = [i for i in items_of(s) if i.kind == "tool"][2]
    assert grep.error
    out = render(s, grep, expanded=True)
    assert out.splitlines()[0].startswith("▾ grep /TODO/ in src (*.py)  ✗ error")
    assert "boom: bad regex" in out
    assert "\x1b" not in out and "\x07" not in out


def test_generic_tool_shows_json_args(write_session) -> None:
    s = tools_session(write_session)
    item = [i for i in items_of(s) if i.kind == "tool"][3]
    assert render(s, item, expanded=False).startswith('▸ frobnicate {"level": 3}  ⋯ no result')


def test_tool_without_result_in_an_aborted_turn(write_session) -> None:
    s = load(
        write_session,
        user("go"),
        assistant(
            call("c1", "read", {"path": "x"}), stop="aborted", errorMessage="Request was aborted"
        ),
    )
    item = only(items_of(s), "tool")
    out = render(s, item, expanded=False)
    assert "⋯ no result" in out.splitlines()[0]
    assert "no result (the turn was aborted: Request was aborted)" in out


def test_orphan_result(write_session) -> None:
    s = tools_session(write_session)
    item = only(items_of(s), "orphan_result")
    out = render(s, item, expanded=False)
    assert out.splitlines()[0].startswith("▸ ⚠ result without a call · ls · id zz  ✓ 2 lines")
    assert "  a\n  b" in out
    assert "zz" in item_text(s, item)


def test_tool_header_only(write_session) -> None:
    s = tools_session(write_session)
    item = [i for i in items_of(s) if i.kind == "tool"][0]
    head = render_header(s, item, expanded=False, width=60)
    assert "\n" not in head.plain and head.plain.startswith("▸ $ seq 1 20")
    assert len(head.plain) == 60


@pytest.mark.parametrize("width", [60, 80, 120])
def test_long_call_keeps_status_size_and_latency(write_session, width: int) -> None:
    # A long command is shortened; the status, size and latency never are.
    cmd = "node -e 'import(\"./x.js\").then(m => console.log(`iteration ${m.n}`))' " + "x" * 300
    s = load(
        write_session,
        user("go"),
        assistant(call("c1", "bash", {"command": cmd}), stop="toolUse"),
        result("c1", "bash", "1\n2\n3\n4\n5\n6"),
    )
    item = only(items_of(s), "tool")
    head = render_header(s, item, expanded=False, width=width).plain
    assert len(head) == width
    assert "✓ 6 lines · 1.0s" in head and "…" in head
    assert head.startswith("▸ $ node -e")


def test_long_shell_command_keeps_exit_and_size(write_session) -> None:
    s = load(
        write_session,
        user("go"),
        message(
            {
                "role": "bashExecution",
                "command": "echo " + "y" * 300,
                "output": "a\nb",
                "exitCode": 3,
                "cancelled": False,
                "truncated": False,
                "timestamp": 1,
            }
        ),
    )
    item = only(items_of(s), "bash")
    head = render_header(s, item, expanded=False, width=80).plain
    assert "✗ exit 3 · 2 lines" in head and head.startswith("▸ $ echo yyy")


# ----------------------------------------------------------------------------- edits


def test_edit_diff_from_details() -> None:
    s = load_session(fixture("edit_tools.jsonl"))
    edits = [i for i in items_of(s) if i.kind == "tool" and i.entry == 10]
    out = render(s, edits[0], expanded=True)
    head = out.splitlines()[0]
    assert head.startswith("▾ edit src/tinyhttp/config.py:10  ✓ +1 −1")
    assert "10 -    timeout: float = 5.0" in out
    assert "10 +    timeout: float = 30.0" in out
    assert " 9      port: int = 8080" in out
    assert "⋮" in out


def test_edit_fallback_from_arguments(write_session) -> None:
    s = load(
        write_session,
        user("go"),
        assistant(
            call("e1", "edit", {"path": "a.py", "oldText": "x = 1\ny = 2", "newText": "x = 3"}),
            call("e2", "edit", {"path": "b.py", "edits": [{"oldText": "a", "newText": "b"}]}),
            stop="toolUse",
        ),
        result("e1", "edit", "Could not find the text", error=True),
        result("e2", "edit", "Successfully replaced 1 block(s) in b.py."),
    )
    e1, e2 = [i for i in items_of(s) if i.kind == "tool"]
    out = render(s, e1, expanded=False)
    assert "-x = 1\n  -y = 2\n  +x = 3" in out
    assert "Could not find the text" in out and "✗ error" in out
    out2 = render(s, e2, expanded=False)
    assert "-a\n  +b" in out2
    assert "Successfully" not in out2  # the success line is noise when collapsed


def test_write_shows_content_preview(write_session) -> None:
    content = "".join(f"row {n}\n" for n in range(30))
    s = load(
        write_session,
        user("go"),
        assistant(call("w", "write", {"path": "notes.txt", "content": content}), stop="toolUse"),
        result("w", "write", "Successfully wrote 240 bytes to notes.txt"),
    )
    out = render(s, only(items_of(s), "tool"), expanded=False)
    assert out.splitlines()[0].startswith("▸ write notes.txt (30 lines)  ✓")
    assert "row 9" in out and "row 10" not in out and "(+20 more lines)" in out


# ----------------------------------------------------------------------------- other roles


def test_user_wrappers_compact_until_expanded(write_session) -> None:
    body = '<file name="/src/a.py">\nimport os\nprint(os)\n</file>\n' + "\n".join(
        f"line {n}" for n in range(40)
    )
    skill = '<skill name="review" location="/skills/review/SKILL.md">\nDo it well.\n</skill>\n\nGo'
    s = load(write_session, user([text(body)]), user(skill))
    u1, u2 = items_of(s)
    assert u1.collapsible and u2.collapsible
    out = render(s, u1, expanded=False)
    assert "▸ file /src/a.py (2 lines)" in out and "import os" not in out
    assert "+" in out and "more line" in out
    out = render(s, u1, expanded=True)
    assert "▾ file /src/a.py (2 lines)" in out and "import os" in out and "line 39" in out
    out = render(s, u2, expanded=False)
    assert "▸ skill review (/skills/review/SKILL.md)" in out and "Do it well" not in out
    assert "Go" in out


def test_assistant_header_marks(write_session) -> None:
    s = load(
        write_session,
        user("a"),
        assistant(text("one")),
        assistant(text("two")),
        assistant(stop="error", errorMessage="529 overloaded"),
        assistant(
            stop="deferred",
            deferred={
                "provider": "openai",
                "modelId": "gpt-5",
                "api": "x",
                "id": "resp_1",
                "expiresAt": 1778763725500,
                "pollAfterMs": 5000,
            },
        ),
        assistant(text("partial"), stop="length", responseModel="claude-sonnet-4-5-2026"),
    )
    a = [i for i in items_of(s) if i.kind == "assistant"]
    first, second, err, deferred, length = (render(s, i, expanded=True) for i in a)
    assert "anthropic/claude-sonnet-4-5" in first.splitlines()[0]
    assert "↑10 ↓5" in first.splitlines()[0]
    assert "claude-sonnet" not in second.splitlines()[0]  # unchanged model
    assert "✗ error" in err.splitlines()[0] and "Error: 529 overloaded" in err
    assert a[2].error
    assert "⏸ deferred" in deferred and "id resp_1" in deferred and "poll after 5.0s" in deferred
    assert "cut off (length)" in length and "→ claude-sonnet-4-5-2026" in length


def test_bash_execution(write_session) -> None:
    def bash(**kw: object) -> dict:
        base = {
            "role": "bashExecution",
            "command": "make",
            "output": "",
            "exitCode": 0,
            "cancelled": False,
            "truncated": False,
            "timestamp": 1,
        }
        return message({**base, **kw})

    s = load(
        write_session,
        bash(output="".join(f"l{n}\n" for n in range(12)), exitCode=2),
        bash(command="ls", output="a\n", excludeFromContext=True),
        bash(command="sleep 9", exitCode=None, cancelled=True),
        bash(command="yes", output="y\n", truncated=True, fullOutputPath="/tmp/out.txt"),
    )
    failed, hidden, cancelled, truncated = (render(s, i, expanded=False) for i in items_of(s))
    assert failed.startswith("▸ $ make  ✗ exit 2 · 12 lines")
    assert "(+7 earlier lines)" in failed and "l11" in failed and "l4\n" not in failed
    assert "!! not sent to the model" in hidden
    assert "⊘ cancelled" in cancelled
    assert "Full output: /tmp/out.txt" in truncated


def test_hidden_custom_message_is_marked(write_session) -> None:
    s = load(
        write_session,
        user("a"),
        {
            "type": "custom_message",
            "customType": "memory",
            "content": "secret note",
            "display": False,
        },
        {"type": "custom", "customType": "todo-state", "data": {"todos": [1, 2]}},
    )
    assert [i.kind for i in items_of(s)] == ["user"]
    items = items_of(s, show_hidden=True)
    msg = only(items, "custom_message")
    out = render(s, msg, expanded=True)
    assert out.startswith("▾ [memory]  hidden (display: false)")
    assert "secret note" in out
    state = only(items, "custom")
    assert render(s, state, expanded=False).startswith("▸ [custom: todo-state]")
    assert '"todos"' in render(s, state, expanded=True)


def test_unknown_entry_raw_json() -> None:
    s = load_session(fixture("unknown.jsonl"))
    unknown = [i for i in items_of(s) if i.kind == "unknown"]
    collapsed = render(s, unknown[0], expanded=False)
    assert collapsed.startswith('▸ ? unknown entry type "frobnicate"')
    assert len(collapsed.strip().splitlines()) == 1
    out = render(s, unknown[0], expanded=True)
    assert '"note": "written by a fork of pi"' in out
    assert render(s, unknown[1], expanded=False).startswith('▸ ? unknown role "telemetry"')


def test_unknown_block_never_shows_base64() -> None:
    s = load_session(fixture("unknown.jsonl"))
    item = [i for i in items_of(s) if i.kind == "assistant"][0]
    out = render(s, item, expanded=True)
    assert '? unknown block "audio"' in out
    assert "UklGR" not in out


def test_dividers() -> None:
    s = load_session(fixture("tree_branches.jsonl"))
    leaf = s.find("22b90c96")
    from piview.render.items import build_items

    items = build_items(s, s.tree.path(s.tree.newest_leaf(leaf)))
    divs = [render(s, i, expanded=False).rstrip("\n") for i in items if i.kind == "divider"]
    assert divs[0].startswith("── model → anthropic/claude-sonnet-4-5 ──")
    assert divs[1].startswith("── thinking: medium ──")
    assert any(d.startswith('── label "backoff" on 91cfbc9b ──') for d in divs)
    assert any(d.startswith('── name: "Retry design" ──') for d in divs)
    assert all(len(d.splitlines()) == 1 and len(d) == 100 for d in divs)
    cleared = load_session(fixture("tree_branches.jsonl"))
    last = build_items(cleared, cleared.tree.path(cleared.tree.leaf))
    texts = [render(cleared, i, expanded=False) for i in last if i.kind == "divider"]
    assert any(t.startswith("── label cleared on 91cfbc9b") for t in texts)


def test_system_message() -> None:
    s = load_session(fixture("roles_all.jsonl"))
    systems = [i for i in items_of(s) if i.kind == "system"]
    head = render(s, systems[1], expanded=False)
    assert head.startswith("▸ system  prompt 1 line · removed project")
    # Collapsed, a prompt shows its first lines.
    first = render(s, systems[0], expanded=False)
    assert "\n  You are an expert coding assistant operating inside pi" in first
    full = render(s, systems[0], expanded=True)
    assert "§ guidelines" in full and "+ tool read: Read the contents of a file." in full
    assert "− tool write" in full
    assert "replace: new baseline" in render(s, systems[2], expanded=False)


def test_summaries() -> None:
    s = load_session(fixture("entry_types.jsonl"))
    items = items_of(s)
    comp = render(s, only(items, "compaction"), expanded=False)
    assert comp.startswith("▸ compacted · 5.2k tokens before")
    # Collapsed: the first lines as a preview, and the files the summarised work touched.
    assert "Understand the router." in comp and "… (+2 more lines)" in comp
    assert "Explained router.py" not in comp
    assert "read: src/tinyhttp/router.py" in comp
    full = render(s, only(items, "compaction"), expanded=True)
    assert "Explained router.py" in full and "read: src/tinyhttp/router.py" in full
    assert "read-files" not in full and "read-files" not in comp
    branch = render(s, only(items, "branch_summary"), expanded=True)
    assert branch.startswith("▾ branch summary") and "regex-based routing" in branch


def test_images_in_user_and_results() -> None:
    s = load_session(fixture("images.jsonl"))
    items = items_of(s)
    users = [render(s, i, expanded=True) for i in items if i.kind == "user"]
    assert "▣ image/png 12×8" in users[0]
    assert "invalid base64" in users[1]
    assert "cannot decode image" in users[2]
    tool = render(s, only(items, "tool"), expanded=True)
    assert "▣ image/jpeg 16×10" in tool
    assert "/9j/" not in tool


def test_no_control_characters_anywhere(write_session) -> None:
    nasty = "a\x1b[2J\x1b]0;title\x07b\rc\x00d\x9b1m\te"
    s = load(
        write_session,
        user(nasty),
        assistant(
            {"type": "thinking", "thinking": nasty},
            text(nasty),
            call("c", nasty, {"k": nasty}),
            stop="toolUse",
        ),
        result("c", nasty, nasty),
        message(
            {
                "role": "bashExecution",
                "command": nasty,
                "output": nasty,
                "exitCode": 1,
                "cancelled": False,
                "truncated": False,
                "timestamp": 1,
            }
        ),
        {"type": "custom_message", "customType": nasty, "content": nasty, "display": True},
        {"type": "model_change", "provider": nasty, "modelId": nasty},
        {"type": "frobnicate", "x": nasty},
    )
    for item in items_of(s, show_hidden=True):
        for expanded in (False, True):
            out = render(s, item, expanded=expanded)
            bad = [ch for ch in out if (ord(ch) < 0x20 and ch != "\n") or 0x7F <= ord(ch) <= 0x9F]
            assert not bad, (item, out)
        assert "\x1b" not in item_text(s, item)


def test_render_never_raises(write_session) -> None:
    s = load(write_session, user("a"))
    bogus = Item("tool", 0, 7, collapsible=True)  # no such block
    out = to_str(render_item(s, bogus, expanded=True, width=30), 30)
    assert len(out.strip().splitlines()) == 1
    weird = Item("thinking", 99, 0)  # no such entry
    out = to_str(render_item(s, weird, expanded=True, width=30), 30)
    assert "cannot render" in out and len(out.strip().splitlines()) == 1
