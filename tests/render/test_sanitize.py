"""The sanitiser: no escape code or control character survives, text stays readable."""

from __future__ import annotations

import pytest

from piview.render.sanitize import sanitize, sanitize_line, strip_ansi


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("\x1b[1m== x ==\x1b[0m", "== x =="),
        ("collecting ... \rcollected 9 items", "collected 9 items"),
        ("10%\r50%\r100%\r\nnext", "100%\nnext"),
        ("a\r\nb", "a\nb"),
        ("a\tb", "a   b"),
        ("title\x1b]0;evil\x07 ok", "title ok"),
        ("osc\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "osclink"),
        ("bell\x07 nul\x00 del\x7f c1\x85 csi\x9b31m", "bell nul del c1 csi"),
        ("lone \ud800 surrogate", "lone  surrogate"),
        ("charset \x1b(B done", "charset  done"),
        ("cut \x1b[", "cut "),
        ("plain text stays", "plain text stays"),
    ],
)
def test_sanitize(raw: str, clean: str) -> None:
    assert sanitize(raw) == clean


def test_sanitize_non_string_and_tabs_kept() -> None:
    assert sanitize(None) == ""
    assert sanitize(3) == ""
    assert sanitize("a\tb", tabs=False) == "a\tb"


def test_no_control_characters_left_in_random_junk() -> None:
    junk = "".join(chr(c) for c in range(0, 0xA0)) * 3 + "\x1b[31mred\x1b[0m"
    out = sanitize(junk)
    assert not any(ord(ch) < 0x20 and ch not in "\n" for ch in out)
    assert not any(0x7F <= ord(ch) <= 0x9F for ch in out)


def test_sanitize_line_and_strip_ansi() -> None:
    assert sanitize_line("a\n\n  b \n") == "a b"
    assert strip_ansi("\x1b[32mok\x1b[0m\r") == "ok\r"
