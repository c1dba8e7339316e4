"""Start-up: what each first screen imports (issue #17). Deterministic, never timed.

The first frame of ``piview FILE`` is the session screen, its blocks drawn by the prerender
child; the picker's first rows are the picker. Each is imported here the way the CLI does it,
in a fresh interpreter, and must not pull in what only later keys or the other screen need.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT

NEVER_FIRST = ("pygments", "rich.syntax", "rich.markdown", "markdown_it", "sqlite3.dump")
"""Never on a first screen: code highlighting and Markdown are the prerender child's work."""

SESSION_LATER = (
    "piview.screens.picker",
    "piview.catalog.fts",
    "piview.model.branchcost",
    "piview.widgets.picker_table",
    "piview.screens.search_results",
)
"""The session screen's first frame has the usage sidebar hidden, no picker under it and no
search of every branch."""

PICKER_LATER = (
    "piview.screens.session",
    "piview.widgets.transcript",
    "piview.widgets.branch_panel",
    "piview.widgets.usage_sidebar",
    "piview.render.items",
    "piview.catalog.fts",
    "piview.catalog.fts_build",
    "piview.model.decode",
    "concurrent.futures.process",
    "multiprocessing",
    "msgspec",
    "sqlite3",
)
"""The picker's first rows come from the summaries: no session screen, no search index (built
in a process of its own after the first rows), no decoder (the indexer loads it, a file not
in the summary cache its JSON reader), no SQLite (an OpenClaw database's own)."""


def _imported(code: str, names: tuple[str, ...]) -> list[str]:
    check = (
        f"{code}; import sys; "
        f"print([n for n in {names!r} if n in sys.modules or "
        f"any(m.startswith(n + '.') for m in sys.modules)])"
    )
    r = subprocess.run(
        [sys.executable, "-P", "-c", check],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert r.returncode == 0, r.stderr
    return list(eval(r.stdout.strip()))  # noqa: S307 - our own list of names


@pytest.mark.parametrize(
    ("code", "names"),
    [
        pytest.param(
            "import piview.cli, piview.commands.view, piview.model.session_tail, "
            "piview.render.prerender, piview.app, piview.screens.session",
            NEVER_FIRST + SESSION_LATER,
            id="session",
        ),
        pytest.param(
            "import piview.cli, piview.commands.view, piview.catalog.hosts, piview.app, "
            "piview.screens.picker",
            NEVER_FIRST + PICKER_LATER,
            id="picker",
        ),
    ],
)
def test_first_screen_imports_only_what_it_draws(code: str, names: tuple[str, ...]) -> None:
    assert _imported(code, names) == []


def test_app_imports_neither_first_screen() -> None:
    # piview.app is imported before the screen is chosen: it leaves both to on_mount.
    assert _imported("import piview.app", ("piview.screens.session", "piview.screens.picker")) == []


def test_widgets_package_loads_its_reexports_on_use() -> None:
    code = "import piview.widgets.offthread"
    assert _imported(code, ("piview.widgets.branch_panel", "piview.widgets.usage_sidebar")) == []
    from piview.widgets import BranchPanel, UsageSidebar
    from piview.widgets.branch_panel import BranchPanel as Panel
    from piview.widgets.usage_sidebar import UsageSidebar as Sidebar

    assert (BranchPanel, UsageSidebar) == (Panel, Sidebar)
