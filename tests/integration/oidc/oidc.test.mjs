// Sign-in to `vthost serve --http` with a real OpenID provider
// (oidc-provider, run here on 127.0.0.1): access tokens from a client
// credentials grant with a resource indicator, as a JWT checked with the
// provider's jwks_uri and as an opaque token checked by introspection with
// vthost's own client credentials, with an audience (an API identifier)
// configured apart from the server's URL.  A wrong audience, another
// issuer, an expired or revoked token and a failing introspection
// endpoint are refused.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServer, connect, cleanup, post, initSession, INIT, text, sleep, bin } from "../http/http_lib.mjs";
import { createServer } from "node:net";
import { pathToFileURL } from "node:url";
import { startProvider, signInAs, SCOPE } from "./provider.mjs";
import { nodeModules } from "../mcp/lib.mjs";

after(cleanup);

const resources = {
  "api://vthost/jwt": { audience: "api://vthost", format: "jwt" },
  "api://vthost/opaque": { audience: "api://vthost", format: "opaque" },
  "api://vthost/short": { audience: "api://vthost", format: "opaque", ttl: 1 },
  "api://elsewhere/jwt": { audience: "api://elsewhere", format: "jwt" },
  "api://elsewhere/opaque": { audience: "api://elsewhere", format: "opaque" },
};
const clients = [
  { client_id: "agent", client_secret: "agent-secret", grant_types: ["client_credentials"], redirect_uris: [], response_types: [], scope: SCOPE },
  { client_id: "other-agent", client_secret: "other-secret", grant_types: ["client_credentials"], redirect_uris: [], response_types: [], scope: SCOPE },
  { client_id: "vthost", client_secret: "rs-secret", grant_types: [], redirect_uris: [], response_types: [] },
];
const idp = await startProvider({ resources, clients });
const stranger = await startProvider({ resources, clients });
after(() => Promise.all([idp.close(), stranger.close()]));

const toml = (p, extra = "") => `[oauth]
issuer = "${p.issuer}"
jwks_url = "${p.discovery.jwks_uri}"
audience = ["api://vthost"]
introspection_url = "${p.discovery.introspection_endpoint}"
introspection_client_id = "vthost"
introspection_client_secret = "rs-secret"
introspection_cache_seconds = 2
scopes = "${SCOPE}"
client_id = "vthost-agents"
${extra}`;
const srv = await startServer({ httpToml: toml(idp) });
const tok = (res, p = idp, id = "agent", secret = "agent-secret") => p.token(id, secret, res);

