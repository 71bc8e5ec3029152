// Streamable HTTP providers through `vthost serve`, driven by the official
// SDK client: a provider built on the SDK's StreamableHTTPServerTransport
// (http_provider.mjs) and a raw one that breaks the transport on purpose
// (http_raw_provider.mjs), both real servers on 127.0.0.1.  What the
// servers saw is read back from their request logs.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { requireClients, vthostBin, makeWorkspace, removeWorkspace, serverArgs, serverEnv } from "../mcp/lib.mjs";
import { sleep, text, waitFor } from "./providers_lib.mjs";

requireClients();
const bin = vthostBin();
const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, "../mcp/package.json"));
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
const { ToolListChangedNotificationSchema } = require("@modelcontextprotocol/sdk/types.js");

const TOKEN = "tok-" + Math.random().toString(36).slice(2) + "-secret";
const readLog = (f) => (existsSync(f) ? readFileSync(f, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l)) : []);

const scratch = makeWorkspace("");
const servers = [];
async function startServer(script, env) {
  const child = spawn(process.execPath, [join(here, script)], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  servers.push(child);
  const port = await new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      const m = out.match(/listening (\d+)/);
      if (m) resolve(Number(m[1]));
    });
    child.on("exit", (c) => reject(new Error(`${script} exited with ${c}`)));
  });
  return `http://127.0.0.1:${port}/mcp`;
}

let web, raw;
const webLog = join(scratch, "web.log"), rawLog = join(scratch, "raw.log");
const workspaces = [];
const clients = [];
before(async () => {
  web = await startServer("http_provider.mjs", { HTTP_LOG: webLog, HTTP_TOKEN: TOKEN, HTTP_MARKER: join(scratch, "danger.marker") });
  raw = await startServer("http_raw_provider.mjs", { RAW_LOG: rawLog });
});
after(async () => {
  for (const c of clients) await c.close().catch(() => {});
  await sleep(300);
  for (const s of servers) s.kill("SIGKILL");
  for (const w of workspaces) removeWorkspace(w);
  removeWorkspace(scratch);
  for (const c of clients) {
    assert.doesNotMatch(c.stderrText(), /Sanitizer|runtime error:/, c.stderrText());
    assert.ok(!c.stderrText().includes(TOKEN), "the bearer token appeared in vthost's output");
  }
});

function workspace({ rules = "", mcp = "", requirements = "", extra = "" } = {}) {
  const w = makeWorkspace("");
  workspaces.push(w);
  writeFileSync(join(w, "vtcode.toml"), `[permissions]
allow = ["search_tools", "mcp__web", "mcp__rawh"]
${rules}

[mcp]
tool_timeout_seconds = 3
startup_timeout_seconds = 8
request_timeout_seconds = 5
max_message_bytes = 1048576
${mcp}

[[mcp.providers]]
name = "web"
endpoint = "${web}"
api_key_env = "WEB_TOKEN"
headers = { X-Team = "blue" }
protocol_version = "2025-06-18"

[[mcp.providers]]
name = "rawh"
endpoint = "${raw}"
${extra}
${requirements}
`);
  return w;
}

async function connect(ws, env = { WEB_TOKEN: TOKEN }) {
  const transport = new StdioClientTransport({ command: bin, args: serverArgs(ws), env: serverEnv(env), stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (d) => (stderr += d));
  const client = new Client({ name: "vthost-http-providers-test", version: "1.0.0" }, { capabilities: {} });
  client.changed = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => client.changed++);
  await client.connect(transport);
  clients.push(client);
  client.stderrText = () => stderr;
  return client;
}

async function search(c, query, limit = 10) {
  const r = await c.callTool({ name: "search_tools", arguments: { query, limit, detail_level: "full" } });
  assert.ok(!r.isError, text(r));
  return r.structuredContent.tools.map((t) => t.name);
}

function cli(ws, args, env = { WEB_TOKEN: TOKEN }) {
  const r = spawnSync(bin, ["--workspace", ws, "--config", join(ws, "vtcode.toml"), ...args], {
    env: serverEnv(env),
    encoding: "utf8",
    timeout: 60000,
  });
  assert.doesNotMatch(r.stderr, /Sanitizer|runtime error:/, r.stderr);
  return { rc: r.status, out: r.stdout + r.stderr, stdout: r.stdout };
}

