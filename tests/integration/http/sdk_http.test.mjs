// `vthost serve --http` through the official MCP TypeScript SDK client
// (pinned 1.32.2) with StreamableHTTPClientTransport: the scenarios of
// the stdio suite (tests/integration/mcp/sdk_client.test.mjs) over HTTP:
// handshake, every tool, denials, elicitation, sampling, list_changed,
// progress, ping during a long call, cancellation, a client vanishing
// mid-call, and a graceful stop on SIGTERM.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startServer, connect, cleanup, sdk, ALLOW_ALL, sleep, text, aliveMarker, waitFor, promptGoesToCaller } from "./http_lib.mjs";
import { catalogDir } from "../mcp/lib.mjs";

const { ToolListChangedNotificationSchema, ElicitRequestSchema, CreateMessageRequestSchema } = await sdk("types.js");
const DEFAULT_TOOLS = ["exec_command", "write_stdin", "apply_patch", "search_tools"];
after(cleanup);

const srv = await startServer();

test("initialize over HTTP: server info, capabilities, instructions, ping", async () => {
  const c = await connect(srv);
  assert.equal(c.getServerVersion().name, "vthost");
  assert.ok(c.getServerCapabilities().tools?.listChanged);
  assert.match(c.getInstructions(), new RegExp(srv.ws.split("/").pop()));
  assert.match(c.transportRef.sessionId, /^[0-9a-f]{32}$/);
  await c.ping();
});

test("the default profile's four tools", async () => {
  const c = await connect(srv);
  const { tools } = await c.listTools();
  assert.deepEqual(tools.map((t) => t.name), DEFAULT_TOOLS);
});

test("exec_command: good and bad arguments", async () => {
  const c = await connect(srv);
  const r = await c.callTool({ name: "exec_command", arguments: { cmd: "printf 'http-%s' $((6*7))" } });
  assert.ok(!r.isError, text(r));
  assert.equal(r.structuredContent.exit_code, 0);
  assert.match(r.structuredContent.output, /http-42/);
  for (const args of [{}, { cmd: 5 }, { cmd: "true", bogus: 1 }]) {
    const bad = await c.callTool({ name: "exec_command", arguments: args });
    assert.equal(bad.isError, true, JSON.stringify(args));
  }
});

test("write_stdin feeds the session's own command", async () => {
  const c = await connect(srv);
  const r = await c.callTool({ name: "exec_command", arguments: { cmd: "read line; echo got:$line", yield_time_ms: 300 } });
  const sid = r.structuredContent.session_id;
  assert.ok(sid !== undefined, text(r));
  const w = await c.callTool({ name: "write_stdin", arguments: { session_id: sid, chars: "hello\n", yield_time_ms: 3000 } });
  assert.ok(!w.isError, text(w));
  assert.match(w.structuredContent.output, /got:hello/);
});

test("apply_patch edits the server's workspace; a bad patch changes nothing", async () => {
  const c = await connect(srv);
  const patch = "*** Begin Patch\n*** Add File: notes/http.txt\n+hello over http\n*** End Patch\n";
  const r = await c.callTool({ name: "apply_patch", arguments: { input: patch } });
  assert.ok(!r.isError, text(r));
  assert.equal(readFileSync(join(srv.ws, "notes/http.txt"), "utf8"), "hello over http\n");
  const bad = await c.callTool({ name: "apply_patch", arguments: { input: "*** Begin Patch\n*** Update File: missing.txt\n@@\n-a\n+b\n*** End Patch\n" } });
  assert.equal(bad.isError, true);
  assert.ok(!existsSync(join(srv.ws, "missing.txt")));
});

test("unknown tool is JSON-RPC error -32602", async () => {
  const c = await connect(srv);
  await assert.rejects(c.callTool({ name: "no_such_tool", arguments: {} }), (e) => e.code === -32602);
});

