#!/usr/bin/env python3
"""Deterministic generator of large synthetic Pi (v3) session files.

Usage as a module::

    from benchmarks.gen_session import generate
    stats = generate("/tmp/big.jsonl", 50 * 1024**2, seed=0)

Usage from the command line::

    python benchmarks/gen_session.py /tmp/big.jsonl --size 50MB [--seed N]

The output looks like a long real coding session: turns of
user -> assistant (thinking + tool calls) -> tool results -> ... -> assistant
markdown answer, plus occasional model/thinking-level changes, labels,
custom messages, user ``!cmd`` bash executions, compactions, tool errors,
base64 PNG images and /tree-style branches (with optional branch summaries).

Everything is derived from a seeded ``random.Random``: the same arguments
always give a byte-identical file.
"""

from __future__ import annotations

import argparse
import base64
import bisect
import io
import itertools
import json
import os
import random
import re
import sys
import time
from typing import Any

import msgspec

__all__ = ["generate", "parse_size"]

CWD = "/home/dev/src/big"
ENCODE = msgspec.json.Encoder().encode

# --------------------------------------------------------------------------
# Word lists and templates
# --------------------------------------------------------------------------

NOUNS = [
    "session",
    "entry",
    "parser",
    "renderer",
    "token",
    "cache",
    "buffer",
    "index",
    "tree",
    "node",
    "leaf",
    "branch",
    "message",
    "config",
    "client",
    "request",
    "response",
    "handler",
    "stream",
    "chunk",
    "offset",
    "limit",
    "width",
    "height",
    "theme",
    "style",
    "layout",
    "widget",
    "viewer",
    "loader",
    "reader",
    "writer",
    "queue",
    "worker",
    "event",
    "state",
    "model",
    "provider",
    "usage",
    "cost",
    "label",
    "filter",
    "search",
    "query",
    "result",
    "error",
    "retry",
    "timeout",
    "path",
    "file",
    "line",
    "column",
    "range",
    "span",
    "diff",
    "patch",
    "hunk",
    "schema",
    "field",
    "value",
    "record",
    "batch",
    "cursor",
    "scroll",
    "viewport",
    "header",
    "footer",
    "sidebar",
    "pane",
    "tab",
    "keymap",
    "binding",
    "image",
    "thumbnail",
    "decoder",
    "encoder",
    "summary",
    "compaction",
    "context",
    "prompt",
    "tool",
    "call",
]
VERBS = [
    "load",
    "parse",
    "render",
    "build",
    "resolve",
    "fetch",
    "apply",
    "update",
    "compute",
    "format",
    "collect",
    "flush",
    "merge",
    "split",
    "wrap",
    "scan",
    "index",
    "sort",
    "filter",
    "emit",
    "dispatch",
    "handle",
    "validate",
    "normalize",
    "decode",
    "encode",
    "measure",
    "refresh",
    "restore",
    "select",
    "toggle",
    "expand",
    "collapse",
]
TYPES = (
    "string",
    "number",
    "boolean",
    "Entry",
    "SessionEntry",
    "Node",
    "Message",
    "Usage",
    "Range",
    "string[]",
    "Map<string, Entry>",
    "Promise<void>",
    "Record<string, unknown>",
    "TreeNode | undefined",
    "Uint8Array",
)
PYTYPES = (
    "str",
    "int",
    "bool",
    "float",
    "Entry",
    "Node",
    "list[str]",
    "dict[str, Any]",
    "Path",
    "bytes",
    "Message | None",
    "Iterator[Entry]",
)

FILES = [
    "src/core/session-manager.ts",
    "src/core/messages.ts",
    "src/core/agent-session.ts",
    "src/core/compaction/compaction.ts",
    "src/core/compaction/utils.ts",
    "src/core/tools/read.ts",
    "src/core/tools/bash.ts",
    "src/core/tools/edit.ts",
    "src/core/tools/edit-diff.ts",
    "src/core/tools/grep.ts",
    "src/core/tools/truncate.ts",
    "src/modes/interactive/interactive-mode.ts",
    "src/modes/interactive/components/tree-selector.ts",
    "src/modes/interactive/components/diff.ts",
    "src/modes/interactive/components/bash-execution.ts",
    "src/modes/interactive/components/assistant-message.ts",
    "src/export/html/template.ts",
    "src/export/html/render.ts",
    "src/cli/args.ts",
    "src/cli/file-processor.ts",
    "src/utils/paths.ts",
    "src/utils/format.ts",
    "test/session-manager.test.ts",
    "test/tree.test.ts",
    "test/compaction.test.ts",
    "test/edit-diff.test.ts",
    "test/render.test.ts",
    "package.json",
    "tsconfig.json",
    "README.md",
    "docs/session.md",
    "docs/tree.md",
    "CHANGELOG.md",
    "piview/app.py",
    "piview/loader.py",
    "piview/tree.py",
    "piview/render/markdown.py",
    "piview/render/diff.py",
    "piview/render/images.py",
    "piview/widgets/chat.py",
    "piview/widgets/sidebar.py",
    "tests/test_loader.py",
    "tests/test_tree.py",
    "tests/test_render.py",
    "pyproject.toml",
    "scripts/release.sh",
]
IMAGE_FILES = [
    "assets/screenshot-tree.png",
    "docs/img/export.png",
    "assets/logo@2x.png",
    "tmp/render-diff.png",
    "docs/img/sidebar.png",
    "tmp/failing-layout.png",
]

BASH_COMMANDS = [
    "npm test",
    "npm run build",
    "npm run check",
    "npx tsc --noEmit",
    "npx vitest run test/tree.test.ts",
    "npx vitest run --reporter verbose",
    "pytest -q",
    "pytest -x tests/test_tree.py -k branch",
    "python -m piview --help",
    "git status --short",
    "git diff --stat",
    "git log --oneline -n 40",
    "git diff src/core/session-manager.ts",
    "ls -la src/core",
    "rg -n 'parentId' src | head -200",
    "cat package.json",
    "node dist/cli.js --export /tmp/s.jsonl",
    "du -sh ~/.pi/agent/sessions/*",
    "wc -l src/**/*.ts",
    "make lint",
    "ruff check piview tests",
    "cargo build --release",
    "docker compose logs --tail 400 api",
    "journalctl -u pi-bridge --since '1 hour ago'",
]
USER_BASH = [
    "git status",
    "git log --oneline -5",
    "ls",
    "npm test 2>&1 | tail -40",
    "cat .env.example",
    "pwd",
    "git diff --stat",
    "node --version",
    "df -h .",
]

MODELS = [
    ("anthropic", "claude-sonnet-4-5", "anthropic-messages", (3.0, 15.0, 0.3, 3.75)),
    ("anthropic", "claude-opus-4-5", "anthropic-messages", (5.0, 25.0, 0.5, 6.25)),
    ("openai", "gpt-5.1-codex", "openai-responses", (1.25, 10.0, 0.125, 0.0)),
    ("google", "gemini-2.5-pro", "google-generative-ai", (1.25, 10.0, 0.31, 0.0)),
]
TOOL_NAMES = ("read", "bash", "grep", "edit", "write", "find", "ls")
TOOL_CUM = tuple(itertools.accumulate((34, 26, 14, 18, 3, 3, 2)))
THINKING_LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh"]
LABELS = [
    "checkpoint",
    "before-refactor",
    "good-state",
    "bug-repro",
    "perf-baseline",
    "tests-green",
    "wip",
    "review-me",
    "after-options",
    "rollback-point",
]
CUSTOM_TYPES = [
    ("git-status", False),
    ("todo-reminder", True),
    ("lsp-diagnostics", False),
    ("plan-mode", True),
    ("memory", False),
    ("ci-watch", True),
]
LANG_BY_EXT = {
    ".ts": "ts",
    ".py": "python",
    ".json": "json",
    ".md": "markdown",
    ".sh": "bash",
    ".toml": "toml",
}

