// `vthost serve --http` as an OAuth 2.1 resource server: JWT access tokens
// checked against the authorization server's keys (a JWKS file) for
// signature, iss, aud and exp; RFC 9728 metadata; 401 with
// WWW-Authenticate naming it; sessions owned per token subject.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { generateKeyPairSync, createSign, createHmac } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { startServer, connect, cleanup, post, initSession, INIT, text, bin, sleep, scratchDir } from "./http_lib.mjs";

after(cleanup);

const ISS = "https://auth.vthost.test";
const AUD = "https://vthost.test/mcp";
const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const other = generateKeyPairSync("rsa", { modulusLength: 2048 });
const ec = generateKeyPairSync("ec", { namedCurve: "P-256" });
const jwk = { ...publicKey.export({ format: "jwk" }), kid: "k1", use: "sig", alg: "RS256" };
const ecJwk = { ...ec.publicKey.export({ format: "jwk" }), kid: "e1", use: "sig" };
const dir = scratchDir("vthost-oauth-");
writeFileSync(join(dir, "jwks.json"), JSON.stringify({ keys: [jwk, ecJwk] }));

const b64u = (x) => Buffer.from(x).toString("base64url");
function jwt(claims, { key = privateKey, alg = "RS256", kid = "k1", hmacKey } = {}) {
  const now = Math.floor(Date.now() / 1000);
  const header = b64u(JSON.stringify({ alg, typ: "JWT", kid }));
  const body = b64u(JSON.stringify({ iss: ISS, aud: AUD, sub: "alice", scope: "openid mcp:tools", iat: now, exp: now + 300, ...claims }));
  const input = `${header}.${body}`;
  if (alg === "none") return `${input}.`;
  if (alg.startsWith("HS")) return `${input}.${createHmac("sha256", hmacKey).update(input).digest("base64url")}`;
  const s = createSign("SHA256");
  s.update(input);
  const sig = alg.startsWith("ES") ? s.sign({ key, dsaEncoding: "ieee-p1363" }) : s.sign(key);
  return `${input}.${sig.toString("base64url")}`;
}

const srv = await startServer({
  httpToml: `public_url = "${AUD}"
[oauth]
issuer = "${ISS}"
jwks_file = "${join(dir, "jwks.json")}"
authorization_servers = ["${ISS}"]
scopes = "mcp:tools"
`,
});

test("RFC 9728 metadata names the resource and its authorization server", async () => {
  for (const path of ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"]) {
    const r = await fetch(srv.base + path);
    assert.equal(r.status, 200);
    const m = await r.json();
    assert.equal(m.resource, AUD);
    assert.deepEqual(m.authorization_servers, [ISS]);
    assert.deepEqual(m.scopes_supported, ["mcp:tools"]);
  }
});

// RFC 9728 (and MCP 2025-11-25, and the SDK's schema of the document)
// has no member for a client id: a pre-registered client is configured
// in each agent (docs/clients.md), never published under a made-up name
// a client would ignore.
const RFC9728_MEMBERS = new Set([
  "resource", "authorization_servers", "jwks_uri", "scopes_supported", "bearer_methods_supported",
  "resource_signing_alg_values_supported", "resource_name", "resource_documentation", "resource_policy_uri",
  "resource_tos_uri", "tls_client_certificate_bound_access_tokens", "authorization_details_types_supported",
  "dpop_signing_alg_values_supported", "dpop_bound_access_tokens_required", "signed_metadata",
]);
test("with a pre-registered client id the metadata holds only RFC 9728 members", async () => {
  const s = await startServer({
    httpToml: `public_url = "${AUD}"\n[oauth]\nissuer = "${ISS}"\njwks_file = "${join(dir, "jwks.json")}"\nclient_id = "vthost-agents-7f3"\n`,
  });
  const r = await fetch(s.base + "/.well-known/oauth-protected-resource/mcp");
  assert.equal(r.status, 200);
  const body = await r.text();
  const m = JSON.parse(body);
  assert.equal(m.resource, AUD);
  assert.deepEqual(m.authorization_servers, [ISS]);
  for (const k of Object.keys(m)) assert.ok(RFC9728_MEMBERS.has(k), `'${k}' is not an RFC 9728 member`);
  assert.doesNotMatch(body, /vthost-agents-7f3/);
});