test("the protected-resource metadata names this server's URL and the provider; no token: 401 naming the pre-registered client", async () => {
  const m = await (await fetch(`${srv.base}/.well-known/oauth-protected-resource/mcp`)).json();
  assert.equal(m.resource, srv.url);
  assert.deepEqual(m.authorization_servers, [idp.issuer]);
  const r = await post(srv, INIT, { token: null });
  assert.equal(r.status, 401);
  assert.match(r.headers.get("www-authenticate"), /^Bearer resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp"/);
  assert.match(r.json.error.message, /Authorization header is missing/);
  assert.match(r.json.error.message, /--client-id vthost-agents/);
});

test("a JWT access token from the provider (aud: an API identifier, keys from its jwks_uri) signs in and runs a tool", async () => {
  const jwt = await tok("api://vthost/jwt");
  assert.equal(jwt.split(".").length, 3);
  const c = await connect(srv, { token: jwt });
  const r = await c.callTool({ name: "exec_command", arguments: { cmd: "echo oidc-jwt-ok" } });
  assert.match(r.structuredContent.output, /oidc-jwt-ok/, text(r));
});

test("an opaque access token is checked by introspection, once for many requests; its principal is the JWT's", async () => {
  const opaque = await tok("api://vthost/opaque");
  assert.equal(opaque.split(".").length, 1, "opaque");
  const before = idp.counts.introspection;
  const c = await connect(srv, { token: opaque });
  const r = await c.callTool({ name: "exec_command", arguments: { cmd: "echo oidc-opaque-ok" } });
  assert.match(r.structuredContent.output, /oidc-opaque-ok/, text(r));
  assert.equal(idp.counts.introspection - before, 1, "the answer is kept for the token's later requests");
  assert.equal(srv.stderr().indexOf(opaque), -1, "the token is never logged");
  // the same client's JWT session is the opaque token's too; another client's is not
  const sid = await initSession(srv, { token: await tok("api://vthost/jwt") });
  const list = { jsonrpc: "2.0", id: 2, method: "tools/list" };
  assert.equal((await post(srv, list, { token: opaque, session: sid })).status, 200);
  const other = await tok("api://vthost/opaque", idp, "other-agent", "other-secret");
  assert.equal((await post(srv, list, { token: other, session: sid })).status, 404);
});

test("refused: another audience, another issuer, a revoked and an expired opaque token", async () => {
  const cases = {
    "jwt for another audience": [await tok("api://elsewhere/jwt"), /aud/],
    "opaque for another audience": [await tok("api://elsewhere/opaque"), /aud/],
    "jwt of another issuer": [await tok("api://vthost/jwt", stranger), /key|signature/],
    "opaque of another issuer": [await tok("api://vthost/opaque", stranger), /not active/],
  };
  const revoked = await tok("api://vthost/opaque");
  await idp.revoke("agent", "agent-secret", revoked);
  cases.revoked = [revoked, /not active/];
  const short = await tok("api://vthost/short");
  await sleep(2100);
  cases.expired = [short, /not active/];
  for (const [name, [t, why]] of Object.entries(cases)) {
    const r = await post(srv, INIT, { token: t });
    assert.equal(r.status, 401, `${name}: ${r.status} ${r.text}`);
    const www = r.headers.get("www-authenticate");
    assert.match(www, /error="invalid_token"/, name);
    assert.match(www, why, `${name}: ${www}`);
    assert.equal(r.headers.get("mcp-session-id"), null, name);
  }
});

test("a token revoked after its first use is refused once the kept answer lapses (introspection_cache_seconds)", async () => {
  const t = await tok("api://vthost/opaque");
  assert.equal((await post(srv, INIT, { token: t })).status, 200);
  await idp.revoke("agent", "agent-secret", t);
  await sleep(2600);
  const r = await post(srv, INIT, { token: t });
  assert.equal(r.status, 401, r.text);
  assert.match(r.headers.get("www-authenticate"), /not active/);
});

test("an introspection endpoint that fails, or refuses vthost's credentials, is 503 with a log line, never a pass", async () => {
  const closed = await startServer({ httpToml: toml(idp).replace(idp.discovery.introspection_endpoint, "http://127.0.0.1:1/introspect") });
  const wrong = await startServer({ httpToml: toml(idp).replace('"rs-secret"', '"not-the-secret"') });
  const t = await tok("api://vthost/opaque");
  for (const [s, log] of [[closed, /token introspection failed: fetching http:\/\/127\.0\.0\.1:1\/introspect/], [wrong, /refused this server's credentials \(HTTP 401\): check \[oauth\] introspection_client_id/]]) {
    const r = await post(s, INIT, { token: t });
    assert.equal(r.status, 503, r.text);
    assert.match(r.json.error.message, /introspection endpoint failed/);
    assert.ok(Number(r.headers.get("retry-after")) > 0);
    // The log line and the answer travel separate pipes: wait for the line.
    for (let i = 0; i < 50 && !log.test(s.stderr()); i++) await new Promise((res) => setTimeout(res, 100));
    assert.match(s.stderr(), log);
  }
  // the JWT path does not depend on the endpoint
  assert.equal((await post(closed, INIT, { token: await tok("api://vthost/jwt") })).status, 200);
});

test("a client secret in an http.toml others can read, introspection without credentials, or over plain http to another host: refused at start", () => {
  const cfg = mkdtempSync(join(tmpdir(), "vthost-oidc-cfg-"));
  mkdirSync(join(cfg, "vthost"), { mode: 0o700 });
  const file = join(cfg, "vthost", "http.toml");
  const run = (text, mode = 0o600) => {
    writeFileSync(file, text);
    chmodSync(file, mode);
    return spawnSync(bin, ["serve", "--http", "127.0.0.1:0"], { encoding: "utf8", timeout: 30000, cwd: cfg, env: { ...process.env, XDG_CONFIG_HOME: cfg } });
  };
  try {
    const readable = run(toml(idp), 0o644);
    assert.equal(readable.status, 2, readable.stderr);
    assert.match(readable.stderr, /holds introspection_client_secret and is readable by others \(mode 644\): chmod 600/);
    const nocreds = run(`[oauth]\nissuer = "${idp.issuer}"\naudience = "api://vthost"\nintrospection_url = "${idp.discovery.introspection_endpoint}"\n`);
    assert.equal(nocreds.status, 2, nocreds.stderr);
    assert.match(nocreds.stderr, /introspection_url needs introspection_client_id and introspection_client_secret/);
    const plain = run(toml(idp).replace(idp.discovery.introspection_endpoint, "http://idp.example.com/introspect"));
    assert.equal(plain.status, 2, plain.stderr);
    assert.match(plain.stderr, /introspection_url must be an https:\/\/ URL/);
  } finally {
    rmSync(cfg, { recursive: true, force: true });
  }
});

// A port free now, so public_url can name it before the server starts.
const freePort = () =>
  new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

test("the MCP SDK client signs a user in with a pre-registered public client (no registration): metadata, PKCE, resource, then tools", async () => {
  const REDIRECT = "http://localhost:33418/callback";
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/mcp`;
  const res = { [url]: { audience: url, format: "jwt" } };
  const as = await startProvider({
    resources: res,
    interactive: true,
    clients: [{ client_id: "vthost-agents", token_endpoint_auth_method: "none", grant_types: ["authorization_code"], response_types: ["code"], redirect_uris: [REDIRECT] }],
  });
  after(() => as.close());
  assert.equal(as.discovery.registration_endpoint, undefined, "the provider registers no clients");
  const s = await startServer({
    listen: `127.0.0.1:${port}`,
    httpToml: `public_url = "${url}"\n[oauth]\nissuer = "${as.issuer}"\njwks_url = "${as.discovery.jwks_uri}"\nclient_id = "vthost-agents"\n`,
  });
  const sdkPath = (p) => pathToFileURL(join(nodeModules, "@modelcontextprotocol/sdk/dist/esm", p)).href;
  const { Client } = await import(sdkPath("client/index.js"));
  const { StreamableHTTPClientTransport } = await import(sdkPath("client/streamableHttp.js"));
  const { UnauthorizedError } = await import(sdkPath("client/auth.js"));
  let verifier, tokens, authUrl;
  const provider = {
    redirectUrl: REDIRECT,
    clientMetadata: { redirect_uris: [REDIRECT], client_name: "test", grant_types: ["authorization_code"], response_types: ["code"], token_endpoint_auth_method: "none", scope: `openid ${SCOPE}` },
    clientInformation: () => ({ client_id: "vthost-agents" }),
    tokens: () => tokens,
    saveTokens: (t) => (tokens = t),
    redirectToAuthorization: (u) => (authUrl = u),
    saveCodeVerifier: (v) => (verifier = v),
    codeVerifier: () => verifier,
  };
  const first = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
  await assert.rejects(new Client({ name: "signin", version: "1" }).connect(first), UnauthorizedError);
  assert.ok(authUrl, "the client was sent to sign in");
  assert.equal(authUrl.origin, as.issuer, "at the provider the metadata names");
  assert.equal(authUrl.searchParams.get("client_id"), "vthost-agents");
  assert.equal(authUrl.searchParams.get("code_challenge_method"), "S256");
  assert.equal(authUrl.searchParams.get("resource"), url);
  const code = await signInAs(authUrl, REDIRECT, "alice");
  await first.finishAuth(code);
  const claims = JSON.parse(Buffer.from(tokens.access_token.split(".")[1], "base64url").toString());
  assert.equal(claims.sub, "alice");
  assert.equal(claims.aud, url);
  const c = new Client({ name: "signin", version: "1" });
  await c.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: provider }));
  const r = await c.callTool({ name: "exec_command", arguments: { cmd: "echo signed-in-as-alice" } });
  assert.match(r.structuredContent.output, /signed-in-as-alice/, text(r));
  await c.close();
});
