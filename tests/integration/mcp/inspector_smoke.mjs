// Smoke test with @modelcontextprotocol/inspector-cli (pinned 1.0.3):
// tools/list and tools/call against `vthost serve`.  The inspector must
// run as `node index.js` from inside its own build/ folder, with the
// server command first and its own flags after.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { requireClients, vthostBin, makeWorkspace, removeWorkspace, serverArgs, catalogDir, ALLOW_ALL, nodeModules } from "./lib.mjs";

requireClients();
const bin = vthostBin();
const buildDir = join(nodeModules, "@modelcontextprotocol", "inspector-cli", "build");
const ws = makeWorkspace(ALLOW_ALL);
const failures = [];

function inspector(args) {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, ["index.js", bin, ...args], { cwd: buildDir, env: process.env });
    let out = "", err = "";
    p.stdout.on("data", (d) => (out += d));
    p.stderr.on("data", (d) => (err += d));
    const t = setTimeout(() => p.kill("SIGKILL"), 60000);
    p.on("close", (code) => {
      clearTimeout(t);
      let json = null;
      try {
        json = JSON.parse(out);
      } catch {}
      resolve({ code, out, err, json });
    });
  });
}

function check(cond, what, r) {
  if (!cond) failures.push(`${what}\n  exit ${r.code}\n  stdout: ${r.out.slice(0, 1500)}\n  stderr: ${r.err.slice(0, 1500)}`);
}

const plugins = catalogDir() && existsSync(catalogDir()) ? [catalogDir()] : [];
const server = serverArgs(ws, { pluginDirs: plugins });
try {
  let r = await inspector([...server, "--method", "tools/list"]);
  const names = r.json?.tools?.map((t) => t.name);
  check(r.code === 0 && JSON.stringify(names) === JSON.stringify(["exec_command", "write_stdin", "apply_patch", "search_tools"]),
    `tools/list: expected the four default tools, got ${JSON.stringify(names)}`, r);

  r = await inspector([...server, "--method", "tools/call", "--tool-name", "exec_command", "--tool-arg", "cmd=echo inspector-$((40+2))"]);
  check(r.code === 0 && r.json && !r.json.isError && /inspector-42/.test(r.json.structuredContent?.output ?? ""),
    "tools/call exec_command: expected output inspector-42", r);

  // --tool-arg JSON-parses the value: limit arrives as a number.
  if (plugins.length) {
    r = await inspector([...server, "--method", "tools/call", "--tool-name", "search_tools", "--tool-arg", "query=github", "limit=3"]);
    check(r.code === 0 && r.json && !r.json.isError && r.json.structuredContent?.count === 3,
      "tools/call search_tools: expected 3 github tools from the catalog fixture", r);
  } else {
    failures.push(`catalog fixture plugin not found in ${catalogDir()}: build vtplugin_catalog_fixture`);
  }
} finally {
  removeWorkspace(ws);
}
for (const f of failures) console.log(`FAIL ${f}`);
console.log(`inspector-cli smoke: ${failures.length ? "FAILED" : "tools/list and tools/call answered"}`);
process.exit(failures.length ? 1 : 0);
