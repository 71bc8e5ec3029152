// A long exec_command as an MCP task (2025-11-25) over `vthost serve` on
// stdio: the call is answered at once with a task, tasks/get follows it,
// tasks/result waits for and gives the command's result, and tasks/cancel
// stops the command for real (the file it would write never appears).
// Raw JSON-RPC, so every member is checked as sent; and the TypeScript
// SDK's own task client (callToolStream).
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { scratch, bin } from "./client.mjs";

const s = scratch(["exec_command"]);
const ws = s.dir("ws");
const procs = [];
after(() => {
  for (const p of procs) p.kill("SIGKILL");
  s.remove();
});
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function serve() {
  const p = spawn(bin, ["--workspace", ws, "serve"], {
    env: { ...process.env, HOME: s.home, XDG_CONFIG_HOME: join(s.home, ".config") },
    stdio: ["pipe", "pipe", "pipe"],
  });
  procs.push(p);
  const waiting = new Map();
  createInterface({ input: p.stdout }).on("line", (line) => {
    const m = JSON.parse(line);
    if (m.id !== undefined && waiting.has(m.id)) waiting.get(m.id)(m);
  });
  let next = 1;
  const request = (method, params, ms = 20000) => {
    const id = next++;
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`no answer to ${method} in ${ms} ms`)), ms);
      waiting.set(id, (m) => { clearTimeout(t); waiting.delete(id); resolve(m); });
      p.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
    });
  };
  return { p, request };
}

async function session() {
  const c = serve();
  const init = await c.request("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } });
  c.p.stdin.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n");
  return { ...c, init };
}

test("offered: the tasks capability and each tool's taskSupport", async () => {
  const c = await session();
  assert.deepEqual(c.init.result.capabilities.tasks, { list: {}, cancel: {}, requests: { tools: { call: {} } } });
  const list = await c.request("tools/list", {});
  const exec = list.result.tools.find((t) => t.name === "exec_command");
  assert.deepEqual(exec.execution, { taskSupport: "optional" });
});

test("a long command runs as a task: answered at once, followed, its result taken", async () => {
  const c = await session();
  const t0 = Date.now();
  const created = await c.request("tools/call", {
    name: "exec_command",
    arguments: { cmd: "sleep 1.5; echo task-done > done.txt; echo finished" },
    task: { ttl: 60000 },
  });
  const took = Date.now() - t0;
  assert.ok(created.result.task, JSON.stringify(created));
  assert.ok(took < 1000, `answered in ${took} ms, before the command ended`);
  const task = created.result.task;
  assert.match(task.taskId, /^[0-9a-f]{32}$/);
  assert.equal(task.status, "working");
  assert.equal(task.ttl, 60000);
  assert.equal(typeof task.pollInterval, "number");
  const got = await c.request("tasks/get", { taskId: task.taskId });
  assert.equal(got.result.status, "working");
  const listed = await c.request("tasks/list", {});
  assert.ok(listed.result.tasks.some((x) => x.taskId === task.taskId));
  const res = await c.request("tasks/result", { taskId: task.taskId }); // waits for the end
  assert.ok(Date.now() - t0 >= 1400, "tasks/result came after the command ended");
  assert.match(res.result.structuredContent.output, /finished/);
  assert.equal(res.result.isError, undefined);
  assert.deepEqual(res.result._meta["io.modelcontextprotocol/related-task"], { taskId: task.taskId });
  assert.equal(readFileSync(join(ws, "done.txt"), "utf8"), "task-done\n");
  const done = await c.request("tasks/get", { taskId: task.taskId });
  assert.equal(done.result.status, "completed");
  const again = await c.request("tasks/result", { taskId: task.taskId }); // kept for its ttl
  assert.match(again.result.structuredContent.output, /finished/);
  const late = await c.request("tasks/cancel", { taskId: task.taskId });
  assert.equal(late.error.code, -32602, JSON.stringify(late));
});

test("tasks/cancel stops the command: its file never appears", async () => {
  const c = await session();
  const created = await c.request("tools/call", {
    name: "exec_command",
    arguments: { cmd: "sleep 2; echo should-not > cancelled.txt" },
    task: {},
  });
  const id = created.result.task.taskId;
  const waiter = c.request("tasks/result", { taskId: id });
  await sleep(300);
  const cancelled = await c.request("tasks/cancel", { taskId: id });
  assert.equal(cancelled.result.status, "cancelled", JSON.stringify(cancelled));
  const res = await waiter;
  assert.equal(res.result.isError, true, JSON.stringify(res));
  assert.equal((await c.request("tasks/get", { taskId: id })).result.status, "cancelled");
  await sleep(2500);
  assert.equal(existsSync(join(ws, "cancelled.txt")), false, "the cancelled command ran on");
});

test("unknown task: a clear error; a call without task runs plainly", async () => {
  const c = await session();
  const r = await c.request("tasks/get", { taskId: "nope" });
  assert.equal(r.error.code, -32602);
  assert.match(r.error.message, /no such task/);
  const plain = await c.request("tools/call", { name: "exec_command", arguments: { cmd: "echo plain" } });
  assert.match(plain.result.structuredContent.output, /plain/);
});

test("the MCP TypeScript SDK's task client runs a long command as a task", async () => {
  const { connect } = await import("./client.mjs");
  const c = await connect({ cwd: ws, args: ["--workspace", ws], home: s.home });
  try {
    const seen = [];
    let result;
    const stream = c.experimental.tasks.callToolStream(
      { name: "exec_command", arguments: { cmd: "sleep 1; echo sdk-task" } },
      undefined,
      { task: { ttl: 60000 } },
    );
    for await (const m of stream) {
      seen.push(m.type);
      if (m.type === "result") result = m.result;
      if (m.type === "error") throw m.error;
    }
    assert.equal(seen[0], "taskCreated", seen.join(","));
    assert.equal(seen.at(-1), "result");
    assert.match(result.structuredContent.output, /sdk-task/);
  } finally {
    await c.close();
  }
});