test("no token: 401 whose WWW-Authenticate points at the metadata", async () => {
  const r = await post(srv, INIT, { token: null });
  assert.equal(r.status, 401);
  const www = r.headers.get("www-authenticate");
  assert.match(www, /^Bearer resource_metadata="https:\/\/vthost\.test\/\.well-known\/oauth-protected-resource\/mcp"/);
  assert.match(www, /scope="mcp:tools"/);
});

test("a valid access token (RSA, and EC P-256) runs the SDK client and a tool", async () => {
  const c = await connect(srv, { token: jwt({}) });
  const r = await c.callTool({ name: "exec_command", arguments: { cmd: "echo oauth-ok" } });
  assert.match(r.structuredContent.output, /oauth-ok/, text(r));
  const e = await post(srv, INIT, { token: jwt({ sub: "ec-user" }, { key: ec.privateKey, alg: "ES256", kid: "e1" }) });
  assert.equal(e.status, 200, e.text);
});

test("expired, wrong audience, wrong issuer, no exp, foreign key, alg none, HS256 with the public key: 401", async () => {
  const now = Math.floor(Date.now() / 1000);
  const pem = publicKey.export({ type: "spki", format: "pem" });
  const cases = {
    expired: [jwt({ exp: now - 120 }), /expired/],
    audience: [jwt({ aud: "https://elsewhere.test/mcp" }), /aud/],
    issuer: [jwt({ iss: "https://evil.test" }), /iss/],
    noexp: [jwt({ exp: undefined }), /exp/],
    foreign: [jwt({}, { key: other.privateKey }), /signature/],
    none: [jwt({}, { alg: "none" }), /alg/],
    confusion: [jwt({}, { alg: "HS256", hmacKey: pem }), /alg/],
    garbage: ["not-a-jwt", /not a JWT/],
  };
  for (const [name, [tok, why]] of Object.entries(cases)) {
    const r = await post(srv, INIT, { token: tok });
    assert.equal(r.status, 401, name);
    const www = r.headers.get("www-authenticate");
    assert.match(www, /error="invalid_token"/, name);
    assert.match(www, why, `${name}: ${www}`);
  }
  // an audience array naming this server is fine
  assert.equal((await post(srv, INIT, { token: jwt({ aud: ["x", AUD] }) })).status, 200);
});

test("a session belongs to its token's subject: another subject gets 404", async () => {
  const alice = jwt({ sub: "alice" });
  const sid = await initSession(srv, { token: alice });
  const bob = await post(srv, { jsonrpc: "2.0", id: 2, method: "tools/list" }, { token: jwt({ sub: "bob" }), session: sid });
  assert.equal(bob.status, 404);
  const mine = await post(srv, { jsonrpc: "2.0", id: 2, method: "tools/list" }, { token: alice, session: sid });
  assert.equal(mine.status, 200);
  assert.doesNotMatch(srv.stderr(), new RegExp(alice.slice(-20)));
});

test("a valid token without the configured scope is 403 insufficient_scope; scope or scp grant it", async () => {
  for (const claims of [{ scope: undefined }, { scope: "openid" }, { scope: "mcp:tool" }, { scp: ["other"], scope: undefined }]) {
    const r = await post(srv, INIT, { token: jwt(claims) });
    assert.equal(r.status, 403, JSON.stringify(claims));
    const www = r.headers.get("www-authenticate");
    assert.match(www, /error="insufficient_scope"/);
    assert.match(www, /scope="mcp:tools"/);
    assert.equal(r.headers.get("mcp-session-id"), null);
  }
  for (const claims of [{ scope: "mcp:tools" }, { scp: ["a", "mcp:tools"], scope: undefined }, { scp: "mcp:tools", scope: undefined }])
    assert.equal((await post(srv, INIT, { token: jwt(claims) })).status, 200, JSON.stringify(claims));
  // a session's later requests are judged again: a token without the scope is refused there too
  const sid = await initSession(srv, { token: jwt({}) });
  const r = await post(srv, { jsonrpc: "2.0", id: 2, method: "tools/list" }, { token: jwt({ scope: "openid" }), session: sid });
  assert.equal(r.status, 403);
});

