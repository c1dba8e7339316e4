// A scripted model on loopback speaking the Anthropic Messages streaming API, for the extension
// tool fixtures of issue #30 (the approach of ../subagents/server.mjs). The same server also
// stands in for the web: GET /search is a SearXNG JSON API (pi-web-access's `searxngBaseUrl`),
// GET /page an HTML page and GET /missing a 404 (for fetch_content).
//
// The first user text is "case NAME"; each model turn answers with the next tool call of
// CALLS[NAME] (one call per turn, counted by the tool_result blocks sent so far), then a final
// text. "{PORT}" in a call's input is replaced by the server's port. Usage numbers are fixed.
// Each request is appended to requests.jsonl in the log folder (debugging only, not kept).
import { appendFileSync } from "node:fs";
import { createServer } from "node:http";

export const CALLS = {
  mcp: [
    ["mcp", { tool: "echo", server: "fixture", args: { text: "hello from piview" } }],
    ["mcp", { tool: "pixel", server: "fixture", args: { color: "rgb" } }],
    ["mcp", { tool: "explode", server: "fixture", args: { reason: "scripted failure" } }],
    ["mcp", { tool: "no_such_tool", server: "fixture", args: {} }],
    ["mcp", { search: "echo" }],
  ],
  web: [
    ["web_search", { query: "piview terminal session viewer", numResults: 3, workflow: "none" }],
    ["web_search", { queries: ["pi coding agent sessions", "textual tui"], numResults: 2, workflow: "none" }],
    ["fetch_content", { url: "http://127.0.0.1:{PORT}/page" }],
    ["fetch_content", { url: "http://127.0.0.1:{PORT}/missing" }],
  ],
  todo: [
    ["todo", { action: "add", text: "write the fixtures" }],
    ["todo", { action: "add", text: "draw the cards" }],
    ["todo", { action: "add", text: "ship it" }],
    ["todo", { action: "toggle", id: 1 }],
    ["todo", { action: "list" }],
    ["todo", { action: "toggle", id: 99 }],
  ],
};

const USAGE = { input_tokens: 1000, output_tokens: 40 };

const SEARX = {
  query: "piview terminal session viewer",
  answers: [],
  results: [
    { title: "piview: a viewer for Pi sessions", url: "https://example.com/piview", content: "A terminal viewer for the session files of the Pi coding agent." },
    { title: "Pi coding agent", url: "https://example.org/pi", content: "The Pi coding agent and its session format." },
    { title: "Textual", url: "https://example.net/textual", content: "A TUI framework for Python." },
  ],
};

const PAGE = `<!doctype html><html><head><title>Fixture page</title></head><body><main><article>
<h1>Fixture page</h1>
<p>This page is served by the loopback server of piview's extension fixtures.</p>
<p>It has a second paragraph, so that the content has more than one line to show. pi-web-access
keeps only pages whose readable text is at least 500 characters long, so this one says a little
more than it needs to.</p>
<p>The session files of the Pi coding agent are JSON lines: a header, then one entry per line,
each with an id and the id of its parent, so that a session is a tree of branches.</p>
<p>piview draws them in a terminal, with a branch panel, a usage sidebar and cards for the tools
the popular extensions add.</p>
<h2>A list</h2><ul><li>one</li><li>two</li><li>three</li></ul>
</article></main></body></html>`;

function textOf(content) {
  if (typeof content === "string") return content;
  return (content ?? []).filter((b) => b.type === "text").map((b) => b.text).join("\n");
}

function decide(body) {
  const msgs = body.messages ?? [];
  const users = msgs.filter((m) => m.role === "user");
  const done = users.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((b) => b.type === "tool_result").length;
  const c = /case (\w+)/.exec(textOf(users[0]?.content));
  const calls = (c && CALLS[c[1]]) || [];
  if (done < calls.length) return { kind: "tool", name: calls[done][0], input: calls[done][1] };
  return { kind: "text", text: `Done: ${done} tool calls.` };
}

let seq = 0;
function sse(res, event, data) {
  res.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
}

function web(req, res) {
  const url = new URL(req.url, "http://127.0.0.1");
  if (url.pathname === "/search") {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ ...SEARX, query: url.searchParams.get("q") ?? SEARX.query }));
  } else if (url.pathname === "/page") {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(PAGE);
  } else {
    res.writeHead(404, { "content-type": "text/plain" });
    res.end("not found");
  }
}

export function startServer({ log } = {}) {
  const server = createServer((req, res) => {
    if (req.method === "GET") return web(req, res);
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      let body = {};
      try {
        body = JSON.parse(raw || "{}");
      } catch {}
      const d = decide(body);
      if (log) appendFileSync(log, JSON.stringify({ url: req.url, decision: d, body }) + "\n");
      seq += 1;
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      sse(res, "message_start", {
        message: {
          id: `msg_${seq}`, type: "message", role: "assistant", model: body.model ?? "scripted-1",
          content: [], stop_reason: null, stop_sequence: null,
          usage: { input_tokens: USAGE.input_tokens, output_tokens: 1 },
        },
      });
      if (d.kind === "tool") {
        const port = server.address().port;
        const input = JSON.parse(JSON.stringify(d.input).replaceAll("{PORT}", String(port)));
        sse(res, "content_block_start", {
          index: 0, content_block: { type: "tool_use", id: `toolu_${seq}`, name: d.name, input: {} },
        });
        sse(res, "content_block_delta", { index: 0, delta: { type: "input_json_delta", partial_json: JSON.stringify(input) } });
      } else {
        sse(res, "content_block_start", { index: 0, content_block: { type: "text", text: "" } });
        sse(res, "content_block_delta", { index: 0, delta: { type: "text_delta", text: d.text } });
      }
      sse(res, "content_block_stop", { index: 0 });
      sse(res, "message_delta", {
        delta: { stop_reason: d.kind === "tool" ? "tool_use" : "end_turn", stop_sequence: null },
        usage: { output_tokens: USAGE.output_tokens },
      });
      sse(res, "message_stop", {});
      res.end();
    });
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}
