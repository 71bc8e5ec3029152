// The MCP client side of netns.sh, run inside the other network
// namespace: the official SDK's Streamable HTTP client reaches the
// servers of netns.test.mjs over TLS on the veth pair.  Only a valid
// token is let in; with it the scenario set runs (every default tool,
// progress, cancellation, elicitation); a second session can neither
// poll, feed, interrupt or kill the first one's processes nor read its
// spooled output (the sandbox shows each session only its own).
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { networkInterfaces } from "node:os";
import { join } from "node:path";
import { connect, cleanup, sdk, sleep, text, aliveMarker, waitFor, INIT, promptGoesToCaller } from "./http_lib.mjs";

const DEFAULT_TOOLS = ["exec_command", "write_stdin", "apply_patch", "search_tools"];
const env = process.env;
const srv = { url: env.VTHOST_NETNS_URL, token: env.VTHOST_NETNS_TOKEN, ws: env.VTHOST_NETNS_WS };
const asker = { url: env.VTHOST_NETNS_ASK_URL, token: env.VTHOST_NETNS_ASK_TOKEN, ws: env.VTHOST_NETNS_ASK_WS };
after(cleanup);

function hostPid(marker) {
  for (const d of readdirSync("/proc")) {
    if (!/^[0-9]+$/.test(d)) continue;
    try {
      if (readFileSync(`/proc/${d}/cmdline`, "utf8").split("\0").includes(marker)) return Number(d);
    } catch {}
  }
  return 0;
}

async function raw(url, token, body = INIT) {
  const headers = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };
  if (token !== null) headers.Authorization = `Bearer ${token}`;
  const res = await fetch(url, { method: "POST", headers, body: JSON.stringify(body) });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

test("this client is in another network namespace than the server", () => {
  const host = new URL(srv.url).hostname;
  const mine = Object.values(networkInterfaces()).flat().map((i) => i.address);
  assert.ok(!mine.includes(host), `the server's address ${host} is not one of this namespace's (${mine.join(", ")})`);
  assert.ok(mine.some((a) => a.startsWith(host.split(".").slice(0, 3).join("."))), mine.join(", "));
});

test("no token, a wrong token, another server's token: 401, no session", async () => {
  const wrong = srv.token.slice(0, -1) + (srv.token.endsWith("0") ? "1" : "0");
  for (const token of [null, "", wrong, asker.token, srv.token.toUpperCase() + "x"]) {
    const r = await raw(srv.url, token);
    assert.equal(r.status, 401, `token ${token === null ? "absent" : "wrong"}: ${r.text}`);
    assert.match(r.headers.get("www-authenticate") ?? "", /^Bearer /);
    assert.equal(r.headers.get("mcp-session-id"), null);
  }
  await assert.rejects(connect(srv, { token: wrong }));
  // plain HTTP to the TLS port gets no MCP answer
  const plain = srv.url.replace(/^https:/, "http:");
  const p = await fetch(plain, { method: "POST", body: "{}" }).then((r) => r.status, () => "refused");
  assert.notEqual(p, 200);
  // with the token: a session
  const ok = await raw(srv.url, srv.token);
  assert.equal(ok.status, 200, ok.text);
  assert.match(ok.headers.get("mcp-session-id") ?? "", /^[0-9a-f]{32}$/);
});

test("handshake, ping and the default profile's tools", async () => {
  const c = await connect(srv);
  assert.equal(c.getServerVersion().name, "vthost");
  await c.ping();
  assert.deepEqual((await c.listTools()).tools.map((t) => t.name), DEFAULT_TOOLS);
});

test("exec_command, write_stdin, apply_patch and search_tools", async () => {
  const c = await connect(srv);
  const r = await c.callTool({ name: "exec_command", arguments: { cmd: "printf 'netns-%s' $((6*7))" } });
  assert.ok(!r.isError, text(r));
  assert.match(r.structuredContent.output, /netns-42/);
  const bad = await c.callTool({ name: "exec_command", arguments: { cmd: 5 } });
  assert.equal(bad.isError, true);
  const s = await c.callTool({ name: "exec_command", arguments: { cmd: "read line; echo got:$line", yield_time_ms: 300 } });
  const sid = s.structuredContent.session_id;
  assert.ok(sid !== undefined, text(s));
  const w = await c.callTool({ name: "write_stdin", arguments: { session_id: sid, chars: "over-veth\n", yield_time_ms: 3000 } });
  assert.match(w.structuredContent.output, /got:over-veth/);
  const patch = "*** Begin Patch\n*** Add File: netns.txt\n+from another namespace\n*** End Patch\n";
  const p = await c.callTool({ name: "apply_patch", arguments: { input: patch } });
  assert.ok(!p.isError, text(p));
  assert.equal(readFileSync(join(srv.ws, "netns.txt"), "utf8"), "from another namespace\n");
  const q = await c.callTool({ name: "search_tools", arguments: { query: "run a shell command" } });
  assert.ok(!q.isError, text(q));
  await assert.rejects(c.callTool({ name: "no_such_tool", arguments: {} }), (e) => e.code === -32602);
});