NARRATIVE = [
    "The {n} is rebuilt on every {v} call, which explains the slowdown in `{f}`.",
    "I'll {v} the {n} lazily and keep a {n2} keyed by entry id.",
    "Looking at `{fn}()`, it walks the whole {n} each time instead of using the {n2}.",
    "The failing test expects {k} {n}s but we produce {k2}, so the {n2} is off by one.",
    "`{fn}` in {f} already handles the {n} case; only the {n2} path is missing.",
    "That means calling `{fn}` before the {n} is ready is the real bug.",
    "I should check whether the {n} can be `undefined` when the {n2} is empty.",
    "A cheaper option is to {v} only the visible {n}s and skip the rest.",
    "The {n} width is computed in cells, not code points, so wide characters break it.",
    "Line {k} of {f} dereferences the {n} without checking the {n2} first.",
    "This keeps the {n} O(1) per {n2} and avoids re-parsing {k} KB of JSON.",
    "We can reuse `{fn}` here; it already returns the {n} sorted by timestamp.",
    "Tests cover the {n} but not the {n2}, so I'll add a regression test.",
    "The error comes from `{fn}` → `{fn2}` when the {n} list is empty.",
    "Memory stays flat because each {n} only stores an offset into the file.",
    "I'm not sure the {n2} survives a reload; let me verify with a {k}-entry session.",
    "Both branches share the same {n}, so labels must follow the {n2} id, not the index.",
    "After the change `{fn}` runs in {k} ms instead of {k2} ms on the large fixture.",
]
REQUESTS = [
    "The {n} view is really slow when I open a session with {k} entries.",
    "Can you make `{fn}` in {f} handle an empty {n}?",
    "Tests in {f} started failing after my last change to the {n2}.",
    "I'd like the {n} to show the {n2} next to each entry, like the HTML export does.",
    "Please add a flag to {v} the {n} without touching the {n2}.",
    "Why does the {n} jump when I scroll past an image?",
    "Let's refactor `{fn}` so it doesn't {v} the whole {n} each time.",
    "Also keep the {n2} stable across reloads, that's important for labels.",
    "Could you explain how the {n} and the {n2} interact here?",
    "It crashes with a KeyError on `{fn}` when the {n} is missing.",
    "Make sure it still works for v1 files without ids.",
    "Run the tests again and tell me what's left.",
    "Can we avoid reading the whole {k} MB file before showing the first screen?",
    "Go ahead with option {k3}, but keep the old behaviour behind a setting.",
    "Looks good. Now do the same for the {n2} widget.",
]
BULLETS = [
    "**{N}**: `{fn}` now goes through `{fn2}` and caches the {n2}.",
    "Moved the {n} logic from `{f}` into `{fn}`.",
    "Added {k} tests for the empty-{n} and unicode-{n2} cases.",
    "`{fn}` returns `None` instead of raising when the {n} is missing.",
    "The {n2} is now keyed by entry id, so branches no longer collide.",
    "Kept the public API unchanged; only internals moved.",
]


def _fill(rng: random.Random, tpl: str) -> str:
    n, n2 = rng.choice(NOUNS), rng.choice(NOUNS)
    return tpl.format(
        n=n,
        n2=n2,
        N=n.capitalize(),
        v=rng.choice(VERBS),
        f=rng.choice(FILES),
        fn=rng.choice(VERBS) + rng.choice(NOUNS).capitalize(),
        fn2=rng.choice(VERBS) + rng.choice(NOUNS).capitalize(),
        k=rng.randint(2, 5000),
        k2=rng.randint(2, 5000),
        k3=rng.randint(1, 3),
    )


# --------------------------------------------------------------------------
# Text pools: generated once per seed, then sliced at line boundaries
# --------------------------------------------------------------------------


class Pool:
    """A big string plus the offsets of its line starts; slices are whole lines."""

    __slots__ = ("text", "starts", "lines")

    def __init__(self, lines: list[str]):
        self.lines = lines
        starts = [0]
        pos = 0
        for ln in lines:
            pos += len(ln) + 1
            starts.append(pos)
        self.text = "\n".join(lines) + "\n"
        self.starts = starts

    def take(self, rng: random.Random, n: int) -> str:
        """About ``n`` characters of whole lines starting at a random line."""
        starts = self.starts
        total = starts[-1]
        if n >= total:
            return self.text
        i = int(rng.random() * (len(starts) - 1))
        a = starts[i]
        if a + n > total:  # too close to the end: start earlier
            i = bisect.bisect_right(starts, total - n) - 1
            a = starts[i]
        j = bisect.bisect_left(starts, a + n, i + 1, min(len(starts), i + 1 + n))
        if j >= len(starts):
            j = len(starts) - 1
        return self.text[a : starts[j] - 1]


def _ident(rng: random.Random) -> str:
    return rng.choice(VERBS) + rng.choice(NOUNS).capitalize()


def _ts_function(rng: random.Random) -> list[str]:
    name, a = _ident(rng), rng.choice(NOUNS)
    b = rng.choice(NOUNS) + rng.choice(("List", "Map", "Ids", "ById"))
    t = rng.choice(TYPES)
    out = []
    if rng.random() < 0.4:
        out.append(f"/** {_fill(rng, rng.choice(NARRATIVE))} */")
    out.append(
        f"export {'async ' if rng.random() < 0.3 else ''}function {name}"
        f"({a}: {t}, {b}: {rng.choice(TYPES)}): {rng.choice(TYPES)} {{"
    )
    for _ in range(rng.randint(3, 14)):
        r = rng.random()
        x, y, z = rng.choice(NOUNS), rng.choice(NOUNS), rng.choice(NOUNS)
        if r < 0.2:
            out.append(f"\tconst {x} = {a}.{y}.filter((e) => e.{z} !== undefined);")
        elif r < 0.35:
            out.append(f"\tif (!{x} || {x}.length === 0) {{")
            out.append(f"\t\treturn {rng.choice(['undefined', 'null', '[]', '0', 'false', a])};")
            out.append("\t}")
        elif r < 0.5:
            out.append(f"\tfor (const {x} of {b}) {{")
            out.append(f"\t\tthis.{y}.set({x}.id, {_ident(rng)}({x}, {rng.randint(0, 512)}));")
            out.append("\t}")
        elif r < 0.6:
            out.append(f"\t// {_fill(rng, rng.choice(NARRATIVE))}")
        elif r < 0.7:
            out.append(f"\tlet {x}Width = Math.max(0, {a}.{y} - {rng.randint(1, 80)});")
        elif r < 0.8:
            out.append(
                f"\tconst {{ {x}, {y} }} = await this.{_ident(rng)}"
                f"({a}, {{ {z}: {rng.randint(1, 99)} }});"
            )
        elif r < 0.9:
            out.append(
                f'\tthrow new Error(`{_ident(rng)}: unexpected {x} "${{{a}.{y}}}" '
                f"in {rng.choice(FILES)}`);"
            )
        else:
            out.append(f"\t{a}.{x} = {a}.{x} ?? new Map<string, {rng.choice(TYPES)}>();")
    out.append(f"\treturn {rng.choice([a, b, 'result', 'undefined', 'out'])};")
    out.append("}")
    out.append("")
    return out