test("progress notifications reach the client during a long call", async () => {
  const c = await connect(srv);
  const seen = [];
  const r = await c.callTool(
    { name: "exec_command", arguments: { cmd: "sleep 2; echo finished", yield_time_ms: 10000 } },
    undefined,
    { onprogress: (p) => seen.push(p), timeout: 30000 },
  );
  assert.match(r.structuredContent.output, /finished/);
  assert.ok(seen.length >= 1, "at least one progress notification");
  for (let i = 1; i < seen.length; i++) assert.ok(seen[i].progress > seen[i - 1].progress);
});

test("ping and another call are answered during a long call", async () => {
  const c = await connect(srv);
  let longDone = false;
  const long = c
    .callTool({ name: "exec_command", arguments: { cmd: "sleep 3; echo slow-done", yield_time_ms: 10000 } }, undefined, { timeout: 30000 })
    .then((r) => ((longDone = true), r));
  await sleep(200);
  const p0 = Date.now();
  await c.ping();
  assert.ok(Date.now() - p0 < 1000, "ping answered quickly");
  const quick = await c.callTool({ name: "exec_command", arguments: { cmd: "echo quick" } });
  assert.match(quick.structuredContent.output, /quick/);
  assert.equal(longDone, false);
  assert.match((await long).structuredContent.output, /slow-done/);
});

test("cancelling a call ends its process", async () => {
  const c = await connect(srv);
  const ac = new AbortController();
  const marker = `31.${process.pid}1`;
  const pending = c.callTool(
    { name: "exec_command", arguments: { cmd: `exec sleep ${marker}`, yield_time_ms: 20000 } },
    undefined,
    { signal: ac.signal, timeout: 60000 },
  );
  await waitFor(() => aliveMarker(marker), 5000, "the sleep to start");
  ac.abort("test cancels");
  await assert.rejects(pending);
  await waitFor(() => !aliveMarker(marker), 5000, "the process to end after cancellation");
  await c.ping();
});

test("a client that disconnects mid-call has its call cancelled and its process ended", async () => {
  const c = await connect(srv);
  const marker = `31.${process.pid}2`;
  const pending = c
    .callTool({ name: "exec_command", arguments: { cmd: `exec sleep ${marker}`, yield_time_ms: 20000 } }, undefined, { timeout: 60000 })
    .catch((e) => e);
  await waitFor(() => aliveMarker(marker), 5000, "the sleep to start");
  // close() aborts the open HTTP requests without a notifications/cancelled
  await c.transportRef.close();
  await pending;
  await waitFor(() => !aliveMarker(marker), 5000, "the process to end after the client vanished");
  // the access log line is written once the request is over
  await waitFor(() => /"tool":"exec_command","decision":"cancelled"/.test(srv.stderr()), 5000, "the access log line");
});

test("two clients cannot reach each other's command sessions; DELETE ends a session's processes", async () => {
  const a = await connect(srv);
  const b = await connect(srv);
  const marker = `31.${process.pid}3`;
  const r = await a.callTool({ name: "exec_command", arguments: { cmd: `read x; echo a-got:$x; exec sleep ${marker}`, yield_time_ms: 300 } });
  const sid = r.structuredContent.session_id;
  assert.ok(sid !== undefined, text(r));
  // B guesses A's session id: as unknown to it as a finished one
  const poke = await b.callTool({ name: "write_stdin", arguments: { session_id: sid, chars: "from-b\n", yield_time_ms: 500 } });
  assert.equal(poke.isError, true, text(poke));
  assert.match(text(poke), /not found/);
  const poll = await b.callTool({ name: "write_stdin", arguments: { session_id: sid, chars: "\u0003" } });
  assert.equal(poll.isError, true, "B cannot interrupt A's command");
  // A still owns it and its input was untouched by B
  const w = await a.callTool({ name: "write_stdin", arguments: { session_id: sid, chars: "from-a\n", yield_time_ms: 1000 } });
  assert.match(w.structuredContent.output, /a-got:from-a/);
  await waitFor(() => aliveMarker(marker), 5000, "A's sleep to start");
  // A's session ends (HTTP DELETE): its command goes with it, B's session lives on
  await a.transportRef.terminateSession();
  await waitFor(() => !aliveMarker(marker), 5000, "A's command to end with A's session");
  await b.ping();
});

