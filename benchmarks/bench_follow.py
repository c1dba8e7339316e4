"""Benchmark: live follow and quitting, in a real terminal (tmux), on a big session.

For each file (a copy of it in a temporary folder, which the benchmark appends to as Pi does):

* **append → on screen**: ``piview COPY`` runs in a detached tmux pane; once the whole file is
  loaded, a user message is appended under the last entry, and the time until its text is on
  the tmux screen is taken (``capture-pane`` every 10 ms). Repeated ``--appends`` times.
* **new branch → on screen**: as above, but the user message hangs from an entry ten up the
  branch shown (Pi after ``/tree`` back to an earlier entry): the time until it is on screen.
* **append with the branch panel open**: ``b`` opens the panel, then appends: the time until
  the message is on screen, and until the panel lists its row (its footer's count grew and it
  is not building the tree).
* **key during a poll**: right after an append, ``k`` is sent, and the time until the status
  line's block number changes is taken (the UI thread must answer while the poll runs).
* **q → shell prompt**: ``q`` is sent and the time until the pane prints ``EXIT=`` (the shell
  runs on) is taken, in three states: idle, while the whole file still loads (right after the
  first screen), and right after an append (a poll in flight).

The baseline, in the same run, is the same on ``--baseline`` (a smaller session), and a
one-line Textual app quitting on ``q`` (the floor of any Textual app on this machine).
Medians are printed.

    python benchmarks/bench_follow.py /tmp/bench/s1g.jsonl --baseline /tmp/bench/s50.jsonl
    python benchmarks/bench_follow.py ... --root /tmp/piview-before   # another checkout
    python benchmarks/bench_follow.py ... --against /tmp/piview-before --only branch,panel

``--against`` runs a second checkout alternately with the first (run by run, on the same
copy), so that before and after see the same load; each figure is printed with the median
1-minute load average of its runs.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SOCKET = "piview-bench-follow"
"""A tmux server of its own: the benchmark never touches the user's sessions."""
ROOT = Path(__file__).resolve().parent.parent

HELLO = """
from textual.app import App
from textual.widgets import Static


class Hello(App):
    BINDINGS = [("q", "quit", "Quit")]

    def compose(self):
        yield Static("block hello")


Hello().run()
"""


class Pane:
    """One tmux pane running a command, with its exit status printed when it ends."""

    root = ROOT
    """The piview checkout run (``--root``)."""

    def __init__(self, command: str, size: tuple[int, int]) -> None:
        self.name = f"follow{time.monotonic_ns()}"
        # From the checkout: ``python -m`` imports from the working directory first.
        script = f"cd {shlex.quote(str(self.root))} && {command}; echo EXIT=$?; sleep 30"
        env = f"env PYTHONPATH={shlex.quote(str(self.root))} TERM=xterm-256color"
        subprocess.run(
            ["tmux", "-L", SOCKET, "-f", os.devnull, "new-session", "-d", "-s", self.name,
             "-x", str(size[0]), "-y", str(size[1]), f"{env} sh -c {shlex.quote(script)}"],
            check=True,
        )  # fmt: skip

    def screen(self) -> str:
        """The visible text of the pane."""
        return subprocess.run(
            ["tmux", "-L", SOCKET, "capture-pane", "-p", "-t", self.name],
            capture_output=True,
            text=True,
            check=False,
        ).stdout

    def send(self, key: str) -> None:
        """Type one key."""
        subprocess.run(["tmux", "-L", SOCKET, "send-keys", "-t", self.name, "-l", key], check=True)

    def wait(self, test, timeout: float = 60.0, step: float = 0.01) -> float:  # type: ignore[no-untyped-def]
        """Seconds until ``test(screen)`` holds (TimeoutError after ``timeout``)."""
        t0 = time.perf_counter()
        while True:
            if test(self.screen()):
                return time.perf_counter() - t0
            if time.perf_counter() - t0 > timeout:
                raise TimeoutError(self.screen())
            time.sleep(step)

    def kill(self) -> None:
        """End the pane."""
        subprocess.run(["tmux", "-L", SOCKET, "kill-session", "-t", self.name], check=False)


