// Anti-blind-editing through `vthost serve` and the official MCP SDK
// client: shell edits are counted from what they changed, writing
// commands are refused (file bytes unchanged) while verification is
// required, a write the guard could not foresee is reported, `make
// --version` and `make -n` verify nothing while a real make run does,
// and two servers on one workspace share one counter: of six concurrent
// patches at the threshold exactly one applies.
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import {
  requireClients, vthostBin, makeWorkspace, removeWorkspace, serverArgs, serverEnv, ALLOW_ALL, here,
} from "../mcp/lib.mjs";

requireClients();
const bin = vthostBin();
const require = createRequire(join(here, "package.json"));
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");

const workspaces = [];
const clients = [];
let passed = 0;

// The servers' stderr: a sanitizer's report there fails the test.
let serverErrors = "";

async function connect(ws) {
  const transport = new StdioClientTransport({
    command: bin, args: serverArgs(ws), env: serverEnv(), stderr: "pipe",
  });
  transport.stderr?.on("data", (d) => { serverErrors += d; process.stderr.write(d); });
  const client = new Client({ name: "vthost-guard-test", version: "1.0.0" }, { capabilities: {} });
  await client.connect(transport);
  clients.push(client);
  return client;
}

function workspace() {
  const ws = makeWorkspace(ALLOW_ALL);
  workspaces.push(ws);
  writeFileSync(join(ws, "Makefile"),
    "all:\n\t@echo built > out.o\n\t@echo made\nfail:\n\t@false\n");
  return ws;
}

const call = async (c, name, args) => (await c.callTool({ name, arguments: args })).structuredContent ?? {};
const exec = (c, cmd) => call(c, "exec_command", { cmd, yield_time_ms: 10000 });
const add = (c, f) => call(c, "apply_patch", { input: `*** Begin Patch\n*** Add File: ${f}\n+x\n*** End Patch\n` });

function isBlocked(r, what) {
  assert.equal(r.blocked, true, `${what} should be blocked: ${JSON.stringify(r)}`);
  assert.equal(r.failure_kind, "anti_blind_editing_verification_required");
}

async function shellEditsAndRefusals() {
  const ws = workspace();
  const c = await connect(ws);
  const f = join(ws, "f.txt");
  for (let n = 1; n <= 4; n++) {
    const r = await exec(c, `echo ${n} >> f.txt`);
    assert.equal(r.exit_code, 0, JSON.stringify(r));
  }
  assert.equal(readFileSync(f, "utf8"), "1\n2\n3\n4\n");
  // The fifth and sixth shell edits are refused before they run.
  for (let n = 5; n <= 6; n++) {
    const r = await exec(c, `echo ${n} >> f.txt`);
    isBlocked(r, `echo ${n} >> f.txt`);
    assert.equal(r.pending_mutations, 4);
    assert.match(r.error, /would change the workspace/);
  }
  isBlocked(await add(c, "g.txt"), "a patch after four shell edits");
  assert.ok(!existsSync(join(ws, "g.txt")));
  const bytes = readFileSync(f);
  for (const cmd of ["sed -i s/1/X/ f.txt", "cp f.txt h.txt", "rm f.txt", "touch t.txt",
                     "echo x | tee -a f.txt", "mv f.txt m.txt", "printf x > f.txt",
                     "git checkout -- f.txt"]) {
    isBlocked(await exec(c, cmd), cmd);
  }
  assert.deepEqual(readFileSync(f), bytes, "refused commands left f.txt's bytes alone");
  for (const x of ["h.txt", "t.txt", "m.txt"]) assert.ok(!existsSync(join(ws, x)), x);
  // Reading stays allowed.
  const cat = await exec(c, "cat f.txt");
  assert.equal(cat.exit_code, 0);
  assert.match(cat.output, /4/);
  // A write nothing could foresee runs, and is reported.
  const awk = await exec(c, `awk 'BEGIN { print "x" > "z.txt" }'`);
  assert.equal(awk.exit_code, 0, JSON.stringify(awk));
  assert.ok(existsSync(join(ws, "z.txt")));
  assert.ok((awk.warnings ?? []).some((w) => /z\.txt/.test(w) && /verification was required/.test(w)),
    "the write is reported: " + JSON.stringify(awk));
  // Asking make about itself, or a dry run, verifies nothing.
  for (const cmd of ["make --version", "make -n", "make --just-print", "make --help"]) {
    const r = await exec(c, cmd);
    assert.equal(r.exit_code, 0, `${cmd}: ${JSON.stringify(r)}`);
    isBlocked(await add(c, "g.txt"), `a patch after ${cmd}`);
  }
  // A real run does, and its own output (out.o) is not an edit.
  const made = await exec(c, "make");
  assert.equal(made.exit_code, 0, JSON.stringify(made));
  assert.ok(existsSync(join(ws, "out.o")));
  const r = await add(c, "g.txt");
  assert.equal(r.success, true, "make lifted the block: " + JSON.stringify(r));
  passed++;

  // A failing test run is still a verification that completed.
  for (let n = 0; n < 3; n++) await exec(c, `echo ${n} >> k.txt`);
  isBlocked(await exec(c, "echo more >> k.txt"), "a fifth edit");
  const failed = await exec(c, "make fail");
  assert.equal(failed.exit_code, 2);
  assert.equal((await add(c, "after-fail.txt")).success, true, "a failing run completed");
  passed++;
}

