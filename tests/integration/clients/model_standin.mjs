// A scripted stand-in for a model API on loopback, so that the real agent
// CLIs can run a turn offline: the Anthropic Messages API (Claude Code,
// ANTHROPIC_BASE_URL) and the OpenAI Responses API (Codex, a
// model_providers entry with base_url).  No model: the "model" follows a
// script of tool calls, one per round, and then says "done".
//
//   node model_standin.mjs SCRIPT.json LOG.jsonl PORTFILE
//
// SCRIPT.json: [{ "tool": "<regex on the offered tool names>", "input": {...} }, ...]
// (with "select": NAME, a deferred tool is loaded by that name when it is
// not named in the conversation).
// LOG.jsonl gets one line per event: {"offered": [...names]} for each main
// request, {"call": name, "input": ...} for each tool call it makes,
// {"result": text, "isError": bool} for each tool result it is given back,
// {"missing": regex, "offered": [...]} when no offered tool matches a step.
// PORTFILE gets the port once it listens.
import { createServer } from "node:http";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";

const [scriptFile, logFile, portFile] = process.argv.slice(2);
const script = JSON.parse(readFileSync(scriptFile, "utf8"));
const log = (o) => appendFileSync(logFile, JSON.stringify(o) + "\n");
const seenResults = new Set();
let searches = 0; // ToolSearch calls made: a bound, so a stand-in never loops
const searchesFor = new Map(); // script step -> ToolSearch calls made for it

const textOf = (c) =>
  typeof c === "string"
    ? c
    : Array.isArray(c)
      ? c.map((b) => (typeof b === "string" ? b : (b.text ?? JSON.stringify(b)))).join("")
      : JSON.stringify(c);

// The next step of the script given the tools offered and how many results
// came back: {name, input} or null (the script is done).
function nextStep(offered, resultsSoFar) {
  const step = script[resultsSoFar];
  if (!step) return null;
  const rx = new RegExp(step.tool);
  const name = offered.find((n) => rx.test(n));
  if (!name) {
    log({ missing: step.tool, offered });
    return null;
  }
  log({ call: name, input: step.input });
  return { name, input: step.input };
}

const stringsOf = (v) =>
  typeof v === "string" ? [v] : v && typeof v === "object" ? Object.values(v).flatMap(stringsOf) : [];

function sse(res, events) {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  for (const [event, data] of events) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  res.end();
}

// ---- Anthropic Messages -------------------------------------------------
// Claude Code offers MCP tools deferred: only their names, in the text of
// a message, until the model loads them with ToolSearch ("select:NAME").
// The stand-in does what a model would: a step whose tool is named but not
// offered is preceded by that ToolSearch call.  Ids say which is which:
// toolu_s<N>_* answer script step N, toolu_q* a search.
function anthropic(body, res) {
  // A tool ToolSearch has loaded is sent with defer_loading and a
  // tool_reference in the search's result; it is callable then.
  const offered = (body.tools ?? []).map((t) => t.name).filter((n) => n && n !== "DeferredToolPlaceholder");
  let results = 0;
  for (const m of body.messages ?? []) {
    if (!Array.isArray(m.content)) continue;
    for (const b of m.content) {
      if (b.type !== "tool_result" || !String(b.tool_use_id).startsWith("toolu_s")) continue;
      results++;
      if (!seenResults.has(b.tool_use_id)) {
        seenResults.add(b.tool_use_id);
        log({ result: textOf(b.content), isError: !!b.is_error });
      }
    }
  }
  // Side requests (titles, summaries, quota checks) carry no tools.
  let step = null;
  let delay = 0;
  if (offered.length) {
    log({ offered });
    const want = script[results];
    const rx = want && new RegExp(want.tool);
    if (want && !offered.some((n) => rx.test(n)) && offered.includes("ToolSearch") && searches++ < 6) {
      const text = stringsOf([body.messages, body.system]).join("\n");
      // A step may name what to select, as a model does that applies the
      // client's prefix to a name search_tools returned.
      const named = want.select ?? [...new Set(text.match(/[A-Za-z0-9_]+/g) ?? [])].find((n) => rx.test(n));
      if (named) {
        // Claude Code re-reads a server's tool list when the server says
        // it changed, while the turn goes on: a search that came too early
        // finds nothing.  A model looks again a while later (its own
        // answer takes seconds); the stand-in waits 1 s before it does.
        const tries = searchesFor.get(results) ?? 0;
        searchesFor.set(results, tries + 1);
        if (tries) delay = 1000;
        log({ search: named, tries: tries + 1 });
        step = { name: "ToolSearch", input: { query: `select:${named}` }, id: `toolu_q${Date.now()}` };
      }
    }
    if (!step) {
      step = nextStep(offered, results);
      if (step) step.id = `toolu_s${results}_${Date.now()}`;
    }
  }
  if (delay) setTimeout(() => anthropicAnswer(body, res, step), delay);
  else anthropicAnswer(body, res, step);
}

