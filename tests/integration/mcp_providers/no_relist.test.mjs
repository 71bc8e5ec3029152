// Found tools are callable in clients that list tools once per session
// and ignore notifications/tools/list_changed (Codex CLI), and arrive in
// time for clients that re-list on the notification.  The client here is
// the official SDK client scripted like Codex: it calls only tools its
// first tools/list named, and says "unsupported call" for anything else.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { spawnSync } from "node:child_process";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { requireClients, vthostBin, makeWorkspace, removeWorkspace, serverArgs, serverEnv } from "../mcp/lib.mjs";
import { text } from "./providers_lib.mjs";

requireClients();
const bin = vthostBin();
const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, "../mcp/package.json"));
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
const { ToolListChangedNotificationSchema } = require("@modelcontextprotocol/sdk/types.js");

const node = process.execPath;
const workspaces = [];
const clients = [];
after(async () => {
  for (const c of clients) await c.close().catch(() => {});
  for (const w of workspaces) removeWorkspace(w);
  for (const c of clients) assert.doesNotMatch(c.stderrText(), /Sanitizer|runtime error:/, c.stderrText());
});

function workspace(mcp = "") {
  const w = makeWorkspace("x");
  workspaces.push(w);
  writeFileSync(
    join(w, "vtcode.toml"),
    `[permissions]
allow = ["search_tools", "mcp__test"]

[mcp]
startup_timeout_seconds = 8
${mcp}

[[mcp.providers]]
name = "test"
command = "${node}"
args = ["${join(here, "sdk_provider.mjs")}"]
env = { PROVIDER_LOG = "${join(w, "test.log")}" }
`,
  );
  return w;
}

// tools/list never waits for a provider: a client that lists once has a
// provider's tools from the cache of its last start.  Each workspace is a
// new configuration, so its providers are started once first, the way
// docs/clients.md says (`vthost mcp tools NAME`).
const cacheHome = mkdtempSync(join(tmpdir(), "vthost-cache-"));
after(() => rmSync(cacheHome, { recursive: true, force: true }));
function prime(ws) {
  const toml = readFileSync(join(ws, "vtcode.toml"), "utf8");
  const args = serverArgs(ws).slice(0, -1);
  for (const [, name] of toml.matchAll(/^name = "([^"]+)"/gm)) {
    const r = spawnSync(bin, [...args, "mcp", "tools", name], { env: serverEnv({ XDG_CACHE_HOME: cacheHome }), encoding: "utf8" });
    assert.equal(r.status, 0, r.stderr);
  }
}

// A client that lists once, right after initialize, like Codex.
// extraArgs go before the "serve" command.
async function connect(ws, { name, extraArgs = [] }) {
  prime(ws);
  const args = serverArgs(ws);
  const transport = new StdioClientTransport({
    command: bin,
    args: [...args.slice(0, -1), ...extraArgs, args[args.length - 1]],
    env: serverEnv({ XDG_CACHE_HOME: cacheHome }),
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (d) => (stderr += d));
  const client = new Client({ name, version: "0.171.0" }, { capabilities: {} });
  client.events = [];
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => client.events.push("list_changed"));
  await client.connect(transport);
  clients.push(client);
  client.stderrText = () => stderr;
  client.known = new Set((await client.listTools()).tools.map((t) => t.name));
  client.call = async (tool, args) => {
    if (!client.known.has(tool)) return { isError: true, content: [{ type: "text", text: `unsupported call: ${tool}` }] };
    return client.callTool({ name: tool, arguments: args });
  };
  return client;
}

async function find(c, query) {
  const r = await c.call("search_tools", { query, limit: 5 });
  assert.ok(!r.isError, text(r));
  c.events.push("result");
  return r.structuredContent.tools;
}

test("Codex (by clientInfo) gets the whole catalog: a found provider tool is callable", async () => {
  const c = await connect(workspace(), { name: "codex-mcp-client" });
  assert.ok(c.known.has("mcp__test__echo"), [...c.known].join(" "));
  assert.match(c.stderrText(), /codex-mcp-client 0\.171\.0 does not re-list tools.*--catalog full/);
  const found = await find(c, "echo a text back unchanged");
  const echo = found.find((t) => t.name === "mcp__test__echo");
  assert.ok(echo, JSON.stringify(found));
  assert.equal(echo.listed, true);
  const r = await c.call("mcp__test__echo", { text: "hi" });
  assert.ok(!r.isError, text(r));
  assert.match(text(r), /echo: hi/);
});

