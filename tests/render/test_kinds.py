"""The registry of kinds (``piview.render.kinds``): every kind is whole, no two claim the
same entries, and the items, the export and the copied text all know each of its names."""

from __future__ import annotations

import importlib
from collections import Counter

import pytest

from piview.export.build import _SECTIONS
from piview.model.types import CustomEntry, MessageEntry, UnknownEntry, UserMessage
from piview.render.copytext import _COPY
from piview.render.kinds import KINDS, block_kind, classify, entry_kind, kind_named, renderers


@pytest.mark.parametrize("field", ["types", "roles", "custom_types", "blocks"])
def test_no_two_kinds_claim_the_same_entries(field: str) -> None:
    claims = Counter(v for k in KINDS for v in getattr(k, field))
    assert [v for v, n in claims.items() if n > 1] == []


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_every_kind_is_drawn_exported_and_copied(kind) -> None:  # noqa: ANN001
    module = importlib.import_module(f"piview.render.roles.{kind.module}")
    assert renderers(kind.name) == (getattr(module, kind.render), getattr(module, kind.plain))
    assert kind.section in _SECTIONS
    assert kind.copy in {*_COPY, "thinking", "tool", "json", "plain"}


def test_classify() -> None:
    assert classify("message", "user", None).name == "user"
    assert classify("message", "hookMessage", None).name == "custom_message"
    assert classify("message", "someday", None).name == "unknown"
    assert classify("custom", "model-snapshot", None) is classify("custom", None, None)
    assert classify("custom", "model-snapshot", "model-snapshot").name == "divider"
    assert classify("custom", None, "tool_execution_start").name == "omp_divider"
    assert classify("custom", None, "anything").name == "custom"
    assert classify("custom_message", None, "anything").name == "custom_message"
    assert classify("archive", None, None).name == "omp_divider"
    assert classify(None, None, None).name == "unknown"
    assert block_kind("toolCall") is kind_named("tool")
    assert block_kind("text") is None
    assert kind_named("no such kind").name == "unknown"


def test_entry_kind_reads_decoded_tags() -> None:
    assert entry_kind(MessageEntry(message=UserMessage(content="hi"))).name == "user"
    assert entry_kind(MessageEntry()).name == "unknown"
    assert entry_kind(CustomEntry(custom_type="model-snapshot")).name == "divider"
    assert entry_kind(UnknownEntry(raw={"type": "message"})).name == "unknown"


def test_entry_kind_of_a_type_no_struct_decodes() -> None:
    # OpenClaw's reset is a divider in both; a known type kept as raw JSON stays unknown.
    assert entry_kind(UnknownEntry(raw={"type": "reset"})).name == "divider"
    assert entry_kind(UnknownEntry(raw={"type": "compaction"})).name == "unknown"