test("progress notifications during a long call", async () => {
  const c = await connect(srv);
  const seen = [];
  const r = await c.callTool(
    { name: "exec_command", arguments: { cmd: "sleep 2; echo finished", yield_time_ms: 10000 } },
    undefined,
    { onprogress: (p) => seen.push(p), timeout: 30000 },
  );
  assert.match(r.structuredContent.output, /finished/);
  assert.ok(seen.length >= 1, "at least one progress notification");
});

test("cancelling a call ends its process", async () => {
  const c = await connect(srv);
  const ac = new AbortController();
  const marker = `31.${process.pid}61`;
  const pending = c.callTool({ name: "exec_command", arguments: { cmd: `exec sleep ${marker}`, yield_time_ms: 20000 } }, undefined, {
    signal: ac.signal,
    timeout: 60000,
  });
  await waitFor(() => aliveMarker(marker), 5000, "the sleep to start");
  ac.abort("test cancels");
  await assert.rejects(pending);
  await waitFor(() => !aliveMarker(marker), 5000, "the process to end after cancellation");
  await c.ping();
});

test("elicitation: the prompt goes to the calling session's client; approve runs, deny does not", async () => {
  const { other, otherAsked } = await promptGoesToCaller(asker, { approved: "asked-and-approved", denied: "asked", file: "denied.txt" });
  // an allowed command asks nobody
  const free = await other.callTool({ name: "exec_command", arguments: { cmd: "echo unasked" } });
  assert.match(free.structuredContent.output, /unasked/);
  assert.equal(otherAsked(), 0);
});

test("a second session cannot poll, feed, interrupt or kill the first's processes, nor read its spooled output", async () => {
  const a = await connect(srv);
  const b = await connect(srv);
  const marker = `31.${process.pid}62`;
  const r = await a.callTool({ name: "exec_command", arguments: { cmd: `read x; echo a-got:$x; exec sleep ${marker}`, yield_time_ms: 300 } });
  const sid = r.structuredContent.session_id;
  assert.ok(sid !== undefined, text(r));
  for (const chars of ["", "from-b\n", "\u0003"]) {
    const poke = await b.callTool({ name: "write_stdin", arguments: { session_id: sid, chars, yield_time_ms: 300 } });
    assert.equal(poke.isError, true, `B's write_stdin ${JSON.stringify(chars)}: ${text(poke)}`);
    assert.match(text(poke), /not found/);
  }
  const w = await a.callTool({ name: "write_stdin", arguments: { session_id: sid, chars: "from-a\n", yield_time_ms: 1000 } });
  assert.match(w.structuredContent.output, /a-got:from-a/);
  await waitFor(() => aliveMarker(marker), 5000, "A's sleep to start");
  // B's commands cannot signal A's processes, by pid or by name
  const pid = hostPid(marker);
  assert.ok(pid > 0);
  await b.callTool({ name: "exec_command", arguments: { cmd: `kill -9 ${pid}; pkill -9 -f ${marker}; killall -9 sleep; true` } });
  await sleep(300);
  assert.ok(aliveMarker(marker), "A's process survived B's kill attempts");
  // nor read A's spooled output, by its path or by listing
  const big = await a.callTool({ name: "exec_command", arguments: { cmd: "seq 1 30000", max_output_tokens: 50 } });
  const path = big.structuredContent.spool_path;
  assert.ok(path, text(big));
  const mine = await a.callTool({ name: "exec_command", arguments: { cmd: `wc -l < ${path}` } });
  assert.match(mine.structuredContent.output, /^30000$/m);
  const peek = await b.callTool({ name: "exec_command", arguments: { cmd: `cat ${path} 2>/dev/null | wc -l; test -e ${path} && echo EXISTS; ls -aR .vtcode/context/tool_outputs; true` } });
  const out = peek.structuredContent.output;
  assert.match(out, /^0$/m, out);
  assert.doesNotMatch(out, /EXISTS|exec_command-/, out);
  assert.doesNotMatch(out, new RegExp(path.split("/")[3]), out);
  await a.transportRef.terminateSession();
  await waitFor(() => !aliveMarker(marker), 5000, "A's command to end with A's session");
  await b.ping();
});
