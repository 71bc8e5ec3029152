// Forged and ambiguous OAuth access tokens against `vthost serve --http`:
// a header or payload that names a member twice, `alg` spelt in another
// case, HS256 with the public key as the HMAC secret, `none`, a `kid`
// naming a key of the other family.  Each is refused with 401 and its
// reason in the server log (never the token); the forged token that
// HMAC-signs a header naming `alg` twice with the PEM of the public JWKS
// does not run a command.  Also: two subjects sharing an 80-character
// prefix are two principals, and jwks_url's loopback exception is judged
// on the URL's parsed host.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { generateKeyPairSync, createSign, createHmac } from "node:crypto";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { startServer, cleanup, post, initSession, INIT, bin, sleep, scratchDir } from "./http_lib.mjs";

after(cleanup);

const ISS = "https://auth.vthost.test";
const AUD = "https://vthost.test/mcp";
const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 });
const ec = generateKeyPairSync("ec", { namedCurve: "P-256" });
const rsaJwk = { ...rsa.publicKey.export({ format: "jwk" }), kid: "k1", use: "sig", alg: "RS256" };
const ecJwk = { ...ec.publicKey.export({ format: "jwk" }), kid: "e1", use: "sig" }; // ES256 by its curve
const dir = scratchDir("vthost-jose-");
writeFileSync(join(dir, "jwks.json"), JSON.stringify({ keys: [rsaJwk, ecJwk] }));
// The PEM vthost builds from the JWKS's RSA key: public by design.
const publicPem = rsa.publicKey.export({ type: "spki", format: "pem" });

const b64u = (x) => Buffer.from(x).toString("base64url");
const now = () => Math.floor(Date.now() / 1000);
const claimsOf = (extra = {}) => JSON.stringify({ iss: ISS, aud: AUD, sub: "alice", iat: now(), exp: now() + 300, ...extra });

// A token from raw header and payload text (so a member can be named
// twice), signed as `sign` says: RS256/ES256 with a private key, HS256
// with an HMAC secret, or nothing.
function token(header, payload, sign) {
  const input = `${b64u(header)}.${b64u(payload)}`;
  if (sign.none) return `${input}.`;
  if (sign.hmac) return `${input}.${createHmac("sha256", sign.hmac).update(input).digest("base64url")}`;
  const s = createSign("SHA256");
  s.update(input);
  const sig = sign.ec ? s.sign({ key: sign.ec, dsaEncoding: "ieee-p1363" }) : s.sign(sign.rsa);
  return `${input}.${sig.toString("base64url")}`;
}
const RS = { rsa: rsa.privateKey };
const ES = { ec: ec.privateKey };

const srv = await startServer({
  httpToml: `public_url = "${AUD}"
max_sessions_per_client = 1
[oauth]
issuer = "${ISS}"
jwks_file = "${join(dir, "jwks.json")}"
`,
});

// The server's log lines that refused a token, after `before` characters.
const refusals = (before) => srv.stderr().slice(before).split("\n").filter((l) => /refused an access token/.test(l));

async function refused(name, tok, why) {
  const before = srv.stderr().length;
  const r = await post(srv, INIT, { token: tok });
  assert.equal(r.status, 401, `${name}: ${r.status} ${r.text}`);
  assert.equal(r.headers.get("mcp-session-id"), null, name);
  assert.match(r.headers.get("www-authenticate"), /error="invalid_token"/, name);
  let lines = [];
  for (let i = 0; i < 50 && lines.length === 0; i++, await sleep(20)) lines = refusals(before);
  assert.equal(lines.length, 1, `${name}: one refusal logged: ${srv.stderr().slice(before)}`);
  assert.match(lines[0], why, `${name}: ${lines[0]}`);
  for (const part of tok.split(".").filter((p) => p.length > 8))
    assert.ok(!srv.stderr().includes(part), `${name}: the token is not in the log`);
}

test("valid RS256 and ES256 tokens are accepted", async () => {
  assert.equal((await post(srv, INIT, { token: token('{"alg":"RS256","typ":"JWT","kid":"k1"}', claimsOf({ sub: "rs" }), RS) })).status, 200);
  assert.equal((await post(srv, INIT, { token: token('{"alg":"ES256","kid":"e1"}', claimsOf({ sub: "es" }), ES) })).status, 200);
  // without kid: the key whose algorithm the header names
  assert.equal((await post(srv, INIT, { token: token('{"alg":"ES256"}', claimsOf({ sub: "es2" }), ES) })).status, 200);
});

