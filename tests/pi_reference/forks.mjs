// Writes a folder of sessions with real forks, made by Pi's own SessionManager.
//
// Usage: node forks.mjs PI_NPM_DIR OUT_DIR
//   PI_NPM_DIR  a folder where `npm install @mariozechner/pi-coding-agent` was run
//   OUT_DIR     an empty folder; it becomes a Pi sessions folder (one folder per project)
//
// What it writes (the fixture tests/fixtures/sessions/forks was made with OUT_DIR=/tmp/pi-forks
// and then copied, so its parentSession headers name /tmp/pi-forks paths, as a session folder
// moved to another machine does):
//   --home-dev-src-tinyhttp--/2026-05-14T18-00-00-000Z_<id>.jsonl   tree_branches.jsonl, copied
//   --home-dev-src-tinyhttp--/<now>_<id>.jsonl   createBranchedSession(a5d544a8) (/fork onto an
//                                                abandoned branch) and one more turn
//   --home-dev-src-tinyhttp--/<now>_<id>.jsonl   that fork forked again at its leaf (/clone),
//                                                and one more turn
//   --home-dev-src-other--/<now>_<id>.jsonl      forkFrom(original) into another project (a
//                                                verbatim copy of every entry), and one turn
//   --home-dev-src-tinyhttp--/2026-05-14T09-…_<id>.jsonl   linear.jsonl, copied (no forks)
//   --home-dev-src-tinyhttp--/<original stem>/<now>_<id>.jsonl   a subagent's session, nested
//                                                in the original's own folder
// Pi's files are never opened in place: the fixtures are copied into OUT_DIR first.

import { copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const [npmDir, out] = process.argv.slice(2);
const pkg = join(npmDir, "node_modules", "@mariozechner", "pi-coding-agent", "dist", "index.js");
const { SessionManager } = await import(pathToFileURL(pkg).href);
const fixtures = join(dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "sessions");

const tinyhttp = join(out, "--home-dev-src-tinyhttp--");
const other = join(out, "--home-dev-src-other--");
mkdirSync(tinyhttp, { recursive: true });
mkdirSync(other, { recursive: true });

function copyAsPi(name) {
  // Pi names a file <header timestamp with - for : and .>_<session id>.jsonl
  const src = join(fixtures, name);
  const header = JSON.parse(readFileSync(src, "utf8").split("\n")[0]);
  const stamp = header.timestamp.replace(/[:.]/g, "-");
  const dest = join(tinyhttp, `${stamp}_${header.id}.jsonl`);
  copyFileSync(src, dest);
  return dest;
}

let turn = 0;
function addTurn(sm, text) {
  // One user prompt and one assistant answer with its own usage (different in every turn).
  turn += 1;
  sm.appendMessage({ role: "user", content: [{ type: "text", text }], timestamp: Date.now() });
  const input = 1000 * turn;
  const output = 100 * turn;
  sm.appendMessage({
    role: "assistant",
    content: [{ type: "text", text: `Done (${text}).` }],
    api: "anthropic-messages",
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    usage: {
      input,
      output,
      cacheRead: 500 * turn,
      cacheWrite: 200 * turn,
      totalTokens: input + output + 700 * turn,
      cost: {
        input: input * 3e-6,
        output: output * 15e-6,
        cacheRead: 500 * turn * 0.3e-6,
        cacheWrite: 200 * turn * 3.75e-6,
        total: input * 3e-6 + output * 15e-6 + 500 * turn * 0.3e-6 + 200 * turn * 3.75e-6,
      },
    },
    stopReason: "stop",
    timestamp: Date.now(),
  });
}

const original = copyAsPi("tree_branches.jsonl");
copyAsPi("linear.jsonl");

// /fork onto the abandoned branch that ends at a5d544a8, then a turn in the fork.
const sm1 = SessionManager.open(original);
const fork1 = sm1.createBranchedSession("a5d544a8");
addTurn(sm1, "continue the jitter branch in a fork");

// /clone of the fork at its leaf, then a turn.
const sm2 = SessionManager.open(fork1);
const fork2 = sm2.createBranchedSession(sm2.getLeafId());
addTurn(sm2, "and once more in a clone of the fork");

// pi --fork: every entry copied verbatim into another project's folder, then a turn.
const sm3 = SessionManager.forkFrom(original, "/home/dev/src/other", other);
addTurn(sm3, "carry on in the other project");

// A subagent's own session, kept in a folder named after the parent session's file.
const nested = join(tinyhttp, basename(original, ".jsonl"));
const sm4 = SessionManager.create("/home/dev/src/tinyhttp", nested);
addTurn(sm4, "scout: list the retry call sites");

console.log(JSON.stringify({ original, fork1, fork2, fork3: sm3.getSessionFile(), sub: sm4.getSessionFile() }));