test("an HTTP provider's tools are found, listed and called; auth, headers, session and version reach it", async () => {
  const c = await connect(workspace());
  const before = readLog(webLog).length;
  assert.ok(!(await c.listTools()).tools.some((t) => t.name.startsWith("mcp__")), "listed before search");
  assert.equal(readLog(webLog).length, before, "an HTTP provider was contacted before any search");
  assert.ok((await search(c, "echo a text back unchanged")).includes("mcp__web__echo"));
  await waitFor(() => c.changed > 0, 5000, "notifications/tools/list_changed");
  const echo = (await c.listTools()).tools.find((t) => t.name === "mcp__web__echo");
  assert.equal(echo.annotations.readOnlyHint, true);
  assert.equal(echo.inputSchema.properties.text.type, "string");
  const r = await c.callTool({ name: "mcp__web__echo", arguments: { text: "over http" } });
  assert.ok(!r.isError, text(r));
  assert.match(text(r), /echo: over http/);
  await search(c, "custom header the request carried");
  const h = await c.callTool({ name: "mcp__web__headers_seen", arguments: {} });
  assert.match(text(h), /x-team=blue/);

  const seen = readLog(webLog).slice(before);
  assert.ok(seen.every((l) => l.auth === true), "a request without the bearer token: " + JSON.stringify(seen));
  const init = seen.filter((l) => l.rpc === "initialize");
  assert.equal(init.length, 1, JSON.stringify(seen));
  assert.equal(init[0].session, null, "initialize named a session");
  const later = seen.slice(seen.indexOf(init[0]) + 1);
  const sid = later[0].session;
  assert.ok(sid, "the session id was not sent back");
  for (const l of later) {
    assert.equal(l.session, sid, "Mcp-Session-Id not echoed: " + JSON.stringify(l));
    assert.equal(l.version, "2025-06-18", "MCP-Protocol-Version missing: " + JSON.stringify(l));
  }
  assert.ok(later.some((l) => l.rpc === "notifications/initialized"));
  assert.ok(later.some((l) => l.http === "GET"), "no GET stream for server notifications");
  await c.close();
  await waitFor(() => readLog(webLog).some((l) => l.http === "DELETE" && l.session === sid), 8000,
    "vthost to end the session with DELETE");
});

test("progress is forwarded; a cancelled call is cancelled at the provider with a POST", async () => {
  const c = await connect(workspace());
  await search(c, "wait a while reporting progress");
  const progress = [];
  const done = await c.callTool({ name: "mcp__web__slow", arguments: { ms: 500 } }, undefined, {
    onprogress: (p) => progress.push(p.progress),
  });
  assert.match(text(done), /slow done/);
  assert.ok(progress.length >= 3, `progress forwarded: ${progress}`);
  const ac = new AbortController();
  const pending = c.callTool({ name: "mcp__web__slow", arguments: { ms: 20000 } }, undefined, {
    signal: ac.signal,
    onprogress: () => ac.abort(),
  });
  await assert.rejects(pending);
  await waitFor(() => readLog(webLog).some((l) => l.event === "cancelled slow"), 10000,
    "the provider to see the cancellation");
  assert.ok(readLog(webLog).some((l) => l.http === "POST" && l.rpc === "notifications/cancelled"));
});

test("a tool list change arrives on the GET stream; a deny rule holds for HTTP tools", async () => {
  const c = await connect(workspace({ rules: `deny = ["mcp__web__danger"]` }));
  await search(c, "register one more tool");
  const added = await c.callTool({ name: "mcp__web__add_tool", arguments: {} });
  assert.match(text(added), /added/);
  await waitFor(async () => (await search(c, "okapi narwhal")).includes("mcp__web__late_arrival"), 8000,
    "the new tool in the catalog: " + readFileSync(webLog, "utf8").split("\n").slice(-12).join("\n"));
  const late = await c.callTool({ name: "mcp__web__late_arrival", arguments: {} });
  assert.match(text(late), /late/);
  assert.ok((await search(c, "destructive delete everything")).includes("mcp__web__danger"));
  const d = await c.callTool({ name: "mcp__web__danger", arguments: {} });
  assert.equal(d.isError, true);
  assert.match(text(d), /deni/i);
  await sleep(300);
  assert.ok(!existsSync(join(scratch, "danger.marker")), "the denied tool ran");
});

