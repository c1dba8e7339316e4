"""Renderer plugins (entry point group ``piview.renderers``) through a real installed package.

The package (the README's example, and a second module of broken renderers) is built with
the project's own build backend, hatchling, without build isolation or an index (offline),
and installed by pip into a folder of the test's temporary directory (``--target``); that
folder is put on ``PYTHONPATH`` for the ``piview`` processes the tests run, so the running
environment is never changed and nothing needs uninstalling.
"""

from __future__ import annotations

import importlib.util
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console, ConsoleOptions, RenderResult

from piview.render.plugins import Registry

README = Path(__file__).resolve().parents[2] / "README.md"

BROKEN = """
from pathlib import Path
import os

if os.environ.get("PIVIEW_TODO_MARK"):
    Path(os.environ["PIVIEW_TODO_MARK"]).write_text("imported")


def register(registry):
    @registry.tool("read")
    def read(call):
        return 42  # not a renderable: the built-in read is drawn, with a notice

    @registry.entry("todo-state")
    def state(entry):
        raise ValueError("boom")
"""

ENTRIES = [
    {"type": "session", "version": 3, "id": "plug-1", "timestamp": "2026-05-14T09:00:00Z"},
    {"type": "message", "id": "u1", "parentId": None, "timestamp": "2026-05-14T09:00:01Z",
     "message": {"role": "user", "content": "plan it"}},
    {"type": "message", "id": "a1", "parentId": "u1", "timestamp": "2026-05-14T09:00:02Z",
     "message": {"role": "assistant", "provider": "x", "model": "m", "stopReason": "toolUse",
                 "content": [
                     {"type": "toolCall", "id": "c1", "name": "todo", "arguments": {"items": [
                         {"text": "write the parser", "done": True},
                         {"text": "test it", "done": False}]}},
                     {"type": "toolCall", "id": "c2", "name": "read",
                      "arguments": {"path": "notes.txt"}}]}},
    {"type": "message", "id": "r1", "parentId": "a1", "timestamp": "2026-05-14T09:00:03Z",
     "message": {"role": "toolResult", "toolCallId": "c1", "toolName": "todo",
                 "content": [{"type": "text", "text": "2 items"}], "isError": False}},
    {"type": "message", "id": "r2", "parentId": "r1", "timestamp": "2026-05-14T09:00:03Z",
     "message": {"role": "toolResult", "toolCallId": "c2", "toolName": "read",
                 "content": [{"type": "text", "text": "the notes"}], "isError": False}},
    {"type": "custom_message", "id": "m1", "parentId": "r2", "timestamp": "2026-05-14T09:00:04Z",
     "customType": "note", "content": "remember the tests", "display": True},
    {"type": "custom", "id": "e1", "parentId": "m1", "timestamp": "2026-05-14T09:00:05Z",
     "customType": "todo-state", "data": {"todos": 3}},
]  # fmt: skip


