"""The viewer's plain command lines are read without argparse, exactly as argparse reads them."""

from __future__ import annotations

import pytest

from piview.cli import _view_parser, parse_args
from tests.conftest import fresh_python


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["s.jsonl"],
        ["--no-follow", "/tmp/s.jsonl"],
        ["/tmp/s.jsonl", "--no-follow"],
        ["--demo"],
        ["--demo", "--no-follow"],
        ["--no-follow", "--no-follow", "abc123"],
        ["a b.jsonl"],
        ["DB.sqlite#main"],
        # Read by argparse: values, abbreviations, =, "--", an empty file name.
        ["--leaf", "ab12", "s.jsonl"],
        ["--theme=light", "s.jsonl"],
        ["--sessions", "/tmp", "abc"],
        ["--no-f", "s.jsonl"],
        ["--", "-odd.jsonl"],
        [""],
    ],
)
def test_the_same_arguments_as_argparse(argv: list[str]) -> None:
    name, args = parse_args(argv)
    assert name == "view"
    assert vars(args) == vars(_view_parser().parse_args(argv))


@pytest.mark.parametrize("argv", [["a.jsonl", "b.jsonl"], ["--nope"], ["-x"]])
def test_what_argparse_refuses_it_still_refuses(argv: list[str]) -> None:
    with pytest.raises(SystemExit):
        parse_args(argv)


def test_help_and_version_are_argparses(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse_args(["--version"])
    assert "piview" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        parse_args(["--help"])
    assert "usage: piview" in capsys.readouterr().out


def test_a_plain_command_line_imports_no_argparse() -> None:
    # argparse and gettext: a few milliseconds of the first screen, for a parser not needed.
    code = (
        "import sys; from piview.cli import parse_args; import piview.commands.view; "
        "parse_args(['--no-follow', 's.jsonl']); "
        "print([m for m in ('argparse', 'gettext') if m in sys.modules])"
    )
    assert fresh_python(code).strip() == "[]"
