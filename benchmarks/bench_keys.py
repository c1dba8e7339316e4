"""Benchmark: every key of the session screen on a large session, piview's own share.

A lighter harness than ``pilot.press`` + ``pilot.pause`` (which waits for the process to look
idle and costs about 95 ms by itself): each key is sent as Pilot sends it, and what is timed
is from the key sent to the end of the last frame composed because of it (every
``Screen._compositor_refresh`` and every key dispatch is stamped; the waiting for idle that
follows is not counted). Also the main thread's CPU over the same span. The same keys on a
small fixture (``tree_branches.jsonl``) are the harness's share and are subtracted.

Each run is a fresh process per tree and file, alternating; medians over ``--runs``.
``--base DIR`` also runs another checkout (an older commit) in the same run, alternating.

    python benchmarks/bench_keys.py --runs 3
    python benchmarks/bench_keys.py --runs 3 --base /tmp/keys-base --file /tmp/bench/s50.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SMALL = ROOT / "tests" / "fixtures" / "sessions" / "tree_branches.jsonl"
"""The harness's share of a key: the same key on a file of a few entries."""

HARNESS = r"""
import time
from textual import events
from textual._wait import wait_for_idle
from textual.message_pump import MessagePump
from textual.screen import Screen

_STAMP = [0.0, 0.0]

def _stamp():
    _STAMP[0] = time.perf_counter()
    _STAMP[1] = time.thread_time()

_refresh = Screen._compositor_refresh
def _stamped_refresh(self):
    _refresh(self)
    _stamp()
Screen._compositor_refresh = _stamped_refresh

_dispatch = MessagePump._dispatch_message
async def _stamped_dispatch(self, message):
    result = await _dispatch(self, message)
    if isinstance(message, events.Key):
        _stamp()
    return result
MessagePump._dispatch_message = _stamped_dispatch

async def key_time(pilot, *keys):
    '''Seconds (wall, main-thread CPU) from the keys sent to the last frame they caused.'''
    await wait_for_idle(0.02)
    _STAMP[0] = 0.0
    a, c = time.perf_counter(), time.thread_time()
    await pilot.press(*keys)
    await wait_for_idle(0.1)
    if not _STAMP[0]:
        return 0.0, 0.0
    return _STAMP[0] - a, _STAMP[1] - c
"""
"""The timing of one key, pasted into the measured process (see the module's docstring)."""

