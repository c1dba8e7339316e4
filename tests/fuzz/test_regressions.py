"""The bugs the fuzz suite found, each pinned by a small, fast test."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from piview.model import session_info, usage_report
from piview.model.treetext import row_text
from piview.model.types import Cost, number
from piview.render.format import fmt_tokens
from piview.render.items import render_item
from piview.render.roles._common import MAX_TEXT_LINES, PREVIEW_LINE_CHARS, clip, prepare
from tests.render.helpers import assistant, call, items_of, load, message, render, result, user

pytestmark = pytest.mark.fuzz

HUGE = 10**400  # an int msgspec decodes, but that no float can hold


def test_number_reads_absurd_values_as_zero() -> None:
    for bad in (HUGE, -HUGE, float("nan"), float("inf"), 1e300, True, "12", None, [1]):
        assert number(bad) == 0
    assert number(12) == 12 and number(0.5) == 0.5
    assert Cost(total=HUGE).total_cost() == 0.0
    assert Cost(input=HUGE, output=1.5).total_cost() == 1.5


def test_huge_usage_numbers_do_not_break_the_sums(write_session: Callable[..., Path]) -> None:
    """An int beyond float range in usage made UsageTotals.add raise OverflowError."""
    usage = {"input": HUGE, "output": 5, "cacheRead": 1e308, "cacheWrite": 1e308}
    s = load(
        write_session,
        user("hi"),
        assistant(call("c", "bash", {"command": "ls"}), usage=usage),
        result("c", "bash", "out", usage=usage),
        assistant(usage=usage),
    )
    info = session_info(s)
    assert info["usage"]["path"]["input"] == 0
    assert info["usage"]["path"]["output"] == 10
    usage_report(s.nodes, s.tree.path(s.tree.leaf))  # type: ignore[arg-type]
    for item in items_of(s):
        assert "cannot render" not in render(s, item, expanded=True)


def test_huge_numbers_in_headers(write_session: Callable[..., Path]) -> None:
    """Exit code, timeout and tokensBefore of 10**400 made the headers raise OverflowError."""
    s = load(
        write_session,
        user("hi"),
        assistant(call("c", "bash", {"command": "ls", "timeout": HUGE})),
        result("c", "bash", "out"),
        message({"role": "bashExecution", "command": "x", "output": "y", "exitCode": HUGE}),
        {"type": "compaction", "summary": "s", "tokensBefore": HUGE},
    )
    shown = {it.kind: render(s, it, expanded=False) for it in items_of(s)}
    assert "cannot render" not in "".join(shown.values())
    assert "exit ?" in shown["bash"]
    assert "timeout" not in shown["tool"]
    assert "0 tokens before" in shown["compaction"]
    assert row_text(s, len(s) - 1) == "[compaction: 0k tokens]"
    assert fmt_tokens(HUGE) == "0"


def test_clip_and_prepare_bound_the_text() -> None:
    text = "\n".join(f"line {k}" for k in range(20_000))
    kept, more = clip(text)
    assert kept.count("\n") == MAX_TEXT_LINES - 1 and more == 20_000 - MAX_TEXT_LINES
    kept, more = clip(text, tail=True)
    assert kept.endswith("line 19999") and more == 20_000 - MAX_TEXT_LINES
    assert clip("short") == ("short", 0)
    one_line = "x" * 1_000_000
    kept, more = clip(one_line)
    assert kept.endswith("…") and more == 0 and len(kept) < 300_000
    preview, more = prepare(one_line + "\nsecond", 3)
    # The first line is cut short, and the second, beyond what was read, is counted.
    assert len(preview.split("\n")[0]) == PREVIEW_LINE_CHARS + 1 and more == 1
    esc = "\x1b[31mred\x1b[0m\r\n" * 2_000_000  # 24 MB of escapes
    # (No wall-time bound in the default run: the output's size below is the bound on work.)
    shown, more = prepare(esc)
    assert "\x1b" not in shown and shown.startswith("red\nred")
    assert more == 2_000_000 - MAX_TEXT_LINES


def test_expanded_huge_outputs_are_cut_with_a_note(write_session: Callable[..., Path]) -> None:
    """A 200,000-line tool output, expanded, took ~20 s to draw (and as many Strips to keep);
    now it is cut at MAX_TEXT_LINES lines with a note; the collapsed preview of a 1 MB line is
    a few lines, not 10,000."""
    s = load(
        write_session,
        user("go"),
        assistant(call("c", "bash", {"command": "yes"}), call("d", "mcp", {})),
        result("c", "bash", "y\n" * 200_000),
        result("d", "mcp", "x" * 1_000_000),
    )
    tools = [it for it in items_of(s) if it.kind == "tool"]
    out = render(s, tools[0], expanded=True, width=100)
    assert "(+195,000 earlier lines)" in out
    assert out.count("\n") < MAX_TEXT_LINES + 20
    collapsed = render(s, tools[1], expanded=False, width=20)
    assert collapsed.count("\n") < 60
    renderable = render_item(s, tools[1], expanded=True, width=100)
    assert renderable is not None


def test_a_one_megabyte_label_is_one_quick_line(write_session: Callable[..., Path]) -> None:
    s = load(write_session, user("hi"), {"type": "label", "targetId": "x", "label": "L" * 10**6})
    item = items_of(s)[-1]
    out = render(s, item, expanded=False, width=100)
    assert out.count("\n") == 1
