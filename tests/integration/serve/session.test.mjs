// What one client session hears: no notifications/tools/list_changed
// unless the listed tools changed (a client declaring roots used to get
// one on its first call, when the workspace moved to its root), and a
// warning that every call would repeat is said once.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { connect, scratch, pwd, text, fileUri, types } from "./client.mjs";

const s = scratch();
const clients = [];
after(async () => {
  for (const c of clients) await c.close().catch(() => {});
  s.remove();
});
async function open(opts) {
  const c = await connect({ home: s.home, ...opts });
  clients.push(c);
  c.changes = 0;
  c.setNotificationHandler(types.ToolListChangedNotificationSchema, () => c.changes++);
  return c;
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

test("a client declaring roots: the move to its root announces no list change", async () => {
  const project = s.dir("project");
  const c = await open({ cwd: s.dir("start"), roots: [fileUri(project)] });
  const before = (await c.listTools()).tools.map((t) => t.name);
  const { r, dir } = await pwd(c);
  assert.ok(!r.isError, text(r));
  assert.equal(dir, project);
  await sleep(300);
  assert.equal(c.changes, 0, "list_changed without a change");
  assert.deepEqual((await c.listTools()).tools.map((t) => t.name), before);
});

test("a trusted root whose vtcode.toml picks another profile: list_changed comes", async () => {
  const project = s.dir("advanced");
  writeFileSync(join(project, "vtcode.toml"), '[tools]\nprofile = "advanced"\n');
  const config = join(s.home, ".config", "vtcode", "vtcode.toml");
  const saved = readFileSync(config, "utf8");
  writeFileSync(config, `${saved}\n[trust]\nworkspaces = [${JSON.stringify(project)}]\n`);
  try {
    const c = await open({ cwd: s.dir("start2"), roots: [fileUri(project)] });
    assert.ok(!(await c.listTools()).tools.some((t) => t.name === "code_search"));
    const { r } = await pwd(c);
    assert.ok(!r.isError, text(r));
    await sleep(300);
    assert.ok((await c.listTools()).tools.some((t) => t.name === "code_search"), "the advanced profile applies");
    assert.equal(c.changes, 1);
  } finally {
    writeFileSync(config, saved);
  }
});

test("a warning about what a call did is in every result that has it", async () => {
  // Only the machine's warnings (call_warn_once: a limit it cannot
  // enforce) are given once per session; a call's own warning repeats.
  const c = await open({ cwd: s.dir("warn") });
  const warnings = async () => {
    const r = await c.callTool({ name: "search_tools", arguments: { query: "x" } });
    assert.ok(!r.isError, text(r));
    return JSON.stringify(r.structuredContent?.warnings ?? []);
  };
  assert.match(await warnings(), /no searchable words/);
  assert.match(await warnings(), /no searchable words/);
  assert.match(await warnings(), /no searchable words/);
});
