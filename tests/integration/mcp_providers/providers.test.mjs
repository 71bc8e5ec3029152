// MCP providers through `vthost serve`, driven by the official SDK client:
// a provider written with the SDK (sdk_provider.mjs) and a raw one that
// breaks the protocol on purpose (raw_provider.mjs).  Real processes,
// real files: a denied tool's marker file must not appear, a killed
// vthost must leave no provider behind.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { requireClients, vthostBin, makeWorkspace, removeWorkspace, serverArgs, serverEnv } from "../mcp/lib.mjs";
import { sleep, text, waitFor, alive } from "./providers_lib.mjs";

requireClients();
const bin = vthostBin();
const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, "../mcp/package.json"));
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
const { ToolListChangedNotificationSchema, ElicitRequestSchema, CreateMessageRequestSchema } = require("@modelcontextprotocol/sdk/types.js");

const node = process.execPath;
const workspaces = [];
const clients = [];
after(async () => {
  for (const c of clients) await c.close().catch(() => {});
  await sleep(500);
  for (const w of workspaces) removeWorkspace(w);
  // under ASan/UBSan builds: any report on vthost's stderr fails the file
  for (const c of clients)
    assert.doesNotMatch(c.stderrText(), /Sanitizer|runtime error:/, c.stderrText());
});

const starts = (log) => (existsSync(log) ? readFileSync(log, "utf8").split("\n").filter((l) => l.startsWith("start ")) : []);

// A workspace whose vtcode.toml configures the providers (and is passed
// with --config, so its allow rules count).
function workspace({ rules = "", mcp = "", extra = "", allow = '"search_tools", "mcp__test", "mcp__raw"' } = {}) {
  const w = makeWorkspace("x");
  workspaces.push(w);
  const toml = `[permissions]
allow = [${allow}]
${rules}

[mcp]
tool_timeout_seconds = 3
startup_timeout_seconds = 8
max_message_bytes = 1048576
${mcp}

[[mcp.providers]]
name = "test"
command = "${node}"
args = ["${join(here, "sdk_provider.mjs")}"]
env = { PROVIDER_LOG = "${join(w, "test.log")}", PROVIDER_MARKER = "${join(w, "danger.marker")}" }

[[mcp.providers]]
name = "raw"
command = "${node}"
args = ["${join(here, "raw_provider.mjs")}"]
env = { RAW_LOG = "${join(w, "raw.log")}" }
${extra}
`;
  writeFileSync(join(w, "vtcode.toml"), toml);
  return w;
}

async function connect(ws, { capabilities = {} } = {}) {
  const transport = new StdioClientTransport({
    command: bin,
    args: serverArgs(ws),
    env: serverEnv({ VTHOST_SECRET_TOKEN: "must-not-leak" }),
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (d) => (stderr += d));
  const client = new Client({ name: "vthost-providers-test", version: "1.0.0" }, { capabilities });
  client.changed = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => client.changed++);
  await client.connect(transport);
  clients.push(client);
  client.stderrText = () => stderr;
  client.pid = transport.pid;
  return client;
}

async function search(c, query, limit = 5) {
  const r = await c.callTool({ name: "search_tools", arguments: { query, limit, detail_level: "full" } });
  assert.ok(!r.isError, text(r));
  return r.structuredContent.tools.map((t) => t.name);
}

