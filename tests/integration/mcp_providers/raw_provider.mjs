// A raw MCP provider for failure injection: newline-delimited JSON-RPC by
// hand, no SDK, so it can break the protocol on purpose.
//   RAW_MODE=hang_init  never answers initialize
//   RAW_MODE=exit_init  exits before answering
// Tools: ok, hang (never answers), garbage (a line that is not JSON),
// huge (one 3 MB message), crash (exits), and page2_tool on a second
// tools/list page.  Env RAW_LOG: a file it appends "start PID" to.
//   RAW_MODE=tasks  adds needs_task, which runs only as an MCP task
//   (2025-11-25): a tools/call with `task` creates it (pollInterval 100),
//   it reports progress half-way and completes after arguments.ms (default
//   300; -1: never); tasks/get, tasks/result (answered once it ends) and
//   tasks/cancel (appends "cancel TASKID" to RAW_LOG).  With arguments.ask
//   the task goes input_required and sends elicitation/create (related to
//   the task, after progress under tasks/result's token) while
//   tasks/result waits, then completes with the answer
//   ("answer: ..." in RAW_LOG).  A plain call of needs_task is refused.
//   task_optional is called plainly.
import { appendFileSync } from "node:fs";
import { createInterface } from "node:readline";

const mode = process.env.RAW_MODE || "";
if (process.env.RAW_LOG) appendFileSync(process.env.RAW_LOG, `start ${process.pid}\n`);
const send = (m) => process.stdout.write(JSON.stringify(m) + "\n");
const tool = (name, description) => ({
  name,
  description,
  inputSchema: { type: "object", properties: {}, additionalProperties: false },
});
const page1 = [
  tool("ok", "Answer fine (raw provider)."),
  tool("hang", "Never answer."),
  tool("garbage", "Answer with a line that is not JSON."),
  tool("huge", "Answer with one huge message."),
  tool("crash", "Exit the process."),
  tool("odd.name/with spaces", "A name with characters outside the allowed set: quokka."),
  tool("a_very_long_tool_name_that_goes_on_and_on_past_the_limit_of_sixty_four", "A long name: wombat."),
  tool("a_very_long_tool_name_that_goes_on_and_on_past_the_limit_of_sixty_four_too", "Another long name: wombat."),
  {
    name: "anyof",
    description: "A schema beyond vthost's validator subset.",
    inputSchema: {
      type: "object",
      properties: { v: { anyOf: [{ type: "string" }, { type: "number" }] } },
      required: ["v"],
    },
  },
];
const page2 = [tool("page2_tool", "Only on the second page: pangolin armadillo.")];

const log = (line) => process.env.RAW_LOG && appendFileSync(process.env.RAW_LOG, `${line}\n`);
const tasks = new Map();
const taskView = (t) => ({
  taskId: t.id,
  status: t.status,
  ...(t.message ? { statusMessage: t.message } : {}),
  createdAt: t.createdAt,
  lastUpdatedAt: new Date().toISOString(),
  ttl: t.ttl,
  pollInterval: 100,
});
const asked = new Map(); // elicitation id -> its task
function answered(m) {
  const t = asked.get(m.id);
  asked.delete(m.id);
  t.answer = m.error ? `error ${m.error.code}: ${m.error.message}` : `${m.result?.action} ${JSON.stringify(m.result?.content ?? {})}`;
  log(`answer: ${t.answer}`);
  t.status = "working";
  setTimeout(() => endTask(t, "completed", "done"), 50);
}
const taskResult = (t) =>
  t.status === "completed"
    ? { result: { content: [{ type: "text", text: t.answer ? `raw needs_task answered: ${t.answer}` : `raw needs_task done after ${t.ms} ms` }],
                  _meta: { "io.modelcontextprotocol/related-task": { taskId: t.id } } } }
    : { error: { code: -32603, message: `task ${t.id} ${t.status}` } };