def _last_id(path: Path) -> str:
    with open(path, "rb") as f:
        f.seek(max(0, path.stat().st_size - 4 * 1024 * 1024))
        last = f.read().rstrip(b"\n").rsplit(b"\n", 1)[-1]
    return str(json.loads(last)["id"])


def _fork_id(path: Path, up: int = 10) -> str:
    """The id of the entry ``up`` steps above the last one (read from the file's tail)."""
    with open(path, "rb") as f:
        f.seek(max(0, path.stat().st_size - 8 * 1024 * 1024))
        lines = f.read().rstrip(b"\n").split(b"\n")[1:]
    parent: dict[str, str | None] = {}
    for raw in lines:
        obj = json.loads(raw)
        parent[obj["id"]] = obj.get("parentId")
    at = str(json.loads(lines[-1])["id"])
    for _ in range(up):
        up_id = parent.get(at)
        if up_id is None:
            break
        at = up_id
    return at


def _append(path: Path, marker: str, parent: str | None = None) -> None:
    entry = {
        "type": "message",
        "id": marker.lower(),
        "parentId": parent or _last_id(path),
        "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime()),
        "message": {"role": "user", "content": [{"type": "text", "text": marker}]},
    }
    with open(path, "ab") as f:  # the benchmark plays Pi: the only writer of its copy
        f.write(json.dumps(entry).encode() + b"\n")


def _status_block(screen: str) -> tuple[int, int] | None:
    """``(N, M)`` of the status line's ``block N/M``."""
    for line in screen.splitlines():
        if "block " in line and "/" in line:
            n, _sep, m = line.split("block ", 1)[1].split()[0].partition("/")
            if n.isdigit() and m.isdigit():
                return int(n), int(m)
    return None


def _moved_up(screen: str) -> bool:
    # At the end N == M, and an append keeps it so; only the key makes N < M.
    block = _status_block(screen)
    return block is not None and block[0] < block[1]


def _loaded(screen: str) -> bool:
    return "block " in screen and "loading the whole file" not in screen


def _piview(copy: Path) -> str:
    return f"{shlex.quote(sys.executable)} -m piview {shlex.quote(str(copy))}"


def follow_run(copy: Path, size: tuple[int, int], appends: int, tag: str) -> dict[str, list[float]]:
    """Appends and keys on one viewer, then ``q`` once idle."""
    out: dict[str, list[float]] = {"append": [], "key during poll": [], "quit idle": []}
    pane = Pane(_piview(copy), size)
    try:
        pane.wait(_loaded, timeout=300)
        time.sleep(1.0)
        for n in range(appends):
            marker = f"FOLLOW-{tag}-{n:03d}-{time.monotonic_ns() % 10**8}"
            _append(copy, marker)
            t0 = time.perf_counter()
            pane.send("k")
            out["key during poll"].append(pane.wait(_moved_up))
            pane.send("G")
            pane.wait(lambda s, m=marker: m in s)
            out["append"].append(time.perf_counter() - t0)
            time.sleep(0.3)
        t0 = time.perf_counter()
        pane.send("q")
        pane.wait(lambda s: "EXIT=" in s)
        out["quit idle"].append(time.perf_counter() - t0)
    finally:
        pane.kill()
    return out


def follow_only_run(copy: Path, size: tuple[int, int], appends: int, tag: str) -> list[float]:
    """Appends with no key pressed: the time until each is on screen."""
    times = []
    pane = Pane(_piview(copy), size)
    try:
        pane.wait(_loaded, timeout=300)
        time.sleep(1.0)
        for n in range(appends):
            marker = f"SHOWN-{tag}-{n:03d}-{time.monotonic_ns() % 10**8}"
            _append(copy, marker)
            times.append(pane.wait(lambda s, m=marker: m in s))
            time.sleep(0.3)
        pane.send("q")
        pane.wait(lambda s: "EXIT=" in s)
    finally:
        pane.kill()
    return times