def _py_function(rng: random.Random) -> list[str]:
    name = rng.choice(VERBS) + "_" + rng.choice(NOUNS)
    a = rng.choice(NOUNS)
    b = rng.choice(NOUNS) + rng.choice(("_list", "_map", "_ids", "_by_id"))
    out = [
        f"def {name}({a}: {rng.choice(PYTYPES)}, {b}: {rng.choice(PYTYPES)})"
        f" -> {rng.choice(PYTYPES)}:"
    ]
    if rng.random() < 0.5:
        out.append(f'    """{_fill(rng, rng.choice(NARRATIVE))}"""')
    for _ in range(rng.randint(3, 12)):
        r = rng.random()
        x, y = rng.choice(NOUNS), rng.choice(NOUNS)
        if r < 0.25:
            out.append(f"    {x} = [e for e in {b} if e.{y} is not None]")
        elif r < 0.4:
            out.append(f"    if not {x}:")
            out.append(f"        return {rng.choice(['None', '[]', '0', 'False', a])}")
        elif r < 0.55:
            out.append(f"    for {x} in {b}:")
            out.append(
                f"        self._{y}[{x}.id] = {rng.choice(VERBS)}_{rng.choice(NOUNS)}"
                f"({x}, {rng.randint(0, 512)})"
            )
        elif r < 0.65:
            out.append(f"    # {_fill(rng, rng.choice(NARRATIVE))}")
        elif r < 0.8:
            out.append(f"    {x}_width = max(0, {a}.{y} - {rng.randint(1, 80)})")
        else:
            out.append(
                f'    raise ValueError(f"unexpected {x} {{{a}.{y}!r}} in {rng.choice(FILES)}")'
            )
    out.append(f"    return {rng.choice([a, b, 'result', 'None', 'out'])}")
    out.append("")
    out.append("")
    return out


def _code_pool(rng: random.Random, chars: int, lang: str) -> Pool:
    lines: list[str] = []
    size = 0
    while size < chars:
        r = rng.random()
        if lang == "py":
            if r < 0.08:
                block = [
                    f"from .{rng.choice(NOUNS)} import {rng.choice(VERBS)}_{rng.choice(NOUNS)}, "
                    f"{rng.choice(NOUNS).capitalize()}"
                    for _ in range(rng.randint(2, 6))
                ] + [""]
            elif r < 0.95:
                block = _py_function(rng)
            else:
                block = [f"class {rng.choice(NOUNS).capitalize()}{rng.choice(NOUNS).capitalize()}:"]
                for _ in range(rng.randint(2, 6)):
                    block.append(f"    {rng.choice(NOUNS)}: {rng.choice(PYTYPES)}")
                block += ["", ""]
        else:
            if r < 0.08:
                block = [
                    f'import {{ {_ident(rng)}, {_ident(rng)} }} from "./{rng.choice(NOUNS)}.js";'
                    for _ in range(rng.randint(2, 6))
                ] + [""]
            elif r < 0.95:
                block = _ts_function(rng)
            else:
                block = [
                    f"class {rng.choice(NOUNS).capitalize()}{rng.choice(NOUNS).capitalize()} {{"
                ]
                for _ in range(rng.randint(2, 6)):
                    block.append(f"\tprivate {rng.choice(NOUNS)}: {rng.choice(TYPES)};")
                block += ["}", ""]
        lines.extend(block)
        size += sum(len(x) + 1 for x in block)
    return Pool(lines)


def _log_pool(rng: random.Random, chars: int) -> Pool:
    lines: list[str] = []
    size = 0
    t = 1_778_000_000
    while size < chars:
        r = rng.random()
        block: list[str]
        if r < 0.25:  # test runner
            f = rng.choice(FILES)
            block = [f" ✓ {f} ({rng.randint(1, 60)} tests) {rng.randint(2, 900)}ms"]
            for _ in range(rng.randint(3, 20)):
                ok = rng.random() < 0.9
                block.append(
                    f"   {'✓' if ok else '×'} {_fill(rng, rng.choice(NARRATIVE))[:70]}"
                    f" {rng.randint(0, 40)}ms"
                )
        elif r < 0.45:  # timestamped app log
            block = []
            for _ in range(rng.randint(5, 30)):
                t += rng.randint(0, 3)
                lvl = rng.choice(("INFO ", "INFO ", "DEBUG", "WARN ", "ERROR"))
                block.append(
                    f"2026-05-{11 + (t // 86400) % 18:02d}T{(t // 3600) % 24:02d}:"
                    f"{(t // 60) % 60:02d}:{t % 60:02d}."
                    f"{rng.randint(0, 999):03d}Z {lvl} [{rng.choice(NOUNS)}-{rng.randint(1, 8)}] "
                    f"{rng.choice(VERBS)} {rng.choice(NOUNS)} id={rng.getrandbits(32):08x} "
                    f"n={rng.randint(1, 4096)} took={rng.randint(1, 900)}ms"
                )
        elif r < 0.6:  # stack trace
            block = [f"Error: {_fill(rng, rng.choice(NARRATIVE))}"]
            for _ in range(rng.randint(4, 14)):
                block.append(
                    f"    at {rng.choice(NOUNS).capitalize()}.{_ident(rng)} "
                    f"({CWD}/{rng.choice(FILES)}:{rng.randint(1, 900)}:{rng.randint(1, 60)})"
                )
        elif r < 0.75:  # tsc / lint
            block = []
            for _ in range(rng.randint(2, 12)):
                block.append(
                    f"{rng.choice(FILES)}({rng.randint(1, 900)},{rng.randint(1, 80)}): "
                    f"error TS{rng.randint(2000, 2800)}: "
                    f"Property '{rng.choice(NOUNS)}' does not exist "
                    f"on type '{rng.choice(TYPES)}'."
                )
            block.append(f"Found {len(block)} errors in {rng.randint(1, len(block))} files.")
        elif r < 0.88:  # pytest
            block = []
            for _ in range(rng.randint(3, 16)):
                res = "PASSED" if rng.random() < 0.9 else "FAILED"
                block.append(
                    f"tests/test_{rng.choice(NOUNS)}.py::test_{rng.choice(VERBS)}_{rng.choice(NOUNS)}"
                    f"[case-{rng.randint(0, 40)}] {res}   [{rng.randint(0, 100):3d}%]"
                )
        else:  # git log / status
            block = []
            for _ in range(rng.randint(3, 15)):
                if rng.random() < 0.5:
                    block.append(
                        f"{rng.getrandbits(28):07x} {_fill(rng, rng.choice(BULLETS))[:72]}"
                    )
                else:
                    block.append(f" {rng.choice('MADR?')} {rng.choice(FILES)}")
        block.append("")
        lines.extend(block)
        size += sum(len(x) + 1 for x in block)
    return Pool(lines)


def _grep_pool(rng: random.Random, code: Pool, chars: int) -> Pool:
    lines: list[str] = []
    size = 0
    src = code.lines
    while size < chars:
        f = rng.choice(FILES)
        ln = rng.randint(1, 1500)
        k = rng.randrange(len(src) - 8)
        for d in range(rng.randint(1, 5)):
            text = src[k + d][:300]
            s = f"{f}:{ln + d}: {text}" if d % 2 == 0 else f"{f}-{ln + d}- {text}"
            lines.append(s)
            size += len(s) + 1
    return Pool(lines)