function endTask(t, status, message) {
  t.status = status;
  t.message = message;
  send({ jsonrpc: "2.0", method: "notifications/tasks/status", params: taskView(t) });
  for (const id of t.waiting.splice(0)) send({ jsonrpc: "2.0", id, ...taskResult(t) });
}
function startTask(m) {
  if (!m.params.task) {
    send({ jsonrpc: "2.0", id: m.id, error: { code: -32600, message: "needs_task runs only as a task" } });
    return;
  }
  const ms = m.params.arguments?.ms ?? 300;
  const token = m.params._meta?.progressToken;
  const t = { id: `raw-task-${tasks.size + 1}`, status: "working", message: "started", ms, ttl: m.params.task.ttl ?? null,
              createdAt: new Date().toISOString(), waiting: [] };
  tasks.set(t.id, t);
  send({ jsonrpc: "2.0", id: m.id, result: { task: taskView(t) } });
  if (m.params.arguments?.ask) {
    t.status = "input_required";
    t.message = "needs a name";
    t.ask = true;
    return;
  }
  if (ms < 0) return;
  setTimeout(() => {
    if (token !== undefined && t.status === "working")
      send({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: token, progress: 1, total: 2, message: "raw half" } });
  }, ms / 2);
  setTimeout(() => t.status === "working" && endTask(t, "completed", "done"), ms);
}
function taskRequest(m) {
  const t = tasks.get(m.params?.taskId);
  if (!t) return send({ jsonrpc: "2.0", id: m.id, error: { code: -32602, message: "no such task" } });
  const terminal = ["completed", "failed", "cancelled"].includes(t.status);
  if (m.method === "tasks/get") send({ jsonrpc: "2.0", id: m.id, result: taskView(t) });
  else if (m.method === "tasks/result" && t.ask) {
    t.ask = false;
    t.waiting.push(m.id);
    const id = `elicit-${t.id}`;
    asked.set(id, t);
    const token = m.params._meta?.progressToken;
    if (token !== undefined)
      send({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: token, progress: 1, message: "raw waits for the answer" } });
    send({ jsonrpc: "2.0", id, method: "elicitation/create", params: {
      message: "Which name?", requestedSchema: { type: "object", properties: { name: { type: "string" } } },
      _meta: { "io.modelcontextprotocol/related-task": { taskId: t.id } } } });
  } else if (m.method === "tasks/result") terminal ? send({ jsonrpc: "2.0", id: m.id, ...taskResult(t) }) : t.waiting.push(m.id);
  else if (m.method === "tasks/cancel") {
    log(`cancel ${t.id}`);
    if (terminal) return send({ jsonrpc: "2.0", id: m.id, error: { code: -32602, message: `task ${t.id} already ${t.status}` } });
    endTask(t, "cancelled", "cancelled by the client");
    send({ jsonrpc: "2.0", id: m.id, result: taskView(t) });
  }
}

const rl = createInterface({ input: process.stdin });
rl.on("line", (line) => {
  let m;
  try {
    m = JSON.parse(line);
  } catch {
    return;
  }
  if (m.method === undefined && asked.has(m.id)) return answered(m);
  if (m.method === "initialize") {
    if (mode === "hang_init") return;
    if (mode === "exit_init") process.exit(7);
    send({
      jsonrpc: "2.0",
      id: m.id,
      result: {
        protocolVersion: m.params.protocolVersion,
        capabilities: {
          tools: { listChanged: true },
          ...(mode === "tasks" ? { tasks: { cancel: {}, requests: { tools: { call: {} } } } } : {}),
        },
        serverInfo: { name: "raw", version: "1" },
      },
    });
  } else if (m.method === "tools/list") {
    const second = m.params?.cursor === "page-2";
    // RAW_MODE=tasks: one tool that must run as an MCP task, one that may
    if (mode === "tasks" && !second && !page1.some((t) => t.name === "needs_task"))
      page1.push({ ...tool("needs_task", "Runs only as an MCP task."), execution: { taskSupport: "required" },
                   inputSchema: { type: "object", properties: { ms: { type: "number" }, ask: { type: "boolean" } },
                                  additionalProperties: false } },
                 { ...tool("task_optional", "May run as an MCP task."), execution: { taskSupport: "optional" } });
    send({
      jsonrpc: "2.0",
      id: m.id,
      result: second ? { tools: page2 } : { tools: page1, nextCursor: "page-2" },
    });
  } else if (m.method === "ping") {
    send({ jsonrpc: "2.0", id: m.id, result: {} });
  } else if (m.method?.startsWith("tasks/")) {
    taskRequest(m);
  } else if (m.method === "tools/call") {
    const name = m.params.name;
    if (name === "needs_task") return startTask(m);
    if (name === "ok" || name === "page2_tool" || name === "task_optional" || name.startsWith("odd") || name.startsWith("a_very"))
      send({ jsonrpc: "2.0", id: m.id, result: { content: [{ type: "text", text: `raw ${name}` }] } });
    else if (name === "anyof")
      send({ jsonrpc: "2.0", id: m.id, result: { content: [{ type: "text", text: `v=${JSON.stringify(m.params.arguments.v)}` }] } });
    else if (name === "hang") {
      // stop reading too: a provider stuck for good
      if (m.params.arguments?.forever !== false) rl.close();
    } else if (name === "garbage") process.stdout.write("this is {not json\n");
    else if (name === "huge")
      send({ jsonrpc: "2.0", id: m.id, result: { content: [{ type: "text", text: "x".repeat(3 << 20) }] } });
    else if (name === "crash") process.exit(9);
  }
});
// keep running even when stdin is closed by rl.close() (the hang case)
setInterval(() => {}, 1 << 30);