test("one client's many commands prune only its own command sessions, never another client's", async () => {
  const a = await connect(srv);
  const b = await connect(srv);
  const r = await b.callTool({ name: "exec_command", arguments: { cmd: "read x; echo b-got:$x", yield_time_ms: 200 } });
  const bsid = r.structuredContent.session_id;
  assert.ok(bsid !== undefined, text(r));
  // more than the whole table (64): before each client had a share, B's
  // idle session was the least recently used and was ended for A's
  const mine = [];
  for (let i = 0; i < 70; i++) {
    const x = await a.callTool({ name: "exec_command", arguments: { cmd: "exec cat", yield_time_ms: 50 } });
    assert.ok(x.structuredContent?.session_id !== undefined, text(x));
    mine.push(x.structuredContent.session_id);
  }
  const w = await b.callTool({ name: "write_stdin", arguments: { session_id: bsid, chars: "still-here\n", yield_time_ms: 2000 } });
  assert.ok(!w.isError, text(w));
  assert.match(w.structuredContent.output, /b-got:still-here/);
  // A's oldest went to make room within A's share (16)
  const old = await a.callTool({ name: "write_stdin", arguments: { session_id: mine[0], chars: "" } });
  assert.equal(old.isError, true);
  const last = await a.callTool({ name: "write_stdin", arguments: { session_id: mine.at(-1), chars: "" } });
  assert.ok(!last.isError, text(last));
  await a.transportRef.terminateSession();
});

