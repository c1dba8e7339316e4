"""oh-my-pi content in the transcript, print and export (issue #14): each new role, entry type
and block has its own look, quiet custom entries stay hidden, blob images preview."""

from __future__ import annotations

from pathlib import Path

import pytest

from piview.catalog.summaries import full_summary, quick_summary
from piview.export import export_branch
from piview.model import load_session
from piview.render.image import clear_cache
from piview.render.items import build_items, item_text
from tests.conftest import fixture
from tests.render.helpers import render

OMP = fixture("omp")
SESSION = next((OMP / "agent" / "sessions").glob("*/*.jsonl"))


@pytest.fixture(scope="module")
def session():
    return load_session(SESSION)


def _by_type(session, items, etype: str):
    return [it for it in items if session.nodes[it.entry].type == etype]


def _first(session, items, kind: str):
    return next(it for it in items if it.kind == kind)


def test_new_roles_get_their_own_kinds(session) -> None:
    items = build_items(session, session.tree.path(session.tree.leaf))
    kinds = {it.kind for it in items}
    assert {"developer", "file_mention", "python", "omp_divider"} <= kinds
    assert "unknown" not in kinds


def test_developer_is_shown_as_host_instructions_not_user(session) -> None:
    items = build_items(session, session.tree.path(session.tree.leaf))
    it = _first(session, items, "developer")
    out = render(session, it, expanded=False)
    assert "developer" in out and "instructions from the host" in out
    assert "● user" not in out and "Plan mode is active" in out


def test_file_mention_lists_files_and_shows_content_expanded(session) -> None:
    items = build_items(session, session.tree.path(session.tree.leaf))
    it = _first(session, items, "file_mention")
    collapsed = render(session, it, expanded=False)
    assert "@ files" in collapsed and "src/app.py (1 line)" in collapsed
    assert "print('hi')" not in collapsed
    assert "print('hi')" in render(session, it, expanded=True)


def test_python_execution_is_a_cell_with_its_output(session) -> None:
    items = build_items(session, session.tree.path(session.tree.leaf))
    out = render(session, _first(session, items, "python"), expanded=True)
    assert ">>> print(2 + 2)" in out and "python ✓ ok" in out and "4" in out


def test_hook_message_is_marked_as_a_hook(session) -> None:
    items = build_items(session, session.tree.path(session.tree.leaf))
    hook = next(it for it in items if session.nodes[it.entry].role == "hookMessage")
    assert hook.kind == "custom_message"
    assert "hook [lint-hook]" in render(session, hook, expanded=True)


@pytest.mark.parametrize(
    ("etype", "words"),
    [
        ("title_change", 'title → "Fix the logo colours"'),
        ("mode_change", "plan mode on"),
        ("model_usage", "other model work: title · anthropic/claude-haiku-4-5 (smol)"),
        ("service_tier_change", "service tier: anthropic priority"),
        ("ttsr_injection", "rules injected: no-console-log"),
        ("credential_pin", "anthropic account pinned"),
        ("reset_boundary", "context cleared (/clear)"),
        ("archive", "archived"),
        ("model_change", "model → anthropic/claude-sonnet-4-5"),
        ("thinking_level_change", "thinking: high (auto)"),
    ],
)
def test_settings_entries_are_slim_dividers(session, etype: str, words: str) -> None:
    items = build_items(session, session.tree.path(session.tree.leaf))
    (it,) = _by_type(session, items, etype)[:1]
    out = render(session, it, expanded=False)
    assert out.startswith("── ") and words in out
    assert out.count("\n") == 1  # exactly one line


def test_quiet_custom_entries_hidden_by_default_and_dividers_when_shown(session) -> None:
    path = session.tree.path(session.tree.leaf)
    assert not _by_type(session, build_items(session, path), "custom")
    shown = _by_type(session, build_items(session, path, show_hidden=True), "custom")
    assert [it.kind for it in shown] == ["omp_divider", "omp_divider"]
    assert all(it.hidden for it in shown)
    texts = [render(session, it, expanded=False) for it in shown]
    assert "tool started: read" in texts[0] and "session exit: quit" in texts[1]


def test_assistant_blocks_and_timing(session) -> None:
    items = build_items(session, session.tree.path(session.tree.leaf))
    first = _first(session, items, "assistant")
    out = render(session, first, expanded=True)
    assert "🔒 redacted thinking" in out
    assert "↪ fallback from claude-opus-4-5 to claude-sonnet-4-5" in out
    assert "2.3s" in out
    assert "redacted thinking" in item_text(session, first)


def test_compaction_shows_omp_fields(session) -> None:
    items = build_items(session, session.tree.path(session.tree.leaf))
    out = render(session, _first(session, items, "compaction"), expanded=False)
    assert "→ 300 after" in out and "summarize" in out