def branch_run(copy: Path, size: tuple[int, int], appends: int, tag: str) -> list[float]:
    """New branches (under an entry ten up the branch shown): the time until each is on
    screen."""
    times = []
    pane = Pane(_piview(copy), size)
    try:
        pane.wait(_loaded, timeout=300)
        time.sleep(1.0)
        for n in range(appends):
            marker = f"FORK-{tag}-{n:03d}-{time.monotonic_ns() % 10**8}"
            fork = _fork_id(copy)
            _append(copy, marker, parent=fork)
            times.append(pane.wait(lambda s, m=marker: m in s))
            time.sleep(0.3)
        pane.send("q")
        pane.wait(lambda s: "EXIT=" in s)
    finally:
        pane.kill()
    return times


def _panel_rows(screen: str) -> int | None:
    """``n`` of the branch panel's footer ``(i/n) [filter]``, None while it is building."""
    if "building the tree" in screen:
        return None
    for line in screen.splitlines():
        head, sep, rest = line.partition("(")
        if sep and "/" in rest and ") [" in rest:
            n = rest.split("/", 1)[1].split(")", 1)[0]
            if n.isdigit():
                return int(n)
    return None


def panel_run(
    copy: Path, size: tuple[int, int], appends: int, tag: str
) -> tuple[list[float], list[float]]:
    """Appends with the branch panel open: the times until each is in the transcript, and
    until the panel lists it."""
    shown, listed = [], []
    pane = Pane(_piview(copy), size)
    try:
        pane.wait(_loaded, timeout=300)
        pane.send("b")
        pane.wait(lambda s: _panel_rows(s) is not None, timeout=120)
        time.sleep(1.0)
        for n in range(appends):
            rows = _panel_rows(pane.screen())
            marker = f"PANEL-{tag}-{n:03d}-{time.monotonic_ns() % 10**8}"
            _append(copy, marker)
            t0 = time.perf_counter()
            pane.wait(lambda s, m=marker: m in s)
            shown.append(time.perf_counter() - t0)
            pane.wait(lambda s, r=rows: (_panel_rows(s) or 0) > (r or 0))
            listed.append(time.perf_counter() - t0)
            time.sleep(0.3)
        pane.send("q")
        pane.wait(lambda s: "EXIT=" in s)
    finally:
        pane.kill()
    return shown, listed


def quit_run(command: str, size: tuple[int, int], state: str, copy: Path | None) -> float:
    """Seconds from ``q`` to the shell running on, in ``state``."""
    pane = Pane(command, size)
    try:
        if state == "loading":
            pane.wait(lambda s: "block " in s, timeout=300)
            time.sleep(0.5)  # the whole-file load starts 0.3 s after the first screen
        else:
            pane.wait(_loaded if copy is not None else (lambda s: "block " in s), timeout=300)
            time.sleep(1.0)
        if state == "poll" and copy is not None:
            _append(copy, f"QUIT-{time.monotonic_ns()}")
            time.sleep(0.26)  # the next look at the file
        t0 = time.perf_counter()
        pane.send("q")
        pane.wait(lambda s: "EXIT=" in s)
        return time.perf_counter() - t0
    finally:
        pane.kill()


def _ms(values: list[float]) -> str:
    if not values:
        return "-"
    return (
        f"median {statistics.median(values) * 1000:6.0f} ms"
        f"  (min {min(values) * 1000:.0f}, max {max(values) * 1000:.0f}, n={len(values)})"
    )


GROUPS = ("append", "branch", "panel", "keys", "quit")
"""The cases ``--only`` picks from: plain appends, new branches, appends with the branch panel
open, appends with keys pressed, and quitting."""


def _one_run(
    copy: Path, size: tuple[int, int], appends: int, tag: str, only: set[str]
) -> dict[str, list[float]]:
    """Each case picked, once, on one checkout (:attr:`Pane.root`)."""
    r: dict[str, list[float]] = {}
    if "append" in only:
        r["append, no key"] = follow_only_run(copy, size, appends, f"{tag}a")
    if "branch" in only:
        r["new branch, no key"] = branch_run(copy, size, appends, f"{tag}f")
    if "panel" in only:
        r["append, panel open"], r["  ... panel lists it"] = panel_run(
            copy, size, appends, f"{tag}p"
        )
    if "keys" in only:
        got = follow_run(copy, size, appends, f"{tag}b")
        r["append, with k and G"] = got["append"]
        r["key during poll"] = got["key during poll"]
        r["quit idle"] = got["quit idle"]
    if "quit" in only:
        r["quit while loading"] = [quit_run(_piview(copy), size, "loading", copy)]
        r["quit during poll"] = [quit_run(_piview(copy), size, "poll", copy)]
    return r


