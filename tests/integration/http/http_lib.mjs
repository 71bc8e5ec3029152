// Shared helpers of the HTTP transport tests: a `vthost serve --http`
// on 127.0.0.1 with a port of its own choosing, in a scratch workspace
// and a scratch XDG_CONFIG_HOME (its token file and http.toml), and the
// official SDK client's Streamable HTTP transport.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { requireClients, vthostBin, nodeModules, makeWorkspace, removeWorkspace, serverArgs, ALLOW_ALL } from "../mcp/lib.mjs";

requireClients();
export const bin = vthostBin();
export const sdk = (p) => import(pathToFileURL(join(nodeModules, "@modelcontextprotocol/sdk/dist/esm", p)).href);
export { ALLOW_ALL };

const cleanups = [];

// A scratch directory of the test's own, removed with everything else at
// cleanup().
export function scratchDir(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
export async function cleanup() {
  for (const f of cleanups.splice(0)) await f();
}

// Start a server; resolves once it prints its URL.
export async function startServer({ toml = ALLOW_ALL, httpToml = "", extraArgs = [], pluginDirs = [], tokenFile, listen = "127.0.0.1:0" } = {}) {
  const ws = makeWorkspace(toml);
  const cfg = mkdtempSync(join(tmpdir(), "vthost-http-cfg-"));
  mkdirSync(join(cfg, "vthost"), { recursive: true, mode: 0o700 });
  // 0600: an http.toml holding a client secret must be its owner's only
  if (httpToml) writeFileSync(join(cfg, "vthost", "http.toml"), httpToml, { mode: 0o600 });
  const args = [...serverArgs(ws, { pluginDirs }), "--http", listen, ...extraArgs];
  if (tokenFile) args.push("--token-file", tokenFile);
  const child = spawn(bin, args, { env: { ...process.env, XDG_CONFIG_HOME: cfg }, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  // a test process that dies early (a closed output pipe) leaves no server behind
  process.on("exit", () => child.exitCode === null && child.signalCode === null && child.kill("SIGKILL"));
  const exited = new Promise((r) => child.on("exit", (code, sig) => r({ code, sig })));
  const url = await new Promise((resolve, reject) => {
    const t = setInterval(() => {
      const m = stderr.match(/serving MCP over HTTP at \S+ \(listening on (\S+),/);
      if (m) {
        clearInterval(t);
        resolve(m[1]);
      }
    }, 20);
    exited.then((e) => {
      clearInterval(t);
      reject(new Error(`server exited (${JSON.stringify(e)}): ${stderr}`));
    });
  });
  const tf = tokenFile ?? join(cfg, "vthost", "http-token");
  const token = existsSync(tf) ? readFileSync(tf, "utf8").trim() : null; // none in OAuth mode
  const srv = {
    url,
    base: url.replace(/\/mcp$/, ""),
    token,
    ws,
    cfg,
    child,
    exited,
    stderr: () => stderr,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      const e = await exited;
      return e;
    },
  };
  cleanups.push(async () => {
    await srv.stop();
    removeWorkspace(ws);
    rmSync(cfg, { recursive: true, force: true });
    // every server of a test, not only the ones a test looks at (ASan builds)
    const bad = stderr.match(/.*(Sanitizer|runtime error).*/);
    if (bad) throw new Error(`server ${url}: ${bad[0]}`);
  });
  return srv;
}

// An SDK client on `srv` (token: the server's unless given).
export async function connect(srv, { token = srv.token, capabilities = {}, headers = {}, name = "vthost-http-test" } = {}) {
  const { Client } = await sdk("client/index.js");
  const { StreamableHTTPClientTransport } = await sdk("client/streamableHttp.js");
  const transport = new StreamableHTTPClientTransport(new URL(srv.url), {
    requestInit: { headers: { Authorization: `Bearer ${token}`, ...headers } },
  });
  const client = new Client({ name, version: "1.0.0" }, { capabilities });
  await client.connect(transport);
  client.transportRef = transport;
  cleanups.push(() => client.close().catch(() => {}));
  return client;
}

// A raw request (fetch) to the MCP endpoint.
export async function post(srv, body, { token = srv.token, session, headers = {}, raw } = {}) {
  const h = { "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...headers };
  if (token !== null) h.Authorization = `Bearer ${token}`;
  if (session) h["Mcp-Session-Id"] = session;
  const res = await fetch(srv.url, { method: "POST", headers: h, body: raw ?? JSON.stringify(body) });
  const text = await res.text();
  let json = null;
  try {
    json = JSON.parse(text);
  } catch {}
  return { status: res.status, headers: res.headers, text, json };
}

export const INIT = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

export async function initSession(srv, opts = {}) {
  const r = await post(srv, INIT, opts);
  if (r.status !== 200) throw new Error(`initialize: ${r.status} ${r.text}`);
  const session = r.headers.get("mcp-session-id");
  await post(srv, { jsonrpc: "2.0", method: "notifications/initialized" }, { ...opts, session });
  return session;
}

export { sleep, text, aliveMarker } from "../mcp/lib.mjs";
import { sleep } from "../mcp/lib.mjs";

export async function waitFor(cond, ms, what) {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

// A permission prompt goes to the calling session's client as elicitation:
// approved, `echo APPROVED` runs; denied, `echo DENIED > FILE` writes
// nothing (FILE stays absent in the workspace); the other session's client
// is never asked.  Returns both clients and how often the other was asked.
export async function promptGoesToCaller(srv, { approved, denied, file }) {
  const { ElicitRequestSchema } = await sdk("types.js");
  const c = await connect(srv, { capabilities: { elicitation: {} } });
  const other = await connect(srv, { capabilities: { elicitation: {} } });
  const asked = [];
  let otherAsked = 0;
  let answer = "approve";
  c.setRequestHandler(ElicitRequestSchema, async (req) => {
    asked.push(req.params.message);
    return { action: "accept", content: { decision: answer } };
  });
  other.setRequestHandler(ElicitRequestSchema, async () => {
    otherAsked++;
    return { action: "accept", content: { decision: "approve" } };
  });
  const ok = await c.callTool({ name: "exec_command", arguments: { cmd: `echo ${approved}` } });
  assert.equal(asked.length, 1);
  assert.match(asked[0], /exec_command/);
  assert.match(ok.structuredContent.output, new RegExp(approved));
  answer = "deny";
  const no = await c.callTool({ name: "exec_command", arguments: { cmd: `echo ${denied} > ${file}` } });
  assert.equal(no.isError, true);
  assert.ok(!existsSync(join(srv.ws, file)));
  assert.equal(asked.length, 2);
  assert.equal(otherAsked, 0, "the other session's client was never asked");
  return { c, other, otherAsked: () => otherAsked };
}
