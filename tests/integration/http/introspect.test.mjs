// Opaque access tokens judged by an introspection endpoint (RFC 7662), here
// a scripted one: every answer but an unambiguous "active": true for this
// server's audience, issuer and scopes is refused, and the endpoint is
// asked with this server's own credentials, once per token while the
// answer is kept.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { startServer, cleanup, post, INIT } from "./http_lib.mjs";

after(cleanup);

const ISS = "https://idp.vthost.test";
const AUD = "api://vthost";
const now = () => Math.floor(Date.now() / 1000);
const good = () => ({ active: true, iss: ISS, aud: AUD, sub: "alice", scope: "mcp:tools", exp: now() + 300, token_type: "Bearer" });
// token -> the answer's body (a string, sent as is)
const answers = new Map();
const asked = [];
const idp = createServer((req, res) => {
  let body = "";
  req.on("data", (d) => (body += d));
  req.on("end", () => {
    const form = new URLSearchParams(body);
    asked.push({ auth: req.headers.authorization, token: form.get("token"), hint: form.get("token_type_hint") });
    const a = answers.get(form.get("token"));
    res.writeHead(200, { "Content-Type": "application/json" }).end(a ?? '{"active":false}');
  });
});
await new Promise((r) => idp.listen(0, "127.0.0.1", r));
after(
  () =>
    new Promise((r) => {
      idp.close(r);
      idp.closeAllConnections();
    }),
);

const srv = await startServer({
  httpToml: `[oauth]
issuer = "${ISS}"
audience = ["${AUD}"]
scopes = "mcp:tools"
introspection_url = "http://127.0.0.1:${idp.address().port}/introspect"
introspection_client_id = "vthost rs:1"
introspection_client_secret = "s3cr&t=:"
`,
});

test("an active token signs in; the endpoint is asked once, with the server's credentials form-encoded in Basic", async () => {
  answers.set("tok-good", JSON.stringify(good()));
  const n = asked.length;
  for (let i = 0; i < 3; i++) assert.equal((await post(srv, INIT, { token: "tok-good" })).status, 200);
  assert.equal(asked.length - n, 1);
  const a = asked.at(-1);
  assert.equal(a.token, "tok-good");
  assert.equal(a.hint, "access_token");
  assert.equal(Buffer.from(a.auth.replace(/^Basic /, ""), "base64").toString(), "vthost%20rs%3A1:s3cr%26t%3D%3A");
});

test("refused: inactive, active as a string, a member named twice, a refresh token, another issuer or audience, expired, no subject, a scope missing", async () => {
  const cases = {
    inactive: [{ ...good(), active: false }, 401, /not active/],
    "active as a string": [{ ...good(), active: "true" }, 401, /not active/],
    "named twice": ['{"active":false,"active":true,"iss":"' + ISS + '","aud":"' + AUD + '","sub":"x","scope":"mcp:tools"}', 503, /introspection endpoint failed/],
    "refresh token": [{ ...good(), token_type: "refresh_token" }, 401, /not an access token/],
    "keycloak refresh": [{ ...good(), token_type: undefined, typ: "Refresh" }, 401, /not an access token/],
    "another issuer": [{ ...good(), iss: "https://evil.test" }, 401, /iss/],
    "another audience": [{ ...good(), aud: "api://other" }, 401, /aud/],
    "no audience": [{ ...good(), aud: undefined }, 401, /aud/],
    expired: [{ ...good(), exp: now() - 120 }, 401, /expired/],
    "no subject": [{ ...good(), sub: undefined }, 401, /subject/],
    "scope missing": [{ ...good(), scope: "openid" }, 403, /scope/],
    "not JSON": ["<html>", 503, /introspection endpoint failed/],
  };
  for (const [name, [answer, status, why]] of Object.entries(cases)) {
    const tok = `tok-${name.replace(/ /g, "-")}`;
    answers.set(tok, typeof answer === "string" ? answer : JSON.stringify(answer));
    const r = await post(srv, INIT, { token: tok });
    assert.equal(r.status, status, `${name}: ${r.text}`);
    if (status === 503) assert.match(r.json.error.message, why, name);
    else assert.match(r.headers.get("www-authenticate"), why, name);
    assert.equal(r.headers.get("mcp-session-id"), null, name);
  }
  // a refusal is not kept: the endpoint is asked again (and may now say yes)
  const n = asked.length;
  answers.set("tok-inactive", JSON.stringify(good()));
  assert.equal((await post(srv, INIT, { token: "tok-inactive" })).status, 200);
  assert.equal(asked.length - n, 1);
  assert.match(srv.stderr(), /the answer of the introspection endpoint .* names a member twice in one object; refusing \(503\)/);
});

test("a client's own token (client_id, no sub) signs in as that client", async () => {
  answers.set("tok-client", JSON.stringify({ ...good(), sub: undefined, client_id: "ci-runner" }));
  assert.equal((await post(srv, INIT, { token: "tok-client" })).status, 200);
});

test("the kept answers are bounded: past 256 tokens the one that lapses first is dropped and asked about again", async () => {
  const s2 = await startServer({
    httpToml: `[oauth]
issuer = "${ISS}"
audience = "${AUD}"
introspection_url = "http://127.0.0.1:${idp.address().port}/introspect"
introspection_client_id = "rs"
introspection_client_secret = "rs"
`,
  });
  const first = { ...good(), exp: now() + 40 }; // lapses before the others (kept 60 s)
  answers.set("tok-b-0", JSON.stringify(first));
  for (let i = 1; i <= 256; i++) answers.set(`tok-b-${i}`, JSON.stringify(good()));
  const askedFor = (t) => asked.filter((a) => a.token === t).length;
  // authenticated, then 404 for a session that does not exist: no session
  // is made, so no session limit is met
  const use = async (token) => (await post(s2, { jsonrpc: "2.0", id: 2, method: "tools/list" }, { token, session: "none" })).status;
  assert.equal(await use("tok-b-0"), 404);
  assert.equal(await use("tok-b-0"), 404);
  assert.equal(askedFor("tok-b-0"), 1, "kept");
  for (let i = 1; i <= 255; i++) assert.equal(await use(`tok-b-${i}`), 404);
  assert.equal(await use("tok-b-0"), 404);
  assert.equal(askedFor("tok-b-0"), 1, "256 answers fit");
  assert.equal(await use("tok-b-256"), 404);
  assert.equal(await use("tok-b-0"), 404);
  assert.equal(askedFor("tok-b-0"), 2, "the 257th answer took the slot of the one lapsing first");
  assert.equal(await use("tok-b-200"), 404);
  assert.equal(askedFor("tok-b-200"), 1, "the others stay kept");
});
