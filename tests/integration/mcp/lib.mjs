// Shared helpers of the MCP client tests: where vthost and its plugins
// are, scratch workspaces, and a clear failure when the pinned npm
// packages were not installed.
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const here = dirname(fileURLToPath(import.meta.url));
export const nodeModules = join(here, "node_modules");

// Fail (never skip) when the test clients are missing.
export function requireClients() {
  const sdk = join(nodeModules, "@modelcontextprotocol", "sdk", "package.json");
  if (!existsSync(sdk)) {
    console.error(
      `MCP test clients are not installed (${nodeModules} is missing).\n` +
        `Run the project's setup (./setup.sh test), or: npm ci --prefix ${here}`,
    );
    process.exit(1);
  }
}

export function vthostBin() {
  const bin = process.env.VTHOST_BIN;
  if (!bin || !existsSync(bin)) {
    console.error(`VTHOST_BIN is not set to the built vthost (got ${bin})`);
    process.exit(1);
  }
  return bin;
}

// The catalog fixture plugin's directory (deferred tools for list_changed).
export function catalogDir() {
  return process.env.VTHOST_CATALOG_DIR || "";
}

// A scratch workspace with a vtcode.toml (its text given).
export function makeWorkspace(toml = "") {
  const dir = mkdtempSync(join(tmpdir(), "vthost-mcp-"));
  if (toml) writeFileSync(join(dir, "vtcode.toml"), toml);
  return dir;
}

export function removeWorkspace(dir) {
  rmSync(dir, { recursive: true, force: true });
}

// Allows the default tools without prompts, so calls run unattended.
export const ALLOW_ALL = `[permissions]
allow = ["exec_command", "write_stdin", "apply_patch", "search_tools", "code_search"]
`;

// The server's environment: everything of ours (the SDK client would
// otherwise pass only HOME, PATH, ...) so sanitizer options reach it.
export function serverEnv(extra = {}) {
  return { ...process.env, ...extra };
}

export function serverArgs(workspace, { profile, pluginDirs = [] } = {}) {
  const args = ["--workspace", workspace];
  // the workspace's own vtcode.toml, named so its allow rules apply
  // (an untrusted workspace's allow rules are ignored)
  if (existsSync(join(workspace, "vtcode.toml"))) args.push("--config", join(workspace, "vtcode.toml"));
  if (profile) args.push("--profile", profile);
  for (const d of pluginDirs) args.push("--plugin-dir", d);
  args.push("serve");
  return args;
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
export const text = (r) => r.content?.[0]?.text ?? "";

function readdirSafe(d) {
  try {
    return readdirSync(d);
  } catch {
    return [];
  }
}

// Commands run in their own PID namespace: the pid they print is not the
// host's.  A process is found by an argument no other process has.
export function aliveMarker(marker) {
  for (const d of readdirSafe("/proc")) {
    if (!/^[0-9]+$/.test(d)) continue;
    try {
      const args = readFileSync(`/proc/${d}/cmdline`, "utf8").split("\0");
      const stat = readFileSync(`/proc/${d}/stat`, "utf8");
      if (args.includes(marker) && stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z") return true;
    } catch {}
  }
  return false;
}
