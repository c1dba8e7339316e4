"""Start-up: what each first screen imports (issue #17). Deterministic, never timed.

The first frame of ``piview FILE`` is the session screen, its blocks drawn by the prerender
child; the picker's first rows are the picker. Each is imported here the way the CLI does it,
in a fresh interpreter, and must not pull in what only later keys or the other screen need.
"""

from __future__ import annotations

import pytest

from tests.conftest import fixture, fresh_python

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
    return list(eval(fresh_python(check).strip()))  # noqa: S307 - our own list of names


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


TAIL_BEFORE_THE_FORK_LATER = (
    "piview.model.follow",  # following the file: after the first frame
    "piview.model.index_cache",  # the whole file's load and its cache: in a worker, later
    "piview.model.index_extras",
    "piview.model.store_lazy",
    "piview.model.store_state",
    "piview.model.split",
    "piview.model.memory",
    "piview.model.blobs",  # oh-my-pi's images: when an entry is decoded in full
    "piview.model.usage",  # the sums of the usage sidebar and info, hidden at first
)
"""A big file's first screen reads its tail, then forks the child that draws the first frame
(what it imports by then is imported before the child can start)."""


def _tail_code() -> str:
    path = fixture("tool_pairing.jsonl")
    return (
        "from piview.cli import parse_args; import piview.commands.view; "
        "from piview.model.session_tail import load_tail; "
        f"tail = load_tail({str(path)!r}, max_bytes={path.stat().st_size // 2}); "
        "assert tail.partial and len(tail) and tail.header is not None; "
        "import piview.render.prerender"
    )


def test_a_big_files_tail_is_read_with_only_what_it_needs() -> None:
    assert _imported(_tail_code(), TAIL_BEFORE_THE_FORK_LATER) == []


def test_a_big_files_tail_is_read_without_the_full_decoder() -> None:
    # Every entry, message and block type compiled for it (2 ms): the tail reads skeletons,
    # and its header with a decoder of its own.
    code = (
        f"{_tail_code()}; from piview.model import decode; "
        "f = decode._line_decoder; "
        "print(f.cache_info().currsize if hasattr(f, 'cache_info') else 'made at import')"
    )
    assert fresh_python(code).strip() == "0"