test("initialize and tools/list never wait for a provider; search starts them", async () => {
  const ws = workspace({
    extra: `
[[mcp.providers]]
name = "stuck"
command = "${node}"
args = ["${join(here, "raw_provider.mjs")}"]
eager_start = true
env = { RAW_MODE = "hang_init" }
`,
  });
  const t0 = Date.now();
  const c = await connect(ws);
  const list = await c.listTools();
  assert.ok(Date.now() - t0 < 7000, "initialize + tools/list waited for a provider");
  assert.ok(!list.tools.some((t) => t.name.startsWith("mcp__")), "provider tools listed before search");
  assert.equal(starts(join(ws, "test.log")).length, 0, "lazy provider started before any search");

  const found = await search(c, "echo a text back unchanged");
  assert.ok(found.includes("mcp__test__echo"), found.join(","));
  await waitFor(() => c.changed > 0, 5000, "notifications/tools/list_changed");
  const after = await c.listTools();
  const echo = after.tools.find((t) => t.name === "mcp__test__echo");
  assert.ok(echo, "expanded provider tool is listed");
  assert.equal(echo.annotations.readOnlyHint, true, "provider annotations passed through");
  assert.equal(echo.annotations.title, "Echo");
  assert.equal(echo.inputSchema.properties.text.type, "string");
  const r = await c.callTool({ name: "mcp__test__echo", arguments: { text: "hi there" } });
  assert.ok(!r.isError, text(r));
  assert.match(text(r), /echo: hi there/);
  assert.equal(starts(join(ws, "test.log")).length, 1);
});

test("the environment holds only what is configured plus PATH and HOME", async () => {
  const c = await connect(workspace());
  await search(c, "names of the provider's environment variables");
  const r = await c.callTool({ name: "mcp__test__env_keys", arguments: {} });
  assert.ok(!r.isError, text(r));
  const keys = r.structuredContent.structured_content.keys;
  assert.deepEqual(keys.filter((k) => !["PATH", "HOME", "PROVIDER_LOG", "PROVIDER_MARKER"].includes(k)), []);
  assert.ok(!text(r).includes("VTHOST_SECRET_TOKEN"));
});

test("deny rules hold: mcp__test__danger and a whole server", async () => {
  const ws = workspace({
    rules: `deny = ["mcp__test__danger", "mcp__raw__ok", "mcp__blocked"]`,
    extra: `
[[mcp.providers]]
name = "blocked"
command = "${node}"
args = ["${join(here, "raw_provider.mjs")}"]
`,
  });
  const c = await connect(ws);
  assert.ok((await search(c, "destructive delete everything")).includes("mcp__test__danger"));
  const r = await c.callTool({ name: "mcp__test__danger", arguments: {} });
  assert.equal(r.isError, true);
  assert.match(text(r), /deni|denied|block/i);
  await sleep(300);
  assert.ok(!existsSync(join(ws, "danger.marker")), "the denied tool ran");
  await search(c, "answer fine raw provider", 10);
  const raw = await c.callTool({ name: "mcp__raw__ok", arguments: {} });
  assert.equal(raw.isError, true);
  assert.match(text(raw), /deni/i);
  const b = await c.callTool({ name: "mcp__blocked__ok", arguments: {} });
  assert.equal(b.isError, true, text(b));
  assert.match(text(b), /deni/i);
});

test("an ask rule prompts through elicitation", async () => {
  const ws = workspace({ rules: `ask = ["mcp__test__echo"]` });
  const c = await connect(ws, { capabilities: { elicitation: {} } });
  const asked = [];
  let answer = "approve";
  c.setRequestHandler(ElicitRequestSchema, async (req) => {
    asked.push(req.params.message);
    return { action: "accept", content: { decision: answer } };
  });
  await search(c, "echo a text back unchanged");
  const ok = await c.callTool({ name: "mcp__test__echo", arguments: { text: "asked" } });
  assert.ok(!ok.isError, text(ok));
  assert.equal(asked.length, 1);
  assert.match(asked[0], /mcp__test__echo/);
  answer = "deny";
  const no = await c.callTool({ name: "mcp__test__echo", arguments: { text: "asked" } });
  assert.equal(no.isError, true);
});