test("a client's commands read its own spooled output, never another client's", async () => {
  const a = await connect(srv);
  const b = await connect(srv);
  const r = await a.callTool({ name: "exec_command", arguments: { cmd: "seq 1 30000", max_output_tokens: 50 } });
  const path = r.structuredContent.spool_path;
  assert.ok(path, text(r));
  assert.match(path, /^\.vtcode\/context\/tool_outputs\/c-[0-9a-f]{16}\//);
  assert.equal(readFileSync(join(srv.ws, path), "utf8").split("\n").length, 30001, "the whole output is kept");
  const view = path.split("/")[3];
  const own = await a.callTool({ name: "exec_command", arguments: { cmd: `wc -l < ${path}; ls .vtcode/context/tool_outputs` } });
  assert.match(own.structuredContent.output, /^30000\n/);
  assert.match(own.structuredContent.output, new RegExp(view));
  // B: neither by the path nor by listing
  const read = await b.callTool({ name: "exec_command", arguments: { cmd: `cat ${path} 2>/dev/null | wc -l; test -e ${path} && echo EXISTS; ls -aR .vtcode/context/tool_outputs; grep -rl 29999 .vtcode 2>&1; true` } });
  const out = read.structuredContent.output;
  assert.match(out, /^0$/m, out);
  assert.doesNotMatch(out, /EXISTS/, out);
  assert.doesNotMatch(out, new RegExp(view), out);
  assert.doesNotMatch(out, /exec_command-/, out);
});

test("ending a session ends its commands even when one ignores SIGTERM and a write_stdin waits on it", async () => {
  const a = await connect(srv);
  const marker = `31.${process.pid}7`;
  const r = await a.callTool({ name: "exec_command", arguments: { cmd: `trap '' TERM; exec sleep ${marker}`, yield_time_ms: 300 } });
  const sid = r.structuredContent.session_id;
  assert.ok(sid !== undefined, text(r));
  await waitFor(() => aliveMarker(marker), 5000, "the sleep to start");
  // a poll waiting on it when the session ends: the call is cancelled, and
  // before, the command was left running, owned by a client that is gone
  const polling = a.callTool({ name: "write_stdin", arguments: { session_id: sid, chars: "", yield_time_ms: 20000 } }, undefined, { timeout: 30000 }).catch((e) => e);
  await sleep(300);
  await a.transportRef.terminateSession();
  await polling;
  await waitFor(() => !aliveMarker(marker), 5000, "the command to end with its session");
});

test("permission prompts go to the calling session's client as elicitation", async () => {
  const s2 = await startServer({ toml: "" }); // no allow rules: exec_command asks
  await promptGoesToCaller(s2, { approved: "approved-run", denied: "denied", file: "out.txt" });
  await waitFor(() => /"tool":"exec_command","decision":"deny"/.test(s2.stderr()), 5000, "the access log line");
});

test("the auto reviewer asks the client's model through sampling", async () => {
  const s3 = await startServer({ toml: `[permissions.auto]\nmodel = "review-model"\n` });
  mkdirSync(join(s3.ws, ".vtcode", "agents"), { recursive: true });
  writeFileSync(join(s3.ws, ".vtcode", "agents", "auto.md"), "---\nname: auto\npermissions:\n  default: auto\n---\nReviewed.\n");
  const c = await connect(s3, { capabilities: { sampling: {} } });
  let verdict = "ALLOW: harmless echo";
  let asked = 0;
  c.setRequestHandler(CreateMessageRequestSchema, async () => {
    asked++;
    return { role: "assistant", model: "review-model", content: { type: "text", text: verdict } };
  });
  const meta = { "vthost/agent": "auto" };
  const ok = await c.callTool({ name: "exec_command", arguments: { cmd: "echo reviewed-run" }, _meta: meta });
  assert.ok(asked >= 1);
  assert.match(ok.structuredContent.output, /reviewed-run/);
  verdict = "BLOCK: no";
  const no = await c.callTool({ name: "exec_command", arguments: { cmd: "echo x > blocked.txt" }, _meta: meta });
  assert.equal(no.isError, true);
  assert.ok(!existsSync(join(s3.ws, "blocked.txt")));
});

test("the reviewer's denial limit is the server's: a new session does not start it over", async () => {
  const s8 = await startServer({ toml: `[permissions.auto]\nmodel = "review-model"\nmax_consecutive_denials = 2\n` });
  mkdirSync(join(s8.ws, ".vtcode", "agents"), { recursive: true });
  writeFileSync(join(s8.ws, ".vtcode", "agents", "auto.md"), "---\nname: auto\npermissions:\n  default: auto\n---\nReviewed.\n");
  const meta = { "vthost/agent": "auto" };
  const a = await connect(s8, { capabilities: { sampling: {} } });
  a.setRequestHandler(CreateMessageRequestSchema, async () => ({ role: "assistant", model: "review-model", content: { type: "text", text: "BLOCK: no" } }));
  for (let i = 0; i < 2; i++) {
    const r = await a.callTool({ name: "exec_command", arguments: { cmd: `echo x > blocked${i}.txt` }, _meta: meta });
    assert.equal(r.isError, true);
  }
  // a fresh session of the same server: a person decides, the reviewer is not asked
  const b = await connect(s8, { capabilities: { sampling: {}, elicitation: {} } });
  let sampled = 0;
  let asked = 0;
  b.setRequestHandler(CreateMessageRequestSchema, async () => {
    sampled++;
    return { role: "assistant", model: "review-model", content: { type: "text", text: "ALLOW: fine" } };
  });
  b.setRequestHandler(ElicitRequestSchema, async () => {
    asked++;
    return { action: "accept", content: { decision: "deny" } };
  });
  const r = await b.callTool({ name: "exec_command", arguments: { cmd: "echo x > fresh.txt" }, _meta: meta });
  assert.equal(r.isError, true, text(r));
  assert.equal(asked, 1, "a person was asked");
  assert.equal(sampled, 0, "the reviewer was not");
  assert.ok(!existsSync(join(s8.ws, "fresh.txt")));
});

test("search_tools expands a deferred tool: list_changed on the GET stream, then callable", async () => {
  const dir = catalogDir();
  assert.ok(dir && existsSync(join(dir, "catalog_fixture.so")), `catalog fixture plugin in ${dir}`);
  const s4 = await startServer({
    toml: `[permissions]\nallow = ["exec_command", "search_tools", "github_review_pull_request"]\n`,
    pluginDirs: [dir],
  });
  const c = await connect(s4);
  let changed = 0;
  c.setNotificationHandler(ToolListChangedNotificationSchema, () => changed++);
  assert.deepEqual((await c.listTools()).tools.map((t) => t.name), DEFAULT_TOOLS);
  const r = await c.callTool({ name: "search_tools", arguments: { query: "GitHub pull request review", limit: 2 } });
  assert.ok(!r.isError, text(r));
  await waitFor(() => changed > 0, 5000, "notifications/tools/list_changed");
  const names = (await c.listTools()).tools.map((t) => t.name);
  assert.ok(names.includes("github_review_pull_request"), names.join(","));
  const call = await c.callTool({ name: "github_review_pull_request", arguments: { owner: "o", repo: "r", pull_number: 7, event: "COMMENT" } });
  assert.ok(!call.isError, text(call));
});

test("--catalog over HTTP: full lists every tool, deferred never does, auto lists everything once a client that never re-lists connects", async () => {
  const dir = catalogDir();
  const toml = `[permissions]\nallow = ["exec_command", "search_tools", "github_review_pull_request"]\n`;
  const names = async (c) => (await c.listTools()).tools.map((t) => t.name);
  const full = await startServer({ toml, pluginDirs: [dir], extraArgs: ["--catalog", "full"] });
  assert.ok((await names(await connect(full))).includes("github_review_pull_request"), "full: listed to any client");
  const deferred = await startServer({ toml, pluginDirs: [dir], extraArgs: ["--catalog", "deferred"] });
  assert.deepEqual(await names(await connect(deferred, { name: "codex-mcp-client" })), DEFAULT_TOOLS, "deferred: not even to Codex");
  const auto = await startServer({ toml, pluginDirs: [dir] });
  const plain = await connect(auto);
  let changed = 0;
  plain.setNotificationHandler(ToolListChangedNotificationSchema, () => changed++);
  assert.deepEqual(await names(plain), DEFAULT_TOOLS);
  const codex = await connect(auto, { name: "codex-mcp-client" });
  assert.ok((await names(codex)).includes("github_review_pull_request"), "auto: the whole catalog for Codex");
  const call = await codex.callTool({ name: "github_review_pull_request", arguments: { owner: "o", repo: "r", pull_number: 7, event: "COMMENT" } });
  assert.ok(!call.isError, text(call));
  await waitFor(() => changed > 0, 5000, "list_changed to the session that listed before");
  assert.ok((await names(plain)).includes("github_review_pull_request"));
  assert.match(auto.stderr(), /codex-mcp-client.*does not re-list tools/);
});

test("SIGTERM: a running call finishes and answers, then the server exits 0", async () => {
  const s5 = await startServer();
  const c = await connect(s5);
  const marker = `1.${process.pid}4`;
  const pending = c.callTool({ name: "exec_command", arguments: { cmd: `sleep ${marker}; echo drained`, yield_time_ms: 10000 } }, undefined, { timeout: 30000 });
  await waitFor(() => aliveMarker(marker), 5000, "the call to be running");
  s5.child.kill("SIGTERM");
  const r = await pending;
  assert.match(r.structuredContent.output, /drained/);
  const e = await s5.exited;
  assert.equal(e.code, 0, s5.stderr());
  assert.doesNotMatch(s5.stderr(), /Sanitizer|runtime error/);
});

test("a call cut short by the end of its session gets an error, not silence", async () => {
  const s6 = await startServer({ httpToml: "shutdown_grace_seconds = 0\n" });
  const c = await connect(s6);
  const marker = `31.${process.pid}5`;
  const pending = c.callTool({ name: "exec_command", arguments: { cmd: `exec sleep ${marker}`, yield_time_ms: 20000 } }, undefined, { timeout: 30000 });
  await waitFor(() => aliveMarker(marker), 5000, "the call to be running");
  s6.child.kill("SIGTERM");
  await assert.rejects(pending, /session ended before the call finished/);
  assert.equal((await s6.exited).code, 0);
  await waitFor(() => !aliveMarker(marker), 5000, "the command to end with the server");
});

test("no server reported a sanitizer error; the token never reached stderr (a pipe, not a terminal)", async () => {
  const err = srv.stderr();
  assert.doesNotMatch(err, /Sanitizer|runtime error|LeakSanitizer/);
  assert.match(err, /created a bearer token/);
  assert.equal(err.indexOf(srv.token), -1, "the token is not written to a non-terminal stderr");
});
