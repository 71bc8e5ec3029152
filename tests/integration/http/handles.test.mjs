// Handles of 2026-07-28 clients over `vthost serve --http`: a running
// command's session_id reaches such a client as 128 random bits (32 hex
// digits), not the small integer the exec plugin counts with; the handle
// is bound to its principal and ends with its command.  Another
// principal's use of it, a small integer guessed, a made-up handle and
// an ended one all read the same "not found", and the input never
// reaches the command (the file it would create must not appear).  The
// 2025 era keeps its integers.  Two principals: two OAuth subjects of
// one issuer; the SDK v2 client (@modelcontextprotocol/client, from
// tests/integration/mcp2026/node_modules) for the first test.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { generateKeyPairSync, createSign, randomBytes } from "node:crypto";
import { existsSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { startServer, cleanup, post, initSession, sleep, text, scratchDir } from "./http_lib.mjs";

after(cleanup);

const here = dirname(fileURLToPath(import.meta.url));
const v2 = join(here, "..", "mcp2026", "node_modules", "@modelcontextprotocol", "client");
if (!existsSync(join(v2, "package.json"))) {
  console.error(`The SDK v2 client is not installed. Run ./setup.sh test, or: npm ci --prefix ${join(here, "..", "mcp2026")}`);
  process.exit(1);
}
const { Client, StreamableHTTPClientTransport } = await import(pathToFileURL(join(v2, "dist", "index.mjs")).href);

const ISS = "https://auth.vthost.test";
const AUD = "https://vthost.test/mcp";
const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const dir = scratchDir("vthost-handles-");
writeFileSync(join(dir, "jwks.json"), JSON.stringify({ keys: [{ ...publicKey.export({ format: "jwk" }), kid: "k1", use: "sig", alg: "RS256" }] }));
const b64u = (x) => Buffer.from(x).toString("base64url");
function jwt(sub) {
  const now = Math.floor(Date.now() / 1000);
  const input = `${b64u(JSON.stringify({ alg: "RS256", typ: "JWT", kid: "k1" }))}.${b64u(JSON.stringify({ iss: ISS, aud: AUD, sub, iat: now, exp: now + 600 }))}`;
  const s = createSign("SHA256");
  s.update(input);
  return `${input}.${s.sign(privateKey).toString("base64url")}`;
}

const srv = await startServer({
  httpToml: `public_url = "${AUD}"\n[oauth]\nissuer = "${ISS}"\njwks_file = "${join(dir, "jwks.json")}"\n`,
  toml: '[permissions]\nallow = ["exec_command", "write_stdin"]\n',
});
const alice = jwt("alice");
const mallory = jwt("mallory");

const clients = [];
after(async () => {
  for (const c of clients) await c.close().catch(() => {});
});

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};
const H26 = { "MCP-Protocol-Version": "2026-07-28", Accept: "application/json" };
const call = (id, name, args, meta) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args, ...(meta && { _meta: meta }) } });
// a command that waits for lines and creates the file each names
const waiter = (id, meta) => call(id, "exec_command", { cmd: 'while read f; do touch "$f"; echo made:$f; done', yield_time_ms: 300 }, meta);
const feed = (id, sid, file, meta) => call(id, "write_stdin", { session_id: sid, chars: `${file}\n`, yield_time_ms: 1500 }, meta);
const errorText = (r) => r.json.result?.structuredContent?.error ?? r.json.result?.content?.[0]?.text ?? r.text;
const HANDLE = /^[0-9a-f]{32}$/;

