// Prints Pi 0.85.1's own totals of session files: what its /session command reports.
//
// Usage: node stats_085.mjs PI085_NPM_DIR FILE [FILE ...]
//   PI085_NPM_DIR  a folder where `npm install @earendil-works/pi-coding-agent@0.85.1` was run
//
// Output: one JSON object, file path → {stats, breakdown, parts}:
//   stats      AgentSession.getSessionStats() (without contextUsage, which needs a model):
//              the messages counted and the tokens and cost summed over every entry of the
//              file (assistant usage, tool results' own usage, compaction and branch-summary
//              usage)
//   breakdown  getUsageCostBreakdown(entries), the per provider/model lines of /session
//   parts      the same sums split as piview's `usage` (assistant, tools, summaries), with
//              usage-totals.js's own helpers
//
// The file is read, never written: the entries are parsed with Pi's parseSessionEntries and
// held by an in-memory SessionManager.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [npmDir, ...files] = process.argv.slice(2);
const root = join(npmDir, "node_modules", "@earendil-works", "pi-coding-agent", "dist");
const pi = await import(pathToFileURL(join(root, "index.js")).href);
const totals = await import(pathToFileURL(join(root, "core", "usage-totals.js")).href);

const out = {};
for (const file of files) {
  const entries = pi.parseSessionEntries(readFileSync(file, "utf8"));
  const header = entries.find((e) => e.type === "session");
  const sm = pi.SessionManager.inMemory(header?.cwd, undefined, entries);
  // getSessionStats reads only these of the session (agent-session.js).
  const stats = pi.AgentSession.prototype.getSessionStats.call({
    sessionManager: sm,
    sessionFile: file,
    sessionId: sm.getSessionId(),
    getContextUsage: () => undefined,
  });
  delete stats.contextUsage;
  delete stats.sessionFile;
  const parts = { assistant: totals.createUsageTotals(), tools: totals.createUsageTotals(), summaries: totals.createUsageTotals() };
  for (const e of sm.getEntries()) {
    if (e.type === "message" && e.message.role === "assistant") totals.addUsageToTotals(parts.assistant, e.message.usage);
    if (e.type === "message" && e.message.role === "toolResult" && e.message.usage) totals.addUsageToTotals(parts.tools, e.message.usage);
    if ((e.type === "compaction" || e.type === "branch_summary") && e.usage) totals.addUsageToTotals(parts.summaries, e.usage);
  }
  out[file] = { stats, breakdown: totals.getUsageCostBreakdown(sm.getEntries()), parts };
}
process.stdout.write(JSON.stringify(out, null, 1) + "\n");
