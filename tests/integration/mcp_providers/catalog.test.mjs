// The catalog answers at once and names every client can call.
// - tools/list never waits for a provider: a provider that takes 3 s to
//   start is not in the first answer of a fresh start, which comes within
//   200 ms; list_changed follows with its tools; the next serve lists them
//   in its first answer, from the cache in $XDG_CACHE_HOME/vthost/.
// - a cache file that is not a regular file of the user is not read, and
//   what it points to is never written.
// - every listed name matches ^[A-Za-z0-9_]{1,64}$ and is callable, the
//   provider receiving its own name; search_tools returns listed names.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, lstatSync, symlinkSync, unlinkSync, utimesSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { requireClients, vthostBin, makeWorkspace, removeWorkspace, serverArgs, serverEnv } from "../mcp/lib.mjs";
import { text, waitFor } from "./providers_lib.mjs";

requireClients();
const bin = vthostBin();
const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, "../mcp/package.json"));
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
const { ToolListChangedNotificationSchema } = require("@modelcontextprotocol/sdk/types.js");

const NAME_RE = /^[A-Za-z0-9_]{1,64}$/;
const original = ["get-sum", "a.b", "caf\u00e9", "t".repeat(70), "same-name", "same.name", "plain_tool"];
const cache = mkdtempSync(join(tmpdir(), "vthost-cache-"));
const workspaces = [];
const clients = [];
after(async () => {
  for (const c of clients) await c.close().catch(() => {});
  for (const w of workspaces) removeWorkspace(w);
  rmSync(cache, { recursive: true, force: true });
});

function workspace(delayMs, startupSeconds = 10) {
  const w = makeWorkspace("x");
  workspaces.push(w);
  writeFileSync(
    join(w, "vtcode.toml"),
    `[permissions]
allow = ["search_tools", "mcp__named"]

[mcp]
startup_timeout_seconds = ${startupSeconds}

[[mcp.providers]]
name = "named"
command = "${process.execPath}"
args = ["${join(here, "named_provider.mjs")}"]
env = { DELAY_MS = "${delayMs}", NAMES_LOG = "${join(w, "names.log")}" }
`,
  );
  return w;
}

