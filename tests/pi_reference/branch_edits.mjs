// Writes tests/fixtures/sessions/branch_edits.jsonl with Pi's own code: a session whose two
// branches edit the same file differently (for the branch comparison, `piview diff`).
//
// Usage: node branch_edits.mjs PI_NPM_DIR OUT_FILE
//
// Pi's SessionManager writes every entry and Pi's real read/edit/write tools run on a scratch
// folder, so the tool results (and the edits' `details.diff`) are exactly Pi's. Only the
// assistant messages are made up (there is no model). The clock is fixed so that the file is
// the same on every run, apart from the entry ids Pi draws at random.

import { copyFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [npmDir, out] = process.argv.slice(2);
const pkg = join(npmDir, "node_modules", "@mariozechner", "pi-coding-agent", "dist", "index.js");
const pi = await import(pathToFileURL(pkg).href);

// A steady clock: each entry 7 s after the one before (Pi stamps entries with new Date()).
let clock = Date.parse("2026-05-12T09:00:00.000Z");
const RealDate = Date;
globalThis.Date = class extends RealDate {
  constructor(...args) {
    super(...(args.length ? args : [clock]));
  }
  static now() {
    return clock;
  }
};
const tick = (s = 7) => {
  clock += s * 1000;
};

const cwd = "/tmp/piview-branch-edits/greeter";
const sessions = "/tmp/piview-branch-edits/sessions";
rmSync("/tmp/piview-branch-edits", { recursive: true, force: true });
mkdirSync(cwd, { recursive: true });
mkdirSync(sessions, { recursive: true });
const ORIGINAL = 'def greet(name):\n    return f"Hello, {name}"\n\n\ndef main():\n    print(greet("world"))\n';
writeFileSync(join(cwd, "greet.py"), ORIGINAL);

const tools = {
  read: pi.createReadTool(cwd),
  edit: pi.createEditTool(cwd),
  write: pi.createWriteTool(cwd),
};
const sm = pi.SessionManager.create(cwd, sessions);
let calls = 0;

const usage = (input, output, cacheRead) => {
  const cost = { input: input * 3e-6, output: output * 15e-6, cacheRead: cacheRead * 3e-7, cacheWrite: 0 };
  cost.total = cost.input + cost.output + cost.cacheRead;
  return { input, output, cacheRead, cacheWrite: 0, totalTokens: input + output + cacheRead, cost };
};
let model = { provider: "anthropic", model: "claude-sonnet-4-5" };
const user = (text) => {
  tick();
  return sm.appendMessage({ role: "user", content: [{ type: "text", text }], timestamp: clock });
};
const say = (text, stopReason = "stop", extra = {}) => {
  tick();
  return sm.appendMessage({
    role: "assistant",
    content: text ? [{ type: "text", text }] : [],
    api: "anthropic-messages",
    ...model,
    usage: usage(1200 + 100 * calls, 80, 900),
    stopReason,
    timestamp: clock,
    ...extra,
  });
};
// One assistant turn that calls a tool, then Pi's tool runs and its result is appended.
const call = async (text, name, args) => {
  calls += 1;
  const id = `toolu_${String(calls).padStart(2, "0")}`;
  tick();
  sm.appendMessage({
    role: "assistant",
    content: [{ type: "text", text }, { type: "toolCall", id, name, arguments: args }],
    api: "anthropic-messages",
    ...model,
    usage: usage(1200 + 100 * calls, 60, 900),
    stopReason: "toolUse",
    timestamp: clock,
  });
  let result;
  let isError = false;
  try {
    result = await tools[name].execute(id, args);
  } catch (err) {
    // As Pi's agent loop: a tool that throws becomes an error result with its message.
    result = { content: [{ type: "text", text: err.message }], details: {} };
    isError = true;
  }
  tick(2);
  sm.appendMessage({
    role: "toolResult",
    toolCallId: id,
    toolName: name,
    content: result.content,
    details: result.details,
    isError,
    timestamp: clock,
  });
};

sm.appendModelChange(model.provider, model.model);
sm.appendThinkingLevelChange("off");
user("greet.py should read better. Have a look first.");
await call("Reading it:", "read", { path: "greet.py" });
const fork = say("`greet(name)` returns `Hello, name`; `main` greets the world. How should it read?");

// Branch A: louder.
user("Make greet() enthusiastic: an exclamation mark, and upper-case the name.");
await call("Changing the greeting:", "edit", {
  path: "greet.py",
  edits: [{ oldText: '    return f"Hello, {name}"', newText: '    return f"Hello, {name.upper()}!"' }],
});
say("Done: `greet(\"ada\")` now returns `Hello, ADA!`.");
user("Run its test file.");
await call("Reading the tests:", "read", { path: "tests/test_greet.py" });
say("There is no `tests/test_greet.py` yet: shall I write one?");

// Branch B, from the fork, with the file as it was there and a different model.
writeFileSync(join(cwd, "greet.py"), ORIGINAL);
sm.branch(fork);
tick(600);
model = { provider: "anthropic", model: "claude-haiku-4-5" };
sm.appendModelChange(model.provider, model.model);
user("Make greet() polite, and let main() take the name from the command line.");
await call("Reading it again:", "read", { path: "greet.py" });
await call("Making it polite:", "edit", {
  path: "greet.py",
  edits: [
    { oldText: '    return f"Hello, {name}"', newText: '    return f"Good morning, {name}. How do you do?"' },
    { oldText: '    print(greet("world"))', newText: '    import sys\n\n    print(greet(sys.argv[1] if len(sys.argv) > 1 else "world"))' },
  ],
});
await call("Noting the change:", "write", {
  path: "CHANGES.md",
  content: "- greet() is polite\n- main() takes the name from argv\n",
});
say("", "aborted", { errorMessage: "Request was aborted" });
user("Carry on.");
say("`greet` is polite now, `main` reads the name from the command line, and CHANGES.md says so.");

const written = readdirSync(sessions).filter((f) => f.endsWith(".jsonl"));
if (written.length !== 1) throw new Error(`expected one session file, got ${written}`);
copyFileSync(join(sessions, written[0]), out);
