// The official TypeScript SDK v2 client (@modelcontextprotocol/client,
// from tests/integration/mcp2026/node_modules) over `vthost serve --http`:
// it negotiates 2026-07-28 through the server/discover probe, without a
// session, and runs every default tool; approvals come as input_required
// and are answered approve and deny; the tool list change comes on a
// subscriptions/listen stream (a POST answered with a long-lived SSE
// stream).  A v1 client beside it keeps its 2025 session.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { startServer, connect, cleanup, text, waitFor } from "./http_lib.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const v2 = join(here, "..", "mcp2026", "node_modules", "@modelcontextprotocol", "client");
if (!existsSync(join(v2, "package.json"))) {
  console.error(`The SDK v2 client is not installed. Run ./setup.sh test, or: npm ci --prefix ${join(here, "..", "mcp2026")}`);
  process.exit(1);
}
const { Client, StreamableHTTPClientTransport } = await import(pathToFileURL(join(v2, "dist", "index.mjs")).href);

after(cleanup);
const clients = [];
after(async () => {
  for (const c of clients) await c.close().catch(() => {});
});

const DEFAULT_TOOLS = ["exec_command", "write_stdin", "apply_patch", "search_tools"];

async function connect2026(srv, { token = srv.token, capabilities = {}, listChanged } = {}) {
  const transport = new StreamableHTTPClientTransport(new URL(srv.url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client(
    { name: "vthost-http-v2", version: "1.0.0" },
    { capabilities, versionNegotiation: { mode: "auto" }, ...(listChanged && { listChanged }) },
  );
  await client.connect(transport);
  clients.push(client);
  assert.equal(client.getProtocolEra(), "modern", "negotiated the 2026-07-28 era over HTTP");
  assert.equal(client.getNegotiatedProtocolVersion(), "2026-07-28");
  return client;
}

const runs = (ws) => (existsSync(join(ws, "count.txt")) ? readFileSync(join(ws, "count.txt"), "utf8").split("\n").filter(Boolean).length : 0);

test("negotiates 2026-07-28 over HTTP and runs every default tool", async () => {
  const srv = await startServer();
  const c = await connect2026(srv);
  assert.equal(c.getServerVersion()?.name, "vthost");
  const { tools } = await c.listTools();
  assert.deepEqual(tools.map((t) => t.name), DEFAULT_TOOLS);
  const r = await c.callTool({ name: "exec_command", arguments: { cmd: "read line; echo got:$line", yield_time_ms: 300 } });
  const sid = r.structuredContent.session_id;
  assert.ok(sid !== undefined, text(r));
  const w = await c.callTool({ name: "write_stdin", arguments: { session_id: sid, chars: "over-http\n", yield_time_ms: 3000 } });
  assert.match(w.structuredContent.output, /got:over-http/, text(w));
  const patch = "*** Begin Patch\n*** Add File: notes/v2.txt\n+from the v2 client\n*** End Patch\n";
  const p = await c.callTool({ name: "apply_patch", arguments: { input: patch } });
  assert.ok(!p.isError, text(p));
  assert.equal(readFileSync(join(srv.ws, "notes/v2.txt"), "utf8"), "from the v2 client\n");
  const s = await c.callTool({ name: "search_tools", arguments: { query: "read a file" } });
  assert.ok(!s.isError, text(s));
  // no session was made for it (every earlier line is out once the
  // search's is)
  await waitFor(() => /"tool":"search_tools"/.test(srv.stderr()), 3000, "the search's access line");
  assert.doesNotMatch(srv.stderr(), /"rpc":"initialize"/);
});

test("approvals come as input_required over HTTP: approve runs once, deny runs nothing", async () => {
  const srv = await startServer({ toml: "" }); // no allow rules: exec_command asks
  const c = await connect2026(srv, { capabilities: { elicitation: {} } });
  const asked = [];
  let answer = "approve";
  c.setRequestHandler("elicitation/create", async (req) => {
    asked.push(req.params.message);
    return { action: "accept", content: { decision: answer } };
  });
  const ok = await c.callTool({ name: "exec_command", arguments: { cmd: "echo approved-run >> count.txt" } });
  assert.equal(asked.length, 1);
  assert.match(asked[0], /exec_command/);
  assert.ok(!ok.isError, text(ok));
  assert.equal(runs(srv.ws), 1, "the approved call ran exactly once");
  answer = "deny";
  const no = await c.callTool({ name: "exec_command", arguments: { cmd: "echo denied-run >> count.txt" } });
  assert.equal(asked.length, 2);
  assert.equal(no.isError, true);
  assert.equal(runs(srv.ws), 1, "the denied call ran nothing");
});

test("a v1 client keeps its 2025 session beside a v2 client", async () => {
  const srv = await startServer();
  const modern = await connect2026(srv);
  const old = await connect(srv);
  assert.match(old.transportRef.sessionId, /^[0-9a-f]{32}$/);
  const a = await old.callTool({ name: "exec_command", arguments: { cmd: "echo from-2025" } });
  const b = await modern.callTool({ name: "exec_command", arguments: { cmd: "echo from-2026" } });
  assert.match(a.structuredContent.output, /from-2025/);
  assert.match(b.structuredContent.output, /from-2026/);
});

test("search_tools: the change comes on the subscriptions/listen stream over HTTP", async () => {
  const dir = process.env.VTHOST_CATALOG_DIR;
  assert.ok(dir && existsSync(join(dir, "catalog_fixture.so")), `catalog fixture plugin in ${dir}`);
  const srv = await startServer({
    toml: '[permissions]\nallow = ["exec_command", "search_tools", "github_review_pull_request"]\n',
    pluginDirs: [dir],
  });
  let changed = 0;
  const c = await connect2026(srv, { listChanged: { tools: { onChanged: () => changed++ } } });
  assert.deepEqual((await c.listTools()).tools.map((t) => t.name), DEFAULT_TOOLS);
  const r = await c.callTool({ name: "search_tools", arguments: { query: "GitHub pull request review", limit: 2 } });
  assert.ok(!r.isError, text(r));
  await waitFor(() => changed > 0, 5000, "notifications/tools/list_changed on the subscription");
  const names = (await c.listTools()).tools.map((t) => t.name);
  assert.ok(names.includes("github_review_pull_request"), names.join(","));
});
