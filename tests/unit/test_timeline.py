"""The timeline of issue 31 (``piview/model/timeline.py``): its times against a computation
written plainly from the JSON lines, its context splits against ``piview context``'s model at
the same entry, on the corpus and on generated sessions with parallel tool calls and
compactions; odd timestamps; the JSON contract; linear growth.
"""

from __future__ import annotations

import json
import statistics
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from piview.model import load_session
from piview.model.context_report import context_report
from piview.model.session import Session
from piview.model.timeline import Timeline, build_timeline
from tests.conftest import corpus_files

T0 = 1_780_000_000_000  # ms since the epoch: 2026-05-28
TOOL_NAMES = ("read", "bash", "grep")


def _utc(ms: float) -> str:
    from datetime import UTC

    dt = datetime.fromtimestamp(int(ms) // 1000, tz=UTC)
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{int(ms) % 1000:03d}Z"


def generate(runs: int, *, parallel: int = 3, compact_every: int = 5) -> list[str]:
    """A Pi (v3) session of ``runs`` prompts, each answered by a turn of ``parallel`` tool
    calls (results written out of call order) and a closing turn; a compaction every
    ``compact_every`` runs (keeping the run before it), a model change every fourth, an error
    every seventh, thinking blocks, and a long pause every eleventh."""
    lines = [
        json.dumps(
            {"type": "session", "version": 3, "id": "gen", "timestamp": _utc(T0), "cwd": "/"}
        )
    ]
    t = T0
    parent: str | None = None
    n = 0
    prompts: list[str] = []

    def emit(entry: dict[str, Any]) -> str:
        nonlocal parent, n
        n += 1
        eid = f"e{n:06d}"
        entry = {"type": entry.pop("type", "message"), "id": eid, "parentId": parent, **entry}
        lines.append(json.dumps(entry))
        parent = eid
        return eid

    def assistant(content: list[dict[str, Any]], stream_ms: int, stop: str, tokens: int) -> None:
        nonlocal t
        start = t + 3
        t = start + stream_ms
        emit(
            {
                "timestamp": _utc(t),
                "message": {
                    "role": "assistant",
                    "content": content,
                    "provider": "p",
                    "model": "m",
                    "usage": {"input": tokens, "output": 50, "cacheRead": 7, "cacheWrite": 3},
                    "stopReason": stop,
                    "timestamp": start,
                },
            }
        )

    for r in range(runs):
        t += 90_000 if r % 11 == 10 else 4_000 + 10 * (r % 13)
        prompts.append(
            emit(
                {
                    "timestamp": _utc(t),
                    "message": {
                        "role": "user",
                        "content": [{"type": "text", "text": f"prompt {r} " + "w" * (r % 50)}],
                        "timestamp": t - 1,
                    },
                }
            )
        )
        calls = [
            {
                "type": "toolCall",
                "id": f"c{r}_{k}",
                "name": TOOL_NAMES[k % len(TOOL_NAMES)],
                "arguments": {"path": f"/f{k}", "n": r},
            }
            for k in range(parallel)
        ]
        thinking = {"type": "thinking", "thinking": "t" * (20 + r % 40)}
        assistant(
            [thinking, {"type": "text", "text": "calling"}, *calls],
            800 + r % 300,
            "toolUse",
            1_000 + 10 * r,
        )
        called = t
        # Results come back out of call order, each from the same start (parallel calls).
        for k in reversed(range(parallel)):
            t = called + 100 * (k + 1) + r % 17
            emit(
                {
                    "timestamp": _utc(t),
                    "message": {
                        "role": "toolResult",
                        "toolCallId": f"c{r}_{k}",
                        "toolName": TOOL_NAMES[k % len(TOOL_NAMES)],
                        "content": [{"type": "text", "text": "out " * (5 + 3 * k + r % 9)}],
                        "isError": k == 1 and r % 3 == 0,
                        "timestamp": t,
                    },
                }
            )
        stop = "error" if r % 7 == 6 else "stop"
        assistant(
            [{"type": "text", "text": "done " * (1 + r % 20)}], 400 + r % 200, stop, 1_100 + 10 * r
        )
        if r % 4 == 3:
            t += 5
            emit(
                {"type": "model_change", "timestamp": _utc(t), "provider": "p", "modelId": f"m{r}"}
            )
        if r % compact_every == compact_every - 1 and len(prompts) > 1:
            t += 2_000
            emit(
                {
                    "type": "compaction",
                    "timestamp": _utc(t),
                    "summary": f"summary up to run {r}",
                    "firstKeptEntryId": prompts[-1],
                    "tokensBefore": 5_000,
                }
            )
    return lines


def write(tmp_path: Path, lines: list[str], name: str = "gen.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(line + "\n" for line in lines))
    return path


# ---- the independent computation -----------------------------------------------------------


def _ms(value: object) -> float | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp() * 1000
    except ValueError:
        return None


def plain_timeline(path: Path) -> dict[str, Any]:
    """Runs and totals straight from the JSON lines, by the rules the module documents:
    the leaf is the last entry; a time missing or earlier than the last good one takes it;
    a turn streams from its message's ``timestamp`` unless that is after its entry or over a
    second before the entry before (then it is clamped between them); a call ends at its
    result on the branch, else at its start."""
    entries = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    entries = [e for e in entries if e.get("type") != "session"]
    if all("id" in e for e in entries):
        by_id = {e["id"]: e for e in entries}
        branch = [entries[-1]]
        while branch[-1].get("parentId") in by_id:
            branch.append(by_id[branch[-1]["parentId"]])
        branch.reverse()
    else:  # a first-version file: no ids, one line after another
        branch = entries
    times: list[float] = []
    last = next((m for m in map(lambda e: _ms(e.get("timestamp")), branch) if m is not None), 0.0)
    for e in branch:
        m = _ms(e.get("timestamp"))
        if m is not None and m >= last:
            last = m
        times.append(last)
    result_at: dict[str, int] = {}
    for pos, e in enumerate(branch):
        msg = e.get("message") or {}
        if msg.get("role") == "toolResult" and msg.get("toolCallId") not in result_at:
            result_at[msg.get("toolCallId")] = pos
    runs: list[dict[str, Any]] = []
    prev_end: float | None = None
    for pos, e in enumerate(branch):
        msg = e.get("message") or {}
        if e.get("type") != "message":
            continue
        if msg.get("role") == "user":
            if runs:
                prev_end = runs[-1]["end_abs"]
            wait = times[pos] - prev_end if prev_end is not None else 0.0
            runs.append(
                {"start_abs": times[pos], "end_abs": times[pos], "wait_ms": wait, "turns": []}
            )
        elif msg.get("role") == "assistant":
            t = times[pos]
            before = times[pos - 1] if pos else t
            stamp = msg.get("timestamp")
            if not isinstance(stamp, int | float) or isinstance(stamp, bool):
                stream = before
            elif stamp > t or stamp < before - 1000:
                stream = min(max(stamp, before), t)
            else:
                stream = stamp
            if not runs:
                runs.append({"start_abs": stream, "end_abs": stream, "wait_ms": 0.0, "turns": []})
            run = runs[-1]
            tools = []
            end = t
            for b in msg.get("content") or []:
                if not isinstance(b, dict) or b.get("type") != "toolCall":
                    continue
                rpos = result_at.get(b.get("id"))
                if rpos is not None and rpos > pos:
                    r_end = times[rpos]
                    is_error = bool(branch[rpos]["message"].get("isError"))
                else:
                    r_end, is_error = t, False
                tools.append(
                    {
                        "id": b.get("id"),
                        "name": b.get("name"),
                        "start_ms": round(t - run["start_abs"]),
                        "end_ms": round(r_end - run["start_abs"]),
                        "is_error": is_error,
                    }
                )
                end = max(end, r_end)
            run["turns"].append({"model_ms": round(t - stream), "tools": tools})
            run["end_abs"] = max(run["end_abs"], end)
    wall = runs[-1]["end_abs"] - runs[0]["start_abs"] if runs else 0.0
    return {
        "runs": [{"wait_ms": round(max(0.0, r["wait_ms"])), "turns": r["turns"]} for r in runs],
        "wall_ms": round(wall),
        "model_ms": sum(tn["model_ms"] for r in runs for tn in r["turns"]),
    }


def check_times(path: Path) -> None:
    session = load_session(path)
    got = build_timeline(session).to_json(session)
    want = plain_timeline(path)
    assert len(got["runs"]) == len(want["runs"])
    for g, w in zip(got["runs"], want["runs"], strict=True):
        assert g["wait_ms"] == w["wait_ms"]
        assert len(g["turns"]) == len(w["turns"])
        for gt, wt in zip(g["turns"], w["turns"], strict=True):
            assert gt["model_ms"] == wt["model_ms"]
            assert gt["tools"] == wt["tools"]
    totals = got["totals"]
    assert totals["wall_ms"] == want["wall_ms"]
    assert abs(totals["model_ms"] - want["model_ms"]) <= len(list(_turns(got)))  # rounding
    calls = [c for tn in _turns(got) for c in tn["tools"]]
    by_tool = totals["by_tool"]
    assert sum(t["calls"] for t in by_tool.values()) == len(calls)
    assert sum(t["errors"] for t in by_tool.values()) == sum(c["is_error"] for c in calls)
    for name, t in by_tool.items():
        spans = sorted(c["end_ms"] - c["start_ms"] for c in calls if c["name"] == name)
        assert t["calls"] == len(spans)
        assert t["max_ms"] == spans[-1]
        assert abs(t["total_ms"] - sum(spans)) <= len(spans)
        assert abs(t["p50_ms"] - spans[(len(spans) - 1) // 2]) <= 1


def _turns(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [tn for r in data["runs"] for tn in r["turns"]]


# ---- the context against piview context's model --------------------------------------------


def _js_len(text: object) -> int:
    """JavaScript's length of a string: UTF-16 code units."""
    return len(text.encode("utf-16-le")) // 2 if isinstance(text, str) else 0


def _content_chars(content: object) -> int:
    if isinstance(content, str):
        return _js_len(content)
    chars = 0
    for b in content if isinstance(content, list) else []:
        if isinstance(b, dict) and b.get("type") == "text":
            chars += _js_len(b.get("text"))
        elif isinstance(b, dict) and b.get("type") == "image":
            chars += 4800
    return chars


def _plain_estimate(role: str, m: dict[str, Any]) -> dict[str, int]:
    """Pi's estimateTokens of a message as written in the file, by part: ceil(chars / 4);
    an assistant's thinking part floor(thinking chars / 4), its text and calls the rest."""
    if role == "assistant":
        chars = thinking = 0
        for b in m.get("content") or []:
            if b.get("type") == "text":
                chars += _js_len(b.get("text"))
            elif b.get("type") == "thinking":
                thinking += _js_len(b.get("thinking"))
            elif b.get("type") == "toolCall":
                args = json.dumps(b.get("arguments", {}), separators=(",", ":"), ensure_ascii=False)
                chars += _js_len(b.get("name")) + _js_len(args)
        n = -(-(chars + thinking) // 4)
        return {"assistant": n - thinking // 4, "thinking": thinking // 4}
    if role in ("user", "custom"):
        return {"user": -(-_content_chars(m.get("content")) // 4)}
    if role == "toolResult":
        return {"tool:" + (m.get("toolName") or "?"): -(-_content_chars(m.get("content")) // 4)}
    if role == "bashExecution":
        return {"user": -(-(_js_len(m.get("command")) + _js_len(m.get("output"))) // 4)}
    return {"summaries": -(-_js_len(m.get("summary")) // 4)}  # the summaries


def check_context(session: Session, timeline: Timeline, step: int = 1) -> int:
    """Each turn's parts against Pi's estimate computed plainly from the JSON lines of the
    messages ``context_report`` gives at the turn's parent, and their sum against its
    ``estimate``; returns how many turns were checked."""
    turns = [tn for r in timeline.runs for tn in r.turns if tn.context_at is not None]
    for turn in turns[::step]:
        assert turn.context_at == session.tree.parents[turn.entry]
        report = context_report(session, turn.context_at)
        want: dict[str, int] = {}
        retained: dict[int, int] = {}  # a compaction's retained messages seen so far
        for m in report.messages:
            if not m.sent:
                continue
            raw = session.raw(m.entry)
            if raw.get("type") == "compaction" and m.role != "compactionSummary":
                k = retained[m.entry] = retained.get(m.entry, -1) + 1
                message = raw["retainedTail"][k]
            else:
                message = raw.get("message", raw)
            for key, n in _plain_estimate(m.role, message).items():
                want[key] = want.get(key, 0) + n
        c = turn.context
        got = {"user": c.user, "assistant": c.assistant, "thinking": c.thinking}
        got.update({"summaries": c.summaries, "system": c.system})
        got.update({"tool:" + k: v for k, v in c.tools.items()})
        assert {k: v for k, v in got.items() if v} == {k: v for k, v in want.items() if v}
        # The parts sum to piview context's estimate there.
        assert c.total == report.estimate == sum(want.values())
    return len(turns[::step])


# ---- tests ---------------------------------------------------------------------------------


@pytest.mark.corpus
@pytest.mark.parametrize("path", corpus_files(), ids=lambda p: p.name)
def test_times_on_the_corpus_match_a_plain_computation(path: Path) -> None:
    check_times(path)


@pytest.mark.corpus
@pytest.mark.parametrize("path", corpus_files(), ids=lambda p: p.name)
def test_context_splits_on_the_corpus_match_piview_context(path: Path) -> None:
    session = load_session(path)
    assert check_context(session, build_timeline(session)) > 0


def test_generated_parallel_calls_and_compactions(tmp_path: Path) -> None:
    path = write(tmp_path, generate(40))
    check_times(path)
    session = load_session(path)
    timeline = build_timeline(session)
    assert check_context(session, timeline) == 80
    # Three calls in parallel: one start, tool time counted once per turn.
    first = timeline.runs[0].turns[0]
    assert len(first.tools) == 3
    assert len({t.start_ms for t in first.tools}) == 1
    spans = [(t.start_ms, t.end_ms) for r in timeline.runs for tn in r.turns for t in tn.tools]
    assert timeline.totals.tool_ms < sum(e - s for s, e in spans)
    kinds = [m.kind for m in timeline.markers]
    assert kinds.count("compaction") == 8
    assert kinds.count("model_change") == 10
    assert kinds.count("error") == 5
    assert kinds.count("idle") == 3  # the pauses of runs 10, 21 and 32
    idle = [m for m in timeline.markers if m.kind == "idle"]
    assert [m.run for m in idle] == [10, 21, 32]
    assert all(m.at_ms == -m.duration_ms == -timeline.runs[m.run].wait_ms for m in idle)
    # After a compaction the context holds its summary, and the runs it dropped are gone.
    after = timeline.runs[5].turns[0].context
    assert after.summaries > 0 and after.thinking > 0 and set(after.tools) == set(TOOL_NAMES)
    assert not any(tn.inferred for r in timeline.runs for tn in r.turns)


def test_the_50mb_generator_shapes(tmp_path: Path) -> None:
    """benchmarks/gen_session.py's shapes (branches, branch summaries, images, custom
    messages, bash runs, compactions), small."""
    from benchmarks.gen_session import generate as gen_big

    path = tmp_path / "big.jsonl"
    gen_big(str(path), 3 * 1024**2, seed=3)
    check_times(path)
    session = load_session(path)
    timeline = build_timeline(session)
    assert any(m.kind == "compaction" for m in timeline.markers)
    assert check_context(session, timeline, step=7) > 20


def test_json_contract(tmp_path: Path) -> None:
    session = load_session(write(tmp_path, generate(3)))
    data = build_timeline(session).to_json(session)
    assert set(data) == {"runs", "totals"}
    run = data["runs"][0]
    assert set(run) == {"entry_id", "start", "end", "wait_ms", "turns"}
    assert run["start"].endswith("Z") and run["end"] >= run["start"]
    turn = run["turns"][0]
    assert set(turn) == {"entry_id", "model_ms", "tools", "context"}
    assert set(turn["tools"][0]) == {"id", "name", "start_ms", "end_ms", "is_error"}
    assert set(turn["context"]) == {
        "system",
        "user",
        "assistant",
        "thinking",
        "tools",
        "summaries",
        "reported_input",
    }
    assert turn["context"]["reported_input"] == 1_010
    assert set(data["totals"]) == {"wall_ms", "model_ms", "tool_ms", "wait_ms", "by_tool"}
    assert set(data["totals"]["by_tool"]["read"]) == {
        "calls",
        "total_ms",
        "p50_ms",
        "max_ms",
        "errors",
    }
    json.dumps(data)


def test_odd_timestamps_are_clamped_and_marked_inferred(tmp_path: Path) -> None:
    lines = generate(4)
    entries = [json.loads(line) for line in lines]
    entries[2]["timestamp"] = "not a time"  # the first assistant's entry
    entries[2]["message"]["timestamp"] = "garbage"
    del entries[4]["timestamp"]  # a tool result
    entries[8]["timestamp"] = "2001-01-01T00:00:00.000Z"  # backwards
    entries[9]["timestamp"] = entries[8 - 1]["timestamp"]  # equal
    entries[10]["message"]["timestamp"] = 10**30  # absurd
    entries[11]["message"]["timestamp"] = True
    path = write(tmp_path, [json.dumps(e) for e in entries])
    session = load_session(path)
    timeline = build_timeline(session)
    turns = [tn for r in timeline.runs for tn in r.turns]
    assert turns[0].inferred
    assert sum(tn.inferred for tn in turns) >= 2
    for r in timeline.runs:
        assert r.wall_ms >= 0 and r.wait_ms >= 0
        for tn in r.turns:
            assert tn.model_ms >= 0 and tn.start_ms >= 0
            for span in tn.tools:
                assert span.end_ms >= span.start_ms >= 0
    starts = [r.start for r in timeline.runs]
    assert starts == sorted(starts)
    json.dumps(timeline.to_json(session))


def test_no_timestamps_at_all(tmp_path: Path) -> None:
    entries = [json.loads(line) for line in generate(2)]
    for e in entries:
        e.pop("timestamp", None)
        if "message" in e:
            e["message"].pop("timestamp", None)
    session = load_session(write(tmp_path, [json.dumps(e) for e in entries]))
    timeline = build_timeline(session)
    assert timeline.totals.wall_ms == 0 and len(timeline.runs) == 2
    assert all(tn.inferred for r in timeline.runs for tn in r.turns)
    assert all(r.start is None and r.end is None for r in timeline.runs)


def test_empty_and_promptless(tmp_path: Path) -> None:
    header = generate(1)[0]
    session = load_session(write(tmp_path, [header], "empty.jsonl"))
    assert build_timeline(session).to_json(session) == {
        "runs": [],
        "totals": {"wall_ms": 0, "model_ms": 0, "tool_ms": 0, "wait_ms": 0, "by_tool": {}},
    }
    lines = generate(1)
    no_prompt = [lines[0]] + [
        line.replace('"parentId": "e000001"', '"parentId": null') for line in lines[2:]
    ]
    session = load_session(write(tmp_path, no_prompt, "np.jsonl"))
    data = build_timeline(session).to_json(session)
    assert data["runs"][0]["entry_id"] is None and len(data["runs"][0]["turns"]) == 2


def test_leaf_picks_the_branch(tmp_path: Path) -> None:
    lines = generate(3)
    # A second answer to the first prompt: a branch of one turn.
    fork = json.loads(lines[2])
    fork["id"] = "fork"
    last = json.loads(lines[-1])["id"]
    lines.append(json.dumps(fork))
    session = load_session(write(tmp_path, lines))
    main_leaf = session.find(last)
    assert main_leaf is not None
    full = build_timeline(session, main_leaf)
    side = build_timeline(session, session.find("fork"))
    assert len(full.runs) == 3
    assert len(side.runs) == 1 and len(side.runs[0].turns) == 1


@pytest.mark.scaling
def test_four_times_the_turns_cost_at_most_six_times(tmp_path: Path) -> None:
    """CPU time, medians of alternating runs; a context rebuilt per turn costs 16x."""
    n = 400

    def ratio(small: int) -> float:
        a = load_session(write(tmp_path, generate(small, compact_every=50), f"a{small}.jsonl"))
        b = load_session(write(tmp_path, generate(4 * small, compact_every=50), f"b{small}.jsonl"))
        for s in (a, b):  # the tree and pairing are the loader's, not the timeline's
            s.tree  # noqa: B018
            s.pairing  # noqa: B018
        ta: list[float] = []
        tb: list[float] = []
        for _ in range(5):
            for s, out in ((a, ta), (b, tb)):
                t0 = time.process_time()
                build_timeline(s)
                out.append(time.process_time() - t0)
        return statistics.median(tb) / statistics.median(ta)

    got = ratio(n)
    if got > 6:  # once more, bigger: a burst of load is not a blow-up
        got = ratio(4 * n)
    assert got <= 6, got


PI085 = sorted((Path(__file__).parents[1] / "fixtures" / "pi-0.85").glob("*.jsonl"))
FIXTURES = sorted((Path(__file__).parents[1] / "fixtures" / "sessions").glob("*.jsonl"))


@pytest.mark.parametrize("path", PI085, ids=lambda p: p.name[:30])
def test_pi085_files(path: Path) -> None:
    """Files Pi 0.85.1's own SessionManager wrote (a compaction, a branch summary, a fork)."""
    check_times(path)
    session = load_session(path)
    check_context(session, build_timeline(session))


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_every_fixture_builds(path: Path) -> None:
    """The hand-written fixtures (damaged lines, oh-my-pi, OpenClaw, odd shapes): no error,
    no negative span, and contexts that agree with piview context."""
    session = load_session(path)
    for leaf in session.tree.leaves()[:5]:
        timeline = build_timeline(session, leaf)
        json.dumps(timeline.to_json(session))
        for r in timeline.runs:
            assert r.wait_ms >= 0 and r.wall_ms >= 0
            for tn in r.turns:
                assert tn.model_ms >= 0
                assert all(s.end_ms >= s.start_ms for s in tn.tools)
        check_context(session, timeline)
