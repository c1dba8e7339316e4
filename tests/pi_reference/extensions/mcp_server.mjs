// A tiny stdio MCP server for the pi-mcp-adapter fixture (issue #30): newline-delimited JSON-RPC
// 2.0 on stdin/stdout, no dependencies. Tools: `echo` (text), `pixel` (a 2x2 PNG image plus a
// caption), `explode` (a tool error, isError: true).
import { createInterface } from "node:readline";

// 2x2 PNG, red/green/blue/white, made once with zlib (Python) and kept here as base64.
const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEklEQVR4nGP4z8DAAMIM/4EAAB/uBfsL2WiLAAAAAElFTkSuQmCC";

const TOOLS = [
  {
    name: "echo",
    description: "Echo the text back",
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  },
  {
    name: "pixel",
    description: "Return a tiny image",
    inputSchema: { type: "object", properties: { color: { type: "string" } } },
  },
  {
    name: "explode",
    description: "Always fails",
    inputSchema: { type: "object", properties: { reason: { type: "string" } } },
  },
];

function call(name, args) {
  if (name === "echo") return { content: [{ type: "text", text: `echo: ${args?.text ?? ""}\nsecond line` }] };
  if (name === "pixel")
    return {
      content: [
        { type: "text", text: `a 2x2 ${args?.color ?? "mixed"} pixel` },
        { type: "image", data: PNG, mimeType: "image/png" },
      ],
    };
  if (name === "explode")
    return { isError: true, content: [{ type: "text", text: `boom: ${args?.reason ?? "no reason"}` }] };
  return null;
}

function send(msg) {
  process.stdout.write(JSON.stringify(msg) + "\n");
}

const rl = createInterface({ input: process.stdin });
rl.on("line", (line) => {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    return;
  }
  if (msg.id === undefined) return; // notifications
  const reply = (result) => send({ jsonrpc: "2.0", id: msg.id, result });
  switch (msg.method) {
    case "initialize":
      return reply({
        protocolVersion: msg.params?.protocolVersion ?? "2025-06-18",
        capabilities: { tools: {} },
        serverInfo: { name: "piview-fixture", version: "1.0.0" },
      });
    case "ping":
      return reply({});
    case "tools/list":
      return reply({ tools: TOOLS });
    case "tools/call": {
      const out = call(msg.params?.name, msg.params?.arguments);
      if (out) return reply(out);
      return send({ jsonrpc: "2.0", id: msg.id, error: { code: -32602, message: `Unknown tool: ${msg.params?.name}` } });
    }
    case "resources/list":
      return reply({ resources: [] });
    case "prompts/list":
      return reply({ prompts: [] });
    default:
      return send({ jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: `Method not found: ${msg.method}` } });
  }
});
