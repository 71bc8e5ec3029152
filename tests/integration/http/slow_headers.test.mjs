// Strangers cannot hold the door: 300 connections that trickle their
// request headers a byte every two seconds, or send nothing at all, leave
// /healthz and an authenticated client served at once, and the header
// deadline (header_timeout_seconds, 10 s by default) closes every one of
// them.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { startServer, cleanup, post, INIT, sleep } from "./http_lib.mjs";
import { open } from "./raw_http.mjs";

after(cleanup);

const srv = await startServer(); // the defaults: 256 connections, 10 s for headers

// A request served within `ms`, or the reason it was not.
async function served(what, ms) {
  const t0 = Date.now();
  try {
    const r = await what(AbortSignal.timeout(ms));
    return { status: r.status, ms: Date.now() - t0 };
  } catch (e) {
    return { status: 0, ms: Date.now() - t0, error: String(e.cause ?? e) };
  }
}
const healthz = (signal) => fetch(`${srv.base}/healthz`, { signal });
const initialize = (signal) =>
  fetch(srv.url, {
    method: "POST",
    signal,
    headers: {
      Authorization: `Bearer ${srv.token}`,
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
    },
    body: JSON.stringify(INIT),
  });

test("300 trickling or silent connections: /healthz and a client with the token are still served, the strangers are closed", async () => {
  const request = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  const socks = [];
  for (let i = 0; i < 300; i++) {
    try {
      socks.push(await open(srv));
    } catch {
      break; // refused: what the checks below catch
    }
  }
  const start = Date.now();
  let pos = 0;
  const trickle = setInterval(() => {
    // half of them send one byte of the request each time, half nothing
    if (pos < request.length - 1)
      for (let i = 0; i < socks.length; i += 2) if (!socks[i].closedAt) socks[i].write(request[pos]);
    pos++;
  }, 2000);
  try {
    for (const at of [1000, 5000]) {
      await sleep(Math.max(0, start + at - Date.now()));
      const h = await served(healthz, 2000);
      assert.equal(h.status, 200, `/healthz ${at / 1000} s into the flood: ${h.error ?? h.status} after ${h.ms} ms`);
      const c = await served(initialize, 2000);
      assert.equal(c.status, 200, `an authenticated initialize ${at / 1000} s into the flood: ${c.error ?? c.status} after ${c.ms} ms`);
    }
    // the deadline is 10 s from each connection's start; a sweep a second
    const end = start + 14000;
    while (Date.now() < end && socks.some((s) => !s.closedAt)) await sleep(100);
  } finally {
    clearInterval(trickle);
  }
  const open_ = socks.filter((s) => !s.closedAt).length;
  for (const s of socks) s.destroy();
  assert.equal(socks.length, 300, "every connection was accepted");
  assert.equal(open_, 0, `${open_} trickling connection(s) still open 14 s after they started`);
  assert.ok(socks.every((s) => !/HTTP\/1\.1 200/.test(s.got)), "no trickler got an answer");
  // the sweep closes the connections first and says so after (outside
  // its lock): the line may reach us a moment after the last close
  const said = /sent no complete request within 10 s \(header_timeout_seconds/;
  for (const until = Date.now() + 3000; !said.test(srv.stderr()) && Date.now() < until; ) await sleep(50);
  assert.match(srv.stderr(), said);
  // and once they are gone the server is as it was
  assert.equal((await served(healthz, 2000)).status, 200);
});
