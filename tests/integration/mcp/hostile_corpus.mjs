// A corpus of malformed and hostile messages sent raw to `vthost serve`.
// Each entry must get exactly the answer JSON-RPC/MCP prescribe (or none),
// and after each the server must still answer a ping; at the end it must
// exit cleanly on end of input.
import { spawn } from "node:child_process";
import { readdirSync, readFileSync as readProc } from "node:fs";
import { vthostBin, makeWorkspace, removeWorkspace, serverArgs, serverEnv, ALLOW_ALL } from "./lib.mjs";

const bin = vthostBin();
const req = (id, method, params) =>
  JSON.stringify(params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params });
const call = (id, params) => req(id, "tools/call", params);
const err = (code, id = null) => ({ code, id });
const NONE = "none";
const RESULT = (id, check) => ({ result: true, id, check });

const MiB = 1024 * 1024;
const big = (n) => `{"jsonrpc":"2.0","id":"big","method":"ping","params":{"pad":"${"a".repeat(n)}"}}`;

// [name, line (string or Buffer, without its newline), expectation]
const corpus = [
  ["truncated object", "{", err(-32700)],
  ["plain words", "not json at all", err(-32700)],
  ["trailing brace", '{"jsonrpc":"2.0","id":1,"method":"ping"}}', err(-32700)],
  ["two objects on one line", '{"jsonrpc":"2.0","id":1,"method":"ping"} {}', err(-32700)],
  ["deep object nesting", '{"a":'.repeat(5000) + "1" + "}".repeat(5000), err(-32700)],
  ["deep array nesting", "[".repeat(100000), err(-32700)],
  ["single quotes", "{'jsonrpc':'2.0','id':1,'method':'ping'}", err(-32700)],
  ["NUL inside", Buffer.from('{"jsonrpc":"2.0","id":1,\0"method":"ping"}'), err(-32700)],
  ["invalid UTF-8 bytes", Buffer.from([0xff, 0xfe, 0xfd, 0x7b]), err(-32700)],
  ["unterminated string", '{"jsonrpc":"2.0","id":"abc', err(-32700)],
  ["bare string", '"ping"', err(-32600)],
  ["number", "42", err(-32600)],
  ["true", "true", err(-32600)],
  ["null", "null", err(-32600)],
  ["empty batch", "[]", err(-32600)],
  ["batch of numbers", "[1,2,3]", err(-32600)],
  ["batch of pings", `[${req(1, "ping")},${req(2, "ping")}]`, err(-32600)],
  ["empty object", "{}", err(-32600)],
  ["only jsonrpc", '{"jsonrpc":"2.0"}', err(-32600)],
  ["jsonrpc 1.0", '{"jsonrpc":"1.0","id":16,"method":"ping"}', err(-32600, 16)],
  ["jsonrpc number", '{"jsonrpc":2,"id":17,"method":"ping"}', err(-32600, 17)],
  ["no jsonrpc", '{"id":18,"method":"ping"}', err(-32600, 18)],
  ["id null", '{"jsonrpc":"2.0","id":null,"method":"ping"}', err(-32600)],
  ["id true", '{"jsonrpc":"2.0","id":true,"method":"ping"}', err(-32600)],
  ["id array", '{"jsonrpc":"2.0","id":[1],"method":"ping"}', err(-32600)],
  ["id object", '{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', err(-32600)],
  ["method null", '{"jsonrpc":"2.0","id":23,"method":null}', err(-32600, 23)],
  ["method number", '{"jsonrpc":"2.0","id":24,"method":5}', err(-32600, 24)],
  ["method empty", '{"jsonrpc":"2.0","id":25,"method":""}', err(-32600, 25)],
  ["params string", '{"jsonrpc":"2.0","id":26,"method":"ping","params":"x"}', err(-32600, 26)],
  ["params number", '{"jsonrpc":"2.0","id":27,"method":"ping","params":3}', err(-32600, 27)],
  ["params array", req(28, "tools/list", [1]), err(-32602, 28)],
  ["unknown method", req(29, "no/such/method"), err(-32601, 29)],
  ["server/discover without _meta (a 2025-era message: no such method there)", req(30, "server/discover"), err(-32601, 30)],
  ["resources/list (not offered)", req(31, "resources/list"), err(-32601, 31)],
  ["method with control char", req(32, "ping\u0007"), err(-32601, 32)],
  ["tools/call without params", req(33, "tools/call"), err(-32602, 33)],
  ["tools/call empty params", call(34, {}), err(-32602, 34)],
  ["tools/call name number", call(35, { name: 5 }), err(-32602, 35)],
  ["tools/call name empty", call(36, { name: "" }), err(-32602, 36)],
  ["tools/call arguments string", call(37, { name: "search_tools", arguments: "q" }), err(-32602, 37)],
  ["tools/call arguments array", call(38, { name: "search_tools", arguments: [1] }), err(-32602, 38)],
  ["tools/call _meta string", call(39, { name: "search_tools", arguments: { query: "x" }, _meta: "m" }), err(-32602, 39)],
  ["tools/call agent as a path", call(72, { name: "search_tools", arguments: { query: "x" }, _meta: { "vthost/agent": "/etc/passwd" } }), err(-32602, 72)],
  ["tools/call agent with ..", call(73, { name: "search_tools", arguments: { query: "x" }, _meta: { "vthost/agent": "../x" } }), err(-32602, 73)],
  ["unknown tool", call(40, { name: "no_such_tool", arguments: {} }), err(-32602, 40)],
  ["legacy tool name", call(41, { name: "unified_exec", arguments: {} }), err(-32602, 41)],
  ["tool name with path", call(42, { name: "../../etc/passwd", arguments: {} }), err(-32602, 42)],
  ["missing required argument", call(43, { name: "exec_command", arguments: {} }), RESULT(43, (r) => r.isError === true)],
  ["argument out of range", call(44, { name: "search_tools", arguments: { query: "x", limit: 99 } }), RESULT(44, (r) => r.isError === true)],
  ["unknown argument", call(45, { name: "search_tools", arguments: { query: "x", bogus: 1 } }), RESULT(45, (r) => r.isError === true)],
  ["max_output_tokens zero", call(46, { name: "search_tools", arguments: { query: "x", max_output_tokens: 0 } }), RESULT(46, (r) => r.isError === true)],
  ["setLevel bad level", req(47, "logging/setLevel", { level: "loud" }), err(-32602, 47)],
  ["setLevel no params", req(48, "logging/setLevel"), err(-32602, 48)],
  ["tools/list foreign cursor", req(49, "tools/list", { cursor: "abc" }), err(-32602, 49)],
  ["unknown notification", '{"jsonrpc":"2.0","method":"foo/bar"}', NONE],
  ["cancel of unknown request", '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"nope"}}', NONE],
  ["cancel without params", '{"jsonrpc":"2.0","method":"notifications/cancelled"}', NONE],
  ["initialized twice", '{"jsonrpc":"2.0","method":"notifications/initialized"}', NONE],
  ["response to nothing", '{"jsonrpc":"2.0","id":77,"result":{}}', NONE],
  ["error response to nothing", '{"jsonrpc":"2.0","id":78,"error":{"code":1,"message":"x"}}', NONE],
  ["result and error together", '{"jsonrpc":"2.0","id":79,"result":{},"error":{}}', err(-32600, 79)],
  ["empty line", "", NONE],
  ["blank line", "  \t ", NONE],
  ["CRLF line", req("crlf", "ping") + "\r", RESULT("crlf")],
  ["fractional id", '{"jsonrpc":"2.0","id":-1.5,"method":"ping"}', RESULT(-1.5)],
  ["large integer id", '{"jsonrpc":"2.0","id":9007199254740991,"method":"ping"}', RESULT(9007199254740991)],
  ["duplicate id keys", '{"jsonrpc":"2.0","id":80,"id":81,"method":"ping"}', RESULT(80)],
  ["escaped id", '{"jsonrpc":"2.0","id":"a\\"b\\\\c\\u00e9","method":"ping"}', RESULT('a"b\\cé')],
  ["extra members", '{"jsonrpc":"2.0","id":82,"method":"ping","x":[1,{"y":null}]}', RESULT(82)],
  ["initialize with junk params", req("i2", "initialize", { protocolVersion: 5, capabilities: "x" }),
    RESULT("i2", (r) => r.protocolVersion === "2025-11-25")],
  ["1 MiB ping", big(MiB), RESULT("big")],
  ["17 MiB line", big(17 * MiB), err(-32600)],
];

