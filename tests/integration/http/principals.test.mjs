// Two OAuth principals (two subjects of one issuer) on one server cannot
// reach each other's command sessions, in either era: a 2025 session's
// belong to that session, a 2026-07-28 request's to its principal.  The
// attack is tried for real: the other principal writes to the session's
// stdin, and the file that input would create must never appear.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { generateKeyPairSync, createSign } from "node:crypto";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startServer, cleanup, post, initSession, sleep, scratchDir } from "./http_lib.mjs";

after(cleanup);

const ISS = "https://auth.vthost.test";
const AUD = "https://vthost.test/mcp";
const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const dir = scratchDir("vthost-principals-");
writeFileSync(join(dir, "jwks.json"), JSON.stringify({ keys: [{ ...publicKey.export({ format: "jwk" }), kid: "k1", use: "sig", alg: "RS256" }] }));

const b64u = (x) => Buffer.from(x).toString("base64url");
function jwt(sub) {
  const now = Math.floor(Date.now() / 1000);
  const input = `${b64u(JSON.stringify({ alg: "RS256", typ: "JWT", kid: "k1" }))}.${b64u(JSON.stringify({ iss: ISS, aud: AUD, sub, iat: now, exp: now + 600 }))}`;
  const s = createSign("SHA256");
  s.update(input);
  return `${input}.${s.sign(privateKey).toString("base64url")}`;
}

const catalog = process.env.VTHOST_CATALOG_DIR;
assert.ok(catalog && existsSync(join(catalog, "catalog_fixture.so")), `catalog fixture plugin in ${catalog}`);
const srv = await startServer({
  httpToml: `public_url = "${AUD}"\n[oauth]\nissuer = "${ISS}"\njwks_file = "${join(dir, "jwks.json")}"\n`,
  toml: '[permissions]\nallow = ["exec_command", "write_stdin", "search_tools", "github_review_pull_request"]\n',
  pluginDirs: [catalog],
});
const alice = jwt("alice");
const mallory = jwt("mallory");

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};
const H26 = { "MCP-Protocol-Version": "2026-07-28", Accept: "application/json" };
const call = (id, name, args, meta) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args, ...(meta && { _meta: meta }) } });
// a command that waits for one line and creates the file it names
const waiter = (id, meta) => call(id, "exec_command", { cmd: "read f; touch \"$f\"; echo made:$f", yield_time_ms: 300 }, meta);
const feed = (id, sid, file, meta) => call(id, "write_stdin", { session_id: sid, chars: `${file}\n`, yield_time_ms: 2000 }, meta);

test("2026-07-28: another principal's write_stdin is 'not found'; the owner's own reaches it", async () => {
  const r = await post(srv, waiter(1, META), { token: alice, headers: H26 });
  assert.equal(r.status, 200, r.text);
  const sid = r.json.result.structuredContent.session_id;
  assert.ok(sid !== undefined, r.text);
  const attack = await post(srv, feed(2, sid, "mallory-2026", META), { token: mallory, headers: H26 });
  assert.equal(attack.status, 200, attack.text);
  assert.equal(attack.json.result.isError, true, attack.text);
  assert.match(JSON.stringify(attack.json.result), /not found|unknown|no (such )?session/i);
  await sleep(300);
  assert.ok(!existsSync(join(srv.ws, "mallory-2026")), "the other principal's input reached the command");
  // a later request of the same principal (no session in this era) does
  const own = await post(srv, feed(3, sid, "alice-2026", META), { token: alice, headers: H26 });
  assert.match(own.json.result.structuredContent.output, /made:alice-2026/, own.text);
  assert.ok(existsSync(join(srv.ws, "alice-2026")));
});