def test_blob_image_previews_like_an_inline_image(session) -> None:
    clear_cache()
    items = build_items(session, session.tree.path(session.tree.leaf))
    user = next(it for it in items if it.kind == "user")
    out = render(session, user, expanded=True)
    assert "▣ image/png 32×20, 1.0 KB" in out  # not a 57-byte "image"


def test_missing_blob_is_a_one_line_notice(session) -> None:
    items = build_items(session, session.tree.path(session.tree.leaf))
    last = [it for it in items if it.kind == "assistant"][-1]
    out = render(session, last, expanded=True)
    notice = [ln for ln in out.splitlines() if "not found" in ln]
    assert len(notice) == 1 and "blob sha256:000000000000…" in notice[0]
    assert "▣ image/png 4×4" in out  # the inline image in assistant content


def test_export_markdown(tmp_path: Path, session) -> None:
    out = export_branch(
        session, None, fmt="md", tools="preview", thinking=False, out=tmp_path / "x.md"
    )
    text = Path(out).read_text()
    assert text.startswith("# Fix the logo colours")
    assert "Developer instructions (from the host)" in text
    assert "Files attached (@mention)" in text and "User Python cell" in text
    assert 'title → "Fix the logo colours"' in text and "plan mode on" in text
    assert "model → anthropic/claude-sonnet-4-5" in text
    assert "↪ fallback" in text and "blob missing" in text
    assert "session exit" not in text and "Entry without a message" not in text
    assert "tool started" not in text


def test_export_html_embeds_the_blob_image(tmp_path: Path, session) -> None:
    out = export_branch(
        session, None, fmt="html", tools="preview", thinking=False, out=tmp_path / "x.html"
    )
    html = Path(out).read_text()
    assert html.count("data:image/png;base64,") >= 2  # the blob one and the inline one


def test_picker_summaries_take_the_slot_title() -> None:
    assert quick_summary(SESSION).title == "Fix the logo colours"
    assert quick_summary(SESSION).session_id == "019ad1f0-0000-7000-8000-00000000c0de"
    assert full_summary(SESSION).title == "Fix the logo colours"
    assert quick_summary(OMP / "omp_noslot.jsonl").title == "Logo help"


def test_viewer_title_is_the_slot_title(session) -> None:
    from piview.screens.session import session_title

    assert session_title(session) == "Fix the logo colours"


def test_usage_report_keeps_model_usage_apart(session) -> None:
    from piview.model.usage import usage_report

    path = session.tree.path(session.tree.leaf)
    report = usage_report(session.nodes, path)
    assert report.side_all.count == 1 and report.side_all.input == 120
    assert report.side_path.count == 1  # on the branch shown
    assert report.all.input == 2300  # assistant turns only


def test_export_states_other_model_work(tmp_path: Path, session) -> None:
    out = export_branch(
        session, None, fmt="md", tools="preview", thinking=False, out=tmp_path / "x.md"
    )
    assert "**Other model work** | 128 tokens · $0.06" in Path(out).read_text()


def test_branch_panel_rows_name_the_omp_roles(session) -> None:
    from piview.model.treetext import row_text

    rows = [row_text(session, i) for i in range(len(session))]
    assert "[developer]: Plan mode is active: read, do not edit." in rows
    assert "[files]: src/app.py" in rows and "[python]: print(2 + 2)" in rows
    assert "[title: Fix the logo colours]" in rows
    assert "[model: anthropic/claude-sonnet-4-5]" in rows


def test_copy_text_of_the_omp_roles(session) -> None:
    from piview.render.copytext import block_text

    items = build_items(session, session.tree.path(session.tree.leaf))
    dev = block_text(session, _first(session, items, "developer"))
    assert dev.what == "the host's instructions" and "Plan mode is active" in dev.text
    files = block_text(session, _first(session, items, "file_mention"))
    assert files.text == "src/app.py\nprint('hi')\n"
    py = block_text(session, _first(session, items, "python"))
    assert py.text == "print(2 + 2)\n4\n"


def test_session_init_and_server_tool_render(write_session) -> None:
    from tests.render.helpers import chain, message

    path = write_session(
        chain(
            {
                "type": "session_init",
                "systemPrompt": ["You are a scout.", "Be brief."],
                "task": "Find the config loader",
                "tools": ["read", "grep"],
                "agent": "scout",
            },
            message(
                {
                    "role": "assistant",
                    "content": [
                        {"type": "anthropicServerTool", "id": "s1", "name": "web_search"},
                        {"type": "text", "text": "Found it."},
                    ],
                    "stopReason": "stop",
                }
            ),
        )
    )
    s = load_session(path)
    items = build_items(s, s.tree.path(s.tree.leaf))
    init = _first(s, items, "session_init")
    collapsed = render(s, init, expanded=False)
    assert "session init  agent scout · 2 tools" in collapsed and "Find the config" in collapsed
    assert "Be brief." in render(s, init, expanded=True)
    assert "⚙ server tool web_search" in render(s, _first(s, items, "assistant"), expanded=True)
