"""Pi's event streams read as sessions (piview.model.stream), against the genuine captures of
Pi 0.73.1 and 0.85.1 in tests/fixtures/streams and the session file each run wrote."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from piview.model import load_session
from piview.model.info import session_info
from piview.model.stream import CAPTURE_TYPE, _fold, sniff, stamp
from tests.conftest import fixture

STREAMS = Path(__file__).resolve().parent.parent / "fixtures" / "streams"
VERSIONS = ("073", "085")
RUNS = ("json", "rpc")


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _entries(session: Any) -> list[dict[str, Any]]:
    return [session.raw(i) for i in range(len(session))]


def _info(path: Path) -> dict[str, Any]:
    return session_info(load_session(path))


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("run", RUNS)
def test_a_stream_agrees_with_the_session_file_of_its_run(version: str, run: str) -> None:
    stream = _info(STREAMS / version / f"{run}.jsonl")
    session = _info(STREAMS / version / f"{run}.session.jsonl")
    for key in ("roles", "tool_calls"):
        assert stream[key] == session[key], key
    for key in ("all", "tools", "summaries", "total"):
        assert stream["usage"][key] == session["usage"][key], key
    assert stream["stream"] == run and "stream" not in session
    # The RPC run ends with a switch_session that nothing follows: one tree still.
    assert stream["usage"]["path"] == session["usage"]["path"]


def test_a_session_switch_starts_a_tree_of_its_own(tmp_path: Path) -> None:
    path = STREAMS / "085" / "rpc.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    prompt = next(x for x in lines if b'"message_end"' in x and b'"role":"user"' in x)
    after = tmp_path / "switched.jsonl"
    after.write_bytes(b"".join(lines) + prompt)  # a message in the session switched to
    s = load_session(after)
    assert len(s.tree.roots) == 2
    root = s.raw(s.tree.roots[1])
    assert root["type"] == "message" and root["message"]["role"] == "user"
    last_of_first = s.raw(s.tree.roots[1] - 1)
    assert last_of_first["event"]["command"] == "switch_session"  # the divider ends the first


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("run", (*RUNS, "killed"))
def test_events_count_every_line_of_the_capture(version: str, run: str) -> None:
    path = STREAMS / version / f"{run}.jsonl"
    types = Counter(e["type"] for e in _lines(path))
    types.pop("session", None)  # the header of --mode json
    assert _info(path)["events"] == dict(sorted(types.items()))


def test_sniff_tells_streams_from_session_files() -> None:
    assert sniff((STREAMS / "085" / "json.jsonl").read_bytes()[:65536]) == "json"
    assert sniff((STREAMS / "085" / "rpc.jsonl").read_bytes()[:65536]) == "rpc"
    for name in ("json.session.jsonl", "rpc.session.jsonl"):
        assert sniff((STREAMS / "085" / name).read_bytes()) is None
    for name in ("linear.jsonl", "v1.jsonl", "no_header.jsonl", "unknown.jsonl", "bad_lines.jsonl"):
        assert sniff(fixture(name).read_bytes()[:65536]) is None
    assert sniff(b"") is None and sniff(b"not json\n") is None
    head = json.dumps({"type": CAPTURE_TYPE, "version": 1}).encode() + b"\n"
    assert sniff(head + stamp(b'{"type":"agent_start"}', 1.0)) == "piview"


@pytest.mark.parametrize("version", VERSIONS)
def test_extension_errors_and_failed_responses_are_error_blocks(version: str) -> None:
    path = STREAMS / version / "rpc.jsonl"
    info = _info(path)
    assert info["extension_errors"] == [
        {
            "extension": e["extensionPath"],
            "event": e["event"],
            "error": e["error"],
        }
        for e in _lines(path)
        if e["type"] == "extension_error"
    ]
    assert info["extension_errors"][0]["event"] == "turn_end"
    s = load_session(path)
    errors = [e["event"] for e in _entries(s) if e["type"] == "piview_error"]
    failed = [e for e in _lines(path) if e["type"] == "response" and e["success"] is False]
    assert len(failed) == 3
    assert [e for e in errors if e["type"] == "response"] == failed
    assert [e["type"] for e in errors].count("extension_error") == 1


@pytest.mark.parametrize("version", VERSIONS)
def test_a_tools_partial_results_are_gathered_at_its_end(version: str) -> None:
    path = STREAMS / version / "json.jsonl"
    updates = Counter(e["toolCallId"] for e in _lines(path) if e["type"] == "tool_execution_update")
    progress = [e["event"] for e in _entries(load_session(path)) if e["type"] == "piview_progress"]
    assert {p["toolCallId"]: p["count"] for p in progress} == dict(updates)
    deploy = next(p for p in progress if p["toolName"] == "deploy")
    assert [p["details"] for p in deploy["partials"]] == [{"step": 1}, {"step": 2}, {"step": 3}]


@pytest.mark.parametrize("version", VERSIONS)
def test_retries_are_shown_and_the_failed_attempt_kept(version: str) -> None:
    s = load_session(STREAMS / version / "json.jsonl")
    events = [e["event"]["type"] for e in _entries(s) if e["type"] == "piview_event"]
    assert events.count("auto_retry_start") == 1 and events.count("auto_retry_end") == 1
    stops = [e["message"].get("stopReason") for e in _entries(s) if e["type"] == "message"]
    assert "error" in stops  # the 529 before the retry, as in the session file


@pytest.mark.parametrize("version", VERSIONS)
def test_rpc_bash_is_a_bash_execution_message(version: str) -> None:
    ours = [
        e["message"]
        for e in _entries(load_session(STREAMS / version / "rpc.jsonl"))
        if e["type"] == "message" and e["message"]["role"] == "bashExecution"
    ]
    pis = [
        e["message"]
        for e in _lines(STREAMS / version / "rpc.session.jsonl")
        if e["type"] == "message" and e["message"]["role"] == "bashExecution"
    ]
    assert len(ours) == len(pis) == 1
    for key in ("output", "exitCode", "cancelled", "truncated"):
        assert ours[0][key] == pis[0][key], key


def test_pi_085_appended_entries_are_in_the_stream() -> None:
    ours = [
        e for e in _entries(load_session(STREAMS / "085" / "json.jsonl")) if e["type"] == "custom"
    ]
    pis = [e for e in _lines(STREAMS / "085" / "json.session.jsonl") if e["type"] == "custom"]
    assert [(e["customType"], e["data"]) for e in ours] == [
        (e["customType"], e["data"]) for e in pis
    ]


@pytest.mark.parametrize("version", VERSIONS)
def test_a_killed_run_keeps_the_message_it_was_streaming(version: str) -> None:
    path = STREAMS / version / "killed.jsonl"
    lines = _lines(path)
    ours = [e["message"] for e in _entries(load_session(path)) if e["type"] == "message"]
    pis = [e["message"] for e in _lines(STREAMS / version / "killed.session.jsonl")
           if e["type"] == "message"]  # fmt: skip
    assert len(ours) == len(pis) + 1
    assert [m["role"] for m in ours[:-1]] == [m["role"] for m in pis]
    cut = ours[-1]
    assert cut["role"] == "assistant" and cut["stopReason"] == "aborted"
    last_start = max(i for i, e in enumerate(lines) if e["type"] == "message_start")
    deltas = [
        e["assistantMessageEvent"] for e in lines[last_start:] if e["type"] == "message_update"
    ]
    text = "".join(d["delta"] for d in deltas if d["type"] == "text_delta")
    thinking = "".join(d["delta"] for d in deltas if d["type"] == "thinking_delta")
    assert text and [b["text"] for b in cut["content"] if b["type"] == "text"] == [text]
    assert [b["thinking"] for b in cut["content"] if b["type"] == "thinking"] == [thinking]


def test_fold_builds_tool_calls_from_their_deltas() -> None:
    start = {"role": "assistant", "content": []}
    ups = [
        {"assistantMessageEvent": {"type": "toolcall_start", "contentIndex": 0, "id": "c1",
                                   "toolName": "read"}},
        {"assistantMessageEvent": {"type": "toolcall_delta", "contentIndex": 0,
                                   "delta": '{"path": "a'}},
        {"assistantMessageEvent": {"type": "toolcall_delta", "contentIndex": 0, "delta": '.py"}'}},
        {"usage": {"input": 5}, "assistantMessageEvent": {"type": "text_start", "contentIndex": 1}},
        {"assistantMessageEvent": {"type": "text_delta", "contentIndex": 1, "delta": "hi"}},
    ]  # fmt: skip
    folded = _fold(start, [json.dumps(u).encode() for u in ups])
    assert folded["content"] == [
        {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "a.py"}},
        {"type": "text", "text": "hi"},
    ]
    assert folded["usage"] == {"input": 5}


def test_a_growing_capture_is_followed(tmp_path: Path) -> None:
    lines = (STREAMS / "085" / "json.jsonl").read_bytes().splitlines(keepends=True)
    path = tmp_path / "run.jsonl"
    cut = next(i for i, raw in enumerate(lines) if b'"tool_execution_end"' in raw)
    path.write_bytes(b"".join(lines[: cut + 1]))
    s = load_session(path)
    before = len(s)
    with path.open("ab") as f:
        f.write(b"".join(lines[cut + 1 :]))
    assert s.poll() in ("appended", "replaced")
    whole = load_session(STREAMS / "085" / "json.jsonl")
    if len(s) == before:  # "replaced": the viewer loads it again
        s = load_session(path)
    assert session_info(s)["roles"] == session_info(whole)["roles"]
    assert len(s) == len(whole)


def test_piviews_capture_keeps_arrival_times(tmp_path: Path) -> None:
    from piview.model.stream import capture_header

    path = tmp_path / "capture.jsonl"
    raw = (STREAMS / "085" / "json.jsonl").read_bytes().splitlines()
    t0 = 1_800_000_000.0
    with path.open("wb") as f:
        f.write(capture_header())
        for k, line in enumerate(raw):
            f.write(stamp(line, t0 + k))
    s = load_session(path)
    info = session_info(s)
    assert info["stream"] == "piview"
    assert info["roles"] == _info(STREAMS / "085" / "json.jsonl")["roles"]
    progress = [e["event"] for e in _entries(s) if e["type"] == "piview_progress"]
    starts = {e["toolCallId"]: k for k, e in enumerate(map(json.loads, raw))
              if e["type"] == "tool_execution_start"}  # fmt: skip
    ends = {e["toolCallId"]: k for k, e in enumerate(map(json.loads, raw))
            if e["type"] == "tool_execution_end"}  # fmt: skip
    assert {p["toolCallId"]: p["durationMs"] for p in progress} == {
        c: (ends[c] - starts[c]) * 1000 for c in (p["toolCallId"] for p in progress)
    }


def test_pump_stamps_whole_lines_of_a_pausing_writer(tmp_path: Path) -> None:
    import os
    import threading
    import time

    from piview.model.stream import pump

    r, w = os.pipe()
    path = tmp_path / "capture.jsonl"
    out = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND)

    def writer() -> None:
        os.write(w, b'{"type":"agent_start"}\n{"type":"turn')  # half a line, then a pause
        time.sleep(0.2)
        os.write(w, b'_start"}\n')
        time.sleep(0.2)
        os.write(w, b"not json\n")
        os.close(w)

    t = threading.Thread(target=writer)
    t.start()
    pump(r, out)
    t.join()
    os.close(out)
    os.close(r)
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    assert [x.get("event") for x in lines[:3]] == [
        {"type": "agent_start"},
        {"type": "turn_start"},
        "not json",
    ]
    assert lines[1]["at"] - lines[0]["at"] >= 0.15  # stamped when the line was whole
    assert lines[-1]["end"] is True and len(lines) == 4


def test_the_end_of_a_capture_has_the_ids_of_the_whole() -> None:
    from piview.model.session_tail import _stream_tail

    path = STREAMS / "085" / "rpc.jsonl"
    size = path.stat().st_size
    tail = _stream_tail(path, "rpc", size, 6000)
    whole = load_session(path)
    assert tail.partial and 0 < len(tail) < len(whole)
    assert tail.ids == whole.ids[-len(tail) :]  # ids are where lines start in the capture


def _load_ms(path: Path, repeats: int = 5) -> float:
    import statistics
    import time

    times = []
    for _ in range(repeats):
        t = time.process_time()
        load_session(path)
        times.append(time.process_time() - t)
    return statistics.median(times)


@pytest.mark.scaling
def test_a_capture_loads_within_one_and_a_half_times_a_session_file(tmp_path: Path) -> None:
    from benchmarks.gen_session import generate
    from benchmarks.gen_stream import fold

    session = tmp_path / "s.jsonl"
    generate(str(session), 6 * 1024**2, seed=0)
    stream = tmp_path / "st.jsonl"
    size = fold(session, stream)
    same = tmp_path / "same.jsonl"
    generate(str(same), size, seed=1)  # a session file of the capture's size
    ratios = []
    for _ in range(3):  # alternating: a burst of load hits both
        ratios.append(_load_ms(stream) / _load_ms(same))
        if ratios[-1] <= 1.5:
            break
    assert min(ratios) <= 1.5, ratios


@pytest.mark.parametrize("version", VERSIONS)
def test_stderr_mixed_in_gives_the_extension_error_of_json_mode(
    version: str, tmp_path: Path
) -> None:
    # pi --mode json … 2>&1: the error Pi writes to stderr in json mode, among the events.
    folder = STREAMS / version
    lines = (folder / "json.jsonl").read_bytes().splitlines(keepends=True)
    k = next(i for i, x in enumerate(lines) if b'"turn_end"' in x)  # the hook that throws
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_bytes(b"".join(lines[: k + 1]) + (folder / "json.stderr.txt").read_bytes()
                      + b"".join(lines[k + 1 :]))  # fmt: skip
    info = _info(mixed)
    assert [e["error"] for e in info["extension_errors"]] == ["turn_end hook failed once"]
    assert info["extension_errors"][0]["extension"].endswith("ext.ts")
    assert "(not JSON)" not in info["events"]
    assert info["roles"] == _info(folder / "json.jsonl")["roles"]


@pytest.mark.parametrize("version", VERSIONS)
def test_live_status_names_what_streams_and_what_runs(version: str, tmp_path: Path) -> None:
    from piview.model.stream import capture_header

    raw = (STREAMS / version / "json.jsonl").read_bytes().splitlines()
    path = tmp_path / "live.jsonl"

    def upto(pred: Any) -> Any:
        k = next(i for i, x in enumerate(raw) if pred(json.loads(x)))
        with path.open("wb") as f:
            f.write(capture_header())
            for line in raw[: k + 1]:
                f.write(stamp(line, 1.0))
        return load_session(path).stream_source

    src = upto(lambda e: e.get("assistantMessageEvent", {}).get("type") == "text_delta")
    status = src.status()
    assert status.startswith("live (stdin) · assistant streaming: …"), status
    src = upto(lambda e: e["type"] == "tool_execution_update")
    assert src.status() == "live (stdin) · deploy running: step 1"


@pytest.mark.parametrize("version", VERSIONS)
def test_a_log_of_both_directions_names_the_bash_command_and_the_answer(version: str) -> None:
    # rpc.both.jsonl: the genuine stdout and stdin of the RPC run, interleaved (interleave.py).
    both = STREAMS / version / "rpc.both.jsonl"
    assert sniff(both.read_bytes()[:65536]) == "rpc"
    entries = _entries(load_session(both))
    ours = [e["message"] for e in entries
            if e["type"] == "message" and e["message"]["role"] == "bashExecution"]  # fmt: skip
    pis = [e["message"] for e in _lines(STREAMS / version / "rpc.session.jsonl")
           if e["type"] == "message" and e["message"]["role"] == "bashExecution"]  # fmt: skip
    for key in ("command", "output", "exitCode"):
        assert ours[0][key] == pis[0][key], key
    events = [e["event"] for e in entries if e["type"] == "piview_event"]
    answers = [e for e in events if e["type"] == "extension_ui_response"]
    assert [a.get("confirmed") for a in answers] == [True]
    assert _info(both)["roles"] == _info(STREAMS / version / "rpc.jsonl")["roles"]


def test_a_clients_log_alone_is_not_a_stream() -> None:
    assert sniff((STREAMS / "085" / "rpc.stdin.jsonl").read_bytes()) is None


@pytest.mark.parametrize("version", VERSIONS)
def test_a_run_over_two_sessions_adds_up_to_their_files(version: str) -> None:
    # rpc2: a queue, a manual compaction, new_session, switch_session back, set_model and
    # set_thinking_level; Pi wrote two session files.
    folder = STREAMS / version
    stream = _info(folder / "rpc2.jsonl")
    files = [_info(p) for p in sorted(folder.glob("rpc2.session-*.jsonl"))]
    assert len(files) == 2
    roles: Counter[str] = Counter()
    for f in files:
        roles.update(f["roles"])
    assert stream["roles"] == dict(sorted(roles.items()))
    for key in ("input", "output", "cacheRead", "cacheWrite"):
        assert stream["usage"]["total"][key] == sum(f["usage"]["total"][key] for f in files), key
    assert stream["usage"]["total"]["cost"] == pytest.approx(
        sum(f["usage"]["total"]["cost"] for f in files)
    )
    assert len(stream["roots"]) == 3  # a tree per session, the one switched back to again
    entries = _entries(load_session(folder / "rpc2.jsonl"))
    shown = Counter(e["event"]["type"] for e in entries if e["type"] == "piview_event")
    assert shown["queue_update"] == 4
    assert shown["compaction_start"] == shown["compaction_end"] == 1
    types = Counter(e["type"] for e in entries)
    assert types["compaction"] == 1 and types["thinking_level_change"] == 1
    assert types["model_change"] == 1
