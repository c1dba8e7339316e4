"""Shared fixtures: fixture paths, the optional real corpus, and a deterministic environment."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "sessions"
CORPUS = ROOT.parent / "shared" / "corpus"

# Snapshots must not depend on the environment's colour settings or theme.
for var in ("NO_COLOR", "TEXTUAL_THEME", "PIVIEW_THEME", "FORCE_COLOR", "COLORTERM"):
    os.environ.pop(var, None)
os.environ["TEXTUAL_ANIMATIONS"] = "none"
# Textual reads it when first imported, which pytest-textual-snapshot's plugin does before this
# file runs: without this line the tests ran with animations on (a blinking cursor in snapshots).
import textual.constants  # noqa: E402

textual.constants.TEXTUAL_ANIMATIONS = "none"  # type: ignore[misc]
# Never touch the user's cache: index and picker caches go to a throwaway folder.
os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="piview-test-cache-")
# Nor the user's Pi models.json (a context window of theirs would change the pictures).
os.environ["PIVIEW_MODELS_JSON"] = os.devnull

# Times of day are shown in local time: pin the zone so snapshots match everywhere.
os.environ["TZ"] = "UTC"
time.tzset()


# ---- The corpus audit: a test that reads ../shared must be marked ``corpus`` ---------------
# ``sys.addaudithook`` cannot be removed, so the hook is installed once and acts only while a
# test runs (setup, call, teardown) that is not marked ``corpus``. Collection (the listing that
# ``corpus_files()`` gives to parametrize) is not a test: a test parametrized over the corpus
# reads it, so it must carry the marker anyway. Subprocesses do not inherit the hook, so a
# process started with a path under ../shared in its arguments, cwd or environment counts too.
SHARED = ROOT.parent / "shared"
_SHARED_PREFIXES = tuple({str(SHARED), str(SHARED.resolve())})
_unmarked: list[str] = []  # the test running now, when it is not marked corpus
_violations: dict[str, str] = {}  # test id -> what it read


def _under_shared(value: object) -> bool:
    if isinstance(value, bytes):
        value = os.fsdecode(value)
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if not isinstance(value, str):
        return False
    if not os.path.isabs(value):
        value = os.path.abspath(value)
    return value.startswith(_SHARED_PREFIXES)


def _audit(event: str, args: tuple[object, ...]) -> None:
    if not _unmarked or _unmarked[0] in _violations:
        return
    if event == "open":
        if _under_shared(args[0]):
            _violations[_unmarked[0]] = f"opened {args[0]}"
    elif event == "subprocess.Popen":
        _, argv, cwd, env = args
        values: list[object] = [cwd]
        if isinstance(argv, str | bytes | os.PathLike):
            values.append(argv)
        elif argv is not None:
            values.extend(argv)  # type: ignore[call-overload]
        if isinstance(env, dict):
            values.extend(env.values())
        for v in values:
            if isinstance(v, str | bytes) and any(
                os.fsdecode(p).startswith(_SHARED_PREFIXES)
                for p in os.fsdecode(v).split(os.pathsep)
            ):
                _violations[_unmarked[0]] = f"started a process with {os.fsdecode(v)}"
                break


sys.addaudithook(_audit)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test parametrized with a path under ../shared reads it: mark it ``corpus``."""
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        if item.get_closest_marker("corpus") is None and any(
            _under_shared(v) for v in params.values() if isinstance(v, str | os.PathLike)
        ):
            item.add_marker(pytest.mark.corpus)


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Skip a ``corpus`` test where ../shared/corpus is absent (a fresh clone)."""
    if item.get_closest_marker("corpus") is not None and not CORPUS.is_dir():
        pytest.skip("../shared/corpus is absent")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):  # type: ignore[no-untyped-def]
    """Watch the whole test (setup, call, teardown) for reads under ../shared."""
    watched = item.get_closest_marker("corpus") is None
    if watched:
        _unmarked[:] = [item.nodeid]
    try:
        return (yield)
    finally:
        _unmarked.clear()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    """Fail a test not marked ``corpus`` that read ../shared (reported at its call, or at
    its teardown when it read there)."""
    report = yield
    what = _violations.get(item.nodeid)
    if (
        what
        and report.when in ("call", "teardown")
        and not report.failed
        and (report.when == "call" or not getattr(item, "_corpus_reported", False))
    ):
        report.outcome = "failed"
        report.longrepr = (
            f"{item.nodeid} is not marked corpus but {what}: mark it "
            "@pytest.mark.corpus (it then skips where ../shared/corpus is absent)"
        )
        item._corpus_reported = True  # type: ignore[attr-defined]
    return report


def fresh_python(code: str) -> str:
    """What a fresh interpreter (``python -P -c code``, this checkout on its path) prints;
    it must succeed."""
    r = subprocess.run(
        [sys.executable, "-P", "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    return r.stdout


def fixture(name: str) -> Path:
    """Path of a hand-written fixture session in tests/fixtures/sessions."""
    return FIXTURES / name


def corpus_files() -> list[Path]:
    """The real Pi session files in ../shared/corpus, or none where it is absent."""
    if not CORPUS.is_dir():
        return []
    return sorted(CORPUS.glob("*/*.jsonl"))


@pytest.fixture
def write_session(tmp_path: Path):
    """Write lines (str or bytes) to a temporary .jsonl file and return its path."""

    def _write(lines: list[str | bytes] | bytes, name: str = "s.jsonl") -> Path:
        path = tmp_path / name
        if isinstance(lines, bytes):
            path.write_bytes(lines)
        else:
            data = b"".join((x if isinstance(x, bytes) else x.encode()) + b"\n" for x in lines)
            path.write_bytes(data)
        return path

    return _write