async function sharedCounterAndConcurrentPatches() {
  const ws = workspace();
  const [a, b] = [await connect(ws), await connect(ws)];
  // Counted by one server, seen by the other.
  assert.equal((await add(a, "p1.txt")).success, true);
  assert.equal((await add(b, "p2.txt")).success, true);
  assert.equal((await exec(a, "echo 3 > p3.txt")).exit_code, 0);
  const tries = [];
  for (let i = 0; i < 6; i++) tries.push(add(i % 2 ? a : b, `race${i}.txt`));
  const results = await Promise.all(tries);
  const ok = results.filter((r) => r.success === true).length;
  assert.equal(ok, 1, "exactly one patch passes the threshold: " + JSON.stringify(results));
  for (const r of results) if (r.success !== true) isBlocked(r, "a racing patch");
  let files = 0;
  for (let i = 0; i < 6; i++) if (existsSync(join(ws, `race${i}.txt`))) files++;
  assert.equal(files, 1);
  isBlocked(await add(b, "late.txt"), "the other server");
  passed++;
}

// Text typed into a live shell is judged like a command: while
// verification is required, a writing line is refused before it reaches
// the shell (the file never appears); a reading line still goes through.
async function typedCommandsAreJudged() {
  const ws = workspace();
  const c = await connect(ws);
  const sh = await call(c, "exec_command", { cmd: "sh", yield_time_ms: 300 });
  assert.ok(sh.session_id, JSON.stringify(sh));
  const type = (chars) => call(c, "write_stdin", { session_id: sh.session_id, chars, yield_time_ms: 1500 });
  // allowed while under the threshold
  const first = await type("echo one > typed0.txt\n");
  assert.notEqual(first.blocked, true, JSON.stringify(first));
  // up to the threshold (the typed line may have counted as one edit)
  for (let n = 1; n <= 4; n++) {
    const e = await exec(c, `echo ${n} >> f.txt`);
    if (e.blocked) break;
    assert.equal(e.exit_code, 0, JSON.stringify(e));
  }
  const r = await type("echo typed > typed.txt\n");
  isBlocked(r, "echo typed > typed.txt through write_stdin");
  assert.match(r.error, /typed\.txt/);
  isBlocked(await type("touch touched.txt\n"), "touch through write_stdin");
  const read = await type("cat f.txt\n");
  assert.notEqual(read.blocked, true, JSON.stringify(read));
  await new Promise((res) => setTimeout(res, 300));
  assert.ok(!existsSync(join(ws, "typed.txt")), "the refused line reached the shell");
  assert.ok(!existsSync(join(ws, "touched.txt")), "the refused line reached the shell");
  await type("exit\n");
  passed++;
}

// A verification run that outlives its call and rewrites sources while
// it runs (a Makefile whose recipe writes src*.c after a pause) is seen
// to end by a later write_stdin: it does not reset the count, so the
// next patch is still refused.  One that only builds into build/ does.
async function lateVerification(recipe, resets) {
  const ws = workspace();
  writeFileSync(join(ws, "Makefile"), `all:\n\t@sleep 1; ${recipe}\n`);
  const c = await connect(ws);
  for (let n = 1; n <= 4; n++) {
    const r = await add(c, `p${n}.txt`);
    assert.equal(r.success, true, JSON.stringify(r));
  }
  isBlocked(await add(c, "p5.txt"), "a fifth patch");
  const mk = await call(c, "exec_command", { cmd: "make", yield_time_ms: 200 });
  assert.ok(mk.session_id, `make should outlive its call: ${JSON.stringify(mk)}`);
  await new Promise((res) => setTimeout(res, 2000));
  let seen = {};
  for (let i = 0; i < 20 && !seen.is_exited; i++)
    seen = await call(c, "write_stdin", { session_id: mk.session_id, chars: "", yield_time_ms: 1000 });
  assert.equal(seen.is_exited, true, JSON.stringify(seen));
  const r = await add(c, "p5.txt");
  if (resets) assert.equal(r.success, true, `make should have verified: ${JSON.stringify(r)}`);
  else isBlocked(r, `a patch after a late make that ran \`${recipe}\``);
  passed++;
}

try {
  await lateVerification("for i in 0 1 2 3 4 5 6 7; do echo x > src$$i.c; done", false);
  await lateVerification("mkdir -p build && echo built > build/out.o", true);
  await typedCommandsAreJudged();
  await shellEditsAndRefusals();
  await sharedCounterAndConcurrentPatches();
  console.log(`${passed} passed, 0 failed`);
} catch (e) {
  console.error(e);
  console.log(`${passed} passed, 1 failed`);
  process.exitCode = 1;
} finally {
  for (const c of clients) await c.close().catch(() => {});
  await new Promise((r) => setTimeout(r, 500)); // let exit-time reports arrive
  for (const w of workspaces) removeWorkspace(w);
  if (/Sanitizer|runtime error:/.test(serverErrors)) {
    console.log("a server reported a sanitizer error (above)");
    process.exitCode = 1;
  }
}
