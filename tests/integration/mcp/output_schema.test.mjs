// Every tool's title and outputSchema, through the official SDK client
// (which validates structuredContent against outputSchema on its own):
// real calls of every tool — successes, failures, a guard block, a
// response cut by the output budget, and a typed tool (the SDK example's
// word_count, found with search_tools) — each checked again explicitly
// with the SDK's Ajv validator, so no call passes unchecked.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { requireClients, vthostBin, makeWorkspace, removeWorkspace, serverArgs, serverEnv } from "./lib.mjs";

requireClients();
const bin = vthostBin();
const examples = process.env.VTHOST_EXAMPLES_DIR;
if (!examples) {
  console.error("VTHOST_EXAMPLES_DIR is not set to the built SDK example (wordtools.so)");
  process.exit(1);
}
const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
const { AjvJsonSchemaValidator } = await import("@modelcontextprotocol/sdk/validation/ajv");

const ws = makeWorkspace(`[permissions]
allow = ["exec_command", "write_stdin", "apply_patch", "search_tools", "code_search", "word_count", "file_head"]
deny = ["exec_command(rm *)"]

[tools.anti_blind_editing]
enabled = true
max_unverified_mutations = 2
verification_commands = ["true"]
`);
writeFileSync(join(ws, "words.txt"), "one two two three\n");
writeFileSync(join(ws, "lib.py"), "def greet(name):\n    return name\n\nprint(greet('x'))\n");
let client;
const ajv = new AjvJsonSchemaValidator();
const schemas = new Map();
const checked = new Map(); // tool -> number of structuredContent objects validated

before(async () => {
  const transport = new StdioClientTransport({
    command: bin,
    args: serverArgs(ws, { profile: "advanced", pluginDirs: [examples] }),
    env: serverEnv(),
    stderr: "inherit",
  });
  client = new Client({ name: "output-schema-test", version: "1.0.0" }, { capabilities: {} });
  await client.connect(transport);
  await relist();
});
after(async () => {
  await client?.close().catch(() => {});
  removeWorkspace(ws);
});

// tools/list again: the SDK client caches each tool's output validator.
async function relist() {
  const { tools } = await client.listTools();
  for (const t of tools) schemas.set(t.name, t.outputSchema);
  return tools;
}

// A call whose structuredContent must match the tool's outputSchema (the
// client throws when it does not; we check again to count it).
async function call(name, args, { error = false } = {}) {
  const r = await client.callTool({ name, arguments: args });
  assert.equal(!!r.isError, error, `${name} ${JSON.stringify(args)}: ${r.content?.[0]?.text}`);
  assert.ok(r.structuredContent, `${name}: structuredContent`);
  const schema = schemas.get(name);
  assert.ok(schema, `${name} has an outputSchema`);
  const v = ajv.getValidator(schema)(r.structuredContent);
  assert.ok(v.valid, `${name}: ${v.errorMessage}\n${JSON.stringify(r.structuredContent)}`);
  checked.set(name, (checked.get(name) ?? 0) + 1);
  return r.structuredContent;
}

test("every listed tool has a title and an object outputSchema", async () => {
  const tools = await relist();
  assert.deepEqual(tools.map((t) => t.name).sort(),
    ["apply_patch", "code_search", "exec_command", "search_tools", "write_stdin"]);
  for (const t of tools) {
    assert.equal(typeof t.title, "string", `${t.name} title`);
    assert.ok(t.title.length > 3);
    assert.equal(t.outputSchema?.type, "object", `${t.name} outputSchema`);
  }
  // not vacuous: an exec_command result without its fields is refused
  const bad = ajv.getValidator(schemas.get("exec_command"))({ success: true, output: "x" });
  assert.equal(bad.valid, false);
  const badType = ajv.getValidator(schemas.get("exec_command"))({
    success: true, is_exited: "yes", wall_time: 1, working_directory: "/", backend: "pipe" });
  assert.equal(badType.valid, false);
});