test("2025 sessions: another principal's session cannot reach them, nor a 2026 request of it", async () => {
  const sa = await initSession(srv, { token: alice });
  const r = await post(srv, waiter(1), { token: alice, session: sa, headers: { Accept: "application/json" } });
  const sid = r.json.result.structuredContent.session_id;
  assert.ok(sid !== undefined, r.text);
  const sm = await initSession(srv, { token: mallory });
  const viaSession = await post(srv, feed(2, sid, "mallory-2025", null), { token: mallory, session: sm, headers: { Accept: "application/json" } });
  assert.equal(viaSession.json.result.isError, true, viaSession.text);
  const viaStateless = await post(srv, feed(3, sid, "mallory-2026b", META), { token: mallory, headers: H26 });
  assert.equal(viaStateless.json.result.isError, true, viaStateless.text);
  // mallory cannot use alice's session id either
  const hijack = await post(srv, feed(4, sid, "mallory-hijack", null), { token: mallory, session: sa, headers: { Accept: "application/json" } });
  assert.equal(hijack.status, 404);
  await sleep(300);
  for (const f of ["mallory-2025", "mallory-2026b", "mallory-hijack"]) assert.ok(!existsSync(join(srv.ws, f)), f);
  const own = await post(srv, feed(5, sid, "alice-2025", null), { token: alice, session: sa, headers: { Accept: "application/json" } });
  assert.match(own.json.result.structuredContent.output, /made:alice-2025/, own.text);
});

test("2026-07-28: a principal's spooled output is its own later requests', never another principal's", async () => {
  const r = await post(srv, call(1, "exec_command", { cmd: "seq 1 30000", max_output_tokens: 50 }, META), { token: alice, headers: H26 });
  const path = r.json.result.structuredContent.spool_path;
  assert.match(path ?? "", /^\.vtcode\/context\/tool_outputs\/c-[0-9a-f]{16}\//, r.text);
  const view = path.split("/")[3];
  const own = await post(srv, call(2, "exec_command", { cmd: `wc -l < ${path}` }, META), { token: alice, headers: H26 });
  assert.match(own.json.result.structuredContent.output, /^30000\n/, own.text);
  const read = await post(srv, call(3, "exec_command", { cmd: `cat ${path} 2>/dev/null | wc -l; test -e ${path} && echo EXISTS; ls -aR .vtcode/context/tool_outputs; true` }, META), { token: mallory, headers: H26 });
  const out = read.json.result.structuredContent.output;
  assert.match(out, /^0$/m, out);
  assert.doesNotMatch(out, /EXISTS/, out);
  assert.doesNotMatch(out, new RegExp(view), out);
});

const FOUND = "github_review_pull_request";
const names = (r) => r.json.result.tools.map((t) => t.name);
const search = (id, meta) => call(id, "search_tools", { query: "GitHub pull request review", limit: 2 }, meta);
const review = (id, meta) => call(id, FOUND, { owner: "o", repo: "r", pull_number: 7, event: "COMMENT" }, meta);
const failed = (r) => Boolean(r.json.error) || r.json.result?.isError === true;

test("2026-07-28: tools a principal's search found are listed and callable for it alone", async () => {
  const list = (token) => post(srv, { jsonrpc: "2.0", id: 9, method: "tools/list", params: { _meta: META } }, { token, headers: H26 });
  assert.ok(!names(await list(alice)).includes(FOUND));
  const s = await post(srv, search(1, META), { token: alice, headers: H26 });
  assert.equal(s.json.result.isError, undefined, s.text);
  assert.ok(names(await list(alice)).includes(FOUND), "alice's list has the found tool");
  assert.ok(!names(await list(mallory)).includes(FOUND), "mallory's list never changed");
  const theirs = await post(srv, review(2, META), { token: mallory, headers: H26 });
  assert.ok(failed(theirs), theirs.text);
  const mine = await post(srv, review(3, META), { token: alice, headers: H26 });
  assert.ok(!failed(mine), mine.text);
});

test("2025 sessions: one session's search never changes another session's list", async () => {
  const a = await initSession(srv, { token: mallory });
  const b = await initSession(srv, { token: mallory });
  const opts = (session) => ({ token: mallory, session, headers: { Accept: "application/json" } });
  const list = (session) => post(srv, { jsonrpc: "2.0", id: 9, method: "tools/list" }, opts(session));
  const s = await post(srv, search(1), opts(a));
  assert.ok(!failed(s), s.text);
  const la = await list(a);
  assert.ok(names(la).includes(FOUND), `the searching session lists it: ${s.text.slice(0, 600)} ${la.text.slice(0, 300)}`);
  assert.ok(!names(await list(b)).includes(FOUND), "the other session's list never changed");
  assert.ok(failed(await post(srv, review(2), opts(b))));
  assert.ok(!failed(await post(srv, review(3), opts(a))));
});