async function connect(ws, extraArgs = ["--catalog", "full"]) {
  const args = serverArgs(ws);
  const transport = new StdioClientTransport({
    command: bin,
    args: [...args.slice(0, -1), ...extraArgs, args[args.length - 1]],
    env: serverEnv({ XDG_CACHE_HOME: cache }),
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (d) => (stderr += d));
  const c = new Client({ name: "catalog-test", version: "1.0.0" }, { capabilities: {} });
  c.changes = 0;
  c.setNotificationHandler(ToolListChangedNotificationSchema, () => c.changes++);
  await c.connect(transport);
  clients.push(c);
  c.stderrText = () => stderr;
  return c;
}

// A raw JSON-RPC client for the timing: the SDK client's own validation of
// the answer is not vthost's time.
function rawServe(ws) {
  const args = serverArgs(ws);
  const child = spawn(bin, [...args.slice(0, -1), "--catalog", "full", args[args.length - 1]], {
    env: serverEnv({ XDG_CACHE_HOME: cache }),
    stdio: ["pipe", "pipe", "pipe"],
  });
  const waiting = new Map();
  const raw = { changes: 0, stderr: "" };
  child.stderr.on("data", (d) => (raw.stderr += d));
  createInterface({ input: child.stdout }).on("line", (line) => {
    const m = JSON.parse(line);
    if (m.method === "notifications/tools/list_changed") raw.changes++;
    if (m.id !== undefined && waiting.has(m.id)) waiting.get(m.id)(m);
  });
  let next = 1;
  raw.request = (method, params = {}) =>
    new Promise((resolve) => {
      const id = next++;
      waiting.set(id, resolve);
      child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
    });
  raw.start = async () => {
    await raw.request("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "catalog-test", version: "1" } });
    child.stdin.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n");
  };
  raw.list = async () => {
    const t0 = performance.now();
    const m = await raw.request("tools/list");
    return { names: m.result.tools.map((t) => t.name), ms: performance.now() - t0 };
  };
  raw.close = () =>
    new Promise((resolve) => {
      child.on("exit", resolve);
      child.stdin.end();
    });
  return raw;
}
const timedList = (raw) => raw.list();
const providerTools = (names) => names.filter((n) => n.startsWith("mcp__named__"));
const cacheFiles = () => (existsSync(join(cache, "vthost", "mcp-tools")) ? readdirSync(join(cache, "vthost", "mcp-tools")) : []);

test("a provider 3 s slow to start: the first tools/list answers at once, list_changed brings its tools, the next start has them first", async () => {
  const ws = workspace(3000);
  const c = rawServe(ws);
  await c.start();
  const first = await timedList(c);
  assert.ok(first.ms < 200, `tools/list took ${first.ms} ms`);
  assert.ok(first.names.includes("search_tools"), first.names.join(" "));
  assert.deepEqual(providerTools(first.names), [], "nothing known of the provider yet");
  await waitFor(() => c.changes > 0, 12000, "list_changed after the provider started");
  const later = providerTools((await c.list()).names);
  assert.equal(later.length, original.length, later.join(" "));
  await c.close();

  // the list is kept, 0600, in a regular file of the user
  const files = cacheFiles();
  assert.equal(files.length, 1, files.join(" "));
  const st = statSync(join(cache, "vthost", "mcp-tools", files[0]));
  assert.ok(st.isFile());
  assert.equal(st.mode & 0o777, 0o600);
  assert.equal(statSync(join(cache, "vthost")).mode & 0o077, 0);

  const again = rawServe(ws);
  await again.start();
  const second = await timedList(again);
  assert.ok(second.ms < 200, `tools/list took ${second.ms} ms`);
  assert.deepEqual(providerTools(second.names).sort(), later.sort(), "the cached tools in the first answer");
  const r = await again.request("tools/call", { name: "mcp__named__get_sum", arguments: {} });
  assert.ok(!r.result.isError, JSON.stringify(r));
  assert.match(JSON.stringify(r.result), /called get-sum/);
  // the provider answered with the same list: nothing to announce
  assert.equal(again.changes, 0);
  await again.close();
});

test("a provider still starting does not hold vthost's exit", async () => {
  const ws = workspace(60000, 30);
  const c = rawServe(ws);
  await c.start();
  const first = await c.list(); // starts the provider in the background
  assert.ok(first.ms < 1000, `tools/list took ${first.ms} ms`);
  assert.deepEqual(providerTools(first.names), []);
  await new Promise((r) => setTimeout(r, 300)); // the provider is in its initialize
  const t0 = performance.now();
  await c.close();
  const ms = performance.now() - t0;
  assert.ok(ms < 3000, `vthost took ${ms} ms to exit`);
});

test("a cache file that is a link is neither read nor written through", async () => {
  const ws = workspace(0);
  // a first start writes this configuration's cache file
  const before = new Set(cacheFiles());
  const c = await connect(ws);
  await c.listTools(); // starts the provider
  await waitFor(() => c.changes > 0, 12000, "list_changed");
  await c.close();
  const mine = cacheFiles().find((f) => !before.has(f));
  assert.ok(mine, "a cache file for the new configuration");
  const path = join(cache, "vthost", "mcp-tools", mine);
  // replaced by a link to a planted list elsewhere
  const planted = join(ws, "planted.json");
  const plantedText = JSON.stringify({ version: 1, provider: "named", tools: [{ name: "planted", inputSchema: { type: "object" } }] });
  writeFileSync(planted, plantedText);
  unlinkSync(path);
  symlinkSync(planted, path);
  const d = await connect(ws);
  const first = (await d.listTools()).tools.map((t) => t.name);
  assert.ok(!first.includes("mcp__named__planted"), "a linked cache file is not read");
  assert.ok(!first.some((n) => n.startsWith("mcp__named__")), first.join(" "));
  await waitFor(() => d.changes > 0, 12000, "list_changed");
  await d.close();
  assert.equal(readFileSync(planted, "utf8"), plantedText, "nothing written through the link");
  assert.ok(lstatSync(path).isSymbolicLink(), "the link is left for the user to remove");
});

test("every listed name is one clients can call, and reaches the provider as its own name", async () => {
  const ws = workspace(0);
  // lists of configurations unused for over 30 days go when a list is
  // written; other files are not touched
  const dir = join(cache, "vthost", "mcp-tools");
  const stale = join(dir, "0".repeat(32) + ".json"), other = join(dir, "notes.txt");
  writeFileSync(stale, "{}", { mode: 0o600 });
  writeFileSync(other, "mine", { mode: 0o600 });
  const old = new Date(Date.now() - 31 * 24 * 3600 * 1000);
  utimesSync(stale, old, old);
  utimesSync(other, old, old);
  const c = await connect(ws);
  await waitFor(async () => providerTools((await c.listTools()).tools.map((t) => t.name)).length > 0, 12000, "the provider's tools");
  const names = (await c.listTools()).tools.map((t) => t.name);
  for (const n of names) assert.match(n, NAME_RE);
  const mine = providerTools(names);
  assert.equal(mine.length, original.length, mine.join(" "));
  assert.equal(new Set(mine).size, mine.length, "no collisions");
  // the documented rule: invalid characters to "_", a hash suffix only
  // when the mapped name collides or is cut
  assert.ok(mine.includes("mcp__named__get_sum"), mine.join(" "));
  assert.ok(mine.includes("mcp__named__a_b"), mine.join(" "));
  assert.ok(mine.includes("mcp__named__plain_tool"), mine.join(" "));
  assert.equal(mine.filter((n) => /^mcp__named__same_name_[0-9a-f]{8}$/.test(n)).length, 2, mine.join(" "));
  assert.ok(mine.some((n) => /^mcp__named__t+_[0-9a-f]{8}$/.test(n) && n.length === 64), mine.join(" "));
  for (const n of mine) {
    const r = await c.callTool({ name: n, arguments: {} });
    assert.ok(!r.isError, `${n}: ${text(r)}`);
  }
  const got = readFileSync(join(ws, "names.log"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(got.sort(), [...original].sort());
  assert.ok(!existsSync(stale), "a list unused for 31 days is removed");
  assert.ok(existsSync(other), "another file is left alone");
  // search_tools returns exactly the listed names
  const found = await c.callTool({ name: "search_tools", arguments: { query: "marmoset named provider", limit: 25 } });
  assert.ok(!found.isError, text(found));
  const foundNames = found.structuredContent.tools.map((t) => t.name);
  assert.ok(foundNames.length >= original.length, foundNames.join(" "));
  for (const n of foundNames) assert.ok(names.includes(n), `${n} is not a listed name`);
});
