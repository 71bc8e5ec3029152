// The caps on connections: a flood of strangers from one address evicts
// its own waiting connections, not another address's; and
// max_connections_per_address closes one address's connection past the
// cap while another address is still served; a cap on strangers that
// leaves no room for the user's clients is refused at start.  Loopback addresses other
// than 127.0.0.1 play the other hosts.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServer, cleanup, waitFor, bin } from "./http_lib.mjs";
import { open, head, finalStatus } from "./raw_http.mjs";

after(cleanup);

test("a flood from one address evicts its own waiting connections, not another address's", async () => {
  const srv = await startServer({ httpToml: "max_unauthenticated_connections = 16\nheader_timeout_seconds = 30\n" });
  const other = await open(srv, "127.0.0.3"); // the oldest waiting connection
  const flood = [];
  for (let i = 0; i < 100; i++) flood.push(await open(srv, "127.0.0.2"));
  const floodOpen = () => flood.filter((s) => !s.closedAt).length;
  await waitFor(() => floodOpen() <= 16, 3000, "the flood's connections over the cap to close").catch(() => {});
  assert.equal(other.closedAt, 0, "the other address's connection is still open");
  other.write(head("GET", "/healthz"));
  const r = await finalStatus(other, 3000);
  const left = floodOpen();
  for (const s of [other, ...flood]) s.destroy();
  assert.equal(r.status, 200, `the other address is served: ${r.status}`);
  assert.ok(left <= 16, `${left} of the flood's connections left open (cap 16)`);
  // said once a second, with how many
  await waitFor(() => /to make room for new ones: more than 16 connections had not authenticated/.test(srv.stderr()), 3000, "the eviction line");
});

test("max_connections_per_address: one address past the cap is closed, another is served", async () => {
  const srv = await startServer({ httpToml: "max_connections_per_address = 8\n" });
  const mine = [];
  for (let i = 0; i < 8; i++) mine.push(await open(srv, "127.0.0.2"));
  const ninth = await open(srv, "127.0.0.2");
  ninth.write(head("GET", "/healthz"));
  const refused = await finalStatus(ninth, 3000);
  const other = await open(srv, "127.0.0.3");
  other.write(head("GET", "/healthz"));
  const served = await finalStatus(other, 3000);
  for (const s of [...mine, ninth, other]) s.destroy();
  assert.equal(refused.status, 0, "the ninth connection from one address gets no answer");
  assert.ok(ninth.closedAt, "and is closed");
  assert.equal(served.status, 200, "another address is served");
});

test("max_unauthenticated_connections must leave room under max_connections", () => {
  const dir = mkdtempSync(join(tmpdir(), "vthost-caps-"));
  mkdirSync(join(dir, "vthost"));
  writeFileSync(join(dir, "vthost", "http.toml"), "max_connections = 32\nmax_unauthenticated_connections = 32\n");
  const r = spawnSync(bin, ["serve", "--http", "127.0.0.1:0"], { encoding: "utf8", timeout: 10000, cwd: dir, env: { ...process.env, XDG_CONFIG_HOME: dir } });
  rmSync(dir, { recursive: true, force: true });
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /max_unauthenticated_connections \(32\) must be less than max_connections \(32\)/);
  assert.doesNotMatch(r.stderr, /serving MCP/);
});
