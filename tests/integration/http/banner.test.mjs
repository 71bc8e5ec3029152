// What `vthost serve --http` tells people: at the first start the token
// is shown only on a terminal (a service manager keeps a piped stderr in
// its journal), the printed Claude Code and Codex entries are ready for
// unattended use (`-s user`, `default_tools_approval_mode`), and a request
// without an Authorization header learns what is missing and how to add
// it, with a WWW-Authenticate that starts no OAuth sign-in.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServer, cleanup, post, INIT, bin } from "./http_lib.mjs";

after(cleanup);

test("first start with stderr on a pipe: the token is not printed, its file is named, the entries are unattended-ready", async () => {
  const srv = await startServer();
  const err = srv.stderr();
  assert.ok(srv.token && srv.token.length >= 32);
  assert.equal(err.indexOf(srv.token), -1, "the token reached a non-terminal stderr");
  const file = join(srv.cfg, "vthost", "http-token");
  assert.match(err, new RegExp(`created a bearer token for the HTTP server in ${file.replace(/[.]/g, "\\.")} \\(0600; not shown`));
  assert.match(err, new RegExp(`claude mcp add -s user --transport http vthost ${srv.url.replace(/[.]/g, "\\.")} --header "Authorization: Bearer \\$\\(cat ${file.replace(/[.]/g, "\\.")}\\)"`));
  assert.match(err, /\[mcp_servers\.vthost\]\n\s+url = "http:\/\/127\.0\.0\.1:\d+\/mcp"\n\s+bearer_token_env_var = "VTHOST_TOKEN"\n\s+default_tools_approval_mode = "approve"\n/);
});

test("first start on a terminal: the token is shown, once", () => {
  const cfg = mkdtempSync(join(tmpdir(), "vthost-banner-"));
  mkdirSync(join(cfg, "vthost"), { mode: 0o700 });
  try {
    // script(1) gives the server a pseudo-terminal; timeout ends it
    const cmd = `timeout -s TERM 3 ${bin} serve --http 127.0.0.1:0`;
    const r = spawnSync("script", ["-qec", cmd, "/dev/null"], { encoding: "utf8", timeout: 30000, cwd: cfg, env: { ...process.env, XDG_CONFIG_HOME: cfg } });
    const token = readFileSync(join(cfg, "vthost", "http-token"), "utf8").trim();
    const out = r.stdout;
    const at = out.indexOf(token);
    assert.ok(at >= 0, `the token is shown on a terminal: ${out}`);
    assert.equal(out.indexOf(token, at + 1), -1, "once");
    assert.match(out, /it is shown this once/);
  } finally {
    rmSync(cfg, { recursive: true, force: true });
  }
});

test("no Authorization header: 401 that says it is missing and gives both clients' entries; no OAuth challenge", async () => {
  const srv = await startServer();
  const r = await post(srv, INIT, { token: null });
  assert.equal(r.status, 401);
  const www = r.headers.get("www-authenticate");
  assert.equal(www, 'Bearer realm="vthost"');
  assert.doesNotMatch(www, /resource_metadata/);
  const msg = r.json.error.message;
  assert.match(msg, /Authorization header is missing/);
  assert.match(msg, /claude mcp add -s user --transport http vthost http:\/\/127\.0\.0\.1:\d+\/mcp --header "Authorization: Bearer \$\(cat /);
  assert.match(msg, /bearer_token_env_var = "VTHOST_TOKEN"/);
  assert.ok(msg.includes(join(srv.cfg, "vthost", "http-token")), msg);
  assert.equal(msg.indexOf(srv.token), -1, "the token itself is never in an answer");
  // a wrong token is told so, not told the token's file
  const bad = await post(srv, INIT, { token: "x".repeat(64) });
  assert.equal(bad.status, 401);
  assert.match(bad.json.error.message, /not this server's token/);
  assert.equal((await fetch(srv.base + "/.well-known/oauth-protected-resource")).status, 404, "no OAuth metadata in token mode");
});

test("behind a public URL the 401 names no server path: the entries read the token from VTHOST_TOKEN", async () => {
  const srv = await startServer({ httpToml: 'public_url = "https://vthost.example.com/mcp"\n' });
  const r = await post(srv, INIT, { token: null });
  assert.equal(r.status, 401);
  const msg = r.json.error.message;
  assert.match(msg, /Authorization header is missing/);
  assert.match(msg, /claude mcp add -s user --transport http vthost https:\/\/vthost\.example\.com\/mcp --header "Authorization: Bearer \$VTHOST_TOKEN"/);
  assert.ok(!msg.includes(srv.cfg), `no server path: ${msg}`);
});