test("a header naming alg or kid twice is refused, whatever the signature", async () => {
  await refused("duplicate alg, HS256 with the public PEM", token('{"alg":"RS256","kid":"k1","alg":"HS256"}', claimsOf(), { hmac: publicPem }), /header names a member twice/);
  // a genuine RS256 signature does not make an ambiguous header acceptable
  await refused("duplicate alg, RS256-signed", token('{"alg":"RS256","kid":"k1","alg":"RS256"}', claimsOf(), RS), /header names a member twice/);
  await refused("duplicate kid", token('{"alg":"RS256","kid":"k1","kid":"e1"}', claimsOf(), RS), /header names a member twice/);
  await refused("duplicate nested", token('{"alg":"RS256","kid":"k1","x":{"a":1,"a":2}}', claimsOf(), RS), /header names a member twice/);
});

test("alg spelt in another case is refused: ALG and Alg members, the value rs256", async () => {
  await refused("ALG member", token('{"ALG":"HS256","alg":"RS256","kid":"k1"}', claimsOf(), RS), /another case/);
  await refused("Alg member", token('{"alg":"RS256","Alg":"RS256","kid":"k1"}', claimsOf(), RS), /another case/);
  await refused("only ALG", token('{"ALG":"RS256","kid":"k1"}', claimsOf(), RS), /another case/);
  await refused("value rs256", token('{"alg":"rs256","kid":"k1"}', claimsOf(), RS), /alg is not the algorithm of the key/);
});

test("HS256 with the public key as secret, none, crit: refused", async () => {
  await refused("HS256 with the public PEM", token('{"alg":"HS256","kid":"k1"}', claimsOf(), { hmac: publicPem }), /alg is not the algorithm of the key/);
  await refused("HS256 without kid", token('{"alg":"HS256"}', claimsOf(), { hmac: publicPem }), /alg is not the algorithm of the key/);
  await refused("none", token('{"alg":"none","kid":"k1"}', claimsOf(), { none: true }), /alg is not the algorithm of the key/);
  await refused("crit", token('{"alg":"RS256","kid":"k1","crit":["b64"],"b64":false}', claimsOf(), RS), /crit/);
});

test("a kid naming the key of the other family is refused before any signature work", async () => {
  // RS256-signed, naming the EC key; ES256-signed, naming the RSA key
  await refused("RS256 naming the EC key", token('{"alg":"RS256","kid":"e1"}', claimsOf(), RS), /alg is not the algorithm of the key/);
  await refused("ES256 naming the RSA key", token('{"alg":"ES256","kid":"k1"}', claimsOf(), ES), /alg is not the algorithm of the key/);
  // the right family, the wrong key's signature
  await refused("RS256 by another key", token('{"alg":"RS256","kid":"k1"}', claimsOf(), { rsa: generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey }), /signature does not verify/);
});

test("a payload naming a claim twice, or a subject with a NUL, is refused", async () => {
  const twice = `{"iss":"${ISS}","aud":"${AUD}","sub":"alice","sub":"root","exp":${now() + 300}}`;
  await refused("sub twice", token('{"alg":"RS256","kid":"k1"}', twice, RS), /claims name a member twice/);
  const twiceExp = `{"iss":"${ISS}","aud":"${AUD}","sub":"alice","exp":1,"exp":${now() + 300}}`;
  await refused("exp twice", token('{"alg":"RS256","kid":"k1"}', twiceExp, RS), /claims name a member twice/);
  const nul = `{"iss":"${ISS}","aud":"${AUD}","sub":"alice\\u0000x","exp":${now() + 300}}`;
  await refused("sub with NUL", token('{"alg":"RS256","kid":"k1"}', nul, RS), /NUL/);
  await refused("no sub", token('{"alg":"RS256","kid":"k1"}', claimsOf({ sub: undefined }), RS), /subject \(sub\)/);
  await refused("padded header", token('{"alg":"RS256","kid":"k1"}', claimsOf(), RS).replace(".", "=."), /base64url/);
});

test("the forged token (alg twice, HMAC with the public PEM) runs no command", async () => {
  const marker = join(srv.ws, "forged-marker");
  const forged = token('{"alg":"RS256","kid":"k1","alg":"HS256"}', claimsOf({ sub: "mallory" }), { hmac: publicPem });
  const init = await post(srv, INIT, { token: forged });
  const session = init.headers.get("mcp-session-id");
  // what an attacker does next, whether or not the server let them in
  await post(srv, { jsonrpc: "2.0", method: "notifications/initialized" }, { token: forged, session });
  const call = await post(srv, { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "exec_command", arguments: { cmd: "touch forged-marker" } } }, { token: forged, session });
  await sleep(500);
  assert.equal(existsSync(marker), false, "the forged token ran a command");
  assert.equal(init.status, 401, init.text);
  assert.equal(call.status, 401, call.text);
});