// ---- a raw line client ----------------------------------------------------
const ws = makeWorkspace(ALLOW_ALL);
const child = spawn(bin, serverArgs(ws), { env: serverEnv(), stdio: ["pipe", "pipe", "pipe"] });
let stderr = "";
child.stderr.on("data", (d) => (stderr += d));
let pending = Buffer.alloc(0);
const queue = [];
let waiter = null;
child.stdout.on("data", (d) => {
  pending = Buffer.concat([pending, d]);
  let nl;
  while ((nl = pending.indexOf(10)) >= 0) {
    const line = pending.subarray(0, nl).toString("utf8");
    pending = pending.subarray(nl + 1);
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      msg = { unparsable: line.slice(0, 200) };
    }
    queue.push(msg);
  }
  if (waiter) waiter();
});
const exited = new Promise((r) => child.on("exit", (code, signal) => r({ code, signal })));

function write(data) {
  return new Promise((resolve, reject) => {
    child.stdin.write(data, (e) => (e ? reject(e) : resolve()));
  });
}

async function next(timeoutMs = 10000) {
  const end = Date.now() + timeoutMs;
  while (!queue.length) {
    if (Date.now() > end) throw new Error("no message from the server in time");
    await new Promise((r) => {
      waiter = r;
      setTimeout(r, 50);
    });
    waiter = null;
  }
  return queue.shift();
}

