"""Where the hosts of the Pi family keep sessions, and the picker's summaries of them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from piview.catalog.hosts import (
    Root,
    discover,
    find_by_id,
    folder_name,
    host_roots,
    root_for_folder,
)
from piview.catalog.summaries import SummaryCache, summarize, summarize_full
from tests.hosts import make_home, sqlite_lines, sqlite_session_id


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return make_home(tmp_path)


def _by_name(found: list) -> dict[str, object]:
    return {Path(f.path).name.split("_")[-1]: f for f in found}


def test_roots_of_every_host(home: Path) -> None:
    roots = host_roots({"HOME": str(home)})
    assert [(r.host, r.profile, r.layout) for r in roots] == [
        ("pi", None, "buckets"),
        ("omp", None, "buckets"),
        ("omp", "work", "buckets"),
        ("openclaw", None, "agents"),
    ]
    assert roots[0].path == home / ".pi/agent/sessions"
    assert roots[2].path == home / ".omp/profiles/work/agent/sessions"


def test_roots_follow_the_environment(home: Path, tmp_path: Path) -> None:
    (home / ".omp/profiles/aaa/agent/sessions").mkdir(parents=True)
    env = {"HOME": str(home), "OMP_PROFILE": "work", "PI_PROFILE": "aaa"}
    profiles = [r.profile for r in host_roots(env) if r.host == "omp"]
    assert profiles == [None, "work", "aaa"]  # the active profile first
    env = {"HOME": str(home), "PI_PROFILE": "work"}
    assert [r.profile for r in host_roots(env) if r.host == "omp"] == [None, "work", "aaa"]
    # XDG_DATA_HOME/omp/sessions only when it exists; PI_CODING_AGENT_DIR moves the agent dir
    xdg = tmp_path / "xdg"
    env = {"HOME": str(home), "XDG_DATA_HOME": str(xdg)}
    assert xdg / "omp/sessions" not in [r.path for r in host_roots(env)]
    (xdg / "omp/sessions").mkdir(parents=True)
    assert xdg / "omp/sessions" in [r.path for r in host_roots(env)]
    agent = tmp_path / "agent"
    (agent / "sessions").mkdir(parents=True)
    roots = host_roots({"HOME": str(home), "PI_CODING_AGENT_DIR": str(agent)})
    assert [r.host for r in roots if r.path == agent / "sessions"] == ["pi"]  # listed once
    assert home / ".pi/agent/sessions" not in [r.path for r in roots]
    state = tmp_path / "claw"
    (state / "agents").mkdir(parents=True)
    roots = host_roots({"HOME": str(home), "OPENCLAW_STATE_DIR": str(state)})
    assert [r.path for r in roots if r.host == "openclaw"] == [state]


def test_discover_finds_every_host(home: Path) -> None:
    found = discover(host_roots({"HOME": str(home)}))
    hosts = sorted(f.host for f in found)
    assert hosts == ["omp", "omp", "omp", "openclaw", "openclaw", "openclaw", "pi"]
    # the subagent comes right after its parent, and names it
    k = next(k for k, f in enumerate(found) if f.parent is not None)
    assert found[k - 1].path == found[k].parent
    assert Path(found[k].parent).with_suffix("") == Path(found[k].path).parent
    assert [f.profile for f in found if f.profile] == ["work"]
    claw = [f for f in found if f.host == "openclaw"]
    # set-aside files (.reset.<ts>, .deleted.) are skipped; agents group the sessions
    assert not any(".reset." in f.path or ".deleted." in f.path for f in claw)
    assert {f.group for f in claw} == {"main", "ops"}
    assert {f.name for f in claw} == {"Calendar", "Standup notes", "Nightly backup"}
    db = next(f for f in claw if "#" in f.path)
    assert db.path.endswith(f"openclaw-agent.sqlite#{sqlite_session_id()}")
    assert db.size == sum(len(ln.encode()) + 1 for ln in sqlite_lines())
    # sessions.json's updatedAt is the activity of its sessions
    meta = json.loads((home / ".openclaw/agents/main/sessions/sessions.json").read_text())
    when = {v["sessionId"]: v["updatedAt"] / 1000 for v in meta.values()}
    for f in claw:
        if "#" not in f.path:
            assert f.updated == when[Path(f.path).stem]


def test_sessions_folder_of_any_host(home: Path) -> None:
    claw = home / ".openclaw"
    assert root_for_folder(claw).layout == "agents"
    assert root_for_folder(claw / "agents/main/sessions") == Root(
        "openclaw", claw / "agents/main/sessions", layout="agent"
    )
    assert root_for_folder(home / ".omp/agent/sessions").host == "omp"
    assert root_for_folder(home / ".pi/agent/sessions").host == "pi"
    only_main = discover([root_for_folder(claw / "agents/main/sessions")])
    assert [(f.host, f.group) for f in only_main] == [("openclaw", "main")] * 2


def test_summaries_say_the_host_and_are_cached(home: Path, tmp_path: Path) -> None:
    found = discover(host_roots({"HOME": str(home)}))
    db = next(f for f in found if "#" in f.path)
    quick = summarize(db)
    assert (quick.host, quick.group, quick.project) == ("openclaw", "ops", "agent:ops")
    assert quick.name == "Nightly backup" and quick.cwd == "/srv/openclaw"
    assert quick.first_message == "Which hosts did the nightly backup skip?"
    assert (quick.size, quick.mtime) == (db.size, db.mtime)
    full = summarize_full(db)
    assert full.complete and full.entries == len(sqlite_lines()) - 1
    sub = next(f for f in found if f.parent)
    s = summarize_full(sub)
    assert s.host == "omp" and s.parent == sub.parent
    cache = SummaryCache(tmp_path / "c.json")
    cache.put(full)
    cache.put(s)
    cache.save()
    again = SummaryCache(tmp_path / "c.json")
    hit = again.get(Path(db.path), db.size, db.mtime)
    assert hit is not None and hit.host == "openclaw" and hit.group == "ops"
    assert again.get(Path(sub.path), sub.size, sub.mtime).parent == sub.parent  # type: ignore[union-attr]
    # A cache of the previous version (no host) is read again from the files.
    raw = json.loads((tmp_path / "c.json").read_text())
    raw["version"] = 2
    (tmp_path / "c.json").write_text(json.dumps(raw))
    assert SummaryCache(tmp_path / "c.json").get(Path(db.path), db.size, db.mtime) is None


def test_find_by_id_over_every_host(home: Path) -> None:
    roots = host_roots({"HOME": str(home)})
    sid = sqlite_session_id()
    assert find_by_id(sid[:20], roots) == [
        str(home / ".openclaw/agents/ops/agent/openclaw-agent.sqlite") + f"#{sid}"
    ]
    sub = next(f for f in discover(roots) if f.parent)
    sub_id = json.loads(Path(sub.path).read_text().splitlines()[0])["id"]
    assert find_by_id(sub_id, roots) == [sub.path]
    assert find_by_id("zzzz", roots) == []


def test_view_resolves_ids_of_other_hosts(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from piview.cli import main

    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(home)
    for var in ("PI_CODING_AGENT_DIR", "OMP_PROFILE", "PI_PROFILE", "OPENCLAW_STATE_DIR"):
        monkeypatch.delenv(var, raising=False)
    opened: list[str] = []

    def run_app(session, **_kw):  # type: ignore[no-untyped-def]
        opened.append(str(session.path))
        return 0

    monkeypatch.setattr("piview.app.run_app", run_app)
    monkeypatch.setattr("piview.commands.view._prerender", lambda *_a: None)
    # Every fixture session was written within the same millisecond: one prefix names all,
    # across the hosts.
    prefix = sqlite_session_id()[:8]
    assert main([prefix]) == 2
    err = capsys.readouterr().err
    assert "is ambiguous (7 sessions)" in err and ".omp" in err and ".pi" in err
    assert main([sqlite_session_id()[:20]]) == 0  # the database's session opens
    assert opened == [str(home / ".openclaw/agents/ops/agent/openclaw-agent.sqlite")
                      + f"#{sqlite_session_id()}"]  # fmt: skip
    assert main(["zzzz"]) == 2
    assert ".openclaw" in capsys.readouterr().err


def test_folder_name() -> None:
    assert folder_name("C:\\Users\\ana\\app") == "app"
    assert folder_name("/home/dev/src/alpha/") == "alpha"
    assert folder_name("/") == "/"
