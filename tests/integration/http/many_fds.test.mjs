// A server holding more than 1,024 descriptors (select()'s ceiling) still
// serves new connections: 1,500 authenticated keep-alive connections are
// held open, then /healthz and an initialize on new ones are answered.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { startServer, cleanup, INIT } from "./http_lib.mjs";
import { open, head, finalStatus, fdCount } from "./raw_http.mjs";

after(cleanup);

const HELD = 1500;
// node raises its own soft limit to the hard one; the server inherits it
const limit = Number(readFileSync("/proc/self/limits", "utf8").match(/^Max open files\s+(\d+)/m)?.[1] ?? 0);
const skip = limit < 4096 ? `the open-files limit is ${limit}; this test needs 4096 (ulimit -Hn)` : false;

test(`with ${HELD} connections held open, new connections are still served`, { skip }, async () => {
  const srv = await startServer({ httpToml: "max_connections = 2000\nconnection_timeout_seconds = 300\n" });
  const held = [];
  let answered = 0;
  try {
    // in batches below the cap on connections that have not authenticated
    for (let i = 0; i < HELD; i += 32) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(32, HELD - i) }, async () => {
          const sock = await open(srv);
          // authenticated, so no header deadline; answered 400 (no session)
          // and kept alive
          sock.write(head("GET", "/mcp", { Authorization: `Bearer ${srv.token}`, Accept: "text/event-stream" }));
          const r = await finalStatus(sock, 5000);
          if (r.status === 400) answered++;
          return sock;
        }),
      );
      held.push(...batch);
    }
    const fds = fdCount(srv.child.pid);
    const health = await fetch(`${srv.base}/healthz`, { signal: AbortSignal.timeout(3000) }).then(
      (r) => r.status,
      (e) => String(e.cause ?? e),
    );
    const init = await fetch(srv.url, {
      method: "POST",
      signal: AbortSignal.timeout(5000),
      headers: { Authorization: `Bearer ${srv.token}`, "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
      body: JSON.stringify(INIT),
    }).then(
      (r) => r.status,
      (e) => String(e.cause ?? e),
    );
    const stillOpen = held.filter((s) => !s.closedAt).length;
    console.log(`server holds ${fds} descriptors; ${answered} of ${HELD} held connections answered, ${stillOpen} still open`);
    assert.equal(health, 200, `/healthz on a new connection: ${health}`);
    assert.equal(init, 200, `initialize on a new connection: ${init}`);
    assert.equal(answered, HELD, "every held connection was served");
    assert.ok(fds > HELD, `the server held ${fds} descriptors`);
  } finally {
    for (const s of held) s.destroy();
  }
});
