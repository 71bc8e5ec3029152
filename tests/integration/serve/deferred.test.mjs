// Over MCP a deferred tool is callable only once search_tools found it
// (or the profile lists it); before, the error names the tool and says
// to find it with search_tools first.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { connect, scratch, text, types } from "./client.mjs";

const s = scratch(["exec_command", "search_tools", "github_review_pull_request"]);
const clients = [];
after(async () => {
  for (const c of clients) await c.close().catch(() => {});
  s.remove();
});
const catalog = process.env.VTHOST_CATALOG_DIR;
const ARGS = { owner: "o", repo: "r", pull_number: 7, event: "COMMENT" };

async function open(extra = []) {
  assert.ok(catalog && existsSync(join(catalog, "catalog_fixture.so")), `catalog fixture in ${catalog}`);
  const ws = s.dir(`ws${clients.length}`);
  const c = await connect({ cwd: ws, home: s.home, args: ["--workspace", ws, "--plugin-dir", catalog, ...extra] });
  clients.push(c);
  return c;
}

test("a deferred tool is refused before search_tools found it, callable after", async () => {
  const c = await open();
  let changed = 0;
  c.setNotificationHandler(types.ToolListChangedNotificationSchema, () => changed++);
  const names = (await c.listTools()).tools.map((t) => t.name);
  assert.ok(!names.includes("github_review_pull_request"));

  // Like an unknown tool: a JSON-RPC error (-32602) naming the tool.
  await assert.rejects(c.callTool({ name: "github_review_pull_request", arguments: ARGS }), (e) => {
    assert.equal(e.code, -32602);
    assert.match(e.message, /'github_review_pull_request' is deferred/);
    assert.match(e.message, /search_tools first/);
    return true;
  });

  // A search that finds other tools does not unlock this one.
  const other = await c.callTool({ name: "search_tools", arguments: { query: "slack message", limit: 1 } });
  assert.ok(!other.isError, text(other));
  await assert.rejects(c.callTool({ name: "github_review_pull_request", arguments: ARGS }),
    /is deferred/, "a search for something else does not expand it");

  const found = await c.callTool({ name: "search_tools", arguments: { query: "GitHub pull request review", limit: 2 } });
  assert.ok(!found.isError, text(found));
  assert.match(JSON.stringify(found.structuredContent), /github_review_pull_request/);
  const ok = await c.callTool({ name: "github_review_pull_request", arguments: ARGS });
  assert.ok(!ok.isError, text(ok));
  assert.equal(ok.structuredContent.tool, "github_review_pull_request");
  assert.ok(changed > 0, "list_changed was sent");
});

test("an unknown tool is still 'unknown', not 'deferred'", async () => {
  const c = await open();
  await assert.rejects(c.callTool({ name: "github_review_pull_requestz", arguments: {} }), (e) => {
    assert.match(e.message, /Unknown tool/);
    assert.doesNotMatch(e.message, /deferred/);
    return true;
  });
});

test("the CLI names its tools explicitly: a deferred tool runs there", async () => {
  const { execFileSync } = await import("node:child_process");
  const ws = s.dir("cli");
  const out = execFileSync(
    process.env.VTHOST_BIN,
    ["--workspace", ws, "--plugin-dir", catalog, "--yes", "call", "github_review_pull_request", JSON.stringify(ARGS)],
    { env: { ...process.env, HOME: s.home, XDG_CONFIG_HOME: join(s.home, ".config") } },
  ).toString();
  assert.match(out, /github_review_pull_request/);
});
