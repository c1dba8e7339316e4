// Prints what Pi itself builds as the model's context at chosen entries of a session file.
//
// Usage: node context.mjs PI_NPM_DIR FILE [ID ...]
//   PI_NPM_DIR  a folder where `npm install @mariozechner/pi-coding-agent` was run
//               ($PI_PACKAGE names another package there: @earendil-works/pi-coding-agent
//               for Pi 0.85, run with a Node of 22.19 or newer)
//   ID          entry ids to build the context at; none: a sample (the default leaf, every
//               other leaf, compaction and branch summary, and 3 entries spread over the file)
//
// Output: one JSON list on stdout, one object per entry, with piview's `context --json` keys
// (without `system` and `tokens`, which Pi does not compute).
//
// The file is read, never written: Pi's SessionManager.open would rewrite old-version files,
// so this uses the functions it calls (parseSessionEntries' rule, migrateSessionEntries,
// buildSessionContext, convertToLlm) on an in-memory copy. Version-1 files get random ids
// from Pi's migration; they are renamed `L<line>` (piview's deterministic ids) afterwards.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [npmDir, file, ...wanted] = process.argv.slice(2);
const pkgName = process.env.PI_PACKAGE || "@mariozechner/pi-coding-agent";
const pkg = join(npmDir, "node_modules", ...pkgName.split("/"), "dist", "index.js");
const pi = await import(pathToFileURL(pkg).href);

const content = readFileSync(file, "utf8");
// Pi's parseSessionEntries, keeping each entry's line number (1-based, as in the file).
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
if (entries.length !== pi.parseSessionEntries(content).length) {
  throw new Error("line numbering disagrees with parseSessionEntries");
}
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
// As SessionManager: the entries without the header; the last one with an id wins.
const body = entries.filter((e) => e.type !== "session");
const byId = new Map();
for (const e of body) byId.set(e.id, e);
const leafId = body.length ? body[body.length - 1].id : null;

function sample() {
  const ids = [null];
  const parents = new Set(body.map((e) => e.parentId));
  for (const e of body) {
    if (e.id === leafId) continue; // the default (null) is the leaf
    if (!parents.has(e.id) || e.type === "compaction" || e.type === "branch_summary") ids.push(e.id);
  }
  for (let k = 1; k <= 3; k++) {
    const e = body[Math.floor((body.length * k) / 4)];
    if (e && e.id !== leafId) ids.push(e.id);
  }
  return [...new Set(ids)];
}

function firstText(content) {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    const block = content.find((b) => b && b.type === "text");
    if (block) return block.text ?? "";
  }
  return "";
}

function textOf(m) {
  switch (m.role) {
    case "assistant": {
      const t = (m.content || []).find((b) => b.type === "text");
      if (t) return t.text ?? "";
      const call = (m.content || []).find((b) => b.type === "toolCall");
      return call ? (call.name ?? "") : "";
    }
    case "bashExecution":
      return m.command ?? "";
    case "branchSummary":
    case "compactionSummary":
      return m.summary ?? "";
    default:
      return firstText(m.content);
  }
}

// Which entry each built message comes from: message entries by identity, the messages
// Pi creates (custom, summaries) by their entry's type, in path order.
function entryIds(path, ctx, compaction) {
  const own = new Map(path.filter((e) => e.type === "message").map((e) => [e.message, e.id]));
  const queues = { custom: [], branchSummary: [] };
  for (const e of path) {
    if (e.type === "custom_message") queues.custom.push(e.id);
    if (e.type === "branch_summary" && e.summary) queues.branchSummary.push(e.id);
  }
  // Kept entries before the compaction come first, so the queues are consumed in order
  // once the entries Pi skipped are dropped.
  return ctx.messages.map((m) => {
    if (own.has(m)) return own.get(m);
    if (m.role === "compactionSummary") return compaction.id;
    const q = queues[m.role];
    if (!q) throw new Error(`cannot place a ${m.role} message`);
    return q.shift();
  });
}

function pathTo(id) {
  const path = [];
  for (let e = byId.get(id); e; e = e.parentId ? byId.get(e.parentId) : undefined) path.unshift(e);
  return path;
}

const out = [];
for (const want of wanted.length ? wanted : sample()) {
  const at = want ?? leafId;
  const ctx = pi.buildSessionContext(body, at, byId);
  const path = pathTo(at);
  const compaction = path.filter((e) => e.type === "compaction").pop();
  if (compaction) {
    // Skipped by Pi: custom/summaries before firstKeptEntryId; drop them from the queues.
    const idx = path.indexOf(compaction);
    const firstKept = path.findIndex((e, k) => k < idx && e.id === compaction.firstKeptEntryId);
    const skipped = new Set(path.slice(0, firstKept < 0 ? idx : firstKept).map((e) => e.id));
    path.splice(0, path.length, ...path.filter((e) => !skipped.has(e.id)));
  }
  const ids = entryIds(path, ctx, compaction);
  out.push({
    at,
    default: want === null,
    thinking_level: ctx.thinkingLevel,
    model: ctx.model ? { provider: ctx.model.provider ?? null, modelId: ctx.model.modelId ?? null } : null,
    messages: ctx.messages.map((m, k) => ({
      entry_id: ids[k],
      role: m.role,
      sent: pi.convertToLlm([m]).length > 0,
      text: textOf(m),
    })),
  });
}
process.stdout.write(JSON.stringify(out, null, 1) + "\n");