def _sentence_pool(rng: random.Random, templates: list[str], chars: int) -> Pool:
    lines: list[str] = []
    size = 0
    while size < chars:
        s = _fill(rng, rng.choice(templates))
        lines.append(s)
        size += len(s) + 1
    return Pool(lines)


class Pools:
    def __init__(self, seed: int):
        rng = random.Random(f"piview-pools-{seed}")
        self.code_ts = _code_pool(rng, 2_000_000, "ts")
        self.code_py = _code_pool(rng, 1_500_000, "py")
        self.log = _log_pool(rng, 2_000_000)
        self.grep = _grep_pool(rng, self.code_ts, 1_000_000)
        self.prose = _sentence_pool(rng, NARRATIVE, 600_000)
        self.requests = _sentence_pool(rng, REQUESTS, 200_000)
        self.bullets = _sentence_pool(rng, BULLETS, 100_000)
        self.b64 = base64.b64encode(rng.randbytes(600_000)).decode()
        self.alnum = "".join(
            rng.choices("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", k=400_000)
        )

    def code(self, path: str) -> Pool:
        return self.code_py if path.endswith(".py") else self.code_ts

    def words(self, rng: random.Random, pool: Pool, n: int) -> str:
        """Prose of about n chars: sentences joined by spaces."""
        return pool.take(rng, n).replace("\n", " ")


_POOLS: dict[int, Pools] = {}


def _pools(seed: int) -> Pools:
    p = _POOLS.get(seed)
    if p is None:
        p = _POOLS[seed] = Pools(seed)
    return p


# --------------------------------------------------------------------------
# PNG images (noisy gradients), generated once and reused
# --------------------------------------------------------------------------

# (target base64 KB, weight): mean about 86 KB of base64 per image.
IMAGE_SPECS = ((50, 56), (75, 20), (110, 10), (160, 7), (250, 5), (400, 2))
_IMAGES: list[tuple[str, int, int]] | None = None


def _png(rng: random.Random, w: int, h: int) -> bytes:
    from PIL import Image

    grad = Image.linear_gradient("L").resize((w, h))
    r = grad
    g = grad.rotate(90).resize((w, h))
    b = Image.radial_gradient("L").resize((w, h))
    base = Image.merge("RGB", (r, g, b))
    noise = Image.frombytes("RGB", (w, h), rng.randbytes(w * h * 3))
    img = Image.blend(base, noise, 0.22)
    buf = io.BytesIO()
    img.save(buf, format="PNG", optimize=False, compress_level=6)
    return buf.getvalue()


def _images() -> list[tuple[str, int, int]]:
    """[(base64, width, height)] for IMAGE_SPECS, deterministic (fixed seed)."""
    global _IMAGES
    if _IMAGES is None:
        rng = random.Random("piview-images")
        probe = _png(random.Random(1), 200, 200)
        b64_per_px = len(probe) * 4 / 3 / 40_000
        out = []
        for kb, _w in IMAGE_SPECS:
            target = kb * 1024
            px = target / b64_per_px
            w = int((px * 4 / 3) ** 0.5)
            h = max(16, int(px / w))
            for _ in range(3):  # refine
                data = _png(rng, w, h)
                got = (len(data) + 2) // 3 * 4
                if abs(got - target) < target * 0.03:
                    break
                h = max(16, int(h * target / got))
            out.append((base64.b64encode(data).decode(), w, h))
        _IMAGES = out
    return _IMAGES


# --------------------------------------------------------------------------
# Generator
# --------------------------------------------------------------------------


def _money(x: float) -> float | int:
    return round(x, 9) or 0


_B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


