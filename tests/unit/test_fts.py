"""The search index: extraction, incremental updates (append, rewrite, delete, rename),
ranking, the query syntax and snippets."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from piview.catalog import fts
from piview.catalog.fts import IndexRefusedError, SearchIndex
from piview.catalog.fts_extract import _SIG as SIG
from piview.catalog.fts_extract import extract_file
from piview.catalog.fts_query import parse_fts_query, snippet
from tests.conftest import fixture


def _header(sid: str = "s1", cwd: str = "/home/dev/src/alpha") -> str:
    return json.dumps(
        {
            "type": "session",
            "version": 3,
            "id": sid,
            "timestamp": "2026-01-01T00:00:00Z",
            "cwd": cwd,
        }
    )


def _msg(eid: str, role: str, content: object, ts: str = "2026-01-02T10:00:00Z", **kw) -> str:
    return json.dumps(
        {
            "type": "message",
            "id": eid,
            "parentId": None,
            "timestamp": ts,
            "message": {"role": role, "content": content, **kw},
        }
    )


def _write(path: Path, lines: list[str], mode: str = "w") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, mode) as f:
        f.write("".join(line + "\n" for line in lines))
    return path


def _session(path: Path, *words: str, sid: str = "s1") -> Path:
    lines = [_header(sid)]
    for k, w in enumerate(words):
        lines.append(_msg(f"e{k}", "user", [{"type": "text", "text": w}]))
    return _write(path, lines)


@pytest.fixture
def index(tmp_path: Path):
    ix = SearchIndex(tmp_path / "cache" / "search.db")
    yield ix
    ix.close()


def _ids(hits) -> list[tuple[str, str | None]]:
    return [(Path(h.session_path).name, h.entry_id) for h in hits]


# --------------------------------------------------------------------------- extraction


def test_extract_takes_text_tools_summaries_and_leaves_thinking_out(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "a.jsonl",
        [
            _header(),
            _msg(
                "a1",
                "assistant",
                [
                    {"type": "thinking", "thinking": "secretthought"},
                    {"type": "text", "text": "visible answer"},
                    {
                        "type": "toolCall",
                        "id": "t1",
                        "name": "bash",
                        "arguments": {"command": "ls -la"},
                    },
                ],
            ),
            _msg("r1", "toolResult", [{"type": "text", "text": "output listing"}], toolCallId="t1"),
            json.dumps({"type": "compaction", "id": "c1", "summary": "compacted summary"}),
            json.dumps({"type": "custom_message", "id": "m1", "content": "extension note"}),
            json.dumps({"type": "session_info", "id": "n1", "name": "My name"}),
            _msg("b1", "bashExecution", None, command="make test", output="all passed"),
            "this is not json",
            _msg("u9", "user", [{"type": "text", "text": 42}]),  # odd block: tolerant path
        ],
    )
    with open(path, "a") as f:
        f.write('{"type":"message","id":"torn","message":{"role":"user","content":"half')
    ex = extract_file(str(path))
    by_id = {d.entry_id: d for d in ex.docs}
    assert ex.session_id == "s1" and ex.cwd == "/home/dev/src/alpha" and ex.name == "My name"
    assert by_id["a1"].text == "visible answer" and "secretthought" not in by_id["a1"].text
    assert by_id["a1"].tools == "bash\nls -la"
    assert by_id["r1"].tools == "output listing" and by_id["r1"].text == ""
    assert by_id["c1"].text == "compacted summary" and by_id["m1"].text == "extension note"
    assert by_id["b1"].text == "make test" and by_id["b1"].tools == "all passed"
    assert "u9" not in by_id  # nothing to index, and no crash
    assert ex.bad_lines == 1
    assert "torn" not in by_id and ex.end < path.stat().st_size  # the torn line waits
    assert ex.bytes_read == path.stat().st_size
    raw = path.read_bytes()
    doc = by_id["r1"]
    assert json.loads(raw[doc.offset : doc.offset + doc.length])["id"] == "r1"


def test_extract_of_the_real_fixtures_never_fails() -> None:
    for name in ("linear.jsonl", "tree_branches.jsonl", "v1.jsonl"):
        ex = extract_file(str(fixture(name)))
        assert ex.docs and ex.end == fixture(name).stat().st_size


# --------------------------------------------------------------------------- incremental


def test_unchanged_files_are_skipped(index: SearchIndex, tmp_path: Path) -> None:
    a = _session(tmp_path / "s" / "a.jsonl", "aardvark words here")
    first = index.update([a])
    assert first.files_total == 1 and index.bytes_read == a.stat().st_size
    again = index.update([a])
    assert again.files_total == 0 and index.bytes_read == a.stat().st_size
    assert _ids(index.search("aardvark")) == [("a.jsonl", "e0")]


def test_append_indexes_only_the_new_bytes(index: SearchIndex, tmp_path: Path) -> None:
    a = _session(tmp_path / "s" / "a.jsonl", "first zebra")
    index.update([a])
    size = a.stat().st_size
    # Pi appends a line, and is still writing the next one.
    _write(a, [_msg("e1", "user", [{"type": "text", "text": "second zebra"}])], mode="a")
    with open(a, "a") as f:
        f.write('{"type":"message","id":"e2","message":{"role":"user","content":"giraffe')
    index.update([a])
    # The new bytes once, and the few before them whose checksum tells an append.
    assert index.bytes_read == size + (a.stat().st_size - size) + min(size, SIG)
    assert sorted(_ids(index.search("zebra"))) == [("a.jsonl", "e0"), ("a.jsonl", "e1")]
    assert index.search("giraffe") == []
    with open(a, "a") as f:
        f.write(' neck"}}\n')
    index.update([a])
    assert _ids(index.search("giraffe")) == [("a.jsonl", "e2")]
    assert index.stats() == {"files": 1, "entries": 4}  # header, e0, e1, e2: none twice


def test_rewrite_is_indexed_again(index: SearchIndex, tmp_path: Path) -> None:
    a = _session(tmp_path / "s" / "a.jsonl", "old walrus", "more walrus")
    index.update([a])
    # Same length or longer, but different bytes before the indexed end: a rewrite.
    st = a.stat()
    _session(a, "new narwhal", "more narwhal text that is longer")
    os.utime(a, (st.st_atime + 5, st.st_mtime + 5))
    index.update([a])
    assert index.search("walrus") == []
    assert sorted(_ids(index.search("narwhal"))) == [("a.jsonl", "e0"), ("a.jsonl", "e1")]
    # Shorter: a rewrite as well.
    _session(a, "tiny")
    index.update([a])
    assert index.search("narwhal") == [] and _ids(index.search("tiny")) == [("a.jsonl", "e0")]
    assert index.stats()["entries"] == 2


def test_removed_files_are_dropped(index: SearchIndex, tmp_path: Path) -> None:
    a = _session(tmp_path / "s" / "a.jsonl", "shared otter", sid="a")
    b = _session(tmp_path / "s" / "b.jsonl", "shared otter", sid="b")
    index.update([a, b])
    assert len(index.search("otter")) == 2
    b.unlink()
    index.update([a])
    assert _ids(index.search("otter")) == [("a.jsonl", "e0")]
    assert index.stats() == {"files": 1, "entries": 2}


def test_rename_keeps_the_rows_and_reads_nothing(index: SearchIndex, tmp_path: Path) -> None:
    a = _session(tmp_path / "s" / "a.jsonl", "moving badger")
    index.update([a])
    read = index.bytes_read
    b = tmp_path / "s" / "other" / "b.jsonl"
    b.parent.mkdir()
    os.rename(a, b)
    index.update([b])
    assert index.bytes_read == read
    assert _ids(index.search("badger")) == [("b.jsonl", "e0")]
    # Renamed and appended: only the new bytes are read.
    size = b.stat().st_size
    _write(b, [_msg("e9", "user", [{"type": "text", "text": "badger again"}])], mode="a")
    c = tmp_path / "s" / "c.jsonl"
    os.rename(b, c)
    index.update([c])
    assert sorted(_ids(index.search("badger"))) == [("c.jsonl", "e0"), ("c.jsonl", "e9")]
    assert index.bytes_read == read + c.stat().st_size - size + min(size, SIG)
    assert index.stats()["files"] == 1


def test_dropped_rows_without_contentless_delete_are_unreachable_then_rebuilt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fts, "_CAN_DELETE", False)
    ix = SearchIndex(tmp_path / "old.db")
    files = [_session(tmp_path / "s" / f"{k}.jsonl", "heron", sid=str(k)) for k in range(3)]
    ix.update(files)
    files[0].unlink()
    ix.update(files[1:])
    assert len(ix.search("heron")) == 2  # the dead rows never show
    files[1].unlink()
    ix.update(files[2:])  # dead rows now over the threshold: the next update rebuilds
    ix.update(files[2:])
    assert _ids(ix.search("heron")) == [("2.jsonl", "e0")]
    assert ix.db.execute("SELECT count(*) FROM docs").fetchone()[0] == 2
    ix.close()


def test_session_files_are_never_written(index: SearchIndex, tmp_path: Path) -> None:
    root = tmp_path / "s"
    root.mkdir()
    for name in ("linear.jsonl", "tree_branches.jsonl", "v1.jsonl"):
        shutil.copy(fixture(name), root / name)
    before = {p.name: (p.read_bytes(), p.stat().st_mtime) for p in root.iterdir()}
    index.update(sorted(root.iterdir()))
    index.search("the")
    assert {p.name: (p.read_bytes(), p.stat().st_mtime) for p in root.iterdir()} == before


def test_the_pool_gives_the_same_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = [
        _session(tmp_path / "s" / f"{k}.jsonl", f"word{k} common", sid=str(k)) for k in range(4)
    ]
    monkeypatch.setattr(fts, "_POOL_MIN_BYTES", 0)
    pooled = SearchIndex(tmp_path / "p.db")
    pooled.update(files, workers=2)
    alone = SearchIndex(tmp_path / "a.db")
    alone.update(files, workers=1)
    assert sorted(_ids(pooled.search("common"))) == sorted(_ids(alone.search("common")))
    assert len(pooled.search("common")) == 4 and pooled.bytes_read == alone.bytes_read
    pooled.close()
    alone.close()


# --------------------------------------------------------------------------- search


def test_ranking_prefers_the_denser_match(index: SearchIndex, tmp_path: Path) -> None:
    filler = " ".join(f"filler{k}" for k in range(60))
    a = _session(tmp_path / "s" / "a.jsonl", f"kestrel {filler}", sid="a")
    b = _session(tmp_path / "s" / "b.jsonl", "kestrel kestrel nest", sid="b")
    c = _session(tmp_path / "s" / "c.jsonl", "nothing here", sid="c")
    index.update([a, b, c])
    hits = index.search("kestrel")
    assert _ids(hits) == [("b.jsonl", "e0"), ("a.jsonl", "e0")]
    assert hits[0].rank < hits[1].rank
    assert hits[0].session_id == "b" and hits[0].role == "user"


def test_syntax_phrases_prefixes_tools_since_and_names(index: SearchIndex, tmp_path: Path) -> None:
    path = _write(
        tmp_path / "s" / "a.jsonl",
        [
            _header(cwd="/home/dev/src/pelican"),
            _msg("u1", "user", "please fix the parser crash", ts="2026-01-01T09:00:00Z"),
            _msg("u2", "user", "crash of the parser again", ts="2026-03-01T09:00:00Z"),
            _msg("r1", "toolResult", [{"type": "text", "text": "Traceback parser"}]),
            json.dumps({"type": "session_info", "id": "n1", "name": "Pelican work"}),
        ],
    )
    index.update([path])
    assert {h.entry_id for h in index.search('"parser crash"')} == {"u1"}
    assert {h.entry_id for h in index.search("pars*")} == {"u1", "u2"}
    assert {h.entry_id for h in index.search("parser", tools=True)} == {"u1", "u2", "r1"}
    assert {h.entry_id for h in index.search("tools:traceback")} == {"r1"}
    assert index.search("traceback") == []  # tool output only with --tools
    assert {h.entry_id for h in index.search("parser", since="2026-02-01")} == {"u2"}
    assert {h.role for h in index.search("pelican")} == {"session", "session_info"}
    assert {h.entry_id for h in index.search('parser "crash')} == {"u1", "u2"}  # bad syntax
    assert index.search("   ") == [] and index.search("()") == []
    assert len(index.search("parser", limit=1)) == 1


def test_per_session_keeps_the_best_hit_of_each(index: SearchIndex, tmp_path: Path) -> None:
    a = _session(tmp_path / "s" / "a.jsonl", "lynx", "lynx lynx", "lynx and more", sid="a")
    b = _session(tmp_path / "s" / "b.jsonl", "lynx", sid="b")
    index.update([a, b])
    hits = index.search("lynx", per_session=1)
    assert sorted(_ids(hits)) == [("a.jsonl", "e1"), ("b.jsonl", "e0")]


def test_snippet_is_read_back_and_highlighted(index: SearchIndex, tmp_path: Path) -> None:
    long = "word " * 100 + "the Needle is here " + "tail " * 100
    a = _session(tmp_path / "s" / "a.jsonl", long)
    index.update([a])
    (hit,) = index.search("needle")
    assert hit.snippet.startswith("…") and hit.snippet.endswith("…")
    ((start, end),) = hit.spans
    assert hit.snippet[start:end] == "Needle" and hit.column == "text"


def test_query_parsing() -> None:
    q = parse_fts_query("foo bar")
    assert q.match == "text : (foo bar)" and not q.tools
    assert parse_fts_query("tools: foo").match == "foo"
    q = parse_fts_query("foo ba", prefix_last=True)
    assert q.match == "text : (foo ba*)" and q.terms == (("foo", False), ("ba", True))
    q = parse_fts_query('"a b" OR c* NOT d')
    assert q.terms == (("a b", False), ("c", True), ("d", False))
    # Operators only are searched as words (the README: an unparsable query is its words).
    assert parse_fts_query("AND").terms == (("and", False),) and parse_fts_query("").blank
    pattern = parse_fts_query('"a b" c*').pattern()
    assert pattern is not None
    line, spans = snippet("x a  b y cde", pattern)
    assert [line[s:e] for s, e in spans] == ["a b", "cde"]


def test_the_pool_starts_under_a_stderr_without_a_descriptor(tmp_path: Path) -> None:
    """Textual's sys.stderr has fileno() -1, which multiprocessing passed on to its helper
    process ("bad value(s) in fds_to_keep"): the picker's index build failed at once.
    In a fresh interpreter: no helper process may be running already."""
    files = [_session(tmp_path / "s" / f"{k}.jsonl", "puffin", sid=str(k)) for k in range(3)]
    script = f"""
