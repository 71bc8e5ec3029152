// The tutorial's plugin from an agent's side: `vthost serve` started in
// the plugin's folder (no roots, so that folder is the workspace); the
// tool is not listed and cannot be called until search_tools finds it.
import assert from "node:assert/strict";
import { connect, text, types } from "../serve/client.mjs";

const c = await connect({ cwd: process.env.TUTORIAL_DIR, home: process.env.TUTORIAL_HOME });
try {
  let changed = 0;
  c.setNotificationHandler(types.ToolListChangedNotificationSchema, () => changed++);
  const before = (await c.listTools()).tools.map((t) => t.name);
  assert.ok(!before.includes("hello"), `not listed yet: ${before}`);
  await assert.rejects(c.callTool({ name: "hello", arguments: { name: "Ada" } }), /search_tools first/);
  const found = await c.callTool({ name: "search_tools", arguments: { query: "greets someone by name" } });
  assert.ok(!found.isError, text(found));
  assert.match(JSON.stringify(found.structuredContent), /"name":"hello"/);
  for (let i = 0; i < 50 && !changed; i++) await new Promise((r) => setTimeout(r, 100));
  assert.ok(changed > 0, "notifications/tools/list_changed");
  const after = (await c.listTools()).tools.map((t) => t.name);
  assert.ok(after.includes("hello"), `listed now: ${after}`);
  const r = await c.callTool({ name: "hello", arguments: { name: "Ada" } });
  assert.ok(!r.isError, text(r));
  assert.equal(r.structuredContent.greeting, "Ada");
  console.log("MCP: search_tools found hello; hello greeted", r.structuredContent.greeting);
} finally {
  await c.close();
}
