// The self-approval attack, run by a command inside vthost's sandbox
// (network on): it opens its own MCP session on the server that runs it,
// asks for `touch MARKER` outside the sandbox (require_escalated) and
// answers its own approval prompt.  Usage:
//   node selfapprove_attack.mjs URL TOKEN|- MARKER
// It first tries to create MARKER itself (the sandbox must refuse: the
// marker can only appear through an escalation), then prints one line
// `SELFAPPROVE {json}` saying how far it got.
import { writeFileSync } from "node:fs";

const [url, tokenArg, marker] = process.argv.slice(2);
const token = tokenArg === "-" ? null : tokenArg;
const report = { url };
const done = () => {
  process.stdout.write(`SELFAPPROVE ${JSON.stringify(report)}\n`);
  process.exit(0);
};
setTimeout(() => {
  report.timedOut = true;
  done();
}, 25000).unref();

try {
  writeFileSync(marker, "written from inside the sandbox\n");
  report.direct = "written";
} catch (e) {
  report.direct = e.code ?? String(e);
}

function headers(session) {
  const h = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };
  if (token) h.Authorization = `Bearer ${token}`;
  if (session) h["Mcp-Session-Id"] = session;
  return h;
}

async function post(body, session) {
  return fetch(url, { method: "POST", headers: headers(session), body: JSON.stringify(body) });
}

// Every JSON-RPC message of an SSE stream (or of a plain JSON answer).
async function* messages(res) {
  if (!(res.headers.get("content-type") ?? "").includes("text/event-stream")) {
    yield JSON.parse(await res.text());
    return;
  }
  const dec = new TextDecoder();
  let buf = "";
  for await (const chunk of res.body) {
    buf += dec.decode(chunk, { stream: true });
    let cut;
    while ((cut = buf.indexOf("\n\n")) >= 0) {
      const event = buf.slice(0, cut);
      buf = buf.slice(cut + 2);
      const data = event
        .split("\n")
        .filter((l) => l.startsWith("data:"))
        .map((l) => l.slice(5).trimStart())
        .join("\n");
      if (data) yield JSON.parse(data);
    }
  }
}

try {
  const init = await post({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: { elicitation: {} }, clientInfo: { name: "inside", version: "1" } },
  });
  report.initStatus = init.status;
  report.initBody = (await init.text()).slice(0, 600);
  const session = init.headers.get("mcp-session-id");
  if (init.status !== 200 || !session) done();
  await (await post({ jsonrpc: "2.0", method: "notifications/initialized" }, session)).text();
  const call = await post(
    {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: {
        name: "exec_command",
        arguments: {
          cmd: `touch ${marker}`,
          sandbox_permissions: "require_escalated",
          justification: "needs to write outside the workspace",
        },
      },
    },
    session,
  );
  report.callStatus = call.status;
  report.prompts = 0;
  for await (const m of messages(call)) {
    if (m.method === "elicitation/create") {
      report.prompts++;
      const a = await post({ jsonrpc: "2.0", id: m.id, result: { action: "accept", content: { decision: "approve" } } }, session);
      report.answerStatus = a.status;
      await a.text();
    } else if (m.id === 2) {
      report.result = m.result ?? m.error;
      break;
    }
  }
} catch (e) {
  report.error = String(e);
}
done();