function anthropicAnswer(body, res, step) {
  const id = `msg_${Date.now()}`;
  const usage = { input_tokens: 10, output_tokens: 5 };
  const block = step
    ? { type: "tool_use", id: step.id, name: step.name, input: step.input }
    : { type: "text", text: "done" };
  if (!body.stream) {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        id,
        type: "message",
        role: "assistant",
        model: body.model,
        content: [block],
        stop_reason: step ? "tool_use" : "end_turn",
        stop_sequence: null,
        usage,
      }),
    );
    return;
  }
  const start = step ? { ...block, input: {} } : { type: "text", text: "" };
  const delta = step
    ? { type: "input_json_delta", partial_json: JSON.stringify(step.input) }
    : { type: "text_delta", text: "done" };
  sse(res, [
    [
      "message_start",
      {
        type: "message_start",
        message: {
          id,
          type: "message",
          role: "assistant",
          model: body.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage,
        },
      },
    ],
    ["content_block_start", { type: "content_block_start", index: 0, content_block: start }],
    ["content_block_delta", { type: "content_block_delta", index: 0, delta }],
    ["content_block_stop", { type: "content_block_stop", index: 0 }],
    [
      "message_delta",
      {
        type: "message_delta",
        delta: { stop_reason: step ? "tool_use" : "end_turn", stop_sequence: null },
        usage: { output_tokens: 5 },
      },
    ],
    ["message_stop", { type: "message_stop" }],
  ]);
}

// ---- OpenAI Responses ---------------------------------------------------
// Codex groups an MCP server's tools in a namespace tool ("mcp__vthost"
// holding "exec_command", ...); the stand-in names them NAMESPACE__TOOL,
// as Claude Code does, and calls them with the namespace set.
function responses(body, res) {
  const where = new Map();
  for (const t of body.tools ?? []) {
    if (t.type === "namespace" && Array.isArray(t.tools))
      for (const u of t.tools) where.set(`${t.name}__${u.name}`, { name: u.name, namespace: t.name });
    else if (t.name) where.set(t.name, { name: t.name });
  }
  const offered = [...where.keys()];
  let results = 0;
  for (const item of Array.isArray(body.input) ? body.input : []) {
    if (item.type !== "function_call_output") continue;
    results++;
    if (!seenResults.has(item.call_id)) {
      seenResults.add(item.call_id);
      const out = item.output;
      const text = typeof out === "string" ? out : textOf(out?.content ?? out);
      log({ result: text, isError: out?.success === false });
    }
  }
  log({ offered });
  const step = nextStep(offered, results);
  const id = `resp_${Date.now()}`;
  const item = step
    ? {
        type: "function_call",
        id: `fc_${results}`,
        call_id: `call_${results}_${Date.now()}`,
        ...where.get(step.name),
        arguments: JSON.stringify(step.input),
      }
    : {
        type: "message",
        id: `m_${results}`,
        role: "assistant",
        content: [{ type: "output_text", text: "done", annotations: [] }],
      };
  const usage = {
    input_tokens: 10,
    input_tokens_details: null,
    output_tokens: 5,
    output_tokens_details: null,
    total_tokens: 15,
  };
  sse(res, [
    ["response.created", { type: "response.created", response: { id } }],
    ["response.output_item.added", { type: "response.output_item.added", output_index: 0, item }],
    ["response.output_item.done", { type: "response.output_item.done", output_index: 0, item }],
    ["response.completed", { type: "response.completed", response: { id, usage } }],
  ]);
}

const server = createServer((req, res) => {
  let raw = "";
  req.on("data", (d) => (raw += d));
  req.on("end", () => {
    const path = new URL(req.url, "http://x").pathname;
    let body = {};
    try {
      body = raw ? JSON.parse(raw) : {};
    } catch {
      res.writeHead(400).end();
      return;
    }
    if (req.method === "POST" && /\/v1\/messages$/.test(path)) return anthropic(body, res);
    if (req.method === "POST" && /\/v1\/messages\/count_tokens$/.test(path)) {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(JSON.stringify({ input_tokens: 10 }));
    }
    if (req.method === "POST" && /\/responses$/.test(path)) return responses(body, res);
    if (req.method === "GET" && /\/models$/.test(path)) {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(JSON.stringify({ object: "list", data: [], models: [] }));
    }
    log({ unhandled: `${req.method} ${path}` });
    res.writeHead(404, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: { type: "not_found_error", message: `no ${path} here` } }));
  });
});
server.listen(0, "127.0.0.1", () => writeFileSync(portFile, String(server.address().port)));
// Bounded: the test's agents finish in seconds; never outlive a stuck run.
setTimeout(() => process.exit(0), 300_000).unref();