// Messages other than the answer to probe `pid`, once that answer came
// and (calls run concurrently, so it may come later) `want` answers.
async function until(pid, want) {
  const got = [];
  let probed = false;
  for (;;) {
    if (probed && got.length >= want) return got;
    const m = await next();
    if (m.id === pid && m.result) probed = true;
    else if (m.method !== "notifications/message") got.push(m);
  }
}

const failures = [];
await write(req("init", "initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "corpus", version: "1" } }) + "\n");
const init = await next();
if (!init.result) throw new Error(`initialize failed: ${JSON.stringify(init)}`);
await write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');

let n = 0;
for (const [name, line, want] of corpus) {
  const pid = `probe-${n++}`;
  const data = Buffer.isBuffer(line) ? line : Buffer.from(line, "utf8");
  await write(Buffer.concat([data, Buffer.from("\n"), Buffer.from(req(pid, "ping") + "\n")]));
  let got;
  try {
    got = await until(pid, want === NONE ? 0 : 1);
  } catch (e) {
    failures.push(`${name}: ${e.message} (server no longer answers ping)`);
    break;
  }
  const show = JSON.stringify(got).slice(0, 300);
  if (want === NONE) {
    if (got.length) failures.push(`${name}: expected no answer, got ${show}`);
  } else if (want.result) {
    const m = got[0];
    if (got.length !== 1 || !m.result || m.id !== want.id || (want.check && !want.check(m.result)))
      failures.push(`${name}: expected a result for id ${JSON.stringify(want.id)}, got ${show}`);
  } else {
    const m = got[0];
    if (got.length !== 1 || !m.error || m.error.code !== want.code || m.id !== want.id || typeof m.error.message !== "string")
      failures.push(`${name}: expected error ${want.code} id ${JSON.stringify(want.id)}, got ${show}`);
  }
}

child.stdin.end();
const t0 = Date.now();
const { code, signal } = await exited;
const ms = Date.now() - t0;
if (code !== 0) failures.push(`server exit: code ${code} signal ${signal}; stderr: ${stderr.slice(0, 2000)}`);
if (ms > 3000) failures.push(`server took ${ms} ms to exit after end of input`);

// SIGTERM during a long call: the server ends promptly, and so does the
// command's process group.
{
  const srv = spawn(bin, serverArgs(ws), { env: serverEnv(), stdio: ["pipe", "pipe", "pipe"] });
  const gone = new Promise((r) => srv.on("exit", (code, signal) => r({ code, signal })));
  srv.stdout.resume();
  srv.stderr.resume();
  const pidFile = `${ws}/term.pid`;
  srv.stdin.write(req(1, "tools/call", { name: "exec_command", arguments: { cmd: `echo $$ > ${pidFile}; exec sleep 30.${process.pid}3`, yield_time_ms: 20000 } }) + "\n");
  const { existsSync, readFileSync } = await import("node:fs");
  const until = Date.now() + 10000;
  while (!(existsSync(pidFile) && readFileSync(pidFile, "utf8").trim()) && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  const pid = Number(existsSync(pidFile) ? readFileSync(pidFile, "utf8").trim() : 0);
  if (!pid) failures.push("SIGTERM case: the command did not start");
  const t1 = Date.now();
  srv.kill("SIGTERM");
  const end = await gone;
  const termMs = Date.now() - t1;
  if (end.code !== 0) failures.push(`SIGTERM case: exit code ${end.code} signal ${end.signal}`);
  if (termMs > 1500) failures.push(`SIGTERM case: the server took ${termMs} ms to exit`);
  // Commands run in their own PID namespace: the pid they print is not
  // the host's; the process is found by its unique argument instead.
  const alive = () => {
    for (const d of readdirSync("/proc")) {
      if (!/^[0-9]+$/.test(d)) continue;
      try {
        const args = readProc(`/proc/${d}/cmdline`, "utf8").split("\0");
        const stat = readProc(`/proc/${d}/stat`, "utf8");
        if (args.includes(`30.${process.pid}3`) && stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z") return true;
      } catch {}
    }
    return false;
  };
  const deadline = Date.now() + 3000;
  while (pid && alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  if (pid && alive(pid)) failures.push(`SIGTERM case: command process ${pid} still runs after the server exited`);
  console.log(`SIGTERM during a long call: server exit in ${termMs} ms`);
}
removeWorkspace(ws);

for (const f of failures) console.log(`FAIL ${f}`);
console.log(`hostile corpus: ${corpus.length} messages, ${corpus.length - failures.length} answered as expected, exit after EOF in ${ms} ms`);
process.exit(failures.length ? 1 : 0);