KEYS_SCRIPT = (
    r"""
import asyncio, json, os, sys, time
os.environ["TEXTUAL_ANIMATIONS"] = "none"
from piview.app import make_app
from piview.model import load_session
from piview.widgets.transcript import Transcript
"""
    + HARNESS
    + r"""
STEPS = [
    ("g", "g"), ("G", "G"), ("k", "k"), ("j", "j"), ("t", "t"), ("t again", "t"),
    ("o", "o"), ("o again", "o"), ("enter", "enter"), ("[", "left_square_bracket"),
    ("]", "right_square_bracket"), ("e", "e"), ("pagedown", "pagedown"), ("pageup", "pageup"),
    ("'", "apostrophe"), ("}", "right_curly_bracket"), ("{", "left_curly_bracket"),
    ("m", "m"), ("!", "exclamation_mark"), ("u", "u"), ("u again", "u"), ("$", "dollar_sign"),
    ("H", "H"), ("H again", "H"), ("p", "p"), ("p again", "p"), (">", "greater_than_sign"),
    ("<", "less_than_sign"), ("/", "slash"), ("/ type e", "e"), ("/ type r", "r"),
    ("/ enter", "enter"), ("n", "n"), ("N", "N"), ("?", "question_mark"),
    ("? escape", "escape"), ("T", "T"), ("T escape", "escape"), ("c", "c"),
    ("c escape", "escape"), ("i", "i"), ("i escape", "escape"), (":", "colon"),
    (": escape", "escape"), ("b", "b"), ("b j", "j"), ("b k", "k"), ("b G", "G"),
    ("b g", "g"), ("b space", "space"), ("b space again", "space"), ("b f", "f"), ("b F", "F"),
    ("b enter", "enter"), ("b b", "b"), ("y", "y"), ("Y", "Y"), ("P", "P"),
    ("w ahead", "AHEAD"), ("w", "w"), ("w built", None), ("w k", "k"), ("w j", "j"),
    ("w h", "h"), ("w l", "l"),
    ("w +", "plus"), ("w + again", "plus"), ("w -", "minus"), ("w pagedown", "pagedown"),
    ("w g", "g"), ("w G", "G"), ("w tab", "tab"), ("w tab left", "left"),
    ("w tab right", "right"), ("w tab escape", "escape"),
    ("x", "x"),  # last: the export it starts runs on in a worker (into a scratch folder)
]

async def main():
    s = load_session(sys.argv[1])
    app = make_app(s)
    out = {}
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        t = app.screen.query_one(Transcript)
        out["blocks"] = len(t.items)
        for name, key in STEPS:
            if key == "AHEAD":  # the session screen's work ahead: the timeline kept for w
                try:
                    from piview.screens.timeline import is_kept
                except ImportError:  # an older checkout (--base): nothing is built ahead
                    out[name] = [0.0, 0.0]
                    continue
                from piview.screens.session_views import TIMELINE_AHEAD

                a = time.perf_counter()
                screen = app.screen
                if len(screen.query_one(Transcript).path) < TIMELINE_AHEAD:
                    out[name] = [0.0, 0.0]  # a short branch: built when w opens it
                    continue
                while not is_kept(screen.session, screen.leaf) and time.perf_counter() - a < 20:
                    await asyncio.sleep(0.05)
                out[name] = [time.perf_counter() - a, 0.0]
                continue
            if key is None:  # the timeline's worker: its wall time, not a key's
                a = time.perf_counter()
                while getattr(app.screen, "timeline", None) is None:
                    await asyncio.sleep(0.01)
                await pilot.pause()
                out[name] = [time.perf_counter() - a, 0.0]
                continue
            wall, cpu = await key_time(pilot, key)
            out[name] = [wall, cpu]
            if name == sys.argv[2]:
                break
    print(json.dumps(out))

asyncio.run(main())
"""
)
"""Every key of the session screen in turn, on the file given."""


def run(tree: Path, code: str, *args: str | Path) -> dict[str, list[float]]:
    """Run ``code`` with ``args`` against the piview of ``tree``; the JSON it prints last."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    with tempfile.TemporaryDirectory(prefix="bench-keys-") as scratch:  # x exports here
        out = subprocess.run(
            [sys.executable, "-c", code, *map(str, args)],
            capture_output=True,
            text=True,
            check=True,
            cwd=scratch,
            env=env,
        )
    result: dict[str, list[float]] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    """Time every key on ``--file`` and on the small fixture, alternating; print medians."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--file", type=Path, default=Path("/tmp/bench/s50.jsonl"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--base", type=Path, help="another checkout, timed in the same run")
    ap.add_argument("--until", default="", help="stop after this key (a name in the table)")
    args = ap.parse_args()
    trees = {"piview": ROOT} | ({"base": args.base.resolve()} if args.base else {})
    results: dict[tuple[str, str], list[dict[str, list[float]]]] = {}
    for _ in range(args.runs):
        for name, tree in trees.items():
            for size, path in (("big", args.file), ("small", SMALL)):
                results.setdefault((name, size), []).append(
                    run(tree, KEYS_SCRIPT, path, args.until)
                )
    print(
        f"{args.file} ({args.file.stat().st_size / 2**20:.0f} MB, "
        f"{int(results['piview', 'big'][0]['blocks'])} blocks), 120x40, medians of "  # type: ignore[call-overload]
        f"{args.runs} runs; loadavg {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )
    print("own = the key on the big file less the same key on the small one (ms)")
    head = "".join(f" | {n} own wall | {n} own cpu" for n in trees)
    print(f"| key{head} |")
    print("|---" + "|---:" * (2 * len(trees)) + "|")
    for key in results["piview", "big"][0]:
        if key == "blocks":
            continue
        cells = []
        for name in trees:
            for j in (0, 1):
                big = statistics.median(r[key][j] for r in results[name, "big"])
                small = statistics.median(r[key][j] for r in results[name, "small"])
                cells.append(f"{(big - small) * 1000:.0f}")
        print(f"| {key} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
