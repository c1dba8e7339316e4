// A Pi extension for capturing genuine event streams offline (issue #29): a scripted provider,
// two tools, a hook that throws once. Loaded with `pi -e ext.ts` by Pi 0.73.1 and Pi 0.85.1
// alike: both map "@mariozechner/pi-ai" to their own pi-ai for extensions.
//
// The scripted model, by the number of tool results since the last user message:
//   0  thinking, a short text, then a call of `deploy` {"target":"staging"}
//   1  a call of `explode` (its first attempt fails with a retryable "529 overloaded" error)
//   2  a call of the built-in `bash` tool with `echo hi`
//   3+ thinking, then the final text in a few chunks
// PISCRIPT_SLOW=1: the final turn stops mid-text after its second chunk and sleeps (for a run
// killed while a message streams).
//
// The rpc2 capture's prompts are answered from RPC2_SCRIPT instead, keyed by the text of the last
// user message (no other prompt text is in it, so the script above is unchanged); a call whose
// system prompt is Pi's compaction summarizer gets SUMMARY.

import { calculateCost, createAssistantMessageEventStream, Type } from "@mariozechner/pi-ai";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const SLOW = process.env.PISCRIPT_SLOW === "1";

let failedOnce = false;
let hookThrew = false;

function chunks(text: string, n: number): string[] {
  const size = Math.ceil(text.length / n);
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

// rpc2: [text, tool call or null, [input, output, cacheRead]] by the last user message's text.
const RPC2_SCRIPT: Record<string, [string, [string, string, object] | null, number[]]> = {
  "wait please": ["Waiting for the job.", ["call_wait_1", "wait", { ms: 1500 }], [800, 20, 0]],
  "steer: take the short path": ["Steering noted: short path taken.", null, [900, 10, 800]],
  "follow-up: and when you are done, write a closing note for the record": ["Done.", null, [950, 3, 900]],
  "hello new session": ["Hello from the second session.", null, [500, 8, 0]],
  "back in session one": ["Back in the first session; the summary is in context.", null, [700, 12, 0]],
};
const SUMMARY_SYSTEM = "You are a context summarization assistant.";
const SUMMARY =
  "## Goal\nWait for a job, then take the short path.\n\n## Progress\n### Done\n- [x] waited 1500 ms\n- [x] short path taken";

function userText(message: any): string {
  if (typeof message?.content === "string") return message.content;
  return (message?.content ?? []).filter((c: any) => c.type === "text").map((c: any) => c.text).join("");
}

function streamScripted(model: any, context: any, options?: any) {
  const stream = createAssistantMessageEventStream();
  const messages: any[] = context.messages ?? [];
  let lastUser = -1;
  for (let i = 0; i < messages.length; i++) if (messages[i].role === "user") lastUser = i;
  const results = messages.slice(lastUser + 1).filter((m) => m.role === "toolResult").length;
  const summarize = (context.systemPrompt ?? "").startsWith(SUMMARY_SYSTEM);
  const rpc2 = lastUser >= 0 ? RPC2_SCRIPT[userText(messages[lastUser])] : undefined;

  (async () => {
    const output: any = {
      role: "assistant",
      content: [],
      api: model.api,
      provider: model.provider,
      model: model.id,
      usage: {
        input: 0,
        output: 0,
        cacheRead: 0,
        cacheWrite: 0,
        totalTokens: 0,
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
      },
      stopReason: "stop",
      timestamp: Date.now(),
    };
    const setUsage = (input: number, out: number, cacheRead = 0) => {
      output.usage.input = input;
      output.usage.output = out;
      output.usage.cacheRead = cacheRead;
      output.usage.cacheWrite = 0;
      output.usage.totalTokens = input + out + cacheRead;
      calculateCost(model, output.usage);
    };
    const thinking = async (text: string) => {
      output.content.push({ type: "thinking", thinking: "" });
      const i = output.content.length - 1;
      stream.push({ type: "thinking_start", contentIndex: i, partial: output });
      await sleep(5);
      for (const d of chunks(text, 2)) {
        output.content[i].thinking += d;
        stream.push({ type: "thinking_delta", contentIndex: i, delta: d, partial: output });
        await sleep(5);
      }
      stream.push({ type: "thinking_end", contentIndex: i, content: output.content[i].thinking, partial: output });
    };
    const text = async (body: string, n: number, stopAfter?: number) => {
      output.content.push({ type: "text", text: "" });
      const i = output.content.length - 1;
      stream.push({ type: "text_start", contentIndex: i, partial: output });
      await sleep(5);
      let k = 0;
      for (const d of chunks(body, n)) {
        output.content[i].text += d;
        stream.push({ type: "text_delta", contentIndex: i, delta: d, partial: output });
        k += 1;
        if (stopAfter !== undefined && k === stopAfter) await sleep(600_000);
        await sleep(5);
      }
      stream.push({ type: "text_end", contentIndex: i, content: output.content[i].text, partial: output });
    };
    const toolCall = async (id: string, name: string, args: object) => {
      output.content.push({ type: "toolCall", id, name, arguments: {} });
      const i = output.content.length - 1;
      stream.push({ type: "toolcall_start", contentIndex: i, partial: output });
      await sleep(5);
      const json = JSON.stringify(args);
      let acc = "";
      for (const d of chunks(json, 2)) {
        acc += d;
        try {
          output.content[i].arguments = JSON.parse(acc);
        } catch {}
        stream.push({ type: "toolcall_delta", contentIndex: i, delta: d, partial: output });
        await sleep(5);
      }
      stream.push({
        type: "toolcall_end",
        contentIndex: i,
        toolCall: { type: "toolCall", id, name, arguments: output.content[i].arguments },
        partial: output,
      });
      output.stopReason = "toolUse";
    };

    // [input, output, cacheRead] by script step; input and cacheRead are known at the start
    // (as a provider's first event reports them), output only at the end.
    const usage = [[1200, 40, 0], [1300, 12, 1200], [1350, 15, 1300], [1400, 60, 1350]][Math.min(results, 3)];
    try {
      if (summarize || rpc2) {
        // rpc2: the summary (nonzero usage, so the compaction costs something), or the scripted
        // reply; after the wait tool's result, a short text.
        const [body, call, u] = summarize ? [SUMMARY, null, [1100, 45, 0]] : rpc2!;
        setUsage(u[0], 0, u[2]);
        stream.push({ type: "start", partial: output });
        await sleep(5);
        if (call && results === 0) {
          await text(body, 2);
          await toolCall(...call);
        } else {
          await text(call ? "Waited." : body, summarize ? 3 : 2);
        }
        setUsage(u[0], u[1], u[2]);
        stream.push({ type: "done", reason: output.stopReason, message: output });
        stream.end();
        return;
      }
      if (!(results === 1 && !failedOnce)) setUsage(usage[0], 0, usage[2]);
      stream.push({ type: "start", partial: output });
      await sleep(5);
      if (results === 0) {
        await thinking("The user wants a deploy. I will call deploy with target staging.");
        await text("Deploying to staging.", 2);
        await toolCall("call_deploy_1", "deploy", { target: "staging" });
      } else if (results === 1) {
        if (!failedOnce) {
          failedOnce = true;
          throw new Error('529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}');
        }
        await toolCall("call_explode_2", "explode", {});
      } else if (results === 2) {
        await toolCall("call_bash_3", "bash", { command: "echo hi" });
      } else {
        await thinking("deploy gave a url, explode threw boom, bash printed hi. Summarize.");
        await text(
          "Deployed to https://staging.example in 3 steps. The explode tool failed with boom; bash printed hi.",
          4,
          SLOW ? 2 : undefined,
        );
      }
      setUsage(usage[0], usage[1], usage[2]);
      stream.push({ type: "done", reason: output.stopReason, message: output });
      stream.end();
    } catch (error) {
      output.stopReason = options?.signal?.aborted ? "aborted" : "error";
      output.errorMessage = error instanceof Error ? error.message : String(error);
      stream.push({ type: "error", reason: output.stopReason, error: output });
      stream.end();
    }
  })();
  return stream;
}

export default function (pi: any) {
  pi.registerProvider("scripted", {
    name: "Scripted",
    baseUrl: "http://scripted.invalid",
    apiKey: "scripted-literal-key",
    api: "scripted-api",
    models: [
      {
        id: "scripted-1",
        name: "Scripted 1",
        reasoning: true,
        input: ["text"],
        cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
        contextWindow: 200000,
        maxTokens: 16384,
      },
    ],
    streamSimple: streamScripted,
  });

  pi.registerTool({
    name: "deploy",
    label: "Deploy",
    description: "Deploy the project to a target environment",
    parameters: Type.Object({ target: Type.String({ description: "environment name" }) }),
    async execute(_toolCallId: string, params: any, _signal: any, onUpdate: any, ctx: any) {
      if (ctx?.hasUI) {
        const ok = await ctx.ui.confirm("Deploy?", `Deploy to ${params.target}?`);
        if (!ok) throw new Error("deploy declined");
      }
      for (let n = 1; n <= 3; n++) {
        onUpdate?.({ content: [{ type: "text", text: `step ${n}` }], details: { step: n } });
        await sleep(30);
      }
      pi.appendEntry("deploy-state", { target: params.target, url: "https://staging.example", steps: 3 });
      if (ctx?.hasUI) {
        ctx.ui.notify("deployed", "info");
        ctx.ui.setStatus("deploy", "ok");
      }
      return {
        content: [{ type: "text", text: `deployed ${params.target} to https://staging.example` }],
        details: { url: "https://staging.example", steps: 3 },
      };
    },
  });

  pi.registerTool({
    name: "explode",
    label: "Explode",
    description: "Always fails",
    parameters: Type.Object({}),
    async execute() {
      throw new Error("boom");
    },
  });

  pi.registerTool({
    name: "wait",
    label: "Wait",
    description: "Wait for a number of milliseconds",
    parameters: Type.Object({ ms: Type.Number({ description: "milliseconds" }) }),
    async execute(_toolCallId: string, params: any) {
      await sleep(params.ms);
      return { content: [{ type: "text", text: `waited ${params.ms} ms` }], details: { ms: params.ms } };
    },
  });

  pi.on("turn_end", async () => {
    if (!hookThrew) {
      hookThrew = true;
      throw new Error("turn_end hook failed once");
    }
  });
}