class _Gen:
    def __init__(self, out, target: int, seed: int, branch_every: int, image_every: int):
        self.out = out
        self.target = target
        self.rng = random.Random(seed)
        rnd = self.rng.random
        # Fast helpers (random.randint/choice are ~10x slower than random()).
        self.ri = lambda a, b: a + int(rnd() * (b - a + 1))
        self.rr = lambda n: int(rnd() * n)
        self.pick = lambda seq: seq[int(rnd() * len(seq))]
        self.P = _pools(seed)
        self.images = _images() if image_every > 0 else []
        self.image_weights = [w for _kb, w in IMAGE_SPECS]
        self.branch_every = branch_every
        self.image_every = image_every
        self.buf: list[bytes] = []
        self.buf_bytes = 0
        self.written = 0
        self.ids: set[str] = set()
        self.path: list[tuple[str, str, int]] = []  # (id, kind, ctx tokens) root->leaf
        self.leaf: str | None = None
        self.ms = 1_778_486_400_000 + self.ri(0, 86_400_000 * 30)
        self.last_sec = -1
        self.last_sec_str = ""
        self.ctx = self.ri(2500, 9000)  # context tokens (starts with the system prompt)
        self.ctx_cached = 0  # context tokens sent with the previous LLM call (prompt cache)
        self.compact_at = self.ri(150_000, 185_000)
        self.model = MODELS[0]
        self.tc_counter = 0
        self.next_image = image_every if image_every > 0 else None
        self.image_due = False
        self.next_branch = branch_every if branch_every > 0 else None
        self.last_compaction_pos = 0
        self.stats = {
            "entries": 0,
            "bytes": 0,
            "images": 0,
            "tool_calls": 0,
            "tool_errors": 0,
            "branches": 0,
            "branch_summaries": 0,
            "compactions": 0,
            "labels": 0,
            "custom_messages": 0,
            "bash_executions": 0,
            "model_changes": 0,
            "thinking_level_changes": 0,
            "user_messages": 0,
            "assistant_messages": 0,
            "tool_results": 0,
            "turns": 0,
        }

    # ---- low level -------------------------------------------------------

    def new_id(self) -> str:
        ids = self.rng.getrandbits
        while True:
            i = f"{ids(32):08x}"
            if i not in self.ids:
                self.ids.add(i)
                return i

    def iso(self, ms: int) -> str:
        day, msd = divmod(ms, 86_400_000)
        if day != self.last_sec:  # new UTC day: recompute the date part
            self.last_sec = day
            self.last_sec_str = time.strftime("%Y-%m-%dT", time.gmtime(day * 86_400))
        h, rem = divmod(msd, 3_600_000)
        m, rem = divmod(rem, 60_000)
        sec, msr = divmod(rem, 1000)
        return f"{self.last_sec_str}{h:02d}:{m:02d}:{sec:02d}.{msr:03d}Z"

    def tick(self, lo: int, hi: int) -> int:
        self.ms += self.ri(lo, hi)
        return self.ms

    def emit_raw(self, data: bytes) -> None:
        self.buf.append(data)
        self.buf_bytes += len(data)
        if self.buf_bytes >= 8 << 20:
            self.flush()

    def flush(self) -> None:
        if self.buf:
            self.out.write(b"".join(self.buf))
            self.written += self.buf_bytes
            self.buf = []
            self.buf_bytes = 0

    @property
    def size(self) -> int:
        return self.written + self.buf_bytes

    def emit(
        self,
        etype: str,
        fields: dict[str, Any],
        kind: str = "other",
        *,
        parent: str | None | bool = False,
        lo: int = 20,
        hi: int = 2000,
        tokens: int = 0,
        ms: int | None = None,
    ) -> str:
        """Append an entry with key order type,id,parentId,timestamp,...fields."""
        eid = self.new_id()
        pid = self.leaf if parent is False else parent
        if ms is None:
            ms = self.tick(lo, hi)
        entry = {"type": etype, "id": eid, "parentId": pid, "timestamp": self.iso(ms)}
        entry.update(fields)
        self._emit_entry(entry, eid, kind, tokens)
        return eid

    def message(self, msg: dict[str, Any], kind: str, **kw: Any) -> str:
        return self.emit("message", {"message": msg}, kind, **kw)

    # ---- content helpers -------------------------------------------------

    def skew(self, lo: int, hi: int, p: float = 1.6) -> int:
        return lo + int((hi - lo) * self.rng.random() ** p)

    def tool_call_id(self, name: str) -> str:
        # random-looking part sliced from a pool + a base62 counter: unique and cheap
        self.tc_counter += 1
        c = self.tc_counter
        suffix = _B62[c // 238328 % 62] + _B62[c // 3844 % 62] + _B62[c // 62 % 62] + _B62[c % 62]
        alnum = self.P.alnum
        a = self.rr(len(alnum) - 32)
        prov = self.model[0]
        if prov == "anthropic":
            return f"toolu_01{alnum[a : a + 18]}{suffix}"
        if prov == "openai":
            return f"call_{alnum[a : a + 20]}{suffix}|fc_{self.rng.getrandbits(192):048x}"
        return f"{name}_{self.ms}_{c}"

    def signature(self, n: int) -> str:
        a = self.rr(len(self.P.b64) - n - 4)
        return self.P.b64[a : a + n]

    def thinking_block(self, lo: int, hi: int) -> dict[str, Any]:
        text = self.P.words(self.rng, self.P.prose, self.skew(lo, hi, 2.0))
        blk: dict[str, Any] = {"type": "thinking", "thinking": text}
        prov = self.model[0]
        if prov == "anthropic":
            blk["thinkingSignature"] = self.signature(self.ri(200, 480) // 4 * 4)
        elif prov == "openai":
            blk["thinkingSignature"] = ENCODE(
                {
                    "type": "reasoning",
                    "id": f"rs_{self.rng.getrandbits(160):040x}",
                    "encrypted_content": self.signature(self.ri(200, 600) // 4 * 4),
                    "summary": [],
                }
            ).decode()
        return blk

    def tool_out_size(self) -> int:
        # 1..40 KB, heavily skewed to the small end (mean about 2.3 KB):
        # 90% 1-2.5 KB, 8.5% 2.5-10 KB, 1.5% 10-40 KB.
        rng = self.rng
        r = rng.random()
        if r < 0.90:
            return 1024 + int(1536 * rng.random() ** 2.5)
        if r < 0.985:
            return 2560 + int(7680 * rng.random() ** 1.5)
        return 10240 + int(30720 * rng.random())

    def markdown_answer(self) -> str:
        rng, P = self.rng, self.P
        total = self.skew(300, 3000, 2.2)
        code_len = max(60, int(total * rng.uniform(0.25, 0.5)))
        intro_len = max(80, int((total - code_len) * 0.45))
        parts = [P.words(rng, P.prose, intro_len)]
        if rng.random() < 0.6:
            parts.append(
                "## " + self.pick(("Summary", "What changed", "Root cause", "Fix", "Next steps"))
            )
            parts.append(
                "\n".join("- " + b for b in P.bullets.take(rng, self.ri(120, 400)).split("\n"))
            )
        f = self.pick(FILES)
        lang = LANG_BY_EXT.get(os.path.splitext(f)[1], "ts")
        parts.append(f"In `{f}`:\n\n```{lang}\n{P.code(f).take(rng, code_len)}\n```")
        rest = total - sum(len(p) for p in parts)
        if rest > 40:
            parts.append(P.words(rng, P.prose, rest))
        return "\n\n".join(parts)

    def usage(self, out_chars: int) -> dict[str, Any]:
        output = max(5, out_chars // 4 + self.ri(0, 60))
        cache_read = min(self.ctx_cached, self.ctx)
        fresh = max(1, self.ctx - cache_read)
        if self.model[0] == "anthropic":
            inp, cache_write = self.ri(1, 12), fresh
        else:
            inp, cache_write = fresh, 0
        self.ctx_cached = self.ctx + output
        pi, po, pr, pw = self.model[3]
        ci, co = inp * pi / 1e6, output * po / 1e6
        cr, cw = cache_read * pr / 1e6, cache_write * pw / 1e6
        return {
            "input": inp,
            "output": output,
            "cacheRead": cache_read,
            "cacheWrite": cache_write,
            "totalTokens": inp + output + cache_read + cache_write,
            "cost": {
                "input": _money(ci),
                "output": _money(co),
                "cacheRead": _money(cr),
                "cacheWrite": _money(cw),
                "total": _money(ci + co + cr + cw),
            },
        }

    def assistant(
        self,
        content: list[dict[str, Any]],
        stop: str,
        out_chars: int,
        extra: dict[str, Any] | None = None,
        kind: str = "asst",
    ) -> str:
        prov, model, api, _ = self.model
        start = self.ms
        msg: dict[str, Any] = {
            "role": "assistant",
            "content": content,
            "api": api,
            "provider": prov,
            "model": model,
        }
        if prov == "openai":
            msg["responseId"] = f"resp_{self.rng.getrandbits(192):048x}"
        if stop in ("error", "aborted"):
            msg["usage"] = {
                "input": 0,
                "output": 0,
                "cacheRead": 0,
                "cacheWrite": 0,
                "totalTokens": 0,
                "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
            }
        else:
            msg["usage"] = self.usage(out_chars)
        msg["stopReason"] = stop
        msg["timestamp"] = start + self.ri(1, 40)
        if extra:
            msg.update(extra)
        self.stats["assistant_messages"] += 1
        return self.message(msg, kind, lo=1500, hi=45_000, tokens=out_chars // 4)

    def take_image(self) -> tuple[str, int, int]:
        self.image_due = False
        self.next_image = self.stats["entries"] + self.image_every
        self.stats["images"] += 1
        return self.rng.choices(self.images, self.image_weights)[0]

    # ---- tool calls and results -----------------------------------------

    def make_call(self, name: str, image: bool = False) -> tuple[dict[str, Any], dict[str, Any]]:
        """Return (toolCall block, plan for the result)."""
        rng, P = self.rng, self.P
        plan: dict[str, Any] = {"name": name}
        if image:
            args: dict[str, Any] = {"path": self.pick(IMAGE_FILES)}
            plan["image"] = True
        elif name == "read":
            args = {"path": self.pick(FILES)}
            if rng.random() < 0.25:
                args["offset"] = self.ri(1, 1200)
                args["limit"] = self.pick((50, 100, 200, 400))
        elif name == "bash":
            args = {"command": self.pick(BASH_COMMANDS)}
            if rng.random() < 0.15:
                args["timeout"] = self.pick((30, 60, 120, 300))
        elif name == "grep":
            args = {
                "pattern": self.pick(
                    (
                        self.pick(NOUNS),
                        _ident(rng),
                        rf"{self.pick(VERBS)}\w+\(",
                        f"{self.pick(NOUNS)}Id",
                        "TODO|FIXME",
                        r"parentId\s*[:=]",
                    )
                )
            }
            if rng.random() < 0.5:
                args["path"] = self.pick(("src", "piview", "test", "src/core"))
            if rng.random() < 0.3:
                args["glob"] = self.pick(("*.ts", "*.py", "**/*.test.ts"))
            if rng.random() < 0.2:
                args["ignoreCase"] = True
            if rng.random() < 0.3:
                args["context"] = self.ri(1, 4)
        elif name == "edit":
            path = self.pick(FILES)
            edits = []
            code = P.code(path)
            for _ in range(self.pick((1, 1, 1, 2, 3))):
                old = code.take(rng, self.skew(20, 320, 2.0))
                new = code.take(rng, self.skew(20, 420, 2.0))
                edits.append({"oldText": old, "newText": new})
            args = {"path": path, "edits": edits}
            plan["edits"] = edits
        elif name == "write":
            path = self.pick(FILES)
            content = P.code(path).take(rng, self.skew(300, 4000, 2.0))
            args = {"path": path, "content": content}
        else:  # find / ls
            args = (
                {"pattern": self.pick(("**/*.ts", "**/*.py", "*.md", "src/**/test*"))}
                if name == "find"
                else {"path": self.pick(("src", "src/core", ".", "piview"))}
            )
        call = {"type": "toolCall", "id": self.tool_call_id(name), "name": name, "arguments": args}
        plan["args"] = args
        plan["id"] = call["id"]
        return call, plan

    def diff_for(self, path: str, edits: list[dict[str, str]]) -> tuple[str, int]:
        rng = self.rng
        src = self.P.code(path).lines
        file_len = self.ri(60, 2400)
        w = len(str(file_len))
        pad = " " * w
        out: list[str] = []
        line = self.ri(1, max(2, file_len // 3))
        first = None
        if line > 5:
            out.append(f" {pad} ...")
        for ed in edits:
            olds = ed["oldText"].split("\n")
            news = ed["newText"].split("\n")
            k = self.rr(len(src) - 10)
            for d in range(4):
                out.append(f" {line:>{w}} {src[k + d]}")
                line += 1
            if first is None:
                first = line
            for j, t in enumerate(olds):
                out.append(f"-{line + j:>{w}} {t}")
            for j, t in enumerate(news):
                out.append(f"+{line + j:>{w}} {t}")
            line += len(olds)
            for d in range(4):
                out.append(f" {line:>{w}} {src[k + 4 + d]}")
                line += 1
            out.append(f" {pad} ...")
            line += self.ri(5, 120)
        if out[-1].endswith("...") and rng.random() < 0.5:
            out.pop()
        return "\n".join(out), first or 1

    def tool_result(self, plan: dict[str, Any]) -> None:
        rng, P = self.rng, self.P
        name, args = plan["name"], plan["args"]
        is_err = rng.random() < 0.06
        details: dict[str, Any] | None = None
        content: list[dict[str, Any]]
        if plan.get("image"):
            b64, w, h = self.take_image()
            content = [
                {"type": "text", "text": "Read image file [image/png]"},
                {"type": "image", "data": b64, "mimeType": "image/png"},
            ]
            is_err = False
            tokens = 1500
        elif name == "edit":
            if is_err:
                text = (
                    f"Could not find the exact text in {args['path']}. The old text must match "
                    "exactly including all whitespace and newlines."
                )
            else:
                n = len(plan["edits"])
                text = f"Successfully replaced {n} block(s) in {args['path']}."
                diff, first = self.diff_for(args["path"], plan["edits"])
                details = {"diff": diff, "firstChangedLine": first}
            content = [{"type": "text", "text": text}]
            tokens = 40
        elif name == "write":
            content = [
                {
                    "type": "text",
                    "text": f"Successfully wrote {len(args['content'])} bytes to {args['path']}",
                }
            ]
            is_err = False
            tokens = 20
        elif name in ("find", "ls"):
            text = "\n".join(rng.sample(FILES, self.ri(5, 30)))
            content = [{"type": "text", "text": text}]
            is_err = False
            tokens = len(text) // 4
        else:
            n = self.tool_out_size()
            if name == "read":
                if is_err:
                    text = f"ENOENT: no such file or directory, access '{CWD}/{args['path']}'"
                else:
                    text = P.code(args["path"]).take(rng, n)
                    if n > 30_000 and rng.random() < 0.5:
                        total = self.ri(2001, 9000)
                        text += (
                            f"\n\n[Showing lines 1-2000 of {total}. Use offset=2001 to continue.]"
                        )
                        details = {
                            "truncation": {
                                "truncated": True,
                                "truncatedBy": "lines",
                                "totalLines": total,
                                "totalBytes": total * 38,
                                "outputLines": 2000,
                                "outputBytes": len(text),
                                "lastLinePartial": False,
                                "firstLineExceedsLimit": False,
                                "maxLines": 2000,
                                "maxBytes": 51200,
                            }
                        }
            elif name == "bash":
                text = P.log.take(rng, n)
                details = {}
                if n > 30_000 and rng.random() < 0.5:
                    total = self.ri(2500, 20000)
                    path = f"/tmp/pi-bash-{rng.getrandbits(32):08x}.log"
                    text += (
                        f"\n\n[Showing lines {total - 1999}-{total} of {total}. "
                        f"Full output: {path}]"
                    )
                    details = {"fullOutputPath": path}
                if is_err:
                    text += f"\n\nCommand exited with code {self.pick((1, 1, 1, 2, 127, 130))}"
            else:  # grep
                if is_err:
                    text = f"Invalid regex pattern: {args['pattern']}: unterminated group"
                else:
                    text = P.grep.take(rng, n)
                    if n > 20_000 and rng.random() < 0.5:
                        text += (
                            "\n\n[100 matches limit reached. "
                            "Use limit=200 for more, or refine pattern]"
                        )
                        details = {"matchLimitReached": 100}
            content = [{"type": "text", "text": text}]
            tokens = len(text) // 4
        msg: dict[str, Any] = {
            "role": "toolResult",
            "toolCallId": plan["id"],
            "toolName": name,
            "content": content,
        }
        if details is not None:
            msg["details"] = details
        msg["isError"] = is_err
        ms = self.tick(15, 4000)
        msg["timestamp"] = ms - self.ri(0, 10)
        if is_err:
            self.stats["tool_errors"] += 1
        self.stats["tool_results"] += 1
        self.message(msg, "tool", ms=ms, tokens=tokens)

    # ---- occasional entries ---------------------------------------------

    def model_change(self) -> None:
        self.model = self.pick([m for m in MODELS if m is not self.model])
        self.ctx_cached = 0
        self.emit(
            "model_change", {"provider": self.model[0], "modelId": self.model[1]}, lo=500, hi=20_000
        )
        self.stats["model_changes"] += 1

    def thinking_change(self) -> None:
        self.emit(
            "thinking_level_change",
            {"thinkingLevel": self.pick(THINKING_LEVELS)},
            lo=500,
            hi=20_000,
        )
        self.stats["thinking_level_changes"] += 1

    def label(self, target: str | None = None) -> None:
        rng = self.rng
        if target is None:
            cands = [e for e in self.path[-40:] if e[1] in ("user", "final")]
            if not cands:
                return
            target = self.pick(cands)[0]
        fields: dict[str, Any] = {"targetId": target}
        if rng.random() < 0.9:
            fields["label"] = f"{self.pick(LABELS)}-{self.ri(1, 99)}"
        self.emit("label", fields, lo=200, hi=30_000)
        self.stats["labels"] += 1

    def custom_message(self) -> None:
        rng, P = self.rng, self.P
        ctype, display = self.pick(CUSTOM_TYPES)
        if rng.random() < 0.3:
            display = not display
        text = P.words(rng, P.prose, self.ri(80, 1200))
        content: Any = text if rng.random() < 0.5 else [{"type": "text", "text": text}]
        fields: dict[str, Any] = {"customType": ctype, "content": content, "display": display}
        if rng.random() < 0.5:
            fields["details"] = {
                "source": ctype,
                "count": self.ri(1, 50),
                "files": rng.sample(FILES, 3),
            }
        # key order as pi writes it:
        # type, customType, content, display, details, id, parentId, timestamp
        eid = self.new_id()
        ms = self.tick(50, 3000)
        entry = {
            "type": "custom_message",
            **fields,
            "id": eid,
            "parentId": self.leaf,
            "timestamp": self.iso(ms),
        }
        self._emit_entry(entry, eid, "other", len(text) // 4)
        self.stats["custom_messages"] += 1

    def custom_entry(self) -> None:
        rng = self.rng
        eid = self.new_id()
        ms = self.tick(10, 500)
        entry = {
            "type": "custom",
            "customType": self.pick(("todo-state", "plan-mode", "memory")),
            "data": {
                "items": [
                    {"text": self.pick(self.P.bullets.lines)[:80], "done": rng.random() < 0.5}
                    for _ in range(self.ri(1, 6))
                ]
            },
            "id": eid,
            "parentId": self.leaf,
            "timestamp": self.iso(ms),
        }
        self._emit_entry(entry, eid, "other", 0)

    def _emit_entry(self, entry: dict[str, Any], eid: str, kind: str, tokens: int) -> None:
        self.emit_raw(ENCODE(entry) + b"\n")
        self.leaf = eid
        self.ctx += tokens
        path = self.path
        path.append((eid, kind, self.ctx))
        if len(path) > 4000:
            del path[:2000]
            self.last_compaction_pos = max(0, self.last_compaction_pos - 2000)
        st = self.stats
        st["entries"] += 1
        if self.next_image is not None and st["entries"] >= self.next_image:
            self.image_due = True

    def bash_execution(self) -> None:
        rng, P = self.rng, self.P
        cmd = self.pick(USER_BASH)
        out = P.log.take(rng, self.skew(60, 8000, 2.0))
        code = 0 if rng.random() < 0.85 else self.pick((1, 2, 128))
        msg: dict[str, Any] = {
            "role": "bashExecution",
            "command": cmd,
            "output": out,
            "exitCode": code,
            "cancelled": False,
            "truncated": False,
        }
        if rng.random() < 0.05:
            msg["truncated"] = True
            msg["fullOutputPath"] = f"/tmp/pi-bash-{rng.getrandbits(32):08x}.log"
        if rng.random() < 0.2:
            msg["excludeFromContext"] = True
        ms = self.tick(3000, 60_000)
        msg["timestamp"] = ms - self.ri(0, 5)
        self.message(msg, "other", ms=ms, tokens=len(out) // 4)
        self.stats["bash_executions"] += 1

    def file_lists(self) -> tuple[list[str], list[str]]:
        rng = self.rng
        read = sorted(rng.sample(FILES, self.ri(2, 12)))
        mod = sorted(rng.sample(FILES, self.ri(0, 6)))
        return read, mod

    def summary_text(self, read: list[str], mod: list[str], n: int) -> str:
        rng, P = self.rng, self.P
        s = (
            f"## Goal\n{P.words(rng, P.requests, 200)}\n\n## Constraints & Preferences\n"
            f"- {P.words(rng, P.prose, 120)}\n\n## Progress\n### Done\n"
            + "\n".join(f"- [x] {b}" for b in P.bullets.take(rng, n // 3).split("\n"))
            + "\n\n### In Progress\n- [ ] "
            + P.words(rng, P.prose, 150)
            + "\n\n## Key Decisions\n"
            + "\n".join(f"- {b}" for b in P.bullets.take(rng, n // 4).split("\n"))
            + f"\n\n## Next Steps\n1. {P.words(rng, P.prose, 120)}\n2. {P.words(rng, P.prose, 100)}"
            + f"\n\n## Critical Context\n{P.words(rng, P.prose, n // 4)}"
        )
        s += "\n\n<read-files>\n" + "\n".join(read) + "\n</read-files>"
        if mod:
            s += "\n\n<modified-files>\n" + "\n".join(mod) + "\n</modified-files>"
        return s

    def compaction(self) -> None:
        # first kept entry: a user message about 20k tokens back, after the last compaction
        want = self.ctx - self.ri(15_000, 30_000)
        first = None
        for eid, kind, ctx in reversed(self.path[self.last_compaction_pos :]):
            if kind == "user":
                first = eid
                if ctx <= want:
                    break
        if first is None:
            return
        read, mod = self.file_lists()
        summary = self.summary_text(read, mod, self.ri(1200, 4000))
        before = self.ctx
        self.emit(
            "compaction",
            {
                "summary": summary,
                "firstKeptEntryId": first,
                "tokensBefore": before,
                "details": {"readFiles": read, "modifiedFiles": mod},
            },
            lo=20_000,
            hi=90_000,
        )
        self.ctx = len(summary) // 4 + self.ri(15_000, 30_000)
        self.ctx_cached = 0
        self.last_compaction_pos = len(self.path) - 1
        self.compact_at = self.ctx + self.ri(120_000, 160_000)
        self.stats["compactions"] += 1

    def branch(self) -> str | None:
        """Navigate back 3-20 entries to an earlier assistant answer. Returns new parent id."""
        rng = self.rng
        path = self.path
        k = self.ri(3, 20)
        lo = max(0, len(path) - 20)
        hi = len(path) - 3
        cands = [i for i in range(lo, hi + 1) if path[i][1] == "final"]
        if not cands:
            cands = [i for i in range(lo, hi + 1) if path[i][1] in ("final", "asst")]
        if not cands:
            return None
        want = len(path) - k
        idx = min(cands, key=lambda i: abs(i - want))
        target, _kind, ctx = path[idx]
        del path[idx + 1 :]
        self.last_compaction_pos = min(self.last_compaction_pos, idx)
        self.ctx = ctx
        self.leaf = target
        self.stats["branches"] += 1
        parent = target
        if rng.random() < 0.5:
            read, mod = self.file_lists()
            if rng.random() < 0.8:
                summary = (
                    "The user explored a different conversation branch before returning here.\n"
                    "Summary of that exploration:\n\n"
                    + self.summary_text(read, mod, self.ri(400, 1500))
                )
                fields: dict[str, Any] = {
                    "fromId": target,
                    "summary": summary,
                    "details": {"readFiles": read, "modifiedFiles": mod},
                    "fromHook": False,
                }
            else:
                words = self.P.words(rng, self.P.prose, 300)
                summary = f"Abandoned branch ({self.ri(3, 20)} messages). {words}"
                fields = {
                    "fromId": target,
                    "summary": summary,
                    "details": {"generator": "branch-notes-extension", "files": mod},
                    "fromHook": True,
                }
            parent = self.emit(
                "branch_summary",
                fields,
                parent=target,
                lo=5000,
                hi=60_000,
                tokens=len(summary) // 4,
            )
            self.stats["branch_summaries"] += 1
            if rng.random() < 0.3:
                self.label(parent)
                parent = self.leaf
        return parent

    # ---- turns -----------------------------------------------------------

    def header(self) -> None:
        rng = self.rng
        ms = self.ms
        r = rng.getrandbits(80)
        # UUIDv7 like pi >= 0.67: 48-bit ms timestamp, version 7, variant 10xx
        h = (
            f"{ms:012x}7{rng.getrandbits(12):03x}{8 + (r & 3):x}"
            f"{(r >> 2) & 0xFFF:03x}{(r >> 14) & ((1 << 48) - 1):012x}"
        )
        uid = f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"
        self.emit_raw(
            ENCODE(
                {"type": "session", "version": 3, "id": uid, "timestamp": self.iso(ms), "cwd": CWD}
            )
            + b"\n"
        )
        self.emit(
            "model_change",
            {"provider": self.model[0], "modelId": self.model[1]},
            parent=None,
            lo=0,
            hi=0,
        )
        self.emit("thinking_level_change", {"thinkingLevel": "medium"}, lo=0, hi=0)
        self.stats["model_changes"] += 1
        self.stats["thinking_level_changes"] += 1

    def user_message(self, parent: str | None | bool = False) -> None:
        rng, P = self.rng, self.P
        text = P.words(rng, P.requests, self.skew(100, 600, 1.3))
        content: list[dict[str, Any]] = [{"type": "text", "text": text}]
        tokens = len(text) // 4
        if self.image_due and rng.random() < 0.5:
            b64, _w, _h = self.take_image()
            content[0]["text"] = "Screenshot attached. " + text
            content.append({"type": "image", "data": b64, "mimeType": "image/png"})
            tokens += 1500
        ms = self.tick(4000, 180_000)
        msg = {"role": "user", "content": content, "timestamp": ms - self.ri(1, 40)}
        self.stats["user_messages"] += 1
        self.message(msg, "user", parent=parent, ms=ms, tokens=tokens)

    def turn(self) -> None:
        rng, st = self.rng, self.stats
        st["turns"] += 1
        # occasional side entries before the user speaks
        r = rng.random
        if self.ctx >= self.compact_at:
            self.compaction()
        if r() < 0.012:
            self.model_change()
        if r() < 0.012:
            self.thinking_change()
        if r() < 0.03:
            self.custom_message()
        if r() < 0.04:
            self.bash_execution()
        if r() < 0.01:
            self.custom_entry()
        if r() < 0.02:
            self.label()
        parent: str | None | bool = False
        if self.next_branch is not None and st["entries"] >= self.next_branch:
            p = self.branch()
            self.next_branch = st["entries"] + self.branch_every
            if p is not None:
                parent = p
        self.user_message(parent)

        # rare failed assistant turn
        if r() < 0.01:
            if r() < 0.5:
                self.assistant([], "aborted", 0, {"errorMessage": "Request was aborted"}, "final")
            else:
                self.assistant(
                    [],
                    "error",
                    0,
                    {
                        "errorMessage": '529 {"type":"error","error":{"type":'
                        '"overloaded_error","message":"Overloaded"}}'
                    },
                    "final",
                )
            return

        rounds = 0 if r() < 0.08 else rng.choices((1, 2, 3, 4), cum_weights=(4, 7, 9, 10))[0]
        for rnd in range(rounds):
            content: list[dict[str, Any]] = []
            out_chars = 0
            if rnd == 0 or r() < 0.3:
                blk = self.thinking_block(300, 1500) if rnd == 0 else self.thinking_block(150, 700)
                content.append(blk)
                out_chars += len(blk["thinking"])
            if r() < 0.35:
                t = self.P.words(rng, self.P.prose, self.ri(40, 200))
                content.append({"type": "text", "text": t})
                out_chars += len(t)
            plans = []
            n = rng.choices((1, 2, 3), cum_weights=(4, 7, 10))[0]
            for i in range(n):
                image = self.image_due and i == 0
                name = "read" if image else rng.choices(TOOL_NAMES, cum_weights=TOOL_CUM)[0]
                call, plan = self.make_call(name, image)
                if image:
                    self.image_due = False  # reserved for this result
                content.append(call)
                plans.append(plan)
                out_chars += 80
            st["tool_calls"] += n
            self.assistant(content, "toolUse", out_chars)
            for plan in plans:
                self.tool_result(plan)

        content = []
        out_chars = 0
        if rounds == 0 or r() < 0.3:
            blk = self.thinking_block(300, 1500) if rounds == 0 else self.thinking_block(100, 500)
            content.append(blk)
            out_chars += len(blk["thinking"])
        text = self.markdown_answer()
        content.append({"type": "text", "text": text})
        out_chars += len(text)
        stop = "stop" if r() > 0.005 else "length"
        self.assistant(content, stop, out_chars, kind="final")

    def run(self) -> dict[str, Any]:
        self.header()
        first_named = False
        while self.size < self.target:
            self.turn()
            if not first_named:
                self.emit(
                    "session_info", {"name": "Refactor the session tree loader"}, lo=100, hi=2000
                )
                first_named = True
        self.flush()
        self.stats["bytes"] = self.written
        return self.stats


def generate(
    path: str | os.PathLike,
    target_bytes: int,
    *,
    seed: int = 0,
    branch_every: int = 400,
    image_every: int = 150,
) -> dict:
    """Write a synthetic Pi v3 session of about ``target_bytes`` bytes to ``path``.

    Generation stops after the turn that crosses ``target_bytes`` (so the file
    ends with an assistant answer and is at most one turn larger). Same
    arguments -> byte-identical output. ``branch_every``/``image_every`` of 0
    disable branches/images. Returns statistics (entries excludes the header
    line; ``lines`` includes it).
    """
    t0 = time.perf_counter()
    with open(path, "wb", buffering=0) as f:
        g = _Gen(f, int(target_bytes), seed, branch_every, image_every)
        stats = g.run()
    stats = {**stats, "lines": stats["entries"] + 1, "seconds": round(time.perf_counter() - t0, 2)}
    return stats


_UNITS = {
    "": 1,
    "B": 1,
    "K": 1 << 10,
    "KB": 1 << 10,
    "KIB": 1 << 10,
    "M": 1 << 20,
    "MB": 1 << 20,
    "MIB": 1 << 20,
    "G": 1 << 30,
    "GB": 1 << 30,
    "GIB": 1 << 30,
}


def parse_size(s: str) -> int:
    """'50MB' -> 52428800. Units are binary (KB=1024, MB=1024**2, GB=1024**3)."""
    m = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]*)\s*", s)
    if not m or m.group(2).upper() not in _UNITS:
        raise argparse.ArgumentTypeError(f"bad size {s!r} (try 50MB, 1GB, 500KB)")
    return int(float(m.group(1)) * _UNITS[m.group(2).upper()])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Generate a large synthetic Pi v3 session JSONL file.")
    ap.add_argument("out", help="output .jsonl path")
    ap.add_argument(
        "--size",
        type=parse_size,
        default=parse_size("50MB"),
        help="target size, e.g. 50MB, 1GB, 500KB (binary units; default 50MB)",
    )
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--branch-every", type=int, default=400, help="entries between branches (0 = none)"
    )
    ap.add_argument(
        "--image-every", type=int, default=150, help="entries between images (0 = none)"
    )
    a = ap.parse_args(argv)
    stats = generate(
        a.out, a.size, seed=a.seed, branch_every=a.branch_every, image_every=a.image_every
    )
    print(json.dumps(stats, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
