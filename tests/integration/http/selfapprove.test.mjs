// No command approves its own escalation: a command that vthost runs in
// its sandbox with the network on, knowing the server's URL and bearer
// token, opens its own MCP session on that server, asks to run
// `touch MARKER` outside the sandbox and answers its own prompt.  The
// server refuses the command's connection before authentication (403,
// the reason in the server log), with and without the token, under the
// `ask` and `sandboxed` presets; MARKER (in a directory the sandbox cannot
// write) never appears.  A client outside the sandbox, same user, same
// loopback address, is served as before, its own escalation included,
// and the audit record of that approval names its session and principal.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { networkInterfaces } from "node:os";
import { join } from "node:path";
import { startServer, connect, cleanup, sdk, initSession, post } from "./http_lib.mjs";

after(cleanup);

const NET_ON = `[sandbox]
network_access = true
`;

// Outside the workspace and outside /tmp: not writable in the sandbox.
const scratch = mkdtempSync("/var/tmp/vthost-selfapprove-");
after(() => rmSync(scratch, { recursive: true, force: true }));

let n = 0;
async function attack({ approval, withToken, everywhere = false }) {
  // everywhere: listening on 0.0.0.0 (behind a TLS proxy, as public_url
  // says), so the command can come in by another address of the machine
  const srv = await startServer({
    toml: NET_ON,
    extraArgs: ["--approval", approval],
    ...(everywhere && { listen: "0.0.0.0:0", httpToml: `public_url = "https://vthost.example/mcp"\n` }),
  });
  if (everywhere) {
    const port = srv.stderr().match(/listening on http:\/\/\S+:(\d+)\//)[1];
    srv.url = `http://127.0.0.1:${port}/mcp`;
    srv.inside = `http://${everywhere}:${port}/mcp`;
  }
  const marker = join(scratch, `escalated-${++n}`);
  copyFileSync(join(import.meta.dirname, "selfapprove_attack.mjs"), join(srv.ws, "attack.mjs"));
  const { ElicitRequestSchema } = await sdk("types.js");
  const c = await connect(srv, { capabilities: { elicitation: {} } });
  // The person at the outside client approves the harmless-looking
  // command (under `ask`) and nothing else.
  const asked = [];
  c.setRequestHandler(ElicitRequestSchema, async (req) => {
    asked.push(req.params.message);
    const escalation = /require_escalated|outside the sandbox|touch /.test(req.params.message);
    return { action: "accept", content: { decision: escalation ? "deny" : "approve" } };
  });
  const cmd = `${JSON.stringify(process.execPath)} attack.mjs ${srv.inside ?? srv.url} ${withToken ? srv.token : "-"} ${marker}`;
  const r = await c.callTool({ name: "exec_command", arguments: { cmd, yield_time_ms: 30000 } });
  const out = r.structuredContent?.output ?? "";
  const line = out.split("\n").find((l) => l.startsWith("SELFAPPROVE "));
  assert.ok(line, `the attack script ran: ${JSON.stringify(r)}`);
  const report = JSON.parse(line.slice("SELFAPPROVE ".length));
  return { srv, marker, report, asked };
}

for (const approval of ["ask", "sandboxed"]) {
  for (const withToken of [true, false]) {
    test(`a sandboxed command cannot approve its own escalation (--approval ${approval}, ${withToken ? "with" : "without"} the token)`, async () => {
      const { srv, marker, report, asked } = await attack({ approval, withToken });
      // the sandbox alone keeps the command from writing the marker
      assert.notEqual(report.direct, "written", "the sandbox let the command write outside the workspace");
      assert.ok(!existsSync(marker), `the escalated command ran, the marker exists: ${JSON.stringify(report)}`);
      // refused before authentication: 403 whatever the token
      assert.equal(report.initStatus, 403, `the server answered the command: ${JSON.stringify(report)}`);
      assert.match(report.initBody, /started by this vthost/);
      assert.equal(report.callStatus, undefined, "no call was made");
      // only the outside client's own command was put to the person
      assert.equal(asked.length, approval === "ask" ? 1 : 0, asked.join("\n---\n"));
      assert.match(srv.stderr(), /refused a connection from 127\.0\.0\.1:\d+: .*process \d+/);
      assert.match(srv.stderr(), /"status":403/);
    });
  }
}

// The machine's own address, not loopback: the same refusal.
const lan = Object.values(networkInterfaces())
  .flat()
  .find((a) => a.family === "IPv4" && !a.internal)?.address;
test("a sandboxed command cannot approve its own escalation through another address of the machine", { skip: !lan && "no non-loopback IPv4 address" }, async () => {
  const { srv, marker, report } = await attack({ approval: "sandboxed", withToken: true, everywhere: lan });
  assert.ok(!existsSync(marker), `the escalated command ran, the marker exists: ${JSON.stringify(report)}`);
  assert.equal(report.initStatus, 403, JSON.stringify(report));
  assert.match(srv.stderr(), new RegExp(`refused a connection from ${lan.replace(/\./g, "\\.")}:\\d+: .*process \\d+`));
});

test("a client outside the sandbox on the same loopback address and user is served, its escalation included", async () => {
  const srv = await startServer({ toml: `${NET_ON}[permissions]\naudit_enabled = true\n`, extraArgs: ["--approval", "sandboxed"] });
  const marker = join(scratch, `outside-${++n}`);
  const { ElicitRequestSchema } = await sdk("types.js");
  const c = await connect(srv, { capabilities: { elicitation: {} } });
  let asked = 0;
  c.setRequestHandler(ElicitRequestSchema, async () => {
    asked++;
    return { action: "accept", content: { decision: "approve" } };
  });
  const r = await c.callTool({
    name: "exec_command",
    arguments: { cmd: `touch ${marker}`, sandbox_permissions: "require_escalated", justification: "test" },
  });
  assert.notEqual(r.isError, true, JSON.stringify(r));
  assert.equal(asked, 1);
  assert.ok(existsSync(marker), "the approved escalation ran");
  // the audit record of the approval names the session that was asked
  // and the principal it authenticated as
  const records = readFileSync(join(srv.ws, ".vtcode/audit/permissions.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  const approval = records.find((r) => r.via === "prompt" && r.prompt === "approved");
  assert.ok(approval, JSON.stringify(records));
  assert.equal(approval.session, c.transportRef.sessionId);
  assert.equal(approval.principal, "token");
  const h = await fetch(`${srv.base}/healthz`);
  assert.equal(h.status, 200);
  assert.doesNotMatch(srv.stderr(), /refused a connection/);
});

// Only the session that made the call answers its prompt: another session
// of the same token that sends an approval under the prompt's id (in its
// own session, the only one it can name) approves nothing.
test("another session's answer to a call's prompt approves nothing", async () => {
  const srv = await startServer({ toml: NET_ON, extraArgs: ["--approval", "sandboxed"] });
  const marker = join(scratch, `other-${++n}`);
  const { ElicitRequestSchema } = await sdk("types.js");
  const c = await connect(srv, { capabilities: { elicitation: {} } });
  const other = await initSession(srv);
  const forged = [];
  c.setRequestHandler(ElicitRequestSchema, async (req, extra) => {
    const answer = { action: "accept", content: { decision: "approve" } };
    forged.push((await post(srv, { jsonrpc: "2.0", id: extra.requestId, result: answer }, { session: other })).status);
    return { action: "accept", content: { decision: "deny" } };
  });
  const r = await c.callTool({
    name: "exec_command",
    arguments: { cmd: `touch ${marker}`, sandbox_permissions: "require_escalated", justification: "test" },
  });
  assert.equal(forged.length, 1);
  assert.equal(r.isError, true, JSON.stringify(r));
  assert.ok(!existsSync(marker), "the other session's answer approved the escalation");
});
