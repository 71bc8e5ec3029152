// Where `vthost serve` works: --workspace; else the client's first
// file:// root (roots/list after initialize); else the working directory.
// /, the home directory and system directories are refused unless named
// with --workspace: an MCP error on the first tool call and a message on
// stderr that says how to pass a workspace.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { connect, scratch, pwd, text, fileUri } from "./client.mjs";

const s = scratch();
const clients = [];
after(async () => {
  for (const c of clients) await c.close().catch(() => {});
  s.remove();
});
async function open(opts) {
  const c = await connect({ home: s.home, ...opts });
  clients.push(c);
  return c;
}

test("a client declaring roots: the first file:// root is the workspace", async () => {
  const project = s.dir("project"), other = s.dir("other"), start = s.dir("start");
  const c = await open({
    cwd: start,
    roots: [{ uri: "https://example.com/not-a-dir" }, fileUri(project), fileUri(other)],
  });
  assert.match(c.getInstructions(), /for the workspace given by the client's first root\./);
  const { r, dir } = await pwd(c);
  assert.ok(!r.isError, text(r));
  assert.equal(dir, project);
  assert.equal(c.rootsAsked(), 1);
  // A file the command writes lands in the root, not where the server started.
  const w = await c.callTool({ name: "exec_command", arguments: { cmd: "echo hi > made-here" } });
  assert.ok(!w.isError, text(w));
  assert.ok(existsSync(join(project, "made-here")));
  assert.ok(!existsSync(join(start, "made-here")));
  assert.equal(c.rootsAsked(), 1, "roots are asked once");
  // The choice among several roots is logged to the client (notifications/message).
  const line = c.logs.find((l) => /the client sent 3 roots/.test(l.data));
  assert.ok(line, JSON.stringify(c.logs));
  assert.equal(line.level, "warning");
  assert.match(line.data, new RegExp(`the workspace is the first file:// one, ${project}`));
});

test("a root with percent-encoded characters is decoded", async () => {
  const project = s.dir("with space");
  const c = await open({ cwd: s.dir("start2"), roots: [fileUri(project)] });
  const { r, dir } = await pwd(c);
  assert.ok(!r.isError, text(r));
  assert.equal(dir, project);
});

test("a client without roots: the working directory", async () => {
  const here = s.dir("cwd-project");
  const c = await open({ cwd: here });
  assert.match(c.getInstructions(), new RegExp(`for the workspace ${here}\\.`));
  const { r, dir } = await pwd(c);
  assert.ok(!r.isError, text(r));
  assert.equal(dir, here);
});

test("--workspace wins over the client's roots (which are then not asked for)", async () => {
  const named = s.dir("named"), rooted = s.dir("rooted");
  const c = await open({ cwd: s.dir("start3"), args: ["--workspace", named], roots: [fileUri(rooted)] });
  const { r, dir } = await pwd(c);
  assert.ok(!r.isError, text(r));
  assert.equal(dir, named);
  assert.equal(c.rootsAsked(), 0);
});

async function expectRefused(c, dir) {
  const marker = join(dir, "vthost-refused-marker");
  const r = await c.callTool({ name: "exec_command", arguments: { cmd: `touch '${marker}'` } });
  assert.equal(r.isError, true, "the call is refused");
  assert.match(text(r), /will not use .* as the workspace/);
  assert.match(text(r), /--workspace DIR/);
  assert.ok(!existsSync(marker), "nothing ran");
  // Every later call too, and the explanation is on stderr once.
  const again = await c.callTool({ name: "exec_command", arguments: { cmd: "true" } });
  assert.equal(again.isError, true);
  await c.close();
  const err = c.stderrText();
  assert.match(err, /vthost serve: vthost will not use .* as the workspace/);
  assert.match(err, /--workspace/);
  assert.equal(err.match(/will not use/g).length, 1);
}

test("the home directory as working directory, no roots: refused", async () => {
  await expectRefused(await open({ cwd: s.home }), s.home);
});

test("/ as working directory, no roots: refused", async () => {
  const c = await open({ cwd: "/" });
  const r = await c.callTool({ name: "exec_command", arguments: { cmd: "pwd" } });
  assert.equal(r.isError, true);
  assert.match(text(r), /will not use \/ \(the working directory\)/);
  await c.close();
  assert.match(c.stderrText(), /will not use \/ \(the working directory\)/);
});

test("/ and the home directory as the client's root: refused", async () => {
  const c1 = await open({ cwd: s.dir("start4"), roots: ["file:///"] });
  const r1 = await c1.callTool({ name: "exec_command", arguments: { cmd: "pwd" } });
  assert.equal(r1.isError, true);
  assert.match(text(r1), /will not use \/ \(the client's root\)/);
  await expectRefused(await open({ cwd: s.dir("start5"), roots: [fileUri(s.home)] }), s.home);
});

test("a good root rescues a server started in /", async () => {
  const project = s.dir("rescued");
  const c = await open({ cwd: "/", roots: [fileUri(project)] });
  const { r, dir } = await pwd(c);
  assert.ok(!r.isError, text(r));
  assert.equal(dir, project);
});

test("named explicitly with --workspace, the home directory is allowed", async () => {
  const c = await open({ cwd: s.dir("start6"), args: ["--workspace", s.home] });
  const { r, dir } = await pwd(c);
  assert.ok(!r.isError, text(r));
  assert.equal(dir, s.home);
});

test("the root's own vtcode.toml applies once it is the workspace", async () => {
  const project = s.dir("strict");
  writeFileSync(join(project, "vtcode.toml"), `[permissions]\ndeny = ["exec_command(touch *)"]\n`);
  const c = await open({ cwd: s.dir("start7"), roots: [fileUri(project)] });
  const r = await c.callTool({ name: "exec_command", arguments: { cmd: "touch denied-file" } });
  assert.equal(r.isError, true, text(r));
  assert.ok(!existsSync(join(project, "denied-file")));
});
