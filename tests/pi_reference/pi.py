"""Pi's own answers about sessions: running tests/pi_reference/context.mjs, and the stored ones.

``PIVIEW_PI_NPM`` names a folder where ``npm install @mariozechner/pi-coding-agent`` was run
(default /tmp/pi-npm); with ``node`` on the PATH, :func:`pi_context` asks Pi itself.

Regenerate the stored answers (after a corpus or script change) with
``PIVIEW_PI_NPM=/tmp/pi-npm python -m tests.pi_reference.pi``.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

from tests.conftest import CORPUS, FIXTURES, corpus_files

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "context.mjs"
ANSWERS = HERE / "answers"
PACKAGE = Path("node_modules") / "@mariozechner" / "pi-coding-agent" / "dist" / "index.js"

FIXTURE_FILES = [
    FIXTURES / n
    for n in (
        "compaction_context.jsonl",
        "roles_all.jsonl",
        "tree_branches.jsonl",
        "entry_types.jsonl",
        "tool_pairing.jsonl",
        "v1.jsonl",
        "v2_hookmessage.jsonl",
    )
]
"""Hand-written fixtures Pi reads without looping (never the ones with cycles)."""


def pi_npm() -> Path | None:
    """The folder with Pi's package installed, when it and ``node`` are there."""
    folder = Path(os.environ.get("PIVIEW_PI_NPM", "/tmp/pi-npm"))
    if shutil.which("node") is None or not (folder / PACKAGE).is_file():
        return None
    return folder


def pi_context(folder: Path, path: Path, ids: list[str] | None = None) -> list[dict[str, Any]]:
    """What Pi builds at ``ids`` of ``path`` (default: the script's sample of entries)."""
    out = subprocess.run(
        ["node", str(SCRIPT), str(folder), str(path), *(ids or [])],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return list(json.loads(out.stdout))


def digest(text: str) -> str:
    """A message's text as stored in an answer file: a short digest of the whole."""
    return hashlib.sha1(text.encode()).hexdigest()[:10]


def compact(message: dict[str, Any]) -> list[Any]:
    """A message as stored in an answer file: ``[entry_id, role, sent, digest of text]``."""
    return [message["entry_id"], message["role"], message["sent"], digest(message["text"])]


def answer_name(path: Path) -> str:
    """The answer file's name for a session file (corpus folder and name)."""
    return f"{path.parent.name}__{path.stem}.json"


def file_digest(path: Path) -> str:
    """The session file's sha1: an answer holds only for the file it was made from."""
    return hashlib.sha1(path.read_bytes()).hexdigest()


def stored(path: Path) -> dict[str, Any] | None:
    """The stored answer for ``path``, if there is one."""
    answer = ANSWERS / answer_name(path)
    return json.loads(answer.read_text()) if answer.is_file() else None


def regenerate(folder: Path) -> None:
    """Ask Pi about every corpus file and chosen fixture; store its answers, shortened."""
    ANSWERS.mkdir(exist_ok=True)
    for path in corpus_files() + FIXTURE_FILES:
        cases = pi_context(folder, path)
        for case in cases:
            case["messages"] = [compact(m) for m in case["messages"]]
        source = str(path.relative_to(CORPUS if path.is_relative_to(CORPUS) else FIXTURES))
        # One case per line: a diff shows which entry's answer changed.
        lines = [json.dumps(c, ensure_ascii=False, separators=(",", ":")) for c in cases]
        head = json.dumps({"file": source, "sha1": file_digest(path)})[:-1]
        text = head + ',"cases":[\n' + ",\n".join(lines) + "\n]}\n"
        (ANSWERS / answer_name(path)).write_text(text)


if __name__ == "__main__":
    found = pi_npm()
    if found is None:
        raise SystemExit("node or Pi's package not found (set PIVIEW_PI_NPM)")
    regenerate(found)