def _readme_example() -> tuple[str, str]:
    """The README's example plugin: its pyproject.toml and its module, as written there."""
    text = README.read_text()
    start = text.index("## Renderer plugins")
    blocks = text[start:].split("```")
    return blocks[1].removeprefix("toml\n"), blocks[3].removeprefix("python\n")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding the example plugin package, installed by pip from its source."""
    if importlib.util.find_spec("hatchling") is None:
        pytest.skip("hatchling (the build backend, in the test extras) is not installed")
    root = tmp_path_factory.mktemp("plugin")
    pkg = root / "piview-todo"
    pkg.mkdir()
    pyproject, module = _readme_example()
    pyproject = pyproject.replace(
        'todo = "piview_todo:register"',
        'todo = "piview_todo:register"\nbroken = "piview_todo_broken:register"',
    )
    (pkg / "pyproject.toml").write_text(pyproject)
    (pkg / "piview_todo.py").write_text(module)
    (pkg / "piview_todo_broken.py").write_text(BROKEN)
    # hatchling ships one module per name found: list both.
    with (pkg / "pyproject.toml").open("a") as f:
        f.write('\n[tool.hatch.build.targets.wheel]\ninclude = ["piview_todo*.py"]\n')
    target = root / "site"
    cmd = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation"]
    cmd += ["--no-index", "--target", str(target), str(pkg)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        pytest.skip(f"pip could not build and install the plugin offline: {r.stderr[-500:]}")
    return target


def _piview(site: Path, *args: str, **env: str) -> str:
    environ = {k: v for k, v in os.environ.items() if k != "PIVIEW_NO_PLUGINS"}
    environ |= {"PYTHONPATH": str(site), "NO_COLOR": "1", "COLUMNS": "90", **env}
    r = subprocess.run(
        [sys.executable, "-m", "piview", *args],
        capture_output=True,
        text=True,
        env=environ,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    return r.stdout


@pytest.fixture
def session(tmp_path: Path) -> Path:
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in ENTRIES))
    return path


def test_print_draws_plugins_and_falls_back(site: Path, session: Path) -> None:
    out = _piview(site, "print", "--hidden", "--color", "never", str(session))
    assert "✓  write the parser" in out and "☐  test it" in out  # the todo tool's table
    assert "2 items" not in out  # … instead of the generic result
    assert "NOTE: remember the tests" in out
    # A renderer that returns what is not a renderable, or raises: the built-in rendering
    # (the read's output; an extension state's header) with a one-line notice.
    assert "⚠ plugin broken (piview-todo 0.1) failed: TypeError: returned int" in out
    assert "the notes" in out
    assert "⚠ plugin broken (piview-todo 0.1) failed: ValueError: boom" in out


def test_no_plugins(site: Path, session: Path) -> None:
    out = _piview(site, "print", "--hidden", str(session), PIVIEW_NO_PLUGINS="1")
    assert "2 items" in out and "☐" not in out and "⚠" not in out
    listing = _piview(site, "--plugins", PIVIEW_NO_PLUGINS="1")
    assert listing == "plugins are off (PIVIEW_NO_PLUGINS is set)\n"


def test_plugins_listed_with_their_package(site: Path) -> None:
    assert _piview(site, "--plugins").splitlines() == [
        "broken (piview-todo 0.1): tool read, entry todo-state",
        "todo (piview-todo 0.1): tool todo, message note",
    ]


def test_exports(site: Path, session: Path, tmp_path: Path) -> None:
    _piview(site, "export", str(session), "-o", str(tmp_path / "s.md"))
    md = (tmp_path / "s.md").read_text()
    assert "```\n    task\n ✓  write the parser\n ☐  test it\n```" in md
    assert "NOTE: remember the tests" in md and "ValueError: boom" in md
    _piview(site, "export", str(session), "-o", str(tmp_path / "s.html"))
    html = (tmp_path / "s.html").read_text()
    assert '<pre class="plugin"' in html and "write the parser" in html


def test_info_does_not_load_plugins(site: Path, session: Path, tmp_path: Path) -> None:
    mark = tmp_path / "mark"
    assert "plug-1" in _piview(site, "info", str(session), PIVIEW_TODO_MARK=str(mark))
    assert not mark.exists()
    _piview(site, "print", str(session), PIVIEW_TODO_MARK=str(mark))
    assert mark.read_text() == "imported"


HELP = """
import asyncio
from textual.app import App
from textual.widgets import Static
from piview.screens.help import HelpScreen

async def main():
    app = App()
    async with app.run_test() as pilot:
        await app.push_screen(HelpScreen([]))
        await pilot.pause()
        print("\\n".join(str(s.content) for s in app.screen.query(Static)))

asyncio.run(main())
"""


def test_help_lists_plugins(site: Path) -> None:
    r = subprocess.run(
        [sys.executable, "-c", HELP],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(site)},
        timeout=120,
    )
    assert "renderer plugins: broken (piview-todo 0.1); todo (piview-todo 0.1)" in r.stdout, (
        r.stderr
    )


class _Late:
    """A renderable that fails only when Rich draws it."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        raise RuntimeError("late")
        yield ""


def _text(renderable: object) -> str:
    console = Console(file=io.StringIO(), width=60, color_system=None)
    console.print(renderable)
    return console.file.getvalue()  # type: ignore[attr-defined]


def test_registry_fallback_and_cut() -> None:
    reg = Registry()
    reg.loaded = True  # no entry points: these are registered as piview's, then overridden
    reg.tool("t")(lambda c: "built-in")
    reg._loading = "test"  # as while a plugin's register() runs
    reg.tool("t")(lambda c: _Late())
    reg.tool("long")(lambda c: "\n".join(f"line {n}" for n in range(20)))
    reg._loading = None
    drawn = _text(reg.render("tool", "t", None, lambda c: "default"))
    assert "⚠ plugin test failed: RuntimeError: late" in drawn and "built-in" in drawn
    cut = _text(reg.render("tool", "long", None, lambda c: "default", lines=5))
    assert "line 4" in cut and "line 5" not in cut and "(+15 more lines)" in cut
    assert _text(reg.render("tool", "other", None, lambda c: "default")) == "default\n"