test("a session the server forgot (404) is replaced and the call goes through", async () => {
  const c = await connect(workspace());
  await search(c, "forget this session restarted server");
  await search(c, "echo a text back unchanged");
  const inits = () => readLog(webLog).filter((l) => l.rpc === "initialize").length;
  const n0 = inits();
  const f = await c.callTool({ name: "mcp__web__forget_session", arguments: {} });
  assert.match(text(f), /forgotten/);
  await sleep(100);
  const r = await c.callTool({ name: "mcp__web__echo", arguments: { text: "after 404" } });
  assert.ok(!r.isError, text(r));
  assert.match(text(r), /echo: after 404/);
  assert.equal(inits(), n0 + 1, "a new session was not started");
});

test("malformed bodies, 500s, huge bodies, hangs and dropped sessions fail only their calls", async () => {
  const c = await connect(workspace());
  for (const q of ["body that is not JSON", "event stream", "HTTP 500 internal explosion", "one huge body",
    "never answer the request", "forget the session", "answer fine raw"]) await search(c, q);
  await search(c, "echo a text back unchanged");
  const call = (name) => c.callTool({ name, arguments: {} });
  const okAgain = async () => {
    const ok = await call("mcp__rawh__ok");
    assert.ok(!ok.isError, text(ok));
    assert.match(text(ok), /raw http ok/);
  };

  const g = await call("mcp__rawh__garbage");
  assert.equal(g.isError, true);
  assert.match(text(g), /MCP provider 'rawh' sent malformed JSON-RPC/);
  const echo = await c.callTool({ name: "mcp__web__echo", arguments: { text: "unaffected" } });
  assert.match(text(echo), /echo: unaffected/);
  await okAgain();

  const t0 = Date.now();
  const sg = await call("mcp__rawh__sse_garbage");
  assert.equal(sg.isError, true);
  assert.match(text(sg), /malformed JSON-RPC/);
  assert.ok(Date.now() - t0 < 2500, "waited for a stream that broke the protocol");
  await okAgain();

  const e = await call("mcp__rawh__http500");
  assert.equal(e.isError, true);
  assert.match(text(e), /answered tools\/call with HTTP 500: internal explosion/);
  await okAgain();

  const h = await call("mcp__rawh__huge");
  assert.equal(h.isError, true);
  assert.match(text(h), /over 1048576 bytes/);
  await okAgain();

  const t1 = Date.now();
  const hang = await call("mcp__rawh__hang");
  assert.equal(hang.isError, true);
  assert.match(text(hang), /did not answer tools\/call within 3 s/);
  assert.ok(Date.now() - t1 < 10000);
  await okAgain();

  const progress = [];
  const s = await c.callTool({ name: "mcp__rawh__sse_ok", arguments: {} }, undefined, {
    onprogress: (p) => progress.push(p.message),
  });
  assert.ok(!s.isError, text(s));
  assert.match(text(s), /raw sse ok/);
  assert.deepEqual(progress, ["half"], "progress from an event split over two data lines");

  const inits = () => readLog(rawLog).filter((l) => l.rpc === "initialize").length;
  const n0 = inits();
  const d = await call("mcp__rawh__drop_session");
  assert.match(text(d), /dropped/);
  await okAgain();  // 404, a new session, the call once more
  assert.equal(inits(), n0 + 1);
  assert.ok(readLog(rawLog).some((l) => l.http === "GET"), "the GET stream was not tried (405 expected)");
});

test("an event stream that drops before its answer is resumed with Last-Event-ID after the server's retry", async () => {
  const c = await connect(workspace());
  await search(c, "resumed event stream drops");
  const r = await c.callTool({ name: "mcp__rawh__sse_resume", arguments: {} });
  assert.ok(!r.isError, text(r));
  assert.match(text(r), /raw resumed ok/);
  const get = readLog(rawLog).filter((l) => l.http === "GET" && l.lastEventId);
  assert.equal(get.length, 1, JSON.stringify(get));
  assert.match(get[0].lastEventId, /^r\d+-0$/);
  assert.ok(get[0].sinceDropMs >= 600, `the server's retry (700 ms) was honoured: ${get[0].sinceDropMs} ms`);
});

