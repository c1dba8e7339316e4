// Prints Pi 0.85.1's own token estimate (estimateTokens, core/compaction/compaction.js) of every
// message it builds from session files, and of the whole context at a sample of entries.
//
// Usage: node estimate_085.mjs PI085_NPM_DIR FILE [FILE ...]
//   PI085_NPM_DIR  a folder where `npm install @earendil-works/pi-coding-agent@0.85.1` was run
//                  (run with a Node of 22.19 or newer)
//
// Output: one JSON object, file path → {entries, contexts}:
//   entries   one [line, estimate] per entry Pi builds a message from
//             (sessionEntryToContextMessages: a message, a custom message, a branch summary
//             with a summary, a compaction); estimate is null when Pi's estimateTokens throws
//   contexts  {at, estimate}: at the default leaf (at null), every other leaf, compaction and
//             branch summary, and 3 entries spread over the file, the sum of estimateTokens
//             over the messages of buildSessionContext that convertToLlm sends
//
// The file is read, never written (as context.mjs: Pi's parse rule, migrateSessionEntries,
// version-1 ids renamed `L<line>`, piview's ids).

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [npmDir, ...files] = process.argv.slice(2);
const root = join(npmDir, "node_modules", "@earendil-works", "pi-coding-agent", "dist");
const pi = await import(pathToFileURL(join(root, "index.js")).href);

function estimate(message) {
  try {
    const n = pi.estimateTokens(message);
    return Number.isFinite(n) ? n : null;
  } catch {
    return null;
  }
}

function read(file) {
  const content = readFileSync(file, "utf8");
  const lead = content.length - content.trimStart().length;
  const firstLine = 1 + (content.slice(0, lead).match(/\n/g) || []).length;
  const entries = [];
  const lineOf = new Map();
  content
    .trim()
    .split("\n")
    .forEach((line, k) => {
      if (!line.trim()) return;
      try {
        const entry = JSON.parse(line);
        entries.push(entry);
        lineOf.set(entry, firstLine + k);
      } catch {
        // Pi skips malformed lines.
      }
    });
  const header = entries.find((e) => e.type === "session");
  const legacy = (header?.version ?? 1) < 2;
  pi.migrateSessionEntries(entries);
  if (legacy) {
    const rename = new Map();
    for (const e of entries) if (e.type !== "session") rename.set(e.id, `L${lineOf.get(e)}`);
    for (const e of entries) {
      if (e.type === "session") continue;
      e.id = rename.get(e.id);
      if (e.parentId) e.parentId = rename.get(e.parentId);
      if (e.firstKeptEntryId) e.firstKeptEntryId = rename.get(e.firstKeptEntryId);
    }
  }
  return { entries, lineOf };
}

const out = {};
for (const file of files) {
  const { entries, lineOf } = read(file);
  const body = entries.filter((e) => e.type !== "session" && e && typeof e === "object");
  const byId = new Map();
  for (const e of body) byId.set(e.id, e);
  const leafId = body.length ? body[body.length - 1].id : null;

  const perEntry = [];
  for (const e of body) {
    let messages;
    try {
      messages = pi.sessionEntryToContextMessages(e);
    } catch {
      continue;
    }
    for (const m of messages) perEntry.push([lineOf.get(e), estimate(m)]);
  }

  const ids = [null];
  const parents = new Set(body.map((e) => e.parentId));
  for (const e of body) {
    if (e.id === leafId) continue;
    if (!parents.has(e.id) || e.type === "compaction" || e.type === "branch_summary") ids.push(e.id);
  }
  for (let k = 1; k <= 3; k++) {
    const e = body[Math.floor((body.length * k) / 4)];
    if (e && e.id !== leafId) ids.push(e.id);
  }
  const contexts = [];
  for (const want of [...new Set(ids)]) {
    let total = 0;
    try {
      const ctx = pi.buildSessionContext(body, want ?? leafId, byId);
      for (const m of ctx.messages) {
        if (pi.convertToLlm([m]).length === 0) continue;
        const n = estimate(m);
        total = n === null || total === null ? null : total + n;
      }
    } catch {
      total = null;
    }
    contexts.push({ at: want, estimate: total });
  }
  out[file] = { entries: perEntry, contexts };
}
process.stdout.write(JSON.stringify(out) + "\n");
