// The access log's lines are gathered and written together (within
// 10 ms): none is lost when the server stops on SIGTERM, they come in the
// order of their requests, and before the line that says it stops.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startServer, cleanup, post, initSession, scratchDir } from "./http_lib.mjs";

after(cleanup);

const PING = (id) => ({ jsonrpc: "2.0", id, method: "ping" });

test("every request's line is in the log when the server stops, in order, before it says it stops", async () => {
  const srv = await startServer();
  const session = await initSession(srv);
  const N = 300;
  for (let i = 1; i <= N; i++) assert.equal((await post(srv, PING(i), { session })).status, 200);
  // stopped at once: the last lines are still gathered, not yet written
  const e = await srv.stop();
  assert.equal(e.code, 0, srv.stderr());
  const lines = srv.stderr().split("\n");
  const pings = lines.filter((l) => l.startsWith("vthost access: ") && l.includes('"rpc":"ping"'));
  assert.equal(pings.length, N, "one line per ping");
  for (const l of pings) { // whole lines, none cut into another, naming the client's address
    assert.equal(JSON.parse(l.slice("vthost access: ".length)).remote, "127.0.0.1", l);
  }
  const stopping = lines.findIndex((l) => l.startsWith("vthost: stopping"));
  assert.ok(stopping > lines.lastIndexOf(pings[N - 1]), "the stop line comes after every request's line");
  const init = lines.findIndex((l) => l.includes('"rpc":"initialize"'));
  assert.ok(init >= 0 && init < lines.indexOf(pings[0]), "lines in the order of their requests");
});

test("to a file: a line is there within moments of its request, without a stop", async () => {
  const dir = scratchDir("vthost-alog-");
  const log = join(dir, "access.log");
  const srv = await startServer({ httpToml: `access_log = "${log}"\n` });
  await initSession(srv);
  const t0 = Date.now();
  let text = "";
  while (!text.includes('"rpc":"initialize"') && Date.now() - t0 < 3000) {
    await new Promise((r) => setTimeout(r, 5));
    text = readFileSync(log, "utf8");
  }
  assert.match(text, /"rpc":"initialize"/);
  assert.ok(Date.now() - t0 < 1000, `written after ${Date.now() - t0} ms`);
});

test("over IPv6 the line names the client's IPv6 address", async (t) => {
  let srv;
  try {
    srv = await startServer({ listen: "[::1]:0" });
  } catch (e) {
    return t.skip(`no IPv6 loopback here: ${e.message.split("\n")[0]}`);
  }
  await initSession(srv);
  await srv.stop();
  const line = srv.stderr().split("\n").find((l) => l.startsWith("vthost access: ") && l.includes('"rpc":"initialize"'));
  assert.ok(line, srv.stderr());
  assert.equal(JSON.parse(line.slice("vthost access: ".length)).remote, "::1");
});