import sys
import time
from piview.catalog import fts

class Capture:
    def write(self, text): return len(text)
    def flush(self): pass
    def fileno(self): return -1

if __name__ == "__main__":
    fts._POOL_MIN_BYTES = 0
    real, sys.stderr = sys.stderr, Capture()
    ix = fts.SearchIndex({str(tmp_path / "p.db")!r})
    ix.update({[str(f) for f in files]!r}, workers=2)
    sys.stderr = real
    print(len(ix.search("puffin")))
"""
    (tmp_path / "run.py").write_text(script)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    done = subprocess.run(
        [sys.executable, str(tmp_path / "run.py")], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "3"


def test_a_damaged_or_older_index_is_built_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Not ours by its content: a file elsewhere is refused, unchanged (issue #26); in
    # piview's own cache folder it is ours by its place, and built again.
    junk = b"this is not an sqlite database at all" * 200
    elsewhere = tmp_path / "other.db"
    elsewhere.write_bytes(junk)
    with pytest.raises(IndexRefusedError):
        SearchIndex(elsewhere)
    assert elsewhere.read_bytes() == junk
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    db = tmp_path / "cache" / "piview" / "search.db"
    db.parent.mkdir(parents=True)
    db.write_bytes(junk)
    a = _session(tmp_path / "s" / "a.jsonl", "pangolin")
    ix = SearchIndex(db)
    ix.update([a])
    assert _ids(ix.search("pangolin")) == [("a.jsonl", "e0")]
    ix.db.execute("UPDATE meta SET value=0 WHERE key='version'")
    ix.db.commit()
    ix.close()
    again = SearchIndex(db)
    assert again.stats() == {"files": 0, "entries": 0}
    again.close()


def test_candidates_rank_only_the_newest_matches(index: SearchIndex, tmp_path: Path) -> None:
    files = []
    for k, name in enumerate(("new", "old", "mid")):
        f = _session(tmp_path / "s" / f"{name}.jsonl", "osprey " * (k + 1), sid=name)
        files.append(f)
    for f, when in zip(files, (3000, 1000, 2000), strict=True):
        os.utime(f, (when, when))
    index.update(files)  # oldest first, whatever order they are given in
    assert _ids(index.search("osprey", candidates=1)) == [("new.jsonl", "e0")]
    assert sorted(_ids(index.search("osprey", candidates=2))) == [
        ("mid.jsonl", "e0"),
        ("new.jsonl", "e0"),
    ]
    assert len(index.search("osprey")) == 3


def test_deeply_nested_arguments_are_indexed_without_recursion(tmp_path: Path) -> None:
    n = 450  # 900 levels: msgspec reads them, a recursive walk in Python would not
    deep = '{"k":[' * n + '"bottomword"' + "]}" * n
    line = (
        '{"type":"message","id":"a1","message":{"role":"assistant","content":'
        '[{"type":"toolCall","id":"t","name":"x","arguments":' + deep + "}]}}"
    )
    path = _write(tmp_path / "deep.jsonl", [_header(), line])
    ex = extract_file(str(path))
    assert ex.docs[-1].entry_id == "a1" and ex.docs[-1].tools == "x\nbottomword"
    too_deep = line.replace(deep, '{"k":[' * 5000 + "1" + "]}" * 5000)
    path = _write(tmp_path / "deeper.jsonl", [_header(), too_deep])
    ex = extract_file(str(path))  # too deep even for msgspec: a bad line, no crash
    assert [d.entry_id for d in ex.docs] == ["s1"] and ex.bad_lines == 1


def test_folders_indexed_one_at_a_time_share_the_index(index: SearchIndex, tmp_path: Path) -> None:
    one = _session(tmp_path / "one" / "a.jsonl", "gecko", sid="a")
    two = _session(tmp_path / "two" / "b.jsonl", "gecko", sid="b")
    index.update([one], roots=[tmp_path / "one"])
    index.update([two], roots=[tmp_path / "two"])
    assert index.stats()["files"] == 2  # the first folder's file is kept
    assert _ids(index.search("gecko", under=tmp_path / "one")) == [("a.jsonl", "e0")]
    assert _ids(index.search("gecko", under=tmp_path / "tw")) == []  # a folder, not a prefix
    one.unlink()
    index.update([two], roots=[tmp_path / "two"])  # gone from the disk: dropped anyway
    assert _ids(index.search("gecko")) == [("b.jsonl", "e0")]
    index.update([], roots=[tmp_path / "two"])
    assert index.stats()["files"] == 0


def test_pool_workers_end_when_the_parent_quits_at_once(tmp_path: Path) -> None:
    """The viewer ends with os._exit while a cold build runs: its workers, waiting on a
    queue they hold both ends of, slept on forever."""
    files = [_session(tmp_path / "s" / f"{k}.jsonl", "wren " * 50, sid=str(k)) for k in range(8)]
    script = f"""
