"""oh-my-pi files (issue #14): title slot, header, entry types, roles, blocks, blobs, usage."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from piview.cli import main
from piview.model import load_session
from piview.model.session_tail import load_tail
from piview.model.types import (
    AnthropicServerToolContent,
    ArchiveEntry,
    AssistantMessage,
    CompactionEntry,
    CredentialPinEntry,
    CustomMessage,
    DeveloperMessage,
    FallbackContent,
    FileMentionMessage,
    HookMessage,
    ImageContent,
    MessageEntry,
    ModeChangeEntry,
    ModelChangeEntry,
    ModelUsageEntry,
    PythonExecutionMessage,
    RedactedThinkingContent,
    ResetBoundaryEntry,
    ServiceTierChangeEntry,
    ThinkingLevelChangeEntry,
    TitleChangeEntry,
    TtsrInjectionEntry,
    UnknownEntry,
    UnknownMessage,
    UserMessage,
)
from tests.conftest import fixture

OMP = fixture("omp")
SESSION = next((OMP / "agent" / "sessions").glob("*/*.jsonl"))
SLOT = 256


def _info(path: Path, capsys: pytest.CaptureFixture[str]) -> dict:
    assert main(["info", str(path), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _slot_line(title: str) -> bytes:
    line = json.dumps(
        {"type": "title", "v": 1, "title": title, "source": "user", "updatedAt": "x", "pad": ""},
        separators=(",", ":"),
    )
    pad = " " * (SLOT - 1 - len(line.encode()))
    return (line[:-2] + pad + '"}\n').encode()


def test_fixture_slot_is_exactly_256_bytes() -> None:
    data = SESSION.read_bytes()
    assert data[SLOT - 1 : SLOT] == b"\n" and data.startswith(b'{"type":"title"')


def test_info_reports_the_header_and_slot(capsys) -> None:
    d = _info(SESSION, capsys)
    assert d["version"] == 3
    assert d["session_id"] == "019ad1f0-0000-7000-8000-00000000c0de"
    assert d["cwd"] == "/work/demo"
    assert d["title"] == "Fix the logo colours"  # the slot, not the header's first title
    assert d["bad_lines"] == []
    assert len(d["roots"]) == 1
    assert "title" not in d["entry_types"] and "?" not in d["entry_types"]


def test_slot_is_neither_entry_nor_root_and_header_is_line_2() -> None:
    s = load_session(SESSION)
    assert s.header_line == 2 and s.line_of(0) == 3
    assert s.index.title_slot is not None and s.index.slot_bytes == SLOT
    assert s.header is not None and s.header.additional_directories == ["/work/shared-lib"]
    assert s.header.provider_prompt_cache_key == "pck-1"


def test_file_without_slot_takes_the_title_of_its_header(capsys) -> None:
    d = _info(OMP / "omp_noslot.jsonl", capsys)
    assert d["title"] == "Logo help" and d["bad_lines"] == [] and len(d["roots"]) == 1


def test_title_falls_back_to_the_last_title_change(write_session) -> None:
    path = write_session(
        [
            '{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/w"}',
            '{"type":"title_change","id":"a1b2c3d4","parentId":null,"timestamp":"t","title":"One","source":"auto"}',
            '{"type":"title_change","id":"a1b2c3d5","parentId":"a1b2c3d4","timestamp":"t","title":"Two","previousTitle":"One","source":"user"}',
        ]
    )
    s = load_session(path)
    assert s.title == "Two"
    assert isinstance(s.entry(1), TitleChangeEntry) and s.entry(1).previous_title == "One"


def test_pi_files_have_no_title() -> None:
    assert load_session(fixture("linear.jsonl")).title is None


def test_in_place_slot_rewrite_is_a_title_change_not_damage(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    shutil.copy(SESSION, path)
    s = load_session(path)
    count = len(s)
    new = _slot_line("A new title")
    assert len(new) == SLOT
    before = os.stat(path)
    fd = os.open(path, os.O_WRONLY)
    try:
        os.pwrite(fd, new, 0)  # as oh-my-pi does: same size, bytes 0-255
    finally:
        os.close(fd)
    # Even when the modification time reads the same (a coarse clock, a quick rewrite).
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert s.poll() == "title"
    assert s.title == "A new title" and s.bad_lines == [] and len(s) == count
    assert s.poll() == "none"
    with open(path, "ab") as f:  # appends still read as appends
        f.write(b'{"type":"reset_boundary","id":"ffff0001","parentId":null,"timestamp":"t"}\n')
    assert s.poll() == "appended" and len(s) == count + 1 and s.bad_lines == []


def test_whole_file_rewrite_is_a_replace(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    shutil.copy(SESSION, path)
    s = load_session(path)
    tmp = tmp_path / "s.jsonl.tmp"
    shutil.copy(SESSION, tmp)
    os.replace(tmp, path)  # oh-my-pi's temp file plus rename
    assert s.poll() == "replaced"


def test_load_tail_skips_the_slot() -> None:
    s = load_tail(SESSION, max_bytes=1_000_000)
    assert s.header is not None and s.header.id == "019ad1f0-0000-7000-8000-00000000c0de"
    assert s.bad_lines == [] and len(s.tree.roots) == 1
    assert s.title == "Fix the logo colours"


def test_index_cache_keeps_the_slot_and_reads_its_title_again(tmp_path: Path, monkeypatch) -> None:
    import piview.model.session as sess
    from piview.model.index_cache import IndexCache

    monkeypatch.setattr(sess, "CACHE_MIN_BYTES", 0)
    path = tmp_path / "s.jsonl"
    shutil.copy(SESSION, path)
    cache = IndexCache(tmp_path / "cache")
    first = load_session(path, index_cache=cache)
    assert first.save_index()
    with open(path, "r+b") as f:
        f.write(_slot_line("Renamed"))
    with open(path, "ab") as f:  # grown too, so the cache is used
        f.write(b'{"type":"reset_boundary","id":"ffff0001","parentId":null,"timestamp":"t"}\n')
    again = load_session(path, index_cache=cache)
    assert again.index_from_cache
    assert again.title == "Renamed" and again.bad_lines == [] and len(again.tree.roots) == 2


def test_every_entry_type_role_and_block_decodes_to_its_struct() -> None:
    s = load_session(SESSION)
    entries = [s.entry(i) for i in range(len(s))]
    assert not [e for e in entries if isinstance(e, UnknownEntry)]
    kinds = {type(e) for e in entries}
    for cls in (
        TitleChangeEntry,
        ModeChangeEntry,
        ModelUsageEntry,
        ServiceTierChangeEntry,
        TtsrInjectionEntry,
        CredentialPinEntry,
        ResetBoundaryEntry,
        ArchiveEntry,
    ):
        assert cls in kinds, cls
    messages = [e.message for e in entries if isinstance(e, MessageEntry)]
    assert not [m for m in messages if isinstance(m, UnknownMessage)]
    roles = {type(m) for m in messages}
    assert {DeveloperMessage, FileMentionMessage, PythonExecutionMessage, HookMessage} <= roles
    blocks = {type(b) for m in messages if isinstance(m, AssistantMessage) for b in m.content}
    assert {RedactedThinkingContent, FallbackContent, ImageContent} <= blocks
    mc = next(e for e in entries if isinstance(e, ModelChangeEntry))
    assert mc.label() == "anthropic/claude-sonnet-4-5" and mc.role == "default"
    tl = next(e for e in entries if isinstance(e, ThinkingLevelChangeEntry))
    assert tl.configured == "auto"
    comp = next(e for e in entries if isinstance(e, CompactionEntry))
    assert (comp.method, comp.short_summary, comp.tokens_after) == ("summarize", "Logo fixed", 300)
    a = next(m for m in messages if isinstance(m, AssistantMessage))
    assert (a.duration, a.ttft) == (2300, 410)
    fb = next(b for b in a.content if isinstance(b, FallbackContent))
    assert (fb.from_, fb.to) == ("claude-opus-4-5", "claude-sonnet-4-5")


def test_server_tool_block_decodes() -> None:
    from piview.model.decode import decode_entry

    line = (
        b'{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"assistant",'
        b'"content":[{"type":"anthropicServerTool","id":"srv","name":"web_search","input":{"q":"x"}}]}}'
    )
    entry, notes = decode_entry(line)
    assert notes == [] and isinstance(entry.message.content[0], AnthropicServerToolContent)


def test_hook_message_is_custom_before_version_3() -> None:
    s = load_session(fixture("v2_hookmessage.jsonl"))
    for i in range(len(s)):
        m = getattr(s.entry(i), "message", None)
        assert not isinstance(m, HookMessage)
        if isinstance(m, CustomMessage):
            assert type(m) is CustomMessage


def test_blob_images_are_resolved_read_only() -> None:
    s = load_session(SESSION)
    before = SESSION.read_bytes()
    user = next(
        s.entry(i)
        for i in range(len(s))
        if isinstance(getattr(s.entry(i), "message", None), UserMessage)
    )
    image = next(b for b in user.message.content if isinstance(b, ImageContent))
    assert not image.data.startswith("blob:") and len(image.data) > 1024
    assert SESSION.read_bytes() == before
    assert s.raw(s.find(user.id))["message"]["content"][1]["data"].startswith("blob:sha256:")


def test_missing_blob_keeps_its_reference() -> None:
    s = load_session(SESSION)
    datas = [
        b.data
        for i in range(len(s))
        if isinstance(m := getattr(s.entry(i), "message", None), AssistantMessage)
        for b in m.content
        if isinstance(b, ImageContent)
    ]
    assert any(d.startswith("blob:sha256:") for d in datas)


def test_blob_reference_cannot_leave_the_blob_folder(tmp_path: Path) -> None:
    from piview.model.blobs import blob_hash, read_blob

    assert blob_hash("blob:sha256:../../etc/passwd") is None
    assert blob_hash("blob:sha256:" + "A" * 64) is None
    assert read_blob(tmp_path / "x.jsonl", "blob:sha256:" + "a" * 64) is None


def test_model_usage_is_its_own_kind(capsys) -> None:
    d = _info(SESSION, capsys)
    side = d["usage"]["model_usage"]
    assert (side["input"], side["output"], side["cost"]) == (120, 8, 0.0625)
    # Not main-model turns: the assistant totals hold only the three assistant messages.
    assert d["usage"]["all"]["input"] == 1000 + 1200 + 100


def test_context_starts_again_after_reset_boundary() -> None:
    from piview.model.context import build_context

    s = load_session(SESSION)
    leaf = s.find("a0018887")  # "Thanks!", after the /clear
    ctx = build_context(s, leaf)
    assert [s.ids[it.index] for it in ctx.items] == ["a0018887"]
    assert ctx.compaction is None  # the compaction before the reset no longer applies
    assert ctx.model == "anthropic/claude-sonnet-4-5"
    before = build_context(s, s.find("a0014443"))  # before the reset: compacted
    assert before.compaction is not None


def test_context_model_from_an_omp_model_change(write_session) -> None:
    from piview.model.context import build_context

    path = write_session(
        [
            '{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/w"}',
            '{"type":"model_change","id":"a1","parentId":null,"timestamp":"t","model":"openai/gpt-5"}',
        ]
    )
    ctx = build_context(load_session(path))
    assert ctx.model == "openai/gpt-5" and ctx.model_ref == ("openai", "gpt-5")


def test_a_slot_with_odd_values_is_still_the_slot(write_session) -> None:
    path = write_session(
        [
            '{"type":"title","v":"one","title":42,"pad":"  "}',
            '{"type":"session","version":3,"id":"s","cwd":"/w","title":"From header"}',
            '{"type":"reset_boundary","id":"a1b2c3d4","parentId":null,"timestamp":"t"}',
        ]
    )
    s = load_session(path)
    assert s.bad_lines == [] and s.header_line == 2 and len(s) == 1
    assert s.title == "From header"