test("--catalog full does the same for any client; [mcp] catalog too", async () => {
  for (const [ws, extraArgs] of [
    [workspace(), ["--catalog", "full"]],
    [workspace(`catalog = "full"`), []],
  ]) {
    const c = await connect(ws, { name: "some-client", extraArgs });
    assert.ok(c.known.has("mcp__test__echo"), [...c.known].join(" "));
    const r = await c.call("mcp__test__echo", { text: "full" });
    assert.ok(!r.isError, text(r));
    assert.doesNotMatch(c.stderrText(), /does not re-list/);
  }
});

test("--catalog deferred overrides the choice for Codex: found tools are then out of its reach", async () => {
  const c = await connect(workspace(), { name: "codex-mcp-client", extraArgs: ["--catalog", "deferred"] });
  assert.ok(!c.known.has("mcp__test__echo"), [...c.known].join(" "));
  assert.doesNotMatch(c.stderrText(), /does not re-list/);
  await find(c, "echo a text back unchanged");
  const r = await c.call("mcp__test__echo", { text: "x" });
  assert.match(text(r), /unsupported call/);
});

test("a client that re-lists gets list_changed before the search result", async () => {
  const c = await connect(workspace(), { name: "claude-code" });
  assert.ok(!c.known.has("mcp__test__echo"), "deferred for a client that re-lists");
  const found = await find(c, "echo a text back unchanged");
  assert.ok(found.some((t) => t.name === "mcp__test__echo" && t.listed), JSON.stringify(found));
  assert.deepEqual(c.events, ["list_changed", "result"]);
  const names = (await c.listTools()).tools.map((t) => t.name);
  assert.ok(names.includes("mcp__test__echo"));
  const r = await c.callTool({ name: "mcp__test__echo", arguments: { text: "late" } });
  assert.ok(!r.isError, text(r));
});

// Not about listing, but needs a provider: a tool's structured result is
// bounded by max_output_tokens like its text (the host cuts it and
// spools the whole), not only tools that opt in.
test("a provider tool's structured result is cut to max_output_tokens and spooled whole", async () => {
  // 120 variables in the provider's environment: env_keys' structured
  // result (their names) is well over 1 KiB
  const vars = Array.from({ length: 120 }, (_, i) => `VTHOST_TEST_VAR_${String(i).padStart(3, "0")} = "x"`);
  const ws = workspace();
  const toml = readFileSync(join(ws, "vtcode.toml"), "utf8")
    .replace(/env = \{ PROVIDER_LOG = ("[^"]*") \}/, (_, log) => `env = { PROVIDER_LOG = ${log}, ${vars.join(", ")} }`);
  writeFileSync(join(ws, "vtcode.toml"), toml);
  const c = await connect(ws, { name: "some-client", extraArgs: ["--catalog", "full"] });
  const full = await c.call("mcp__test__env_keys", {});
  assert.ok(!full.isError, text(full));
  const keys = full.structuredContent.structured_content.keys;
  assert.ok(JSON.stringify(keys).length > 2000, `over 1 KiB and the budget: ${JSON.stringify(keys)}`);
  const r = await c.call("mcp__test__env_keys", { max_output_tokens: 50 });
  assert.ok(!r.isError, text(r));
  const sc = r.structuredContent;
  assert.equal(sc.truncated, true, JSON.stringify(sc));
  assert.equal(sc.structured_content, undefined, "the big member is cut");
  assert.ok(JSON.stringify(sc).length < 1200, `bounded: ${JSON.stringify(sc).length} bytes`);
  const spooled = readFileSync(join(ws, sc.spool_path), "utf8");
  for (const k of keys) assert.ok(spooled.includes(`"${k}"`), `the spool holds ${k}`);
});

test("a provider tool that runs only as an MCP task is offered and called as a task", async () => {
  const ws = workspace();
  const toml = readFileSync(join(ws, "vtcode.toml"), "utf8") + `
[[mcp.providers]]
name = "raw"
command = "${node}"
args = ["${join(here, "raw_provider.mjs")}"]
env = { RAW_MODE = "tasks" }
`;
  writeFileSync(join(ws, "vtcode.toml"), toml.replace('allow = ["search_tools", "mcp__test"]', 'allow = ["search_tools", "mcp__test", "mcp__raw"]'));
  const c = await connect(ws, { name: "some-client", extraArgs: ["--catalog", "full"] });
  assert.ok(c.known.has("mcp__raw__ok"), [...c.known].join(" "));
  assert.ok(c.known.has("mcp__raw__task_optional"), [...c.known].join(" "));
  assert.ok(c.known.has("mcp__raw__needs_task"), [...c.known].join(" "));
  const r = await c.call("mcp__raw__task_optional", {});
  assert.ok(!r.isError, text(r));
  const t = await c.call("mcp__raw__needs_task", { ms: 50 });
  assert.ok(!t.isError, text(t));
  assert.match(text(t), /raw needs_task done after 50 ms/);
});
