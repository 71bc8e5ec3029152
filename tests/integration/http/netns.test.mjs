// The host side of netns.sh: two `vthost serve --http` servers on the
// veth address of this namespace, over TLS (the test's self-signed
// certificate), one allowing the default tools, one asking for
// exec_command through elicitation.  The MCP client runs inside the other
// namespace (netns_client.test.mjs under `ip netns exec`); afterwards the
// servers' access logs must show the peer's address and never the token.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { startServer, cleanup, ALLOW_ALL } from "./http_lib.mjs";

const env = (k) => {
  const v = process.env[k];
  if (!v) throw new Error(`${k} is not set: run this through netns.sh`);
  return v;
};
const NS = env("VTHOST_NETNS");
const HOST = env("VTHOST_NETNS_HOST");
const PEER = env("VTHOST_NETNS_PEER");
const CERT = env("VTHOST_NETNS_CERT");
const KEY = env("VTHOST_NETNS_KEY");
after(cleanup);

const tls = `tls_cert = "${CERT}"\ntls_key = "${KEY}"\n`;
const srv = await startServer({ listen: `${HOST}:0`, httpToml: tls });
// exec_command asks for this one command: the prompt goes out as elicitation
const ASK = `${ALLOW_ALL}ask = ["exec_command(echo asked*)"]\n`;
const asker = await startServer({ toml: ASK, listen: `${HOST}:0`, httpToml: tls });

test("the servers listen on the veth address over TLS", () => {
  assert.match(srv.url, new RegExp(`^https://${HOST.replaceAll(".", "\\.")}:[0-9]+/mcp$`));
  assert.match(asker.url, /^https:/);
});

test("the client in the other namespace runs the scenarios", async () => {
  // a nested `node --test` with the runner's own NODE_TEST_CONTEXT would
  // skip its tests and exit 0: it runs as a top-level run
  const { NODE_TEST_CONTEXT, ...outer } = process.env;
  const child = spawn(
    "ip",
    ["netns", "exec", NS, process.execPath, "--test", "--test-concurrency=1", join(import.meta.dirname, "netns_client.test.mjs")],
    {
      env: {
        ...outer,
        NODE_EXTRA_CA_CERTS: CERT,
        VTHOST_NETNS_URL: srv.url,
        VTHOST_NETNS_TOKEN: srv.token,
        VTHOST_NETNS_WS: srv.ws,
        VTHOST_NETNS_ASK_URL: asker.url,
        VTHOST_NETNS_ASK_TOKEN: asker.token,
        VTHOST_NETNS_ASK_WS: asker.ws,
      },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  let out = "";
  child.stdout.on("data", (d) => {
    out += d;
    process.stdout.write(String(d).replace(/^/gm, "# client: "));
  });
  const code = await new Promise((r) => child.on("close", (c, s) => r(c ?? s)));
  assert.equal(code, 0, "the client's scenarios (output above)");
  const pass = Number(out.match(/^# pass (\d+)$/m)?.[1] ?? 0);
  assert.ok(pass >= 8, `the client ran its scenarios (${pass} passed)`);
  assert.match(out, /^# fail 0$/m);
});

test("the access log names the peer's address, never the token", () => {
  for (const s of [srv, asker]) {
    const err = s.stderr();
    assert.match(err, new RegExp(`"remote":"${PEER.replaceAll(".", "\\.")}"`));
    assert.doesNotMatch(err, /Sanitizer|runtime error/);
    const shown = err.indexOf(s.token);
    assert.equal(err.indexOf(s.token, shown + 1), -1, "the token is shown at most once (at its creation)");
  }
});
