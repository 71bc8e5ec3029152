// An MCP SDK client (tests/integration/mcp/node_modules) for `vthost
// serve` started the way agents start it: chosen working directory, chosen
// arguments, roots or none, stderr captured.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { requireClients, vthostBin, nodeModules } from "../mcp/lib.mjs";

requireClients();
const sdk = (p) => import(pathToFileURL(join(nodeModules, "@modelcontextprotocol/sdk/dist/esm", p)).href);
const { Client } = await sdk("client/index.js");
const { StdioClientTransport } = await sdk("client/stdio.js");
export const types = await sdk("types.js");
export const bin = vthostBin();

// A scratch tree: a home with a user config allowing `allow`
// (the user's config is trusted, so no workspace trust is involved).
// `allow` may only name installed tools: a rule naming a tool that is not
// installed is a configuration error that stops the host.
export function scratch(allow = ["exec_command", "search_tools"]) {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "vthost-serve-")));
  const home = join(root, "home");
  mkdirSync(join(home, ".config", "vtcode"), { recursive: true });
  writeFileSync(
    join(home, ".config", "vtcode", "vtcode.toml"),
    `[permissions]\nallow = ${JSON.stringify(allow)}\n`,
  );
  const dir = (name) => {
    const d = join(root, name);
    mkdirSync(d, { recursive: true });
    return d;
  };
  return { root, home, dir, remove: () => rmSync(root, { recursive: true, force: true }) };
}

// connect({cwd, args, home, roots}): roots undefined = no roots capability.
export async function connect({ cwd, args = [], home, roots }) {
  const transport = new StdioClientTransport({
    command: bin,
    args: [...args, "serve"],
    cwd,
    env: { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, ".config") },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (d) => (stderr += d));
  const capabilities = roots ? { roots: { listChanged: false } } : {};
  const client = new Client({ name: "vthost-serve-test", version: "1.0.0" }, { capabilities });
  let asked = 0;
  if (roots) {
    client.setRequestHandler(types.ListRootsRequestSchema, async () => {
      asked++;
      return { roots: roots.map((r) => (typeof r === "string" ? { uri: r } : r)) };
    });
  }
  const logs = [];
  client.setNotificationHandler(types.LoggingMessageNotificationSchema, (n) => logs.push(n.params));
  await client.connect(transport);
  client.logs = logs;
  client.stderrText = () => stderr;
  client.rootsAsked = () => asked;
  return client;
}

export const text = (r) => r.content?.[0]?.text ?? "";
export const fileUri = (p) => pathToFileURL(p).href;

// The directory a command runs in: the workspace.
export async function pwd(client) {
  const r = await client.callTool({ name: "exec_command", arguments: { cmd: "pwd" } });
  return { r, dir: r.isError ? null : (r.structuredContent?.output ?? "").trim() };
}
