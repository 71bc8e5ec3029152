// The filtering proxy never leads to vthost itself: under `vthost serve
// --http`, a sandboxed command whose [sandbox.network] lists "localhost"
// and a name that resolves to the machine (the proxy's test hook) asks
// the proxy for the server's own port by every spelling.  Each is refused
// with the reason, and the server's log shows no request from it; a
// stand-in on another loopback port stays reachable, which shows the
// route is live.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startServer, connect, cleanup, ALLOW_ALL } from "../http/http_lib.mjs";

after(cleanup);
const dir = mkdtempSync("/var/tmp/vthost-np-port-");
after(() => rmSync(dir, { recursive: true, force: true }));
const hosts = join(dir, "hosts");
writeFileSync(hosts, "127.0.0.1 vt.test\n");
process.env.VTHOST_TEST_NETPROXY_HOSTS = hosts;

test("vthost's own HTTP port is refused through the proxy, localhost listed or not", async () => {
  const standIn = createServer((req, res) => res.end("stand-in " + req.url + "\n"));
  await new Promise((r) => standIn.listen(0, "127.0.0.1", r));
  after(() => standIn.close());
  const other = standIn.address().port;
  const srv = await startServer({
    toml: ALLOW_ALL + `[sandbox.network]\nallowed_domains = ["localhost", "vt.test"]\n`,
  });
  const port = new URL(srv.url).port;
  const c = await connect(srv);
  const cmd = [
    `curl -sS -m 5 http://localhost:${port}/mcp`,
    `curl -sS -m 5 http://vt.test:${port}/mcp`,
    `curl -sS -m 5 -p http://vt.test:${port}/mcp`,
    `curl -sS -m 5 -x socks5h://127.0.0.1:3128 http://localhost:${port}/mcp`,
    `curl -sS -m 5 http://localhost:${other}/reachable`,
  ].join("; ");
  const r = await c.callTool({ name: "exec_command", arguments: { cmd, yield_time_ms: 30000 } });
  const out = r.structuredContent?.output ?? "";
  const refused = r.structuredContent?.network?.refused ?? [];
  assert.match(out, /stand-in \/reachable/, `the route is live: ${out}`);
  assert.ok(
    refused.some((x) => /^network: refused localhost \(.*where vthost itself listens/.test(x)) &&
      refused.some((x) => /^network: refused vt\.test \(.*where vthost itself listens/.test(x)),
    JSON.stringify(refused),
  );
  assert.doesNotMatch(out, /jsonrpc|Unauthorized|Bad Request/, out);
  await c.close();
});