test("the SDK v2 client gets a 128-bit session_id over HTTP, write_stdin works with it, and it ends with its command", async () => {
  const transport = new StreamableHTTPClientTransport(new URL(srv.url), {
    requestInit: { headers: { Authorization: `Bearer ${alice}` } },
  });
  const c = new Client({ name: "vthost-handles", version: "1.0.0" }, { capabilities: {}, versionNegotiation: { mode: "auto" } });
  await c.connect(transport);
  clients.push(c);
  assert.equal(c.getNegotiatedProtocolVersion(), "2026-07-28");
  const r = await c.callTool({ name: "exec_command", arguments: { cmd: "read line; echo got:$line", yield_time_ms: 300 } });
  const sid = r.structuredContent.session_id;
  assert.match(String(sid), HANDLE, `an opaque handle, not a counter: ${text(r)}`);
  const poll = await c.callTool({ name: "write_stdin", arguments: { session_id: sid, chars: "", yield_time_ms: 100 } });
  assert.equal(poll.structuredContent.session_id, sid, "the same handle while the command runs");
  const w = await c.callTool({ name: "write_stdin", arguments: { session_id: sid, chars: "over-http\n", yield_time_ms: 3000 } });
  assert.ok(!w.isError, text(w));
  assert.match(w.structuredContent.output, /got:over-http/, text(w));
  assert.equal(w.structuredContent.is_exited, true, text(w));
  // the command's exit was reported: its handle ended with it
  const again = await c.callTool({ name: "write_stdin", arguments: { session_id: sid, chars: "" } });
  assert.equal(again.isError, true, text(again));
  assert.match(text(again), /session_id not found/);
});

test("another principal's use of a handle, a guessed integer and a made-up handle are all 'not found'", async () => {
  const r = await post(srv, waiter(1, META), { token: alice, headers: H26 });
  assert.equal(r.status, 200, r.text);
  const sid = r.json.result.structuredContent.session_id;
  assert.match(String(sid), HANDLE, r.text);
  const made = await post(srv, feed(2, randomBytes(16).toString("hex"), "nobody", META), { token: alice, headers: H26 });
  assert.equal(made.json.result.isError, true, made.text);
  const notFound = errorText(made);
  assert.match(notFound, /not found/);
  const attack = await post(srv, feed(3, sid, "mallory-handle", META), { token: mallory, headers: H26 });
  assert.equal(attack.json.result.isError, true, attack.text);
  assert.equal(errorText(attack), notFound, "another principal's handle reads exactly as an unknown one");
  // the exec plugin numbers sessions from 1: guess them, as the owner
  // herself and as the other principal, as numbers and as strings
  for (const guess of [1, 2, 3, 4, 5, "1", "2"]) {
    for (const [who, token] of [["alice", alice], ["mallory", mallory]]) {
      const g = await post(srv, feed(4, guess, `guess-${who}-${guess}`, META), { token, headers: H26 });
      assert.equal(g.json.result.isError, true, `${who} guessing ${guess}: ${g.text}`);
      assert.equal(errorText(g), notFound, g.text);
    }
  }
  await sleep(300);
  const own = await post(srv, feed(5, sid, "alice-own", META), { token: alice, headers: H26 });
  assert.match(own.json.result.structuredContent.output, /made:alice-own/, own.text);
  assert.equal(own.json.result.structuredContent.session_id, sid);
  assert.ok(existsSync(join(srv.ws, "alice-own")));
  for (const guess of [1, 2, 3, 4, 5, "1", "2"])
    for (const who of ["alice", "mallory"]) assert.ok(!existsSync(join(srv.ws, `guess-${who}-${guess}`)), `a guessed ${guess} reached a command (${who})`);
  assert.ok(!existsSync(join(srv.ws, "mallory-handle")), "the other principal's input reached the command");
  assert.ok(!existsSync(join(srv.ws, "nobody")));
});

test("the 2025 era keeps its integers, and cannot use a 2026 handle", async () => {
  const r26 = await post(srv, waiter(1, META), { token: alice, headers: H26 });
  const handle = r26.json.result.structuredContent.session_id;
  assert.match(String(handle), HANDLE, r26.text);
  const sa = await initSession(srv, { token: alice });
  const r = await post(srv, waiter(2), { token: alice, session: sa, headers: { Accept: "application/json" } });
  const sid = r.json.result.structuredContent.session_id;
  assert.equal(typeof sid, "number", r.text);
  const own = await post(srv, feed(3, sid, "alice-2025", null), { token: alice, session: sa, headers: { Accept: "application/json" } });
  assert.match(own.json.result.structuredContent.output, /made:alice-2025/, own.text);
  const cross = await post(srv, feed(4, handle, "via-2025", null), { token: alice, session: sa, headers: { Accept: "application/json" } });
  assert.equal(cross.json.result.isError, true, cross.text);
  await sleep(300);
  assert.ok(!existsSync(join(srv.ws, "via-2025")));
});