test("a provider crash mid-call fails that call; the next call restarts it", async () => {
  const ws = workspace();
  const c = await connect(ws);
  await search(c, "exit the provider process in the middle of the call");
  await search(c, "echo a text back unchanged");
  const before = c.changed;
  const r = await c.callTool({ name: "mcp__test__crash", arguments: {} });
  assert.equal(r.isError, true);
  assert.match(text(r), /MCP provider 'test' (exited|was killed)/);
  // its listed tools stay, marked unavailable, and the client is told
  await waitFor(() => c.changed > before, 5000, "list_changed for the unavailable tools");
  const marked = (await c.listTools()).tools.find((t) => t.name === "mcp__test__echo");
  assert.match(marked.description, /^\[unavailable: MCP provider 'test' (exited|was killed)/);
  const again = await c.callTool({ name: "mcp__test__echo", arguments: { text: "back" } });
  assert.ok(!again.isError, text(again));
  assert.match(text(again), /echo: back/);
  assert.equal(starts(join(ws, "test.log")).length, 2, "restarted once");
  const back = (await c.listTools()).tools.find((t) => t.name === "mcp__test__echo");
  assert.ok(!back.description.includes("unavailable"), back.description);
});

test("restarting a crashed provider leaves no descriptor behind in vthost", async () => {
  const ws = workspace();
  const c = await connect(ws);
  await search(c, "exit the provider process in the middle of the call");
  await search(c, "echo a text back unchanged");
  const fds = () => readdirSync(`/proc/${c.pid}/fd`).length;
  const echo = async () => {
    const r = await c.callTool({ name: "mcp__test__echo", arguments: { text: "up" } });
    assert.ok(!r.isError, text(r));
  };
  await echo();
  const before = fds();
  for (let i = 0; i < 6; i++) {
    const r = await c.callTool({ name: "mcp__test__crash", arguments: {} });
    assert.equal(r.isError, true, text(r));
    await echo(); // restarts it
  }
  await sleep(300);
  assert.equal(starts(join(ws, "test.log")).length, 7, "restarted six times");
  const grown = fds() - before;
  assert.ok(grown <= 1, `vthost holds ${grown} more descriptors after six provider restarts`);
});

test("malformed output, huge messages and hangs fail only that provider", async () => {
  const ws = workspace();
  const c = await connect(ws);
  for (const q of ["line that is not JSON", "one huge message", "never answer"]) await search(c, q, 10);
  await search(c, "echo a text back unchanged");
  const g = await c.callTool({ name: "mcp__raw__garbage", arguments: {} });
  assert.equal(g.isError, true);
  assert.match(text(g), /malformed/);
  const echo1 = await c.callTool({ name: "mcp__test__echo", arguments: { text: "still" } });
  assert.match(text(echo1), /echo: still/);
  const h = await c.callTool({ name: "mcp__raw__huge", arguments: {} });
  assert.equal(h.isError, true);
  assert.match(text(h), /over 1048576 bytes/);
  const t0 = Date.now();
  const hang = await c.callTool({ name: "mcp__raw__hang", arguments: {} });
  assert.equal(hang.isError, true);
  assert.match(text(hang), /did not answer tools\/call within 3 s/);
  assert.ok(Date.now() - t0 < 15000);
  const echo2 = await c.callTool({ name: "mcp__test__echo", arguments: { text: "fine" } });
  assert.match(text(echo2), /echo: fine/);
  // the raw provider was killed (hung) and comes back on its next call
  await search(c, "answer fine raw provider", 10);
  const ok = await c.callTool({ name: "mcp__raw__ok", arguments: {} });
  assert.ok(!ok.isError, text(ok));
  assert.match(text(ok), /raw ok/);
});

test("pagination, list changes and schemas beyond the validator's subset", async () => {
  const ws = workspace();
  const c = await connect(ws);
  assert.ok((await search(c, "pangolin armadillo")).includes("mcp__raw__page2_tool"), "second tools/list page");
  const r = await c.callTool({ name: "mcp__raw__page2_tool", arguments: {} });
  assert.match(text(r), /raw page2_tool/);
  // anyOf is passed through to the provider, not refused or weakened
  await search(c, "schema beyond validator subset");
  const any = await c.callTool({ name: "mcp__raw__anyof", arguments: { v: 5 } });
  assert.match(text(any), /v=5/);
  const listed = (await c.listTools()).tools.find((t) => t.name === "mcp__raw__anyof");
  assert.ok(listed.inputSchema.properties.v.anyOf, "the provider's schema is listed as given");
  // the provider adds a tool and says so; the next search finds it
  await search(c, "register one more tool");
  await c.callTool({ name: "mcp__test__add_tool", arguments: {} });
  await sleep(300);
  assert.ok((await search(c, "zebra giraffe")).includes("mcp__test__late_arrival"));
  const late = await c.callTool({ name: "mcp__test__late_arrival", arguments: {} });
  assert.match(text(late), /late/);
});

test("names are mapped to [A-Za-z0-9_], cut at 64 with a hash, and map back to the provider's names", async () => {
  const c = await connect(workspace());
  // a mapped name that collides with no other keeps no suffix
  const oddName = (await search(c, "quokka")).find((n) => n.startsWith("mcp__raw__odd_name_with_spaces"));
  assert.equal(oddName, "mcp__raw__odd_name_with_spaces");
  const odd = await c.callTool({ name: oddName, arguments: {} });
  assert.match(text(odd), /raw odd\.name\/with spaces/);
  const long = (await search(c, "wombat long name")).filter((n) => n.startsWith("mcp__raw__a_very"));
  assert.equal(long.length, 2, long.join(","));
  for (const n of long) {
    assert.ok(n.length <= 64, n);
    assert.match(n, /_[0-9a-f]{8}$/);
  }
  assert.notEqual(long[0], long[1]);
  const r = await c.callTool({ name: long[0], arguments: {} });
  assert.match(text(r), /raw a_very_long_tool_name/);
});

test("progress is forwarded and cancellation reaches the provider", async () => {
  const ws = workspace();
  const c = await connect(ws);
  await search(c, "wait a while reporting progress");
  const progress = [];
  const done = await c.callTool({ name: "mcp__test__slow", arguments: { ms: 500 } }, undefined, {
    onprogress: (p) => progress.push(p.progress),
  });
  assert.match(text(done), /slow done/);
  assert.ok(progress.length >= 3, `progress forwarded: ${progress}`);
  const ac = new AbortController();
  const pending = c.callTool({ name: "mcp__test__slow", arguments: { ms: 20000 } }, undefined, {
    signal: ac.signal,
    onprogress: () => ac.abort(),
  });
  await assert.rejects(pending);
  await waitFor(() => existsSync(join(ws, "test.log")) && readFileSync(join(ws, "test.log"), "utf8").includes("cancelled slow"),
    10000, "the provider to see the cancellation");
});

// Elicitation and sampling requests of a provider, relayed to vthost's
// client when it declared them, refused cleanly (and the call goes on)
// when it did not.
const providerLog = (ws) => (existsSync(join(ws, "test.log")) ? readFileSync(join(ws, "test.log"), "utf8") : "");

// A provider that asks for roots (as the reference filesystem server
// does when started without a directory) is told the workspace: vthost
// declares `roots` and answers roots/list itself, whatever its client.
test("a provider's roots/list is answered with the workspace", async () => {
  const base = workspace({
    allow: '"search_tools", "mcp__roots"',
    extra: `
[[mcp.providers]]
name = "roots"
command = "${node}"
args = ["${join(here, "roots_provider.mjs")}"]
`,
  });
  // a directory name a URI must encode (space, '#', '%')
  const ws = join(base, "my ws #1%");
  mkdirSync(ws);
  writeFileSync(join(ws, "vtcode.toml"), readFileSync(join(base, "vtcode.toml")));
  const c = await connect(ws);
  await search(c, "workspace roots this provider was given");
  const r = await c.callTool({ name: "mcp__roots__roots_seen", arguments: {} });
  assert.ok(!r.isError, text(r));
  const seen = JSON.parse(text(r));
  assert.deepEqual(seen.declared, {}, `roots declared to the provider: ${text(r)}`);
  assert.equal(seen.error, undefined, text(r));
  assert.deepEqual(seen.roots, [{ uri: pathToFileURL(realpathSync(ws)).href, name: "my ws #1%" }]);
  assert.equal(fileURLToPath(seen.roots[0].uri), realpathSync(ws));
});

test("a client with elicitation and sampling answers the provider's requests", async () => {
  const ws = workspace();
  const c = await connect(ws, { capabilities: { elicitation: {}, sampling: {} } });
  const elicited = [];
  const sampled = [];
  c.setRequestHandler(ElicitRequestSchema, async (req) => {
    elicited.push(req.params);
    return { action: "accept", content: { name: "Ada" } };
  });
  c.setRequestHandler(CreateMessageRequestSchema, async (req) => {
    sampled.push(req.params);
    return { role: "assistant", model: "relay-model", content: { type: "text", text: "a short summary" } };
  });
  await search(c, "ask the user for a name greet");
  await search(c, "summarise a text client's model");
  await search(c, "client capabilities vthost declared");
  const caps = JSON.parse(text(await c.callTool({ name: "mcp__test__client_caps", arguments: {} })));
  assert.ok(caps.elicitation && caps.sampling, `declared to the provider: ${JSON.stringify(caps)}`);

  const r = await c.callTool({ name: "mcp__test__ask_name", arguments: {} });
  assert.ok(!r.isError, text(r));
  assert.match(text(r), /hello Ada/);
  assert.equal(elicited.length, 1);
  // the user sees which server asks (not vthost's own permission prompt)
  assert.equal(elicited[0].message, "MCP server 'test' asks: What name should the greeting use?");
  assert.deepEqual(elicited[0].requestedSchema.required, ["name"]);

  const s = await c.callTool({ name: "mcp__test__summarise", arguments: { text: "one two three four" } });
  assert.ok(!s.isError, text(s));
  assert.match(text(s), /summary: a short summary \(model relay-model\)/);
  assert.equal(sampled.length, 1);
  assert.match(JSON.stringify(sampled[0].messages), /Summarise: one two three four/);
  assert.equal(sampled[0].systemPrompt, "You summarise.");
  assert.equal(sampled[0].includeContext, "none", "the client's context is never offered to a provider");
  assert.match(providerLog(ws), /elicit answered accept/);
  assert.match(providerLog(ws), /sample answered relay-model/);

  // the client's own error reaches the provider as the client sent it
  c.setRequestHandler(CreateMessageRequestSchema, async () => {
    throw new Error("the user rejected sampling");
  });
  const e = await c.callTool({ name: "mcp__test__summarise", arguments: { text: "alpha beta gamma delta" } });
  assert.ok(!e.isError, text(e));
  assert.match(text(e), /fallback summary: alpha beta gamma \(.*the user rejected sampling/);
});

test("a client without them: clean refusals, and the tools' own fallbacks", async () => {
  const ws = workspace();
  const c = await connect(ws);
  await search(c, "ask the user for a name greet");
  await search(c, "summarise a text client's model");
  await search(c, "client capabilities vthost declared");
  const caps = JSON.parse(text(await c.callTool({ name: "mcp__test__client_caps", arguments: {} })));
  assert.equal(caps.elicitation, undefined, JSON.stringify(caps));
  assert.equal(caps.sampling, undefined, JSON.stringify(caps));
  // the provider's SDK sees elicitation is not offered and falls back itself
  const sdk = await c.callTool({ name: "mcp__test__ask_name", arguments: {} });
  assert.ok(!sdk.isError, text(sdk));
  assert.match(text(sdk), /fallback: hello stranger \(Client does not support form elicitation/);
  // sent anyway: vthost refuses with a reason, not "method not found"
  const raw = await c.callTool({ name: "mcp__test__ask_name", arguments: { raw: true } });
  assert.ok(!raw.isError, text(raw));
  assert.match(text(raw), /fallback: hello stranger \(MCP error -32000: vthost cannot relay elicitation\/create: its MCP client did not declare the elicitation capability/);
  const s = await c.callTool({ name: "mcp__test__summarise", arguments: { text: "one two three four" } });
  assert.ok(!s.isError, text(s));
  assert.match(text(s), /fallback summary: one two three \(MCP error -32000: vthost cannot relay sampling\/createMessage: its MCP client did not declare the sampling capability/);
  assert.doesNotMatch(providerLog(ws), /-32601/);
});

test("a relay ends with its call: cancelled, or past the tool timeout", async () => {
  const ws = workspace();
  const c = await connect(ws, { capabilities: { elicitation: {}, sampling: {} } });
  let asked = 0;
  const withdrawn = [];
  c.setRequestHandler(ElicitRequestSchema, (req, extra) => {
    asked++;
    // never answers; notes when vthost withdraws the request
    return new Promise((_, reject) => extra.signal.addEventListener("abort", () => {
      withdrawn.push(String(extra.signal.reason ?? "aborted"));
      reject(new Error("withdrawn"));
    }));
  });
  await search(c, "ask the user for a name greet");
  const ac = new AbortController();
  const pending = c.callTool({ name: "mcp__test__ask_name", arguments: {} }, undefined, { signal: ac.signal });
  await waitFor(() => asked === 1, 5000, "the relayed elicitation");
  ac.abort();
  await assert.rejects(pending);
  await waitFor(() => /elicit refused -32800 .*cancelled/.test(providerLog(ws)), 5000,
    "the provider to get a cancellation error");
  await waitFor(() => withdrawn.length === 1, 5000, "vthost to withdraw its request from the client");

  // tool_timeout_seconds = 3: the unanswered relay ends with the call
  const t0 = Date.now();
  const r = await c.callTool({ name: "mcp__test__ask_name", arguments: {} });
  assert.equal(r.isError, true);
  assert.match(text(r), /did not answer tools\/call within 3 s/);
  assert.ok(Date.now() - t0 < 10000, `ended after ${Date.now() - t0} ms`);
  await waitFor(() => withdrawn.length === 2, 5000, "the timed-out request to be withdrawn");
  // the provider is still there and the next call works
  await search(c, "echo a text back unchanged");
  const echo = await c.callTool({ name: "mcp__test__echo", arguments: { text: "after" } });
  assert.match(text(echo), /echo: after/);
});

test("over Streamable HTTP a provider's request is relayed on its call's own stream", async () => {
  const server = spawn(node, [join(here, "http_relay_provider.mjs")], { stdio: ["ignore", "pipe", "inherit"] });
  try {
    const port = await new Promise((resolve, reject) => {
      let out = "";
      server.stdout.on("data", (d) => {
        out += d;
        const m = out.match(/listening (\d+)/);
        if (m) resolve(m[1]);
      });
      server.on("exit", (c) => reject(new Error(`http_relay_provider.mjs exited with ${c}`)));
    });
    const ws = workspace({
      allow: '"search_tools", "mcp__web"',
      extra: `
[[mcp.providers]]
name = "web"
endpoint = "http://127.0.0.1:${port}/mcp"
`,
    });
    const c = await connect(ws, { capabilities: { elicitation: {} } });
    const asked = [];
    c.setRequestHandler(ElicitRequestSchema, async (req) => {
      asked.push(req.params.message);
      return { action: "accept", content: { name: "Grace" } };
    });
    assert.ok((await search(c, "name through elicitation HTTP")).includes("mcp__web__ask_name"));
    const r = await c.callTool({ name: "mcp__web__ask_name", arguments: {} });
    assert.ok(!r.isError, text(r));
    assert.match(text(r), /hello Grace \(accept\)/);
    assert.deepEqual(asked, ["MCP server 'web' asks: Name, over HTTP?"]);
    // asked on the session's GET stream, outside the call's exchange
    // (before, it waited for a thread busy with the call: the call timed out)
    assert.ok((await search(c, "name on the GET stream HTTP")).includes("mcp__web__ask_elsewhere"));
    const e = await c.callTool({ name: "mcp__web__ask_elsewhere", arguments: {} });
    assert.match(text(e), /hello Grace \(accept\)/);
    assert.deepEqual(asked.slice(1), ["MCP server 'web' asks: Name, asked on the GET stream?"]);
    // nobody can answer it: a client without elicitation, and a one-shot
    // `vthost call` without a terminal, are refused at once
    const n = await connect(ws);
    assert.ok((await search(n, "name on the GET stream HTTP")).includes("mcp__web__ask_elsewhere"));
    let t0 = Date.now();
    const f = await n.callTool({ name: "mcp__web__ask_elsewhere", arguments: {} });
    assert.match(text(f), /fallback: hello stranger .*did not declare the elicitation capability/);
    assert.ok(Date.now() - t0 < 2500, `refused after ${Date.now() - t0} ms`);
    t0 = Date.now();
    const one = spawnSync(bin, [...serverArgs(ws).slice(0, -1), "call", "mcp__web__ask_elsewhere", "{}"], {
      env: serverEnv(), encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 30000,
    });
    assert.match(one.stdout, /fallback: hello stranger .*no MCP client to ask/, one.stdout + one.stderr);
    assert.ok(Date.now() - t0 < 2500, `vthost call ended after ${Date.now() - t0} ms`);
  } finally {
    server.kill("SIGKILL");
  }
});

test("auto review is given a provider tool call as an MCP request", async () => {
  const ws = workspace({
    allow: '"search_tools"',
    rules: `audit_enabled = true

[permissions.auto]
model = "review-model"
max_consecutive_denials = 10
max_total_denials = 10`,
  });
  mkdirSync(join(ws, ".vtcode", "agents"), { recursive: true });
  writeFileSync(join(ws, ".vtcode", "agents", "auto.md"),
    "---\nname: auto\npermissions:\n  default: auto\n  allow: [search_tools]\n---\nReviewed agent.\n");
  const c = await connect(ws, { capabilities: { sampling: {} } });
  const reviewed = [];
  c.setRequestHandler(CreateMessageRequestSchema, async (req) => {
    const user = req.params.messages[0].content.text;
    if (!(req.params.systemPrompt ?? "").startsWith("You review one tool call"))
      return { role: "assistant", model: "m", content: { type: "text", text: "relayed summary" } };
    const request = JSON.parse(user);
    reviewed.push(request);
    const block = request.mcp?.tool === "danger";
    return { role: "assistant", model: "review-model",
      content: { type: "text", text: block ? "BLOCK: deletes everything" : "ALLOW: harmless" } };
  });
  const call = (name, args) => c.callTool({ name, arguments: args, _meta: { "vthost/agent": "auto" } });
  assert.ok((await search(c, "destructive delete everything")).includes("mcp__test__danger"));
  const r = await call("mcp__test__danger", {});
  assert.equal(r.isError, true);
  assert.match(text(r), /deletes everything/);
  await sleep(200);
  assert.ok(!existsSync(join(ws, "danger.marker")), "the blocked tool ran");
  assert.equal(reviewed.length, 1);
  assert.equal(reviewed[0].kind, "mcp_tool_call");
  assert.deepEqual(reviewed[0].mcp, { server: "test", tool: "danger", arguments: {} });
  assert.equal(reviewed[0].tool, "mcp__test__danger");

  await search(c, "summarise a text client's model");
  const ok = await call("mcp__test__summarise", { text: "one two three", max_output_tokens: 500 });
  assert.ok(!ok.isError, text(ok));
  assert.match(text(ok), /summary: relayed summary/);
  assert.equal(reviewed.length, 2);
  assert.deepEqual(reviewed[1].mcp, { server: "test", tool: "summarise", arguments: { text: "one two three" } });
  const audit = readFileSync(join(ws, ".vtcode", "audit", "permissions.jsonl"), "utf8").trim().split("\n")
    .map((l) => JSON.parse(l)).filter((a) => a.tool?.startsWith("mcp__test__"));
  assert.deepEqual(audit.map((a) => [a.tool, a.outcome, a.via]),
    [["mcp__test__danger", "deny", "review"], ["mcp__test__summarise", "allow", "review"]]);
  assert.ok(audit[0].subjects.some((x) => x.kind === "mcp_server" && x.value === "test"), JSON.stringify(audit[0].subjects));
});

test("every provider dies with vthost, SIGKILL included", async () => {
  const ws = workspace();
  const c = await connect(ws);
  await search(c, "anything at all");
  const pids = [...starts(join(ws, "test.log")), ...starts(join(ws, "raw.log"))].map((l) => Number(l.split(" ")[1]));
  assert.equal(pids.length, 2, "both providers started by the search");
  for (const p of pids) assert.ok(alive(p));
  process.kill(c.pid, "SIGKILL");
  await waitFor(() => pids.every((p) => !alive(p)), 5000, "provider processes to end");
});