test("two subjects sharing an 80-character prefix are two principals (sessions and limits)", async () => {
  const prefix = "u".repeat(80);
  const a = token('{"alg":"RS256","kid":"k1"}', claimsOf({ sub: `${prefix}-alice` }), RS);
  const b = token('{"alg":"RS256","kid":"k1"}', claimsOf({ sub: `${prefix}-bob` }), RS);
  const sid = await initSession(srv, { token: a });
  const bobUsesAlices = await post(srv, { jsonrpc: "2.0", id: 2, method: "tools/list" }, { token: b, session: sid });
  assert.equal(bobUsesAlices.status, 404, "another subject cannot use the session");
  // max_sessions_per_client = 1: a's new session replaces its idle one; b's
  // limit is b's own and never ends a's
  const a2 = await post(srv, INIT, { token: a });
  assert.equal(a2.status, 200, "at its limit, a's idle session makes room");
  assert.equal((await post(srv, { jsonrpc: "2.0", id: 3, method: "tools/list" }, { token: a, session: sid })).status, 404);
  assert.equal((await post(srv, INIT, { token: b })).status, 200, "b's limit is b's own");
  const mine = a2.headers.get("mcp-session-id");
  assert.equal((await post(srv, { jsonrpc: "2.0", id: 4, method: "tools/list" }, { token: a, session: mine })).status, 200);
});

test("jwks_url: plain http only when the parsed host is this machine", () => {
  const cfg = scratchDir("vthost-jwks-");
  mkdirSync(join(cfg, "vthost"), { mode: 0o700 });
  const run = (u) => {
    writeFileSync(join(cfg, "vthost", "http.toml"), `public_url = "${AUD}"\n[oauth]\nissuer = "${ISS}"\njwks_url = "${u}"\n`);
    return spawnSync(bin, ["serve", "--http", "127.0.0.1:0"], { encoding: "utf8", timeout: 30000, cwd: cfg, env: { ...process.env, XDG_CONFIG_HOME: cfg } });
  };
  for (const u of ["http://127.evil.example/", "http://127.0.0.1.evil.example/", "http://localhost.evil/", "http://127.0.0.1@evil.example/", "http://localhost:80@evil.example/jwks.json", "http://[::1]@evil.example/"]) {
    const r = run(u);
    assert.equal(r.status, 2, `${u}: ${r.stderr}`);
    assert.match(r.stderr, /jwks_url must be an https:\/\/ URL/, u);
    assert.doesNotMatch(r.stderr, /fetching/, `${u} is not fetched`);
  }
  // accepted as loopback: fetched (nothing answers on these ports here)
  for (const u of ["http://127.0.0.1:1/", "http://[::1]:1/", "http://localhost:1/jwks.json"]) {
    const r = run(u);
    assert.equal(r.status, 2, `${u}: ${r.stderr}`);
    assert.doesNotMatch(r.stderr, /jwks_url must be/, u);
    assert.match(r.stderr, /fetching /, u);
  }
});

test("every algorithm verifies with the key that fixes it: RS512, ES384, ES512, a PEM key", async () => {
  const r5 = generateKeyPairSync("rsa", { modulusLength: 3072 });
  const e3 = generateKeyPairSync("ec", { namedCurve: "P-384" });
  const e5 = generateKeyPairSync("ec", { namedCurve: "P-521" });
  const jwks = { keys: [{ ...r5.publicKey.export({ format: "jwk" }), kid: "r5", alg: "RS512" }, { ...e3.publicKey.export({ format: "jwk" }), kid: "e3" }, { ...e5.publicKey.export({ format: "jwk" }), kid: "e5" }] };
  writeFileSync(join(dir, "jwks2.json"), JSON.stringify(jwks));
  const s2 = await startServer({ httpToml: `public_url = "${AUD}"\n[oauth]\nissuer = "${ISS}"\njwks_file = "${join(dir, "jwks2.json")}"\n` });
  const signed = (alg, kid, key, hash, ecKey) => {
    const input = `${b64u(JSON.stringify({ alg, kid }))}.${b64u(claimsOf({ sub: `${alg}-${kid}` }))}`;
    const s = createSign(hash);
    s.update(input);
    return `${input}.${(ecKey ? s.sign({ key, dsaEncoding: "ieee-p1363" }) : s.sign(key)).toString("base64url")}`;
  };
  assert.equal((await post(s2, INIT, { token: signed("RS512", "r5", r5.privateKey, "SHA512") })).status, 200, "RS512");
  assert.equal((await post(s2, INIT, { token: signed("ES384", "e3", e3.privateKey, "SHA384", true) })).status, 200, "ES384");
  assert.equal((await post(s2, INIT, { token: signed("ES512", "e5", e5.privateKey, "SHA512", true) })).status, 200, "ES512");
  // the key's algorithm, not one of its family: RS256 on the RS512 key, ES256 on P-384
  assert.equal((await post(s2, INIT, { token: signed("RS256", "r5", r5.privateKey, "SHA256") })).status, 401, "RS256 on an RS512 key");
  assert.equal((await post(s2, INIT, { token: signed("ES256", "e3", e3.privateKey, "SHA256", true) })).status, 401, "ES256 on a P-384 key");
  assert.match(s2.stderr(), /alg is not the algorithm of the key/);

  // one PEM key with its configured algorithm
  writeFileSync(join(dir, "e3.pem"), e3.publicKey.export({ type: "spki", format: "pem" }));
  const s3 = await startServer({ httpToml: `public_url = "${AUD}"\n[oauth]\nissuer = "${ISS}"\npublic_key_file = "${join(dir, "e3.pem")}"\nalgorithm = "ES384"\n` });
  assert.equal((await post(s3, INIT, { token: signed("ES384", "any", e3.privateKey, "SHA384", true) })).status, 200, "PEM ES384");
  assert.equal((await post(s3, INIT, { token: token('{"alg":"HS256"}', claimsOf(), { hmac: e3.publicKey.export({ type: "spki", format: "pem" }) }) })).status, 401, "HS256 on the PEM key");
});

