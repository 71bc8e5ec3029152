// The MCP conformance suite (pinned 0.1.13) against `vthost serve`
// through the stdio-to-HTTP bridge: server-initialize, ping, tools-list
// and logging-set-level must pass.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { requireClients, vthostBin, makeWorkspace, removeWorkspace, serverArgs, ALLOW_ALL, nodeModules } from "./lib.mjs";

requireClients();
const bin = vthostBin();
const { startBridge } = await import("./bridge.mjs");

const scenarios = ["server-initialize", "ping", "tools-list", "logging-set-level"];
const cli = join(nodeModules, "@modelcontextprotocol", "conformance", "dist", "index.js");
const ws = makeWorkspace(ALLOW_ALL);
const bridge = await startBridge(bin, serverArgs(ws), process.env);
const failed = [];
try {
  // One suite process per scenario, in parallel (each gets its own
  // session, so its own vthost): the suite's exit status and summary tell.
  const run = (sc) =>
    new Promise((resolve) => {
      const p = spawn(process.execPath, [cli, "server", "--url", bridge.url, "--scenario", sc], {
        cwd: ws,
        env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" },
      });
      let stdout = "", stderr = "";
      p.stdout.on("data", (d) => (stdout += d));
      p.stderr.on("data", (d) => (stderr += d));
      const t = setTimeout(() => p.kill("SIGKILL"), 120000);
      p.on("close", (status) => {
        clearTimeout(t);
        resolve({ sc, status, stdout, stderr });
      });
    });
  for (const r of await Promise.all(scenarios.map(run))) {
    const text = `${r.stdout || ""}${r.stderr || ""}`;
    process.stdout.write(text.split("\n").map((l) => `  [${r.sc}] ${l}`).join("\n") + "\n");
    // "Passed: 1/1, 0 failed, 0 warnings" (or "Total: N passed, N failed")
    const m = /Passed:\s*(\d+)\/(\d+),\s*(\d+)\s*failed/.exec(text);
    const t = /Total:\s*(\d+)\s*passed,\s*(\d+)\s*failed/.exec(text);
    const ok = m ? Number(m[1]) > 0 && m[1] === m[2] && m[3] === "0" : t ? Number(t[1]) > 0 && t[2] === "0" : false;
    if (r.status !== 0 || !ok) failed.push(r.sc);
  }
} finally {
  await bridge.close();
  removeWorkspace(ws);
}
if (failed.length) {
  console.log(`conformance: FAILED scenarios: ${failed.join(", ")}`);
  process.exit(1);
}
console.log(`conformance: all ${scenarios.length} server scenarios pass (${scenarios.join(", ")})`);