test("max_sessions caps the sessions of all subjects together (503), the per-subject cap stays 429", async () => {
  const s2 = await startServer({
    httpToml: `public_url = "${AUD}"
max_sessions = 3
max_sessions_per_client = 2
[oauth]
issuer = "${ISS}"
jwks_file = "${join(dir, "jwks.json")}"
`,
  });
  const a = jwt({ sub: "a" }), b = jwt({ sub: "b" }), c = jwt({ sub: "c" });
  await initSession(s2, { token: a });
  await initSession(s2, { token: a });
  // at its own limit a's least recently used idle session makes room
  assert.equal((await post(s2, INIT, { token: a })).status, 200, "a replaces its idle session");
  const bs = await initSession(s2, { token: b });
  const full = await post(s2, INIT, { token: c });
  assert.equal(full.status, 503, full.text);
  assert.ok(Number(full.headers.get("retry-after")) > 0);
  assert.match(full.text, /max_sessions/);
  // one ends: room again
  await fetch(s2.url, { method: "DELETE", headers: { Authorization: `Bearer ${b}`, "Mcp-Session-Id": bs } });
  assert.equal((await post(s2, INIT, { token: c })).status, 200);
});

test("jwks_url: keys fetched at start, fetched again for a rotated key (rate-limited), the old key then refused", async () => {
  const k2 = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const jwk2 = { ...k2.publicKey.export({ format: "jwk" }), kid: "k2", use: "sig", alg: "RS256" };
  let served = { keys: [jwk] };
  let fetches = 0;
  const as = createServer((req, res) => {
    if (req.url !== "/jwks.json") return res.writeHead(404).end();
    fetches++;
    res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify(served));
  });
  await new Promise((r) => as.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${as.address().port}/jwks.json`;
  try {
    const s2 = await startServer({
      httpToml: `public_url = "${AUD}"\n[oauth]\nissuer = "${ISS}"\njwks_url = "${url}"\n`,
    });
    assert.equal(fetches, 1, "fetched once at start");
    assert.equal((await post(s2, INIT, { token: jwt({}) })).status, 200);
    // the authorization server rotates to k2
    served = { keys: [jwk2] };
    const t2 = jwt({}, { key: k2.privateKey, kid: "k2" });
    assert.equal((await post(s2, INIT, { token: t2 })).status, 401, "not known yet");
    for (let i = 0; i < 5; i++) await post(s2, INIT, { token: jwt({}, { key: other.privateKey, kid: "nope" }) });
    const t0 = Date.now();
    let st = 401;
    while (st !== 200 && Date.now() - t0 < 20000) {
      await sleep(250);
      st = (await post(s2, INIT, { token: t2 })).status;
    }
    assert.equal(st, 200, "the rotated key is fetched");
    assert.equal(fetches, 2, "one fetch for every unknown-key token of the window");
    assert.equal((await post(s2, INIT, { token: jwt({}) })).status, 401, "the retired key is refused");
  } finally {
    as.close();
  }
});

test("jwks_url: a URL that cannot be fetched, or plain http to another machine, is refused at start", () => {
  const cfg = scratchDir("vthost-jwks-");
  mkdirSync(join(cfg, "vthost"), { mode: 0o700 });
  const run = (u) => {
    writeFileSync(join(cfg, "vthost", "http.toml"), `public_url = "${AUD}"\n[oauth]\nissuer = "${ISS}"\njwks_url = "${u}"\n`);
    return spawnSync(bin, ["serve", "--http", "127.0.0.1:0"], { encoding: "utf8", timeout: 30000, cwd: cfg, env: { ...process.env, XDG_CONFIG_HOME: cfg } });
  };
  const closed = run("http://127.0.0.1:1/jwks.json");
  assert.equal(closed.status, 2, closed.stderr);
  assert.match(closed.stderr, /fetching http:\/\/127\.0\.0\.1:1\/jwks\.json/);
  const plain = run("http://auth.example.com/jwks.json");
  assert.equal(plain.status, 2, plain.stderr);
  assert.match(plain.stderr, /jwks_url must be an https:\/\/ URL/);
});
