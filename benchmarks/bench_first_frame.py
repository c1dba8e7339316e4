"""Benchmark: issue #17's first screen, as CPU time and wall time until the frame is written.

``bench_startup.py`` times the first screen from outside (tmux polling), which is right but,
on a machine other jobs load, mostly measures how long the process waited for a core. This
runs each command in a real terminal (tmux 120x40) under a small probe that watches Textual's
terminal driver: at the first write holding the marker (``block `` for piview, ``block hello``
for the one-line Textual app) it records the wall time since launch and the process's CPU
time (``time.process_time``: the work done, whatever else runs), then ends the process. The
forked prerender child's CPU is its own, not counted: it runs on the other core.

Commands alternate within every run (the one-line app, this checkout, ``--base DIR`` another
checkout), medians over ``--runs`` are printed with the load average and each median's ratio to
the app's. Every checkout runs as ``python -P`` with ``PYTHONPATH`` set to its folder: run
``python -m compileall -q piview`` in each first.

    python benchmarks/bench_first_frame.py --runs 9 --base /tmp/first-base
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SOCKET = "piview-bench-frame"
"""A tmux server of its own, so the benchmark never touches the user's sessions."""

PROBE = r'''
import importlib.abc, importlib.machinery, os, runpy, sys, time

out, start, marker = sys.argv[1], float(sys.argv[2]), sys.argv[3]
target = sys.argv[4:]


class _Driver(importlib.abc.MetaPathFinder):
    """Wraps LinuxDriver.write once Textual imports it (nothing imported before the target)."""

    def find_spec(self, name, path, target=None):
        if name != "textual.drivers.linux_driver":
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            write = module.LinuxDriver.write

            def probe(self, data):
                write(self, data)
                if marker in data:
                    wall = (time.time() - start) * 1000
                    with open(out, "w") as f:
                        f.write(f"{wall:.2f} {time.process_time() * 1000:.2f}\n")
                    os._exit(0)

            module.LinuxDriver.write = probe

        spec.loader.exec_module = exec_module
        return spec


sys.meta_path.insert(0, _Driver())
if target[0] == "-m":
    sys.argv = [target[1], *target[2:]]
    runpy.run_module(target[1], run_name="__main__", alter_sys=True)
else:
    sys.argv = target
    runpy.run_path(target[0], run_name="__main__")
'''
"""Runs a script or ``-m module`` and reports when its first frame holding the marker goes out."""


def once(
    probe: Path, command: list[str], marker: str, env: str, timeout: float = 30.0
) -> tuple[float, float]:
    """``(wall ms, CPU ms)`` from launching ``command`` under the probe until its first frame."""
    with tempfile.NamedTemporaryFile(prefix="piview-frame-", suffix=".txt", delete=False) as f:
        out = Path(f.name)
    out.unlink()
    name = f"frame{time.monotonic_ns()}"
    try:
        for attempt in range(5):
            start = time.time()
            line = f"env {env} {sys.executable} -P {probe} {out} {start} '{marker}' " + " ".join(
                command
            )
            done = subprocess.run(
                ["tmux", "-L", SOCKET, "new-session", "-d", "-s", name, "-x", "120", "-y", "40",
                 line],
                capture_output=True,
            )  # fmt: skip
            if done.returncode == 0:
                break
            time.sleep(0.2 * (attempt + 1))  # the previous server may still be exiting
        else:
            raise RuntimeError(done.stderr.decode(errors="replace").strip())
        t0 = time.perf_counter()
        while not out.exists() or not out.read_text().endswith("\n"):
            if time.perf_counter() - t0 > timeout:
                raise TimeoutError(line)
            time.sleep(0.005)
        wall, cpu = (float(x) for x in out.read_text().split())
        return wall, cpu
    finally:
        subprocess.run(["tmux", "-L", SOCKET, "kill-session", "-t", name], capture_output=True)
        out.unlink(missing_ok=True)


def main() -> None:
    """Time the app, this checkout and ``--base``; print medians and ratios."""
    from benchmarks.tmux_first_screen import HELLO

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--file", type=Path, default=Path("/tmp/bench/s50.jsonl"))
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--base", type=Path, help="another checkout of piview, timed alongside")
    ap.add_argument(
        "--compare",
        type=Path,
        help="another file, opened by this checkout alongside (e.g. a "
        "session file of the size of --file, an event stream)",
    )
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="piview-frame-") as tmp:
        probe = Path(tmp) / "probe.py"
        probe.write_text(PROBE)
        hello = Path(tmp) / "hello.py"
        hello.write_text(HELLO)
        view = ["-m", "piview", "--no-follow", str(args.file)]
        commands: dict[str, tuple[list[str], str, str]] = {
            "app": ([str(hello)], "block hello", ""),
            "piview": (view, "block ", f"PYTHONPATH={ROOT}"),
        }
        if args.compare:
            other = ["-m", "piview", "--no-follow", str(args.compare)]
            commands["compare"] = (other, "block ", f"PYTHONPATH={ROOT}")
        if args.base:
            commands["base"] = (view, "block ", f"PYTHONPATH={args.base.resolve()}")
        load0 = os.getloadavg()
        walls: dict[str, list[float]] = {name: [] for name in commands}
        cpus: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.runs):
            for name, (command, marker, env) in commands.items():
                wall, cpu = once(probe, command, marker, env)
                walls[name].append(wall)
                cpus[name].append(cpu)
        load1 = os.getloadavg()
    if args.compare:
        print(f"compare: {args.compare.name}")
    print(
        f"{args.file.name}: medians of {args.runs} runs, tmux 120x40, alternating; load average "
        f"{load0[0]:.2f} at the start, {load1[0]:.2f} at the end (1 min)"
    )
    app_wall, app_cpu = statistics.median(walls["app"]), statistics.median(cpus["app"])
    for name in commands:
        w, c = statistics.median(walls[name]), statistics.median(cpus[name])
        print(
            f"  {name:7s} CPU {c:6.1f} ms ({c / app_cpu:4.2f}x the app, min {min(cpus[name]):.1f})"
            f"   wall {w:6.1f} ms ({w / app_wall:4.2f}x, min {min(walls[name]):.1f})"
        )


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()
