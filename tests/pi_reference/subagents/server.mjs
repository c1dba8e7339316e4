// A scripted model on loopback speaking the Anthropic Messages streaming API (issue #30).
// Pi reaches it as provider "scripted" (models.json, api "anthropic-messages"), so it serves the
// parent session and every pi-subagents child alike (foreground children run in-process and load
// no extensions, so a provider registered by an extension would not reach them).
//
// The answer is keyed on the request:
//   - the last user message carries a tool_result      -> parent's final answer (text)
//   - the last user text contains "TASK:"              -> a child: answers "ok <task>" in text,
//                                                        or HTTP 400 when the task contains FAIL
//   - otherwise the first user text is "case NAME"     -> parent's first turn: a subagent call
// Usage numbers are fixed per role so totals can be checked; each request is appended to
// requests.jsonl in the log folder (for debugging, not kept as a fixture).
import { appendFileSync } from "node:fs";
import { createServer } from "node:http";

export const CALLS = {
  single: { agent: "delegate", task: "TASK: say hi", async: false },
  parallel: {
    async: false,
    workflowScript:
      'const r = await runs.all([{ key: "a", agent: "delegate", task: "TASK: alpha" }, { key: "b", agent: "delegate", task: "TASK: beta" }]);\nreturn r.map((x) => x.output);',
  },
  chain: {
    async: false,
    workflowScript:
      'const a = await runs.run("first", { agent: "delegate", task: "TASK: one" });\nconst b = await runs.run("second", { agent: "delegate", task: "TASK: two after " + a.output });\nreturn b.output;',
  },
  fork: { agent: "delegate", task: "TASK: forked look", context: "fork", async: false },
  failed: { agent: "delegate", task: "TASK: FAIL please", async: false },
  unknown: { agent: "no-such-agent", task: "TASK: lost", async: false },
};

const USAGE = {
  parent1: { input_tokens: 1000, output_tokens: 50 },
  parent2: { input_tokens: 1200, output_tokens: 20 },
  child: { input_tokens: 300, output_tokens: 30 },
};

function textOf(content) {
  if (typeof content === "string") return content;
  return (content ?? []).filter((b) => b.type === "text").map((b) => b.text).join("\n");
}

function decide(body) {
  const msgs = body.messages ?? [];
  const users = msgs.filter((m) => m.role === "user");
  const last = users[users.length - 1];
  const lastContent = Array.isArray(last?.content) ? last.content : [];
  const lastText = textOf(last?.content);
  if (lastContent.some((b) => b.type === "tool_result")) {
    const res = lastContent.find((b) => b.type === "tool_result");
    const t = textOf(res.content).replace(/\s+/g, " ").slice(0, 60);
    return { kind: "text", role: "parent2", text: `Done. Child said: ${t}` };
  }
  const m = /TASK: ?(.*)/.exec(lastText);
  if (m) {
    if (/FAIL/.test(m[1])) return { kind: "error", role: "child" };
    return { kind: "text", role: "child", text: `ok ${m[1].slice(0, 40)}` };
  }
  const first = textOf(users[0]?.content);
  const c = /case (\w+)/.exec(first);
  if (c && CALLS[c[1]]) return { kind: "tool", role: "parent1", input: CALLS[c[1]] };
  return { kind: "text", role: "child", text: "ok" };
}

let seq = 0;
function sse(res, event, data) {
  res.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
}

export function startServer({ log } = {}) {
  const server = createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      let body = {};
      try {
        body = JSON.parse(raw || "{}");
      } catch {}
      const d = decide(body);
      if (log) appendFileSync(log, JSON.stringify({ url: req.url, decision: d, body }) + "\n");
      if (d.kind === "error") {
        res.writeHead(400, { "content-type": "application/json" });
        res.end(JSON.stringify({ type: "error", error: { type: "invalid_request_error", message: "scripted failure" } }));
        return;
      }
      const u = USAGE[d.role];
      seq += 1;
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      sse(res, "message_start", {
        message: {
          id: `msg_${seq}`, type: "message", role: "assistant", model: body.model ?? "scripted-1",
          content: [], stop_reason: null, stop_sequence: null,
          usage: { input_tokens: u.input_tokens, output_tokens: 1 },
        },
      });
      if (d.kind === "tool") {
        sse(res, "content_block_start", {
          index: 0, content_block: { type: "tool_use", id: `toolu_${seq}`, name: "subagent", input: {} },
        });
        sse(res, "content_block_delta", { index: 0, delta: { type: "input_json_delta", partial_json: JSON.stringify(d.input) } });
      } else {
        sse(res, "content_block_start", { index: 0, content_block: { type: "text", text: "" } });
        sse(res, "content_block_delta", { index: 0, delta: { type: "text_delta", text: d.text } });
      }
      sse(res, "content_block_stop", { index: 0 });
      sse(res, "message_delta", {
        delta: { stop_reason: d.kind === "tool" ? "tool_use" : "end_turn", stop_sequence: null },
        usage: { output_tokens: u.output_tokens },
      });
      sse(res, "message_stop", {});
      res.end();
    });
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const s = await startServer({ log: process.env.SCRIPTED_LOG });
  console.log(`listening on ${s.address().port}`);
}