def main() -> None:
    """Time following and quitting on the files given."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("file", type=Path)
    ap.add_argument("--baseline", type=Path, default=None, help="a smaller session, same runs")
    ap.add_argument("--runs", type=int, default=3, help="viewers started per file and state")
    ap.add_argument("--appends", type=int, default=5, help="appends per viewer")
    ap.add_argument("--size", default="120x40", help="the tmux pane, COLSxROWS")
    ap.add_argument("--tmp", type=Path, default=Path("/tmp/bench"), help="where copies go")
    ap.add_argument(
        "--root", type=Path, default=ROOT, help="the piview checkout to run (default: this one)"
    )
    ap.add_argument(
        "--against",
        type=Path,
        default=None,
        help="another checkout (the code before a change), run alternately with --root",
    )
    ap.add_argument(
        "--only", default=",".join(GROUPS), help=f"cases to run, of {', '.join(GROUPS)}"
    )
    args = ap.parse_args()
    only = set(args.only.split(","))
    if shutil.which("tmux") is None:
        sys.exit("tmux is not installed")
    cols, rows = (int(x) for x in args.size.split("x"))
    size = (cols, rows)
    files = [args.file] + ([args.baseline] if args.baseline else [])
    roots = [args.root] + ([args.against] if args.against else [])
    work = Path(tempfile.mkdtemp(prefix="bench-follow-", dir=args.tmp))
    hello = work / "hello.py"
    hello.write_text(HELLO)
    results: dict[str, dict[str, list[float]]] = {}
    loads: dict[str, dict[str, list[float]]] = {}
    failures: list[str] = []
    # One session that lives through the runs: the server stays up between panes (a new one
    # may fail while the last one's server exits).
    subprocess.run(
        ["tmux", "-L", SOCKET, "-f", os.devnull, "new-session", "-d", "-s", "keep", "sleep 86400"],
        check=True,
    )
    try:
        for f in files:
            copy = work / f.name
            shutil.copyfile(f, copy)
            for k in range(args.runs):
                for root in roots:  # alternately: both see the same load
                    Pane.root = root
                    label = f"{f.name} ({f.stat().st_size / 1e6:.0f} MB), {root}"
                    r = results.setdefault(label, {})
                    seen = loads.setdefault(label, {})
                    try:
                        got = _one_run(copy, size, args.appends, f"{k}{roots.index(root)}", only)
                    except TimeoutError as exc:  # an append never shown, a viewer that hangs
                        failures.append(f"{label}, run {k}: timed out; last screen:\n{exc}")
                        continue
                    load = os.getloadavg()[0]
                    for name, values in got.items():
                        r.setdefault(name, []).extend(values)
                        seen.setdefault(name, []).append(load)
        if "quit" in only:
            hello_times = [
                quit_run(f"{shlex.quote(sys.executable)} {hello}", size, "idle", None)
                for _ in range(args.runs)
            ]
            results["textual, one line"] = {"quit idle": hello_times}
    finally:
        shutil.rmtree(work, ignore_errors=True)
        subprocess.run(["tmux", "-L", SOCKET, "kill-server"], capture_output=True, check=False)
    print(f"tmux pane {args.size}, {args.runs} viewers per file, case and checkout")
    print(f"load average at the end: {os.getloadavg()}")
    for label, r in results.items():
        print(label)
        for name, values in r.items():
            at = loads.get(label, {}).get(name)
            load = f"  load {statistics.median(at):.2f}" if at else ""
            print(f"  {name:22s} {_ms(values)}{load}")
    for failure in failures:
        print("FAILED", failure)


if __name__ == "__main__":
    main()