test("a key file that does not fit is refused at start: a JWKS naming a member twice, a PEM key of another curve", () => {
  const cfg = scratchDir("vthost-keys-");
  mkdirSync(join(cfg, "vthost"), { mode: 0o700 });
  const run = (oauth) => {
    writeFileSync(join(cfg, "vthost", "http.toml"), `public_url = "${AUD}"\n[oauth]\nissuer = "${ISS}"\n${oauth}\n`);
    return spawnSync(bin, ["serve", "--http", "127.0.0.1:0"], { encoding: "utf8", timeout: 30000, cwd: cfg, env: { ...process.env, XDG_CONFIG_HOME: cfg } });
  };
  const twice = JSON.stringify({ keys: [rsaJwk] }).replace('"kty":"RSA"', '"kty":"RSA","kty":"EC"');
  writeFileSync(join(cfg, "twice.json"), twice);
  const a = run(`jwks_file = "${join(cfg, "twice.json")}"`);
  assert.equal(a.status, 2, a.stderr);
  assert.match(a.stderr, /twice\.json is not a JWKS document: it names a member twice/);
  writeFileSync(join(cfg, "ec.pem"), ec.publicKey.export({ type: "spki", format: "pem" }));
  const b = run(`public_key_file = "${join(cfg, "ec.pem")}"\nalgorithm = "ES384"`);
  assert.equal(b.status, 2, b.stderr);
  assert.match(b.stderr, /is no key for algorithm = ES384: it needs an EC key on P-384/);
  const c = run(`public_key_file = "${join(cfg, "ec.pem")}"\nalgorithm = "HS256"`);
  assert.equal(c.status, 2, c.stderr);
  assert.match(c.stderr, /algorithm = RS256, RS384, RS512, ES256, ES384 or ES512, got HS256/);
});

test("public_url: plain http only when the parsed host is this machine", () => {
  const cfg = scratchDir("vthost-public-");
  mkdirSync(join(cfg, "vthost"), { mode: 0o700 });
  const run = (u) => {
    writeFileSync(join(cfg, "vthost", "http.toml"), `public_url = "${u}"\n`);
    const child = spawnSync(bin, ["serve", "--http", "127.0.0.1:0", "--workspace", cfg], { encoding: "utf8", timeout: 3000, cwd: cfg, env: { ...process.env, XDG_CONFIG_HOME: cfg }, killSignal: "SIGKILL" });
    return child;
  };
  for (const u of ["http://localhost.evil/mcp", "http://127.evil.example/mcp", "http://127.0.0.1@evil.example/mcp"]) {
    const r = run(u);
    assert.equal(r.status, 2, `${u}: ${r.stderr}`);
    assert.match(r.stderr, /public_url .* must be an https:\/\/ URL/, u);
  }
  for (const u of ["http://localhost:8765/mcp", "http://127.0.0.1:8765/mcp", "https://vthost.example.com/mcp"]) {
    const r = run(u); // starts serving: killed by the timeout
    assert.doesNotMatch(r.stderr, /must be an https/, u);
    assert.match(r.stderr, /serving MCP over HTTP/, `${u}: ${r.stderr}`);
  }
});