test("exec_command and write_stdin: finished, failing, running, polled, invalid, denied", async () => {
  await call("exec_command", { cmd: "echo hi" });
  const f = await call("exec_command", { cmd: "exit 3" });
  assert.equal(f.exit_code, 3);
  const running = await call("exec_command", { cmd: "sleep 1; echo late", yield_time_ms: 250 });
  assert.ok(running.session_id > 0);
  const polled = await call("write_stdin", { session_id: running.session_id, chars: "", yield_time_ms: 5000 });
  assert.equal(polled.is_exited, true);
  await call("exec_command", { cmd: "yes | head -c 200000" , max_output_tokens: 10 }); // cut by the budget
  await call("exec_command", { cmd: 42 }, { error: true });
  await call("exec_command", { cmd: "rm -f words.txt" }, { error: true });
  await call("write_stdin", { session_id: 999999, chars: "" }, { error: true });
});

test("apply_patch: add, update, move, delete, a failure, a budget cut and a guard block", async () => {
  await call("apply_patch", { input: "*** Begin Patch\n*** Add File: a.txt\n+alpha\n*** End Patch\n" });
  await call("exec_command", { cmd: "/bin/true" }); // verification (a program that runs: the builtin runs none)
  await call("apply_patch", {
    input: "*** Begin Patch\n*** Update File: a.txt\n*** Move to: b.txt\n@@\n-alpha\n+beta\n*** End Patch\n" });
  await call("exec_command", { cmd: "/bin/true" });
  await call("apply_patch", { input: "*** Begin Patch\n*** Delete File: b.txt\n*** End Patch\n" });
  await call("exec_command", { cmd: "/bin/true" });
  await call("apply_patch", { input: "*** Begin Patch\n*** Update File: missing.txt\n@@\n-x\n+y\n*** End Patch\n" },
    { error: true });
  const big = "*** Begin Patch\n*** Add File: big.txt\n" + "+line of text\n".repeat(400) + "*** End Patch\n";
  const cut = await call("apply_patch", { input: big, max_output_tokens: 20 });
  assert.equal(cut.truncated, true);
  await call("apply_patch", { input: "*** Begin Patch\n*** Add File: c.txt\n+c\n*** End Patch\n" });
  const blocked = await call("apply_patch", { input: "*** Begin Patch\n*** Add File: d.txt\n+d\n*** End Patch\n" },
    { error: true });
  assert.equal(blocked.blocked, true);
  await call("exec_command", { cmd: "/bin/true" });
});

test("code_search: results, and an unknown file type", async () => {
  const r = await call("code_search", { query: "greet", result_types: ["definition", "usage", "text", "path"] });
  assert.ok(r.results.length >= 2);
  await call("code_search", { query: "greet", file_types: ["nosuchlang"] }, { error: true });
});

test("search_tools and a typed tool it finds", async () => {
  const s = await call("search_tools", { query: "count the words in a file", detail_level: "full" });
  assert.ok(s.expanded_for_next_segment.includes("word_count"), JSON.stringify(s));
  const words = s.tools.find((t) => t.name === "word_count");
  assert.equal(words.parameters.properties.path.description, "Text file, relative to the workspace root.");
  assert.equal(words.parameters.properties.unique.description, "Count each distinct word once.");
  await call("search_tools", { query: "show the start of a file" });
  await call("search_tools", { query: "words", max_output_tokens: 1 });
  const tools = await relist();
  const wc = tools.find((t) => t.name === "word_count");
  assert.equal(wc.title, "Count words in a file");
  assert.equal(wc.outputSchema.properties.result.type, "integer");
  assert.match(wc.outputSchema.properties.result.description, /number of words/);
  assert.equal(wc.inputSchema.properties.path.description, "Text file, relative to the workspace root.");
  const n = await call("word_count", { path: "words.txt", unique: true });
  assert.equal(n.result, 3);
  await call("word_count", { path: "words.txt" }, { error: true }); // unique is required
  // a typed result of the wrong type would be refused
  assert.equal(ajv.getValidator(wc.outputSchema)({ result: "3" }).valid, false);
  const fh = tools.find((t) => t.name === "file_head");
  assert.equal(fh?.title, "Show the start of a file");
  await call("file_head", { path: "words.txt", lines: 1 });
  await call("file_head", { path: "nosuch.txt" }, { error: true });
});

test("every tool was checked", () => {
  for (const t of ["exec_command", "write_stdin", "apply_patch", "search_tools", "code_search", "word_count", "file_head"])
    assert.ok((checked.get(t) ?? 0) >= 2, `${t}: ${checked.get(t) ?? 0} results validated`);
});