test("an endpoint outside allowed_http_endpoints is refused, said in mcp list and the log", async () => {
  const ws = workspace({
    requirements: `
[mcp.requirements]
enforce = true
allowed_stdio_commands = []
allowed_http_endpoints = ["${web}/"]
`,
  });
  // other tests' sessions may still talk to the raw server; a refused
  // provider would have to start one
  const inits = () => readLog(rawLog).filter((l) => l.rpc === "initialize").length;
  const rawBefore = inits();
  const { rc, out } = cli(ws, ["mcp", "list"]);
  assert.equal(rc, 0, out);
  assert.match(out, /web\s+ready\s+\d+\s+http:\/\/127\.0\.0\.1/);
  assert.match(out, /rawh\s+disabled/);
  assert.ok(out.includes(`MCP provider 'rawh': endpoint '${raw}' is not in [mcp.requirements] allowed_http_endpoints`), out);
  assert.match(out, /warning: .*'rawh'.*allowed_http_endpoints: not started/, "not in the log: " + out);
  const c = await connect(ws);
  const found = await search(c, "answer fine raw");
  assert.ok(!found.some((n) => n.startsWith("mcp__rawh__")), found.join(","));
  assert.equal(inits(), rawBefore, "a refused endpoint was contacted");
  const j = JSON.parse(cli(ws, ["--format", "json", "mcp", "list"]).stdout);
  const rawh = j.find((p) => p.name === "rawh");
  assert.equal(rawh.transport, "http");
  assert.equal(rawh.endpoint, raw);
  assert.equal(rawh.state, "disabled");
});

test("vthost mcp tools for an HTTP provider; a missing api_key_env disables it; the token is never shown", async () => {
  const ws = workspace();
  const t = cli(ws, ["mcp", "tools", "web"]);
  assert.equal(t.rc, 0, t.out);
  assert.match(t.out, /mcp__web__echo\s+Echo a text back unchanged/);
  assert.match(t.out, /mcp__web__slow/);
  const before = readLog(webLog).length;
  const none = cli(ws, ["mcp", "list"], { WEB_TOKEN: "" });
  assert.match(none.out, /web\s+disabled/);
  assert.match(none.out, /the environment variable WEB_TOKEN \(api_key_env\) is not set/);
  assert.equal(readLog(webLog).length, before, "a request went out without the token");
  for (const args of [["mcp", "list"], ["--format", "json", "mcp", "list"], ["plugins"], ["--format", "json", "mcp", "tools", "web"]]) {
    const r = cli(ws, args);
    assert.ok(!r.out.includes(TOKEN), `${args.join(" ")} shows the token`);
  }
  const down = workspace({ extra: "" });
  writeFileSync(join(down, "vtcode.toml"), readFileSync(join(down, "vtcode.toml"), "utf8").replace(raw, "http://127.0.0.1:1/mcp"));
  const l = cli(down, ["mcp", "list"]);
  assert.match(l.out, /rawh\s+failed/);
  assert.match(l.out, /MCP provider 'rawh': cannot reach http:\/\/127\.0\.0\.1:1\/mcp/);
  assert.match(l.out, /web\s+ready/);
});

test("without its libcurl module (or with a module others may write) HTTP providers are disabled, said plainly; stdio is unaffected", async () => {
  const { cpSync, rmSync, chmodSync, mkdtempSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const tree = mkdtempSync(join(tmpdir(), "vthost-nohttp-"));
  try {
    const root = join(dirname(bin), "..");
    for (const d of ["bin", "lib", "share"]) cpSync(join(root, d), join(tree, d), { recursive: true });
    const mod = join(tree, "lib/vthost/plugins/mcp_providers.d/http-transport.mod");
    assert.ok(existsSync(mod), "the build puts the HTTP transport next to the plugin");
    const ws = workspace();
    const run = (args) => {
      const r = spawnSync(join(tree, "bin/vthost"), ["--workspace", ws, "--config", join(ws, "vtcode.toml"), ...args], {
        env: serverEnv({ WEB_TOKEN: TOKEN }), encoding: "utf8", timeout: 60000 });
      return r.stdout + r.stderr;
    };
    chmodSync(mod, 0o664);
    let out = run(["mcp", "tools", "web"]);
    assert.match(out, /http-transport\.mod or its folder is group- or world-writable; refusing to load it/, out);
    chmodSync(mod, 0o644);
    rmSync(mod);
    const before = readLog(webLog).length;
    out = run(["mcp", "tools", "web"]);
    assert.match(out, /cannot load the HTTP transport .*http-transport\.mod/, out);
    out = run(["mcp", "list"]);
    assert.match(out, /web\s+disabled/, out);
    assert.equal(readLog(webLog).length, before, "a request went out without the transport");
    assert.match(run(["tools"]), /exec_command/);
  } finally {
    rmSync(tree, { recursive: true, force: true });
  }
});
