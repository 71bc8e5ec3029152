// Each client of one `vthost serve --http` gets search_tools results worded
// for itself: a session that initialized as Claude Code ("claude-code")
// gets each tool's client_name, a session of another client on the same
// server, searching at the same time, gets none; and a 2026-07-28 request
// is worded for the client its own _meta names.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { startServer, connect, cleanup, post } from "./http_lib.mjs";

after(cleanup);

const srv = await startServer({ toml: '[permissions]\nallow = ["search_tools"]\n' });
const QUERY = { query: "run a shell command", limit: 2 };

test("two sessions at once: each is worded for its own client", async () => {
  const claude = await connect(srv, { name: "claude-code" });
  const other = await connect(srv, { name: "other-client" });
  for (let round = 0; round < 3; round++) {
    const [a, b] = await Promise.all([
      claude.callTool({ name: "search_tools", arguments: QUERY }),
      other.callTool({ name: "search_tools", arguments: QUERY }),
    ]);
    const exec = a.structuredContent.tools.find((t) => t.name === "exec_command");
    assert.equal(exec.client_name, "mcp__vthost__exec_command");
    assert.match(a.structuredContent.client_names, /^Claude Code shows this server's tools/);
    for (const t of b.structuredContent.tools) assert.equal(t.client_name, undefined);
    assert.equal(b.structuredContent.client_names, undefined);
  }
});

test("2026-07-28: the request's own clientInfo", async () => {
  const call = (clientInfo, id) =>
    post(srv, {
      jsonrpc: "2.0", id, method: "tools/call",
      params: { name: "search_tools", arguments: QUERY,
        _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {},
          "io.modelcontextprotocol/clientInfo": clientInfo } },
    }, { headers: { "MCP-Protocol-Version": "2026-07-28", Accept: "application/json" } });
  const codex = await call({ name: "codex-mcp-client", version: "0.171.0" }, 1);
  assert.equal(codex.status, 200, codex.text);
  const sc = codex.json.result.structuredContent;
  assert.equal(sc.tools.find((t) => t.name === "exec_command").client_name, "mcp__vthost__exec_command");
  assert.match(sc.client_names, /^Codex shows this server's tools/);
  const other = await call({ name: "other-client", version: "1" }, 2);
  assert.equal(other.status, 200, other.text);
  assert.equal(other.json.result.structuredContent.client_names, undefined);
});