import multiprocessing, os, sys
from piview.catalog import fts

def progress(p):
    if p.files_done:
        print(" ".join(str(c.pid) for c in multiprocessing.active_children()), flush=True)
        os._exit(0)

if __name__ == "__main__":
    fts._POOL_MIN_BYTES = 0
    ix = fts.SearchIndex({str(tmp_path / "p.db")!r})
    ix.update({[str(f) for f in files]!r}, workers=2, progress=progress)
"""
    (tmp_path / "run.py").write_text(script)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    # Output to files, not pipes: workers left behind would hold a pipe open.
    out, err = tmp_path / "out.txt", tmp_path / "err.txt"
    with open(out, "w") as o, open(err, "w") as e:
        done = subprocess.run(
            [sys.executable, str(tmp_path / "run.py")], stdout=o, stderr=e, env=env, timeout=120
        )
    assert done.returncode == 0, err.read_text()[-2000:]
    pids = [int(p) for p in out.read_text().split()]
    assert pids

    def alive(pid: int) -> bool:
        try:
            state = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            return False
        return "\\nState:\\tZ" not in state

    deadline = time.monotonic() + 5
    while any(map(alive, pids)) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = [p for p in pids if alive(p)]
    for pid in left:  # do not leave them behind if the check fails
        os.kill(pid, 9)
    assert not left


def test_update_in_a_process_of_its_own(tmp_path: Path) -> None:
    from piview.catalog.fts_build import update_in_process

    files = [_session(tmp_path / "s" / f"{k}.jsonl", "tern", sid=str(k)) for k in range(3)]
    seen: list[tuple[int, int, int, int]] = []
    db = tmp_path / "p.db"
    assert update_in_process(db, files, roots=[tmp_path / "s"], progress=seen.append) is None
    assert seen[-1][:2] == (3, 3)
    ix = SearchIndex(db, readonly=True)
    assert len(ix.search("tern")) == 3
    ix.close()
    more = _session(tmp_path / "s" / "9.jsonl", "tern", sid="9")
    why = update_in_process(db, [*files, more], roots=[tmp_path / "s"], cancelled=lambda: True)
    assert why == "cancelled"
    bad = update_in_process(tmp_path / "no" / "such" / "\0.db", files, roots=[tmp_path])
    assert bad  # said, not raised
