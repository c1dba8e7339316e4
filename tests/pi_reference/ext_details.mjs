// Writes tests/fixtures/sessions/ext_details.jsonl with Pi's own SessionManager: what an
// extension leaves in a session file, for piview's details and state views.
//
// Usage: node ext_details.mjs PI_NPM_DIR OUT_FILE
//
// A custom tool `deploy` whose result carries `details` (what the extension's renderResult
// reads), a custom message with `details` (shown, and one with display: false), and a custom
// entry (`appendEntry`, extension state). Pi's SessionManager writes every entry; the messages
// are made up (there is no model). The clock is fixed, so only the random entry ids change.

import { copyFileSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [npmDir, out] = process.argv.slice(2);
const pkg = join(npmDir, "node_modules", "@mariozechner", "pi-coding-agent", "dist", "index.js");
const pi = await import(pathToFileURL(pkg).href);

let clock = Date.parse("2026-06-02T14:00:00.000Z");
const RealDate = Date;
globalThis.Date = class extends RealDate {
  constructor(...args) {
    super(...(args.length ? args : [clock]));
  }
  static now() {
    return clock;
  }
};
const tick = (s = 5) => {
  clock += s * 1000;
};

const root = "/tmp/piview-ext-details";
const cwd = join(root, "shop");
const sessions = join(root, "sessions");
rmSync(root, { recursive: true, force: true });
mkdirSync(cwd, { recursive: true });
mkdirSync(sessions, { recursive: true });
const sm = pi.SessionManager.create(cwd, sessions);

const usage = (input, output) => {
  const cost = { input: input * 3e-6, output: output * 15e-6, cacheRead: 0, cacheWrite: 0 };
  cost.total = cost.input + cost.output;
  return { input, output, cacheRead: 0, cacheWrite: 0, totalTokens: input + output, cost };
};
const model = { api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5" };
const say = (content, stopReason = "stop") => {
  tick();
  return sm.appendMessage({ role: "assistant", content, ...model, usage: usage(1500, 60), stopReason, timestamp: clock });
};

tick();
sm.appendMessage({ role: "user", content: [{ type: "text", text: "Deploy the shop to staging." }], timestamp: clock });
say([
  { type: "text", text: "Deploying:" },
  { type: "toolCall", id: "toolu_deploy_1", name: "deploy", arguments: { env: "staging", version: "1.4.2" } },
], "toolUse");
tick(12);
sm.appendMessage({
  role: "toolResult",
  toolCallId: "toolu_deploy_1",
  toolName: "deploy",
  content: [{ type: "text", text: "Deployed shop 1.4.2 to staging in 11.8 s." }],
  details: {
    env: "staging",
    version: "1.4.2",
    url: "https://staging.shop.example",
    steps: [
      { name: "build", ms: 6100, ok: true },
      { name: "upload", ms: 3900, ok: true },
      { name: "migrate", ms: 1800, ok: true },
    ],
    warnings: ["cache not warmed"],
  },
  isError: false,
  timestamp: clock,
});
tick();
sm.appendCustomEntry("deploy-state", {
  lastDeploy: { env: "staging", version: "1.4.2", at: "2026-06-02T14:00:27Z" },
  history: ["1.4.0", "1.4.1", "1.4.2"],
});
tick();
sm.appendCustomMessageEntry("deploy-report", "Staging is on 1.4.2: https://staging.shop.example", true, {
  env: "staging",
  healthy: true,
  checks: { http: 200, db: "ok" },
});
tick();
sm.appendCustomMessageEntry("deploy-audit", "audit: staging deploy by agent", false, { actor: "agent", approved: false });
say([{ type: "text", text: "Staging runs 1.4.2. One warning: the cache is not warmed." }]);

const written = readdirSync(sessions).filter((f) => f.endsWith(".jsonl"));
if (written.length !== 1) throw new Error(`expected one session file, got ${written}`);
copyFileSync(join(sessions, written[0]), out);
